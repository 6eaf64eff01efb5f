"""Items and lists: an item of a ResourceList or a file, the scanner that finds items in a
stream, the ResourceList reader and writer, and the packages of a tree of files. Imports
yaml and core."""
