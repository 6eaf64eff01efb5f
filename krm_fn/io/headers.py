"""The identity of a document in the common shape, read off its first lines: `apiVersion`,
`kind` and `metadata` first (the shape this function writes and kubectl prints), metadata's
lines read one by one, the rest of the document only searched for lines in column 0. A
package's context files are thousands of such documents, every one identified and few ever
read (issue 34: one staged file's `--check`). Anything the identity reader (io/identity)
would not be sure of gets no answer here, and that reader decides; tests/unit/io/test_streams.py
compares the two."""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.io import identity
from krm_fn.io.items import Item
from krm_fn.io.items import Meta

# A document in the shape this function writes and kubectl prints: its first content line
# `apiVersion:`, then `kind:` and `metadata:`, each value a plain word; comment and blank
# lines before them
_HEAD_RE = patterns.compile(
    r"(?:[ ]*(?:#[^\n]*)?\n)*apiVersion *: +([A-Za-z_][A-Za-z0-9_./-]*) *\nkind *: +([A-Za-z_][A-Za-z0-9_./-]*) *\nmetadata *:[ ]*\n"
)
# a line that starts in column 0 (blank and comment lines included): the end of metadata's
# lines, and the document's other top-level keys. A newline and one class is the fastest
# search sre makes of these (~8 instructions a character; a negative look-ahead at every
# newline took twice that, `^` in multi-line mode twenty times). The class is a look-ahead:
# a blank line's newline must not be taken with the one before it (the line after it unseen)
_COL0_RE = patterns.compile(r"\n(?=[^ ])")
_IDENTITY_KEYS = frozenset(("apiVersion", "kind", "metadata"))
_WANTED_META = ("name", "namespace", "generateName")


def document_item(text: str) -> Item | None:
    """The item of a document in the common shape (_HEAD_RE), its identity read from its
    first lines: metadata's lines read one by one, the rest of the document only searched
    (in C) for lines in column 0, each of which must be a plain key other than the
    identity's. None when the document has another shape, or anything the identity reader
    would not be sure of (a value on more than one line, a quoted key, an odd
    indentation...): identity.make_document_item reads it then (io/streams asks it first). Either way the identity is
    the same (tests/unit/io/test_streams.py compares them): a package's context files are
    thousands of such documents, every one identified and few ever read (issue 34: one
    staged file's --check)."""
    m = _HEAD_RE.match(text)
    if m is None or not text.endswith("\n"):
        return None
    api, kind = identity.plain_scalar(m.group(1)), identity.plain_scalar(m.group(2))
    if not (isinstance(api, str) and isinstance(kind, str)):
        return None  # `kind: yes`: not a string to every reader
    start = end = m.end()
    for top in _COL0_RE.finditer(text, start - 1):
        at = top.start() + 1
        line = text[at : text.index("\n", at)]
        if not line or line[0] == "#":
            continue  # a blank or comment line
        if end == start:
            end = at
        if line[0] == "-" and (len(line) == 1 or line[1] == " "):
            if at == end:
                return None  # right after metadata's lines: the lines after it would be metadata's
            continue  # an indentless sequence, the value of the key before
        kv = identity.key_value(line)
        if kv is None or kv[0] in _IDENTITY_KEYS:
            return None  # a quoted or complex key, a tab, a stray scalar, a second `kind:`
    if end == start:
        end = len(text)
    meta = Meta(api, kind)
    if not _metadata(text[start:end], meta):
        return None
    return Item(0, text, meta, document=True)


def _metadata(block: str, meta: Meta) -> bool:
    """Read metadata's lines (`block`, each ended by a newline) into `meta` as the identity
    reader does: name, namespace, generateName and annotations, each value a one-line
    scalar; False when unsure (then the identity reader decides)."""
    scalar = identity.plain_scalar
    mi = ai = 0  # the indent of metadata's keys, of the annotations' keys (0: not met yet)
    mode = ""  # what deeper lines belong to: "skip" (a key not read), "ann" (annotations), "" (none may follow)
    seen: set[str] = set()
    ann = meta.annotations
    deeper = " "  # in "skip": a line that starts so is of the value not read (labels' 7 lines)
    for line in block.split("\n")[:-1]:
        if mode == "skip" and line.startswith(deeper):
            continue
        body = line.lstrip(" ")
        if not body or body[0] == "#":
            continue
        ind = len(line) - len(body)
        if not mi:
            mi = ind
            deeper = " " * (mi + 1)
        if ind == mi:
            kv = identity.key_value(body)
            if kv is None:
                return False  # a quoted key, an indentless sequence, no key
            k, v = kv
            if k in _WANTED_META or k == "annotations":
                if k in seen:
                    return False
                seen.add(k)
            if k == "annotations":
                if scalar(v) is not None:
                    return False
                mode = "ann"
            elif k in _WANTED_META:
                val = scalar(v)
                if not isinstance(val, str):
                    return False
                setattr(meta, "generate_name" if k == "generateName" else k, val)
                mode = ""
            else:
                mode = "skip"
        elif ind < mi or not mode:
            return False  # too shallow for metadata, or a value going on below its key
        elif mode == "ann":
            if not ai:
                ai = ind
            if ind != ai:
                return False  # between the two indents, or a value going on below its key
            kv = identity.key_value(body)
            if kv is None:
                return False
            k, v = kv
            val = scalar(v)
            if not isinstance(val, str) or k in ann:
                return False
            ann[k] = val
            # the next deeper line would be this value's: only a key at `ai` may follow
    return True
