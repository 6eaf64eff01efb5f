"""Multi-document YAML streams (kustomize plugin mode and files mode).

A stream is split into documents without touching their bytes. Every document that is a
Kubernetes object becomes one ResourceList item, so the stream goes through the same
`process.process()` as a ResourceList on stdin. Afterwards each document is written back as
its exact input bytes unless the function changed it; generated objects are appended to the
stream that holds their run (kpt's path annotation, set here in memory only, says which).
"""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.errors import InputError
from krm_fn.core.errors import Unsure
from krm_fn.core.errors import short
from krm_fn.core.keys import INDEX_KEY
from krm_fn.core.keys import LOCATION_KEYS
from krm_fn.core.keys import PATH_KEY
from krm_fn.core.record import Record
from krm_fn.io import headers
from krm_fn.io import identity
from krm_fn.io import items as items_mod
from krm_fn.io.items import Item
from krm_fn.io.items import ResourceList
from krm_fn.yaml import guards
from krm_fn.yaml import layout
from krm_fn.yaml import libyaml
from krm_fn.yaml.document import RoundTripDocument
from krm_fn.yaml.light import parser
from krm_fn.yaml.plain import to_plain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


class Doc(Record):
    """One document: `sep` is everything before it (separator lines, directives,
    comment-only documents), `body` its own text. Both are raw (line endings as read)."""

    __slots__ = ("sep", "body", "number", "item", "location", "line", "stand_ins", "tags")

    def __init__(
        self,
        sep: str,
        body: str,
        number: int,
        item: Item | None = None,
        location: dict[str, str] | None = None,
        line: int = 1,
    ) -> None:
        self.sep = sep
        self.body = body
        self.number = number  # 0-based among the stream's documents
        self.item = item  # None: not a Kubernetes object, passed through
        self.location: dict[str, str] = {} if location is None else location  # its own path/index annotations
        self.line = line  # of the body's first line in the file
        self.stand_ins = False  # its item's text holds STAND_INS for odd line breaks (_with_stand_ins)
        self.tags: dict[str, str] = {}  # verbatim tag in its item's text -> as written (_verbatim_tags)


class Stream(Record):
    """A split stream. `name` is the path annotation of its documents (None for stdin).
    `cr`: every line of the text ends in a lone CR (classic Mac OS); its documents, separators
    and tail are held with LF line ends, and apply() writes them back with CR."""

    __slots__ = ("name", "docs", "tail", "newline", "bom", "raw", "deferred", "cr")

    def __init__(
        self,
        name: str | None,
        docs: list[Doc],
        tail: str,
        newline: str = "\n",
        bom: str = "",
        raw: str = "",
        cr: bool = False,
    ) -> None:
        self.name = name
        self.docs = docs
        self.tail = tail
        self.newline = newline
        self.bom = bom
        self.raw = raw
        self.deferred = False  # made into items without the syntax check: see check_deferred
        self.cr = cr

    @property
    def items(self) -> list[Item]:
        return [d.item for d in self.docs if d.item is not None]


# The lines split() must look at: document markers (`---`, `...` alone or followed by a blank;
# CRs before the line end are the line end's) and directive lines (`%`). Every other line is
# body text, skipped in C.
_SPECIAL_LINE_RE = patterns.compile(r"^(?:(?:---|\.\.\.)(?:[ \t][^\n]*|\r*)|%[^\n]*)$", patterns.M)
# a line of content: not blank, not a comment (what `x.strip() and not x.lstrip().startswith("#")`
# says of a line: \s is str.isspace's whitespace; it may skip whole blank lines to get there)
_CONTENT_LINE_RE = patterns.compile(r"^\s*[^#\s]", patterns.M)


def special_lines(text: str) -> list[patterns.Match[str]]:
    """_SPECIAL_LINE_RE.finditer(text), in order: the regular expression is tried only
    where a line starts with `---`, `...` or `%`, found by substring search (a `^` pattern
    in multi-line mode is tried at every line of a 10 MB text)."""
    starts: list[int] = []
    for token in ("---", "...", "%"):
        if token == "%" and "%" not in text:
            continue  # (rare, and found by memchr)
        if text.startswith(token):
            starts.append(0)
        # from a line start: `...` alone is searched for at every dot of `app.kubernetes.io`
        at = text.find("\n" + token)
        while at >= 0:
            starts.append(at + 1)
            at = text.find("\n" + token, at + 1)
    starts.sort()
    out = []
    for at in starts:
        m = _SPECIAL_LINE_RE.match(text, at)
        if m is not None:
            out.append(m)
    return out


