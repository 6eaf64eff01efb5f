"""The ways the function is run: a ResourceList on stdin (`krm`), the files of packages
(`files`, with `dependents`: which files are rendered with the named ones), the kustomize
plugin (`kustomize`), and the plan (`explain`). Imports every layer below."""
