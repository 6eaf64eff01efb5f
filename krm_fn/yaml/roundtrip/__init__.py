"""The round trip: ruamel.yaml's comment-preserving loader and emitter (`loader`), the edits
of its trees that keep comments where they were (`comments`), and its emitter writing new
entries for the splicing writer (`entries`). The only modules that import ruamel.yaml itself
(yaml/libyaml uses ruamel.yaml.clib's libyaml); imported when first used: most runs never
need it."""