def split(text: str, name: str | None = None) -> Stream:
    """Split `text` into documents; `sep + body` of every document plus `tail` is `text`.

    Offsets, not lists of lines: only the marker and directive lines are visited in Python
    (a 10 MB file has 400,000 lines and a handful of markers per document)."""
    bom = ""
    if text.startswith("\ufeff"):
        bom, text = "\ufeff", text[1:]
    raw = bom + text
    if "\ufeff" in text:
        _refuse_inner_bom(text, name)
    # (one character is searched for by memchr; two, `\r\n`, at ~2 instructions a character)
    has_cr = "\r" in text
    cr = has_cr and "\n" not in text
    if cr:
        text = text.replace("\r", "\n")  # a YAML reader breaks lines at a CR as at an LF
    newline = "\r\n" if has_cr and "\r\n" in text else "\n"
    # Other line breaks a YAML reader knows (a lone CR among LF lines, NEL, the line and
    # paragraph separators) are no line ends to the patterns below: a text that holds one
    # is judged line by line as a reader splits it (a comment line cut by a lone CR may hide
    # a document's content)
    odd = _odd_breaks(text)
    docs: list[Doc] = []
    sep_at = body_at = 0  # the current separator is text[sep_at:body_at], its body text[body_at:here]
    line = 1  # the line body_at is on
    counted = 0  # text[:counted] holds line - 1 newlines

    def content(a: int, b: int) -> bool:
        """Whether text[a:b] holds a line of content (a: a line start, or the rest of a
        `--- ` marker line)."""
        if odd:
            return _holds_content(text[a:b])
        if a and text[a - 1] != "\n":
            eol = text.find("\n", a, b)
            first = text[a:b] if eol < 0 else text[a:eol]
            if first.strip() and not first.lstrip().startswith("#"):
                return True
            if eol < 0:
                return False
            a = eol + 1
        return _CONTENT_LINE_RE.search(text, a, b) is not None

    known = -1  # a body start known to have content before the last special line
    for m in special_lines(text):
        at = m.start()
        end = m.end() + 1 if m.end() < len(text) else m.end()  # with its newline
        has_body = known == body_at or content(body_at, at)
        if text.startswith("%", at):
            if has_body:
                known = body_at
                continue  # a body line (a directive belongs before a document's content)
            body_at = end
            continue
        if has_body:
            line += text.count("\n", counted, body_at)
            counted = body_at
            docs.append(Doc(text[sep_at:body_at], text[body_at:at], len(docs), line=line))
            sep_at = at
        bare = m.group().rstrip("\r")
        rest = bare[3:].strip()
        if bare.startswith("---") and rest and not rest.startswith("#"):
            # `--- !tag` / `--- |`: the document starts on the marker line
            body_at = at + 4
        else:
            body_at = end
    if content(body_at, len(text)):
        line += text.count("\n", counted, body_at)
        docs.append(Doc(text[sep_at:body_at], text[body_at:], len(docs), line=line))
        tail = ""
    else:
        tail = text[sep_at:]
    return Stream(name, docs, tail, newline, bom, raw, cr)


_BREAK_RE = patterns.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _refuse_inner_bom(text: str, name: str | None) -> None:
    """A byte order mark that starts a line past the stream's first (after a `---`, where a
    second file was appended to a first): libyaml skips it in some places and fails on it in
    others ("did not find expected <document start>"), other readers take it as text of the
    key. Such a file was rewritten and stayed unreadable to kpt and kubectl: refuse it, at
    its place. A BOM inside a scalar is text to every reader and stays."""
    for m in patterns.finditer("(?:^|(?<=[\n\r\x85\u2028\u2029]))[ \t]*\ufeff", text):
        at = m.end() - 1
        line = len(_BREAK_RE.findall(text, 0, at)) + 1
        column = at - max(text.rfind(c, 0, at) for c in "\n\r\x85\u2028\u2029")
        place = f"{name}:{line}:{column}" if name else f"line {line}, column {column}"
        raise InputError(
            f"{place}: a byte order mark (U+FEFF) starts this line; YAML readers disagree on it "
            "(libyaml skips it or fails, others read it as text): remove it (an editor's "
            "\"save without BOM\", or a file appended to another with its BOM)"
        )


def _odd_breaks(text: str) -> bool:
    """Whether `text` holds a line break other than LF and CRLF."""
    if not text.isascii() and any(c in text for c in "\x85\u2028\u2029"):
        return True
    return "\r" in text and "\r" in text.replace("\r\n", "")


def _holds_content(text: str) -> bool:
    """Whether `text` (from a line start, or the rest of a `--- ` marker line) holds a line
    that is neither blank nor a comment, its lines split at every YAML line break."""
    for line in _BREAK_RE.split(text):
        t = line.strip()
        if t and t[0] != "#":
            return True
    return False


