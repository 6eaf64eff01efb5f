"""`--diff`: a unified diff of a file's old and new text, in time linear in the changes: difflib
runs only in the gaps between anchor lines (lines that occur once in each text, in the longest
chain that keeps their order), and the hunks are written here. `git apply` takes it.
"""
from __future__ import annotations

import bisect
import difflib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Literal
    from typing import Protocol

    Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]

    class Writer(Protocol):
        def write(self, text: str, /) -> object: ...

        def flush(self) -> object: ...


def unified_diff(name: str, old: str, new: str) -> str:
    """The change of file `name` from `old` to `new` as a unified diff (three lines of
    context), as `diff -u` writes it."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out: list[str] = []
    for group in _Anchored(a, b).get_grouped_opcodes(3):
        if not out:
            out += [f"--- {_diff_name('a/', name)}\n", f"+++ {_diff_name('b/', name)}\n"]
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]  # the lines the hunk spans
        out.append(f"@@ -{_hunk_range(i1, i2)} +{_hunk_range(j1, j2)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out += [" " + _ended(line) for line in a[x1:x2]]
                continue
            out += ["-" + _ended(line) for line in a[x1:x2]]  # replace, delete
            out += ["+" + _ended(line) for line in b[y1:y2]]  # replace, insert
    return "".join(out)


def line_opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """difflib's opcodes turning lines `a` into lines `b`, in time linear in the changes."""
    return _Anchored(a, b).get_opcodes()


def _hunk_range(start: int, stop: int) -> str:
    """A hunk's line range: `first,count` (1-based); `first` alone for one line; for none,
    the line before the hunk and 0."""
    count = stop - start
    if count == 1:
        return str(start + 1)
    return f"{start if count == 0 else start + 1},{count}"


_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines ends a line


def _ended(line: str) -> str:
    """A diff line; the last line of a file without a line end is marked as `diff` marks it
    (it ran into the next line of the diff)."""
    return line if line and line[-1] in _BREAKS else line + "\n\\ No newline at end of file\n"


class _Anchored(difflib.SequenceMatcher[str]):
    """difflib's line matching, made in the gaps between anchors: lines that occur once in
    each text, in the longest chain in which they keep their order (the anchors of a patience
    diff). difflib alone compares the changed regions of a file with each other: a file of
    20,000 documents, changed in its runs and appended to, took over ten minutes. Here each
    gap is compared on its own, and most are a few lines."""

    def __init__(self, a: list[str], b: list[str]) -> None:
        super().__init__(None, [], [])  # not the texts: it would index every line of b for nothing
        self.lines_a, self.lines_b = a, b

    def get_opcodes(self) -> list[Opcode]:
        a, b = self.lines_a, self.lines_b
        ops: list[Opcode] = []
        i0 = j0 = 0
        for i, j in [*_anchors(a, b), (len(a), len(b))]:
            if i0 < i or j0 < j:
                gap = difflib.SequenceMatcher(None, a[i0:i], b[j0:j])
                ops += [(t, i0 + x1, i0 + x2, j0 + y1, j0 + y2) for t, x1, x2, y1, y2 in gap.get_opcodes()]
            if i < len(a):
                ops.append(("equal", i, i + 1, j, j + 1))
            i0, j0 = i + 1, j + 1
        merged: list[Opcode] = []
        for op in ops:
            if merged and op[0] == "equal" == merged[-1][0]:
                merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
            else:
                merged.append(op)
        return merged or [("equal", 0, 0, 0, 0)]


def _anchors(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """(i, j) of the lines that occur once in a and once in b, a[i] == b[j], the longest
    chain of them increasing in both (patience sorting: n log n)."""
    once_a: dict[str, int] = {}
    for i, line in enumerate(a):
        once_a[line] = -1 if line in once_a else i
    once_b: dict[str, int] = {}
    for j, line in enumerate(b):
        once_b[line] = -1 if line in once_b else j
    pairs = [(i, once_b[line]) for line, i in once_a.items() if i >= 0 and once_b.get(line, -1) >= 0]
    pairs.sort()
    tops: list[int] = []  # the j ending the best chain of each length
    ends: list[int] = []  # index into pairs of that chain's last pair
    back: list[int] = []  # each pair's predecessor in its chain
    for k, (_i, j) in enumerate(pairs):
        n = bisect.bisect_left(tops, j)
        back.append(ends[n - 1] if n else -1)
        if n == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[n], ends[n] = j, k
    chain: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        chain.append(pairs[k])
        k = back[k]
    return chain[::-1]


def _diff_name(side: str, name: str) -> str:
    """A diff header's file name; quoted as git quotes it when it holds a control character,
    a quote or a backslash, so no file name can forge a header line or drive a terminal."""
    if not any(c < " " or c in '"\\\x7f' or "\x80" <= c <= "\x9f" for c in name):
        return side + name
    out = []
    for c in side + name:
        if c in '"\\':
            out.append("\\" + c)
        elif c < " " or c == "\x7f" or "\x80" <= c <= "\x9f":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c, f"\\{ord(c):03o}"))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def coloured(diff: str) -> str:
    """A unified diff with git's colours: headers bold, hunks cyan, removals red, additions
    green."""
    out = []
    for line in diff.splitlines(keepends=True):
        body, end = (line[:-1], "\n") if line.endswith("\n") else (line, "")
        if line.startswith(("---", "+++")):
            out.append(f"\x1b[1m{body}\x1b[m{end}")
        elif line.startswith("@@"):
            out.append(f"\x1b[36m{body}\x1b[m{end}")
        elif line.startswith("-"):
            out.append(f"\x1b[31m{body}\x1b[m{end}")
        elif line.startswith("+"):
            out.append(f"\x1b[32m{body}\x1b[m{end}")
        else:
            out.append(line)
    return "".join(out)
