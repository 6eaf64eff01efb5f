"""The round trip: ruamel.yaml's comment-preserving loader and emitter (`loader`) and the
edits of its trees that keep comments where they were (`comments`). Imported when first
used: most runs never need it."""