# the document text of an item entry (tests and older callers use it from here)
unentry = layout.unentry


def make_items(stream: Stream, defer: bool = False, checked: bool = False) -> None:
    """Read every document's identity; Kubernetes objects get an item, whose text is the
    document itself (made into a `- ` entry only when the item is read). Raises InputError
    naming the document. `defer`: leave out the syntax check of the documents, which
    check_deferred() makes later of those nothing has read by then (the caller must call it
    before it trusts the stream, and read the file again without `defer` when it fails).
    `checked`: the stream's text passed that check before (items made again for a later pass)."""
    stream.deferred = defer
    checked = checked or defer or _reads_whole(stream)
    for doc in stream.docs:
        where = f"{stream.name or 'stdin'}: document {doc.number + 1}"
        body = doc.body
        if "%" in doc.sep:
            body, doc.tags = _verbatim_tags(doc.sep, body)
        item = _document_item(body, where, doc.line, checked and not doc.tags)
        doc.stand_ins = item.text is not None and has_stand_ins(item.text)
        m = item.meta
        if not (m.is_mapping and m.kind and m.api_version):
            continue  # not a Kubernetes object: never sent, never changed
        doc.location = {k: m.annotations[k] for k in LOCATION_KEYS if k in m.annotations}
        if stream.name is not None:
            # in memory only: results and generated objects name the file; never written
            ann = dict(m.annotations)
            for k in LOCATION_KEYS:
                ann.pop(k, None)
            ann[PATH_KEY] = stream.name
            ann[INDEX_KEY] = str(doc.number)
            m.annotations = ann
        doc.item = item


# The first 64 KB of files a process checks are checked by the light reader when it takes
# every document of the file (a few ms at most): libyaml's parser costs ~20 ms to import
# (ruamel.yaml.clib imports ruamel.yaml), which a larger input repays (the light reader is
# slower per byte, and most documents are read again anyway). Either way the verdict is the
# same: what the light reader takes, the round-trip loader reads the same.
_LIGHT_CHECK_BUDGET = [64 * 1024]


def _reads_whole(stream: Stream) -> bool:
    """Whether every document of the stream surely passes the syntax check of an untouched
    object (items.check_syntax), judged in one libyaml pass over the whole text instead of
    one per document: libyaml reads the documents as split() cuts them, and a document it
    reads in the stream it reads alone, except under a directive (`%TAG`), which binds the
    next document only: then, for too much flow nesting (guards.flow_nesting_within_limit
    bounds every document's at once) or a failure, each document is checked on its own."""
    text = stream.raw[len(stream.bom):]
    if stream.cr:
        text = text.replace("\r", "\n")  # as split() read it (a directive starts a line)
    if has_directive(text) or not guards.flow_nesting_within_limit(text):
        return False
    if len(text) <= _LIGHT_CHECK_BUDGET[0]:
        _LIGHT_CHECK_BUDGET[0] -= len(text)
        if all(_light_document(d.body) is not None for d in stream.docs):
            return True
    return libyaml.reads(text)


def check_deferred(stream: Stream) -> bool:
    """After a stream made into items with `defer` was processed: whether it passes the
    syntax check make_items() left out. A document some reader took whole (the light reader,
    the round-trip loader) or found to be exactly the text the emitter writes is YAML
    (Item.was_read) and needs no check: in a rendered repository that is every run and every
    placeholder, and the check of the files cost a tenth of a re-render. Only when some
    document is not known so, or the text between the documents is more than comments and
    bare markers, is the file checked as make_items() checks it. False: the caller reads the
    file again without `defer`, which reports the document as before."""
    if not stream.deferred:
        return True
    stream.deferred = False
    if all(d.item is not None and d.item.was_read and _plain_separator(d.sep) for d in stream.docs) and _plain_separator(
        stream.tail
    ):
        return True
    if _reads_whole(stream):
        return True
    try:
        for doc in stream.docs:
            if doc.item is None or not doc.item.was_read:
                _check_document(doc.body.replace("\r\n", "\n") if "\r" in doc.body else doc.body, "", doc.line)
    except InputError:
        return False
    return True


def _plain_separator(text: str) -> bool:
    """Whether the text between two documents is nothing but blank lines, comment lines and
    bare `---` / `...` markers (each line ended: a document that starts on its marker line,
    `--- !!map`, is checked)."""
    if not text:
        return True
    if not text.endswith("\n"):
        return False
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        marker, rest = s[:3], s[3:]
        if marker in ("---", "...") and (not rest or (rest[0] in " \t" and rest.lstrip().startswith("#"))):
            continue
        return False
    return True


