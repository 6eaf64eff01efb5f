"""The one splicing writer: an edited object written back as its own text with only the
changed entries replaced. `splicer` walks the object with the rules, over `positions` (the
light reader's, or libyaml's node marks for round-trip items), with new lines from
`newtext`."""
