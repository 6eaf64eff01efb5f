"""The scalars of the light reader (light/parser) that span lines: a quoted scalar wrapped by hand,
and a literal or folded block scalar. Each reads the lines as read and gives the value and
where it ends, or raises errors.Unsure for any layout it is not sure of, as lite does."""
from __future__ import annotations

from krm_fn.core.errors import Unsure
from krm_fn.yaml.light.scalars import DQ
from krm_fn.yaml.light.scalars import SQ
from krm_fn.yaml.light.scalars import Folded
from krm_fn.yaml.light.scalars import Lit
from krm_fn.yaml.light.scalars import closing_quote
from krm_fn.yaml.light.scalars import comment_after
from krm_fn.yaml.light.scalars import folded
from krm_fn.yaml.light.scalars import unescaped

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


def quoted_lines(raw: list[str], li: int, line: str, col: int, indent: int) -> tuple[Any, int, bool]:
        """A quoted scalar that closes on a later line (a long description wrapped by hand),
        folded as YAML folds one: the blanks around each line break go, a single break is a
        space, each empty line between two lines a newline; in double quotes a `\\` at the
        end of a line joins the next without a space. Unsure for any other layout: a line of
        it at or left of its key's column (`indent`), blanks or tabs at the end of a line, a
        line of blanks, an escaped break before an empty line, characters a reader does not
        take, what follows the closing quote (a comment may).

    `raw`: the lines as read; `li`: the line the scalar opens on. (value, its last line,
    whether a comment follows it)."""
        q = line[col]
        n = len(raw)
        if raw[li] != line:
            raise Unsure("trailing blanks")
        segs = [line[col + 1 :]]  # each line's text, the blanks around it gone ("" for an empty line)
        j = li
        while True:
            j += 1
            if j >= n:
                raise Unsure("quoted scalar not closed")
            s = raw[j]
            if not s:
                segs.append("")
                continue
            t = s.lstrip(" ")
            if len(s) - len(t) <= indent or not t or s[-1].isspace():
                raise Unsure("quoted scalar layout")
            end = closing_quote(t, 0, q)
            if end >= 0:
                segs.append(t[: end - 1])
                break
            segs.append(t)
        parts: list[str] = []
        empty = 0
        for k, seg in enumerate(segs):
            if not seg and 0 < k < len(segs) - 1:
                empty += 1
                continue
            if not seg.isprintable():
                raise Unsure("control characters")
            if parts:  # (the first line's text is the first part, empty or not)
                prev = parts[-1]
                if q == '"' and (len(prev) - len(prev.rstrip("\\"))) % 2:
                    if empty:
                        raise Unsure("escaped line break before an empty line")
                    parts[-1] = prev[:-1]  # an escaped line break: joined without a space
                else:
                    parts.append("\n" * empty if empty else " ")
            parts.append(seg)
            empty = 0
        if q == "'":
            v: Any = SQ("".join(p.replace("''", "'") for p in parts))
        else:
            # escapes read line by line (none spans a line break but the joining `\\`)
            v = DQ("".join(unescaped(p) if "\\" in p else p for p in parts))
        return v, j, comment_after(t, end)


def block_scalar(lines: list[str], k: int, line: str, col: int, key_indent: int) -> tuple[Any, int]:
        """A literal (`|`) or folded (`>`) block scalar, clipped, stripped (`-`) or kept (`+`):
        its lines sit at the indentation the first one sets, or its header gives (`|2`; then
        the first line may sit deeper, its blanks its text); a literal's lines may sit
        deeper. Empty lines between them are the text's own; empty lines after the last one
        are only kept ones'. Lines with trailing blanks anywhere are refused.

    `lines`: the lines as read; `k`: the line after the header's. (value, the line after
    its last)."""
        head = line[col:]
        chomp, step = "", 0
        for c in head[1:]:
            if c in "-+" and not chomp:
                chomp = c
            elif c in "123456789" and not step:
                step = int(c)
            else:
                raise Unsure("block scalar header")
        is_folded = head[0] == ">"
        want = key_indent + step  # with no indentation indicator, set by the first line
        out: list[str] = []
        n = len(lines)
        kept = 0  # empty lines after the text, a kept scalar's own
        while k < n:
            s = lines[k]
            if not s:
                if not out:
                    raise Unsure("an empty first line in a block scalar")
                j = k + 1
                while j < n and not lines[j]:
                    j += 1
                if j < n and lines[j][: key_indent + 1].strip(" ") == "":  # the block goes on
                    out.extend([""] * (j - k))
                    k = j
                    continue
                if chomp == "+":  # a kept scalar's own: its entry ends after them, as libyaml's does
                    kept, k = j - k, j
                break  # blank lines after the block: not its text (but a kept scalar's)
            ind = len(s) - len(s.lstrip(" "))
            if ind == len(s):
                # a line of blanks is an empty line to a YAML reader, whatever its width, or
                # text (the blanks past the indentation) where lines of text follow
                raise Unsure("a line of blanks in or after a block scalar")
            if ind <= key_indent:
                break
            if not out and not step:
                want = ind  # a YAML reader takes the first line's indentation for the block's
            if ind < want or s != s.rstrip():
                raise Unsure("block scalar layout")
            if is_folded and s[want] == "\t":
                raise Unsure("a tab at the start of a line in a folded scalar")
            out.append(s[want:])
            k += 1
        if not out:
            raise Unsure("empty block scalar")
        end = "" if chomp == "-" else "\n" * (1 + kept)
        if not is_folded:
            return Lit("\n".join(out) + end), k
        return Folded(folded(out) + end), k