def _check_document(text: str, where: str, line: int) -> None:
    """make_items()'s syntax check of one document (its text with LF line ends)."""
    try:
        items_mod.check_syntax(layout.entry_of(text))  # an object no transform reads is echoed as it is
    except InputError as e:
        msg = items_mod.in_file_lines(_after_colon(str(e)), line)
        raise InputError(f"{where} is not valid YAML: {msg}") from None


_BREAK_NAMES = {"\x85": "NEL (U+0085)", "\u2028": "a line separator (U+2028)", "\u2029": "a paragraph separator (U+2029)"}


def _break_hint(text: str) -> str:
    """Why a document holding NEL or a Unicode line or paragraph separator may not read: a
    YAML 1.1 reader (libyaml, PyYAML) breaks lines there, YAML 1.2 (this function's reader)
    does not."""
    for c, name in _BREAK_NAMES.items():
        at = text.find(c)
        if at >= 0:
            line = text.count("\n", 0, at) + 1
            return (
                f" (its line {line} holds {name}, a line break to YAML 1.1 readers such as libyaml "
                "but not to YAML 1.2: write a newline there, or the escape in a double-quoted string)"
            )
    return ""


def _document_item(body: str, where: str, line: int, checked: bool = False) -> Item:
    """The item of one document: the document as its text, its identity read by the
    scanner (or by parsing the document when the scanner is unsure of it). `checked`: the
    whole stream passed the syntax check."""
    text = body.replace("\r\n", "\n") if "\r" in body else body
    if any(c in text for c in "\r\x85\u2028\u2029"):
        # line breaks the scanner does not split on: parse the document
        try:
            node = guards.load_guarded(text, "the object")
        except InputError as e:
            raise InputError(f"{where} is not valid YAML: {_after_colon(str(e))}{_break_hint(text)}") from None
        standing = _with_stand_ins(text, node)
        if standing is None:  # the breaks shape the document: write it as block YAML
            return Item(0, None, items_mod.meta_of(node), doc=RoundTripDocument(node, block=True))
        text, checked = standing, True  # read whole just now
    item = headers.document_item(text) or identity.make_document_item(0, text)
    item.line = line
    if not checked:
        _check_document(text, where, line)
    if item.complex_meta:
        # flow style or JSON: read it now, so its identity is known before process runs
        try:
            item.load()
        except InputError as e:
            raise InputError(f"{where}: {e}") from None
        except Exception as e:  # noqa: BLE001 - parser errors of every kind
            raise InputError(f"{where} is not valid YAML: {short(e, 300)}") from None
        item.meta = items_mod.meta_of(item.node)
        item.complex_meta = False
    return item


def _after_colon(msg: str) -> str:
    """The parser's reason, without guards' "<what> is not valid YAML: " prefix."""
    head, sep, rest = msg.partition(" is not valid YAML: ")
    return rest if sep and head in ("input", "the object") else msg


# Stand-ins for the line breaks the scanner and the splicing writers do not split on (a lone
# CR, NEL, the line and paragraph separators): characters of plane 15's private use area,
# which no reader takes for a break. A document whose odd breaks are all inside scalars (the
# document reads the same with stand-ins, whitespace aside) is read and edited with them, and
# each is put back when its text is written: untouched entries keep their bytes (issue 25:
# the round-trip emitter wrote `k\x85x` as `k x` and `"v\u2028x"` as `"v\Lx"`).
_ODD = "\r\x85\u2028\u2029"
STAND_INS = "\U000f000d\U000f0085\U000f2028\U000f2029"
_TO_STAND_INS = str.maketrans(_ODD, STAND_INS)
FROM_STAND_INS = str.maketrans(STAND_INS, _ODD)


def has_stand_ins(text: str) -> bool:
    return not text.isascii() and any(c in text for c in STAND_INS)


def _with_stand_ins(text: str, node: Any) -> str | None:
    """`text` with stand-ins for its odd line breaks when it reads as `node` does but for
    whitespace inside scalars; None when a break shapes the document (ends an entry or a
    comment), the text holds a stand-in of its own, or libyaml cannot read it (`k: a<NEL>b`
    is an entry and a stray line to YAML 1.1: the emitter's `k: a b` is what both read)."""
    if has_stand_ins(text) or not libyaml.reads(text):
        return None
    standing = _BLANK_ODD_RE.sub(_kept, text.translate(_TO_STAND_INS))
    try:
        other = guards.load_plain(standing, "the object")
    except InputError:
        return None
    return standing if _squeezed(to_plain(node)) == _squeezed(other) else None


