"""YAML machinery: reading (the light reader, the round-trip loader behind the guards),
writing (the emitter, the splicing writer) and the Document interface the layers above
use. Imports only core."""
