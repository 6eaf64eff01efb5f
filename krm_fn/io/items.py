"""The ResourceList and its items: identity (`Meta`), the exact input text, and the parsed
`Document` once a transform needs it.

An item's text is one `- ` entry of `items`, from its head comments to its last line, exactly
as it came. `Item.load` parses it: with the light reader when the caller allows it and the
text is in its form, else with the round-trip loader. `Item.render` gives the entry back: the
input text when nothing changed, else what its document writes.
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.errors import InputError
from krm_fn.core.errors import Unsure
from krm_fn.core.record import Record
from krm_fn.yaml import guards
from krm_fn.yaml import layout as layout_mod
from krm_fn.yaml import libyaml
from krm_fn.yaml.document import Document
from krm_fn.yaml.document import LightDocument
from krm_fn.yaml.document import RoundTripDocument
from krm_fn.yaml.document import unentry
from krm_fn.yaml.layout import detect_indent
from krm_fn.yaml.light import dataread
from krm_fn.yaml.light import parser
from krm_fn.yaml.light import peek

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


class Meta(Record):
    __slots__ = (
        "api_version", "kind", "name", "namespace", "generate_name", "annotations", "is_mapping", "duplicates",
    )

    def __init__(
        self,
        api_version: str = "",
        kind: str = "",
        name: str = "",
        namespace: str = "",
        generate_name: str = "",
        annotations: dict[str, str] | None = None,
        is_mapping: bool = True,
        duplicates: tuple[str, ...] = (),
    ) -> None:
        self.api_version = api_version
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.generate_name = generate_name
        self.annotations: dict[str, str] = {} if annotations is None else annotations
        self.is_mapping = is_mapping
        # identity keys the object has twice (apiVersion, kind, metadata.name...): readers
        # disagree on which one counts (kpt keeps the first, others the last)
        self.duplicates = duplicates

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]



class Item(Record):
    """One entry of `items`. `text` is the exact input text (fast path), or None when the
    item came from a full parse (then `doc` is set from the start). `document`: the text is
    a whole YAML document (files mode and the kustomize plugin read streams of them), made
    into a `- ` entry only when the item is read, and rendered back as a document."""

    __slots__ = ("pos", "text", "meta", "complex_meta", "doc", "unreadable", "line", "document", "was_read", "lookup_only", "looked_up")

    def __init__(
        self,
        pos: int,
        text: str | None,
        meta: Meta,
        complex_meta: bool = False,
        doc: Document | None = None,
        document: bool = False,
    ) -> None:
        self.pos = pos
        self.text = text
        self.meta = meta
        # the scanner was not sure of the identity: parse the item to learn it
        self.complex_meta = complex_meta
        self.doc = doc
        self.unreadable = False  # loading it failed, and an error result says why
        # the line of the text's first line in the file the user has (None: unknown, as in a
        # list kpt serialized): parser messages are given in that file's lines
        self.line: int | None = None
        self.document = document
        self.was_read = doc is not None  # a reader took the text, or it is the emitter's (it is YAML)
        # files mode: of a file that is only context (or failed), neither written nor reported on
        self.lookup_only = False
        # something read (or tried to read) the item's data, whole or a field: files mode
        # checks the syntax of a context file only when a lookup read one of its items
        self.looked_up = False

    @property
    def node(self) -> Any:
        """The parsed object (None until loaded)."""
        return None if self.doc is None else self.doc.data

    @property
    def before(self) -> Any:
        """The object as read, as plain data (None until loaded)."""
        return None if self.doc is None else self.doc.before

    @property
    def changed(self) -> bool:
        return self.doc is not None and self.doc.changed

    def entry_text(self) -> str:
        """The text as one `- ` entry (line for line: a document's lines, indented)."""
        assert self.text is not None
        return entry_of(self.text) if self.document else self.text

    def field(self, path: tuple[str, ...]) -> Any:
        """The value at `path` (keys of nested block mappings) read off the text alone, the
        item left unread: only that field's lines are read (yaml/light/peek). None when a key on the
        path is absent or null; raises errors.Unsure when not sure (read the item then)."""
        assert self.text is not None
        self.looked_up = True
        return peek.field(self.text, self.document, path)

    def spot(self, path: tuple[str, ...]) -> Any:
        """The value at `path` of a document item, read where this function's writer puts it
        (yaml/light/peek.spot): a guess, which the caller must prove (Context.generated_field).
        Raises errors.Unsure when those lines are not there."""
        assert self.text is not None
        found = peek.spot(self.text, path)
        self.looked_up = True
        return found

    def load(self, light: bool = False, positions: bool = True) -> Any:
        """Parse this item (once): with the light reader when `light` and the text is in its
        form, else with the round-trip loader. Returns the data. `positions=False`: the
        light reader reads the data alone, its positions read when a writing needs them
        (for an item likely left unchanged: light/dataread)."""
        self.looked_up = True
        if self.doc is None:
            if light and not positions and self.document and self._read_document():
                assert self.doc is not None
                return self.doc.data
            entry = self.entry_text()
            try:
                self.doc = (_light_document(entry, positions) if light else None) or _round_trip_document(entry)
            except InputError as e:
                raise type(e)(in_file_lines(str(e), self.line)) from None
            self.was_read = True
        return self.doc.data

    def _read_document(self) -> bool:
        """load()'s data-only light reading of a document item off its own lines
        (dataread.load_document): False when that is not sure, and the entry is read then
        (the same data, or Unsure: the round trip)."""
        assert self.text is not None
        try:
            read = dataread.load_document(self.text)
        except Unsure:
            return False
        if read is None:
            return False
        self.doc = LightDocument(read[0], read[1], document=self.text)  # its entry made when asked
        self.was_read = True
        return True

    def release(self, just_written: bool = False) -> None:
        """After the item's transform: drop a light reading that nothing changed (the output
        is the item's text, and a later lookup reads the text again: the same data), or keep
        only the text of a changed one (written already: LightDocument.written; compacted
        when not written yet). A large list holds one object's reading at a time instead of
        all of them. `just_written`: the caller found it changed and rendered it just now."""
        if self.text is None or not isinstance(self.doc, LightDocument):
            return
        if not just_written and not self.doc.changed:
            self.doc = None
            return
        done = self.doc.written(fresh=just_written)
        if done is not None:
            self.doc = done
        else:
            self.doc.compact(changed=True)

    def load_round_trip(self) -> Any:
        """Parse the item's text with the round-trip loader, dropping a light reading and
        whatever was done to it."""
        self.looked_up = True
        entry = self.entry_text()
        self.doc = None  # a failed load leaves the item unloaded
        try:
            self.doc = _round_trip_document(entry)
        except InputError as e:
            raise type(e)(in_file_lines(str(e), self.line)) from None
        self.was_read = True
        return self.doc.data

    def render(self, d: int, once: bool = False) -> tuple[str, bool]:
        """(text, faithful): the entry at dash indent `d` (a document item: the document),
        the input text when unchanged. faithful is False when the round-trip emitter could
        not keep the comments. `once`: the caller releases the item right after
        (release(just_written=True)): a light document keeps nothing for a later rendering."""
        if self.text is not None and not self.changed:
            return self.text, True
        assert self.doc is not None
        light = once and self.doc.__class__ is LightDocument
        if self.document and d == 0:
            return self.doc.render_document(False) if light else self.doc.render_document()  # type: ignore[call-arg]
        text, faithful = self.doc.render(d, False) if light else self.doc.render(d)  # type: ignore[call-arg]
        return (unentry(text) if self.document else text), faithful


# a document's `- ` entry (line for line in C when it can be: layout.line_for_line)
entry_of = layout_mod.entry_of


# compiled on first use (re's cache): only a parser's error message needs them
_AT_LINE = r" at line (\d+), column (\d+)"
_LINES = r" \(lines (\d+) and (\d+)\)"


def in_file_lines(message: str, first: int | None) -> str:
    """A parser message about an item's text with its line numbers in the file's terms
    (`first`: the line of the item's first line there), or without them when that is
    unknown (under kpt: its lines are those of kpt's own serialization)."""
    if first is None:
        return patterns.sub(_LINES, "", patterns.sub(_AT_LINE, "", message))
    off = first - 1
    message = patterns.sub(_AT_LINE, lambda m: f" at line {int(m.group(1)) + off}, column {m.group(2)}", message)
    return patterns.sub(_LINES, lambda m: f" (lines {int(m.group(1)) + off} and {int(m.group(2)) + off})", message)


def light_reads(text: str) -> bool:
    """Whether the light reader takes the item's text: then it is YAML, and the round-trip
    loader reads it the same (tests/unit/yaml/light/test_parser.py), so the syntax check passes
    it without libyaml, whose binding (ruamel.yaml.clib) imports ruamel.yaml (~20 ms)."""
    return _light_read(text, False) is not None  # no document made: nothing edits the item


def _light_document(text: str, positions: bool = True) -> LightDocument | None:
    """The item read by the light reader; None when it is not sure of the text. No depth or
    alias check is needed on what it reads: it takes no anchors or aliases (a tree, each
    node once) and nothing indented deeper than parser.MAX_INDENT (which bounds the depth far
    below guards.MAX_DEPTH); a deeper object goes to the round-trip path, which names the
    deepest field."""
    read = _light_read(text, positions)
    return None if read is None else LightDocument(read[0], read[1], text)


def _light_read(text: str, positions: bool = True) -> tuple[dict[str, Any], parser.Doc | dataread.Unplaced] | None:
    """The light reader's data and layout of the item's text (`positions=False`: the data
    alone, light/dataread); None when it is not sure."""
    lines = layout_mod.split_lines(text, keepends=False)  # split once, for both
    body, c = _body(lines)
    m, s, o = detect_indent(body, c)  # reads lines with or without their newlines alike
    try:
        return (parser.load_item if positions else dataread.load_item)(text, m, s, o, lines)
    except Unsure:
        return None


def _round_trip_document(text: str) -> RoundTripDocument:
    node = parse_item_text(text)
    guards.check_limits(node, "the object")
    if "*" in text:
        unshare(node)
    return RoundTripDocument(node, detect_indent(*item_body(text)), text=text)


def unshare(root: Any) -> None:
    """Give every place of a tree its own node: a YAML alias makes two places one node
    (`affinity: *a` in a task and the run-level `&a`), and an edit meant for one of them
    (pinning one template, unpinning another) would reach both. Data unchanged; the object
    is then written with the alias expanded, and only when it changes."""
    import copy

    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for k, v in children:
            if not isinstance(v, (dict, list)):
                continue
            if id(v) in seen:
                v = copy.deepcopy(v)
                node[k] = v
            seen.add(id(v))
            stack.append(v)


class ResourceList(Record):
    """A ResourceList split into the parts the writer needs: the items, and every other
    top-level section as it came (fast path) or parsed (full parse)."""

    __slots__ = (
        "api_version", "kind", "items", "function_config_text", "function_config", "results", "fast",
        "header", "api_version_text", "kind_text", "items_indent", "order", "items_line",
        "items_trailer", "extra", "full_root", "own_paths",
    )

    def __init__(
        self,
        api_version: str,
        kind: str,
        items: list[Item],
        function_config_text: str | None,
        function_config: Any,
        results: list[Any],
        fast: bool,
        header: str = "",
        api_version_text: str = "",
        kind_text: str = "",
        items_indent: int = 0,
        order: list[str] | None = None,
        items_line: str = "items:\n",
        items_trailer: str = "",
        extra: dict[str, Any] | None = None,
        full_root: Any = None,
        own_paths: bool = False,
    ) -> None:
        self.api_version = api_version
        self.kind = kind
        self.items = items
        self.function_config_text = function_config_text  # raw `functionConfig:` section, echoed unchanged
        self.function_config = function_config  # parsed (round-trip) or None
        self.results = results  # incoming results, plain data
        self.fast = fast
        self.header = header  # comments before the first key
        self.api_version_text = api_version_text
        self.kind_text = kind_text
        self.items_indent = items_indent
        self.order: list[str] = [] if order is None else order  # top-level keys as they came
        self.items_line = items_line  # the `items:` line as written (with its comment)
        self.items_trailer = items_trailer  # comment lines after the last item, kept after generated ones
        # unknown keys: raw text (fast path) or parsed node (full parse), echoed unchanged
        self.extra: dict[str, Any] = {} if extra is None else extra
        self.full_root = full_root  # fallback: the whole parsed document
        # the path annotations are the files this run was given (files mode), not kpt's
        # package paths: a generated object goes into its run's file however it is spelled
        self.own_paths = own_paths




def meta_of(node: Any) -> Meta:
    meta = Meta()
    if not isinstance(node, dict):
        meta.is_mapping = False
        return meta
    meta.api_version = _str(node.get("apiVersion"))
    meta.kind = _str(node.get("kind"))
    md = node.get("metadata")
    if isinstance(md, dict):
        meta.name = _str(md.get("name"))
        meta.namespace = _str(md.get("namespace"))
        meta.generate_name = _str(md.get("generateName"))
        ann = md.get("annotations")
        if isinstance(ann, dict):
            meta.annotations = {str(k): str(v) for k, v in ann.items() if isinstance(v, (str, int))}
    return meta


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ("" if v is None else str(v))


# --------------------------------------------------------------------------- item text


def _child_indent(body: list[str]) -> int:
    for line in body:
        if not layout_mod.is_blank_or_comment(line):
            return layout_mod.indent_of(line)
    return -1


def item_body(chunk: str) -> tuple[list[str], int]:
    """The item's lines from the dash line on, the dash turned into a space, and the indent
    of its top-level keys."""
    return _body(layout_mod.split_lines(chunk))


def _body(lines: list[str]) -> tuple[list[str], int]:
    """item_body of the item's lines (with or without their newlines)."""
    k = layout_mod.dash_index(lines)
    d = layout_mod.indent_of(lines[k])
    after = lines[k][d + 1 :].lstrip(" ")
    if after.strip() and not after.startswith("#"):
        c = len(lines[k]) - len(after)
        return [" " * c + after] + lines[k + 1 :], c
    body = lines[k + 1 :]
    c = _child_indent(body)
    return body, c if c >= 0 else d + 2


def check_syntax(chunk: str) -> None:
    """Raise YamlSyntaxError when `chunk` (an item's text) is not YAML. libyaml (YAML 1.1)
    and the round-trip loader (YAML 1.2) differ at the edges, so what libyaml refuses is
    refused only when the round-trip loader refuses it too: this check never rejects what
    the rest of the function accepts."""
    guards.check_flow_depth(chunk, "the object")
    if not libyaml.reads(chunk):
        parse_item_text(chunk)


def parse_item_text(chunk: str) -> Any:
    """Parse one item chunk alone with the round-trip loader: drop its `- ` and the sequence
    indentation. Raises InputError (YamlSyntaxError when it is not YAML)."""
    text, _ = layout_mod.item_document(chunk)
    return guards.load_guarded(text, "the object", limits=False)