# a line of nothing but odd breaks (and blanks): a blank line to every reader, which a
# stand-in at its start would make a line of content; kept as it is (issue 31: `v<CR><NEL>`
# in a file of lone-CR line ends became `v<CR><CR>`)
_BLANK_ODD_RE = patterns.compile("(?m)^[ \t]*[\U000f000d\U000f0085\U000f2028\U000f2029][ \t\U000f000d\U000f0085\U000f2028\U000f2029]*$")


def _kept(m: patterns.Match[str]) -> str:
    return m.group().translate(FROM_STAND_INS)


_WHITE = patterns.compile("[\\s\U000f000d\U000f0085\U000f2028\U000f2029]+")


def _squeezed(data: Any) -> Any:
    """`data` with every run of whitespace (stand-ins included) in its strings one space."""
    if isinstance(data, dict):
        return {_squeezed(k): _squeezed(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_squeezed(v) for v in data]
    if isinstance(data, str):
        return _WHITE.sub(" ", data).strip()
    return data


_TAG_DIRECTIVE_RE = patterns.compile(r"^%TAG[ \t]+(\S+)[ \t]+(\S+)", patterns.M)


def _verbatim_tags(sep: str, body: str) -> tuple[str, dict[str, str]]:
    """A document under `%TAG` directives (in `sep`, which binds this document only): its
    body with each tag of a handle they define written verbatim (`!e!foo` ->
    `!<tag:example.com,2000:foo>`), so that the document reads alone, as every reader of an
    item reads it; and {verbatim: as written} to put them back when the document is written.
    The tags are found by libyaml's scanner (a `!` in a scalar is none); the body unchanged
    when it cannot scan it (its error is then the document's own)."""
    handles = dict(_TAG_DIRECTIVE_RE.findall(sep.replace("\r", "\n")))
    if not handles:
        return body, {}
    head = "".join(f"%TAG {h} {p}\n" for h, p in handles.items()) + "---\n"
    tokens = libyaml.tag_tokens(head + body)
    if tokens is None:
        return body, {}
    out: list[str] = []
    back: dict[str, str] = {}
    at = 0
    for handle, suffix, start, end in tokens:
        if handle not in handles:
            continue
        a, b = start - len(head), end - len(head)
        verbatim = f"!<{handles[handle]}{suffix}>"
        if back.get(verbatim, body[a:b]) != body[a:b]:
            return body, {}  # one tag written two ways: it could not be put back as written
        back[verbatim] = body[a:b]
        out += [body[at:a], verbatim]
        at = b
    return "".join(out) + body[at:], back


def resource_list_of(streams: list[Stream], function_config: Any) -> ResourceList:
    """One ResourceList over the items of all streams."""
    items: list[Item] = []
    for s in streams:
        for it in s.items:
            it.pos = len(items)
            items.append(it)
    return ResourceList(
        api_version="config.kubernetes.io/v1",
        kind="ResourceList",
        items=items,
        function_config_text=None,
        function_config=function_config,
        results=[],
        fast=True,
        own_paths=True,
    )


def has_directive(text: str) -> bool:
    """Whether a line of `text` (after a byte order mark) is a directive (`%`)."""
    text = text.lstrip("\ufeff")
    return text.startswith("%") or "\n%" in text


def _light_document(body: str) -> Any:
    """A document (keys at column 0) read by the light reader, as a ResourceList's
    functionConfig is (scanner); None when unsure. A policy file read so needs no
    round-trip loader; a document read so is YAML (tests/unit/yaml/light/test_parser.py: what the reader takes,
    the round-trip loader reads the same)."""
    lines = layout.split_lines(body, keepends=False)
    m, _s, o = items_mod.detect_indent([x + "\n" for x in lines], 0)
    try:
        return parser.read(lines, m, o, 0)[0]
    except Unsure:
        return None


def read_config(text: str, name: str) -> Any:
    """A functionConfig from a file (one YAML document). Raises InputError."""
    stream = split(text, None)
    if len(stream.docs) != 1:
        raise InputError(
            f"{name}: expected one YAML document (a CoschedulePolicy or a ConfigMap), "
            f"found {len(stream.docs)}"
        )
    body = stream.docs[0].body.replace("\r\n", "\n")
    light = _light_document(body)
    if light is not None:
        return light
    try:
        # the guarded loader words parser errors as everywhere else ("... at line 6, column
        # 17", a duplicate key's path and both lines), not as the parser's flattened dump
        node = guards.load_guarded(body, name)
    except InputError as e:
        raise type(e)(items_mod.in_file_lines(str(e), stream.docs[0].line)) from None
    return node
