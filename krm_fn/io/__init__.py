"""Reading and writing: the one reader of every file the function opens (`reader`) and the
one atomic writer (`writer`); ResourceLists (`resourcelist`, `scanner`, `identity`, `items`);
multi-document files and streams (`streams` reads them into items, `streamwrite` writes them
back, `textdiff` for `--diff`); the packages of a tree of files (`packages`). Imports yaml
and core."""
