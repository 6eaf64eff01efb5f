"""The ways the function is run: a ResourceList on stdin (krm), the files of packages
(files, streams), the kustomize plugin, and explain. Imports every layer below."""
