"""Line-level helpers for YAML text: lines split the way YAML splits them, indentation, the
dash line of a sequence entry, and a document turned into one `- ` entry."""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.errors import Unsure

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

def dash_at(text: str, i: int = 0) -> bool:
    """Whether the line at text[i] is a sequence entry's dash line: blanks, then `-` before a
    blank, a newline or the end (re.match(r"( *)-(?=[ \n]|$)", text, i), in string
    operations: the pattern cost more to compile at every start than all its uses, issue 34)."""
    j = i
    n = len(text)
    while j < n and text[j] == " ":
        j += 1
    return text[j : j + 1] == "-" and text[j + 1 : j + 2] in ("", " ", "\n")


def split_lines(text: str, keepends: bool = True) -> list[str]:
    """Lines split on \\n only (str.splitlines also splits on \\x0c, \\x1c, \\u2028 and
    friends, which are ordinary characters inside YAML scalars). With `keepends`, each line
    keeps its \\n; without, a final empty line is dropped."""
    parts = text.split("\n")
    if not keepends:
        if parts and parts[-1] == "":
            parts.pop()
        return parts
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def is_blank_or_comment(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


def dash_index(lines: list[str]) -> int:
    """The index of an entry's dash line: the first line that is a `-` and not a comment
    (head comments and blank lines may come before it). len(lines) when there is none."""
    for k, line in enumerate(lines):
        if dash_at(line) and not line.lstrip().startswith("#"):
            return k
    return len(lines)


def item_document(chunk: str) -> tuple[str, int]:
    """One item's text (a `- ` entry) as a document of its own, line for line: the dash and
    the item's indentation removed (head comments unindented). Returns (text, cut): a
    character at column c of a content line of the document is at column c + cut in the
    item's text."""
    lines = split_lines(chunk)
    k = dash_index(lines)
    d = indent_of(lines[k])
    rest = lines[k][d + 1 :]
    after = rest.lstrip(" ")
    if after.strip() and not after.startswith("#"):
        cut = d + 1 + len(rest) - len(after)
    else:
        nxt = [x for x in lines[k + 1 :] if not is_blank_or_comment(x)]
        cut = indent_of(nxt[0]) if nxt else d + 2
    out = [x.lstrip(" ") if x.strip() else "\n" for x in lines[:k]]
    out.append(after if after.strip() else "\n")
    for line in lines[k + 1 :]:
        out.append(line[min(indent_of(line), cut) :] if line.strip() else "\n")
    return "".join(out), cut


def indent_entry(dumped: str, d: int) -> str:
    """Turn a top-level YAML document into one `- ` entry of a sequence at indent `d`."""
    pad = " " * (d + 2)
    if dumped.endswith("\n") and not dumped.startswith("...") and "\n..." not in dumped:
        lines = dumped[:-1].split("\n")
        if "" not in map(str.strip, lines):
            # every line has content (the emitter's documents): joined in C, not line by line
            return " " * d + "- " + ("\n" + pad).join(lines) + "\n"
    out = []
    dashed = False
    for line in split_lines(dumped):
        if line.startswith("..."):
            continue
        if not line.strip():
            out.append("\n")
        elif not dashed:
            # a head comment goes after the dash (`- # comment`), as kpt sends it: before
            # the dash, kpt (yaml.v3) would give it to the previous item, i.e. another file
            out.append(" " * d + "- " + line)
            dashed = True
        else:
            out.append(pad + line)
    if not dashed:
        out.append(" " * d + "- {}\n")
    return "".join(out)


def head_after_dash(pre: list[str], d: int, c: int) -> list[str] | None:
    """The lines before an item's dash (at column d) with the comment among them moved after
    the dash (`- # comment`, its other lines at column c), as kpt sends a head comment: before
    the dash, kpt (yaml.v3) would give it to the previous item. Blank lines before the comment
    stay before the dash, those between its lines stay between them (a license header, then
    the object's own comment). None when the lines hold no comment."""
    first = next((i for i, x in enumerate(pre) if x.strip()), None)
    if first is None:
        return None
    moved = [" " * d + "- " + pre[first].lstrip(" ")] + [" " * c + x.lstrip(" ") if x.strip() else "" for x in pre[first + 1 :]]
    return pre[:first] + moved


def line_for_line(text: str) -> int:
    """Where a document's first content line starts when entry_of(text) is the text line
    for line (two spaces before every line, the dash instead of them on that one), as a few
    passes in C tell: ASCII lines, each ended by a newline, none blank or ending in a blank
    (a blank line is written empty in the entry); -1 for any other text, or one without a
    content line."""
    if text[-1:] != "\n" or not text.isascii() or any(c in text for c in _ODD_BLANKS):
        return -1
    if text.lstrip(" ")[:1] == "\n" or "\n\n" in text or " \n" in text:
        return -1  # maybe a blank line (written empty there)
    first = 0  # the first line that is not a comment gets the dash (none is blank)
    while True:
        nl = text.index("\n", first)
        if text[first:nl].lstrip(" ")[:1] != "#":
            return first
        first = nl + 1
        if first >= len(text):
            return -1  # no content line: no dash


# what line_for_line leaves to entry_of's loop, beside a character past ASCII: the ASCII
# characters other than LF that str.splitlines ends a line at, or str.strip takes as blank
# like the space
_ODD_BLANKS = "\t\r\v\f\x1c\x1d\x1e\x1f"


def entry_of(body: str) -> str:
    """A document as one `- ` entry of a top-level sequence (the form the item readers and
    writers work on): the first content line gets the dash, every other line two spaces.
    Made by a few passes in C for a text that is so line for line (line_for_line: ASCII
    lines, each ended by a newline; layout's loop over every line was ~4% of a `--check`
    of a rendered package, issue 34), else line by line (_entry_of_lines, the same string
    for that text: tests/unit/io/test_items.py)."""
    first = line_for_line(body)
    if first < 0:
        return _entry_of_lines(body)
    at = first + 2 * body.count("\n", 0, first)  # where the first content line's two spaces go
    out = "  " + body.replace("\n", "\n  ")
    return out[:at] + "- " + out[at + 2 : -2]  # not the spaces after the last newline


def _entry_of_lines(body: str) -> str:
    """entry_of, line by line (any text)."""
    out: list[str] = []
    dashed = False
    for line in body.replace("\r\n", "\n").splitlines(keepends=True):
        if not line.strip():
            out.append(_blank(line))
        elif not dashed and not line.lstrip().startswith("#"):
            out.append("- " + line)
            dashed = True
        else:
            out.append("  " + line)
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    return "".join(out)


# what unentry() must look at line by line: a line ended by a break other than LF (splitlines()
# ends lines there too), or a blank line other than two spaces and its LF (it becomes empty)
_UNENTRY_SLOW = "[\r\v\f\x1c-\x1e\x85\u2028\u2029]|\n(?!  \n)[^\\S\n]+(?=\n|$)"  # compiled on first use (re's cache)


def unentry(text: str) -> str:
    """Reverse of indent_entry(dumped, 0): the document text of an item entry."""
    if text.startswith("- "):
        # the common case in C: every other line loses its two leading spaces (a line with
        # fewer is kept; a blank one becomes empty, which only a blank line of other than
        # two spaces needs the loop below for)
        eol = text.find("\n") + 1
        if eol and patterns.search(_UNENTRY_SLOW, text) is None:
            return text[2:eol] + ("\n" + text[eol:]).replace("\n  ", "\n")[1:]
    return unentry_lines(text)


def unentry_lines(text: str) -> str:
    """unentry(), line by line."""
    out: list[str] = []
    dashed = False
    for line in text.splitlines(keepends=True):
        if not line.strip():
            out.append(_blank(line))
        elif not dashed and line.startswith("- "):
            out.append(line[2:])
            dashed = True
        elif line.startswith("  "):
            out.append(line[2:])
        else:
            out.append(line)
    return "".join(out)


def _blank(line: str) -> str:
    """A blank line as entry_of() and unentry() write it: an empty line, but a line ended by
    a break other than LF (a NEL or a U+2028 alone on its line, which str.splitlines ends a
    line at) as it is: it is a blank line to every reader, and its bytes are the file's
    (issue 31: `v<CR><NEL><CR>` in a file of lone-CR line ends lost its NEL)."""
    return line if line and line[-1] != "\n" else "\n"


def splice_lines(lines: list[str], edits: list[tuple[int, int, list[str]]]) -> list[str]:
    """`lines` with each edit (start, end, new lines) replacing lines[start:end]; the
    splicing writer's last step (splice). Raises errors.Unsure when two edits
    overlap."""
    out: list[str] = []
    at = 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < at:
            raise Unsure("overlapping edits")
        out.extend(lines[at:start])
        out.extend(new)
        at = end
    out.extend(lines[at:])
    return out


def detect_indent(body: list[str], c: int) -> tuple[int, int, int]:
    """(mapping, sequence, offset) for ruamel, read off the item's own text (its lines, with
    or without their newlines; `c`: the indent of its top-level keys). peek reads a field's
    lines by the same measure."""
    mapping = 0
    seq: tuple[int, int] | None = None
    prev_key_indent = -1
    for line in body:
        stripped = line.lstrip(" ")
        bare = stripped.strip()
        if not bare or bare[0] == "#":  # layout.is_blank_or_comment, inline
            continue
        ind = len(line) - len(stripped)
        if stripped.startswith("- ") or stripped.rstrip() == "-":
            if seq is None and prev_key_indent >= 0 and ind >= prev_key_indent:
                off = ind - prev_key_indent
                seq = (off + 2, off) if off else (2, 0)
            prev_key_indent = -1
            continue
        if ind > c and mapping == 0 and prev_key_indent >= 0 and ind > prev_key_indent:
            mapping = ind - prev_key_indent
        prev_key_indent = ind if stripped.rstrip().endswith(":") else -1
        if mapping and seq:
            break
    return indent_of_layout(mapping, seq)


def indent_of_layout(mapping: int, seq: tuple[int, int] | None) -> tuple[int, int, int]:
    """detect_indent's answer of what it measured (light/dataread measures it too)."""
    m = mapping or 2
    s, o = seq if seq else (m, 0)
    if o:
        s = max(s, m + o) if s < o + 2 else s
    return (m, s, o)


def swapped_keys(old: list[str], new: list[str], before: Any, after: Any) -> dict[str, str]:
    """{new key: removed key} for each new key of a mapping that sits where a removed key sat,
    between the same kept keys (document.replace_key: persistentVolumeClaim in the place of
    volumeClaimTemplate). Both splicing writers rewrite such an entry in place. `old`, `new`:
    the keys before and after; `before`, `after`: anything that holds them (`in`)."""
    out: dict[str, str] = {}
    i = j = 0
    while i < len(old) and j < len(new):
        o, n = old[i], new[j]
        if o == n:
            i += 1
            j += 1
        elif o not in after and n not in before:
            out[n] = o
            i += 1
            j += 1
        elif o not in after:
            i += 1
        else:
            j += 1
    return out
