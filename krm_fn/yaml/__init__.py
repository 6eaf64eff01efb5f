"""The YAML layer: everything that reads or writes YAML text, and the only place that imports
a YAML parser. Imports only core. Which module to touch for what:

- `document`: the Document interface the layers above edit objects through (light,
  written and round-trip documents) and its document-level functions (`plain`,
  `new_block`, `new_entry`). Start here.
- `light/`: the light reader of plain block YAML: `parser` (an object's entries and their
  positions), `dataread` (the same reading, data only: read-backs, and objects likely left
  unchanged), `scalars` (the scalars it takes and how it types them), `multiline`
  (quoted and block scalars over several lines), `peek` (one field read without the rest),
  `check` (whether an object nobody edits is YAML, no data built: the syntax check).
- `splice/`: the one splicing writer of an edited object: `splicer` (the walk and its
  rules), `positions` (where each node is: the light reader's or libyaml's), `newtext`
  (the text of new entries, written for the light reader's data).
- `roundtrip/`: ruamel.yaml, the comment-preserving round trip, and the only place that
  imports it: `loader` (load, dump, verify), `comments` (edits that keep comments in
  place), `entries` (ruamel's emitter writing new entries for the splicer).
- `guards`: bounded loading (depth, aliases, surrogates), parser errors as one-line
  messages, and `load_plain`, the one way to read a text to plain data.
- `libyaml`: libyaml's C parser: whether a text parses, its node graph (with marks, for the
  splicer), its tags.
- `field_position`: where a field path's key is in a document (line and column), for messages.
- `emitter`: the small block emitter of plain data and YAML 1.1-safe quoting.
- `placeholder`: the placeholder StatefulSet written by a writer made for its shape (the
  emitter's bytes, its repeating parts written once), and whether a text it wrote is YAML by
  construction (`proven`: files mode then does not read it again with libyaml).
- `plain`: a parsed tree as plain data. `layout`: lines, indentation, entries of a text.
"""
