"""The light reader: plain block YAML as CI manifests are written, read without the
round-trip loader, each entry with its lines and comments (the splicer's positions).
`parser` reads an object (`dataread`: its data alone), `scalars` and `multiline` its scalars, `peek` one field, `check`
says whether an object is YAML without reading it; anything
it is not sure of raises errors.Unsure and goes to the round-trip loader."""
