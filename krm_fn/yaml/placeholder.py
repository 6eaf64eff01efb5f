"""The text of a placeholder StatefulSet (the one shape transforms/tekton/assistant builds),
written by a writer made for that shape: the same bytes as emitter.dump_block gives, for less.

A re-render regenerates every placeholder of every run and compares its text with the copy in
the input (3,000 of them in a package of 1,500 runs, issue 34), and a first render writes them
all. Most of a placeholder repeats from one to the next (the container's resources and security
context, the anti-affinity term, the policy's nodeSelector and tolerations, the claims' specs
and retention): those subtrees are written once per process and taken again by their value
(its `marshal`, or `repr` where marshal refuses: equal text for equal data, as dump_block
writes equal data alike); what is the run's own (names, labels, the claim templates' names
and labels, volume mounts) is written line by line, by the emitter's own rules.
An object of any other shape is written by dump_block (None here); `tests/unit/yaml/
test_placeholder.py` compares both writers on every placeholder the snapshots and examples hold
and on generated ones whose names, labels and tolerations need quoting.

What it writes is YAML by construction (`proven`), so files mode does not read it again with
libyaml (issue 34: 3,000 placeholders of a first render were 0.3 s of libyaml): see `proven`.
"""
from __future__ import annotations

import marshal

from krm_fn.core import patterns
from krm_fn.core.data import Memo
from krm_fn.yaml import emitter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

# How each field of the shape is written: a nested shape (a mapping written key by key; for a
# list, each of its mappings so: the containers, their volume mounts, the claim templates), FLAT
# (a mapping of strings: one line each), or SAME (a subtree that repeats between placeholders:
# written once, taken again by its value). Any other field is the emitter's.
FLAT = "flat"
SAME = "same"
_POD: dict[str, Any] = {
    "containers": {"resources": SAME, "securityContext": SAME, "args": SAME, "volumeMounts": {}},
    "nodeSelector": SAME,
    "tolerations": SAME,
    "imagePullSecrets": SAME,
    "securityContext": SAME,
    "affinity": SAME,
    "topologySpreadConstraints": SAME,
    "schedulingGates": SAME,
}
_SHAPE: dict[str, Any] = {
    "metadata": {"labels": FLAT, "annotations": FLAT},
    "spec": {
        "selector": {"matchLabels": FLAT},
        "template": {"metadata": {"labels": FLAT}, "spec": _POD},
        "persistentVolumeClaimRetentionPolicy": SAME,
        # each claim template: its name and labels are the run's, its spec repeats (the
        # size and access modes a package's runs ask alike)
        "volumeClaimTemplates": {"metadata": {"labels": FLAT, "annotations": FLAT}, "spec": SAME},
    },
}

# the text of a SAME subtree, by (its marshal or repr, indent); bounded like the emitter's scalars
_SAME = Memo(4096)


def text(obj: Any, indent: int = 0) -> str | None:
    """emitter.dump_block(obj, indent) for a placeholder StatefulSet (apps/v1); None for any
    other object (write it with dump_block)."""
    if obj.__class__ is not dict or obj.get("kind") != "StatefulSet" or obj.get("apiVersion") != "apps/v1":
        return None
    out: list[str] = []
    if not _mapping(obj, indent, out, _SHAPE):
        return None
    return "".join(out)


def entry_ok(obj: Any) -> bool:
    """Whether emitter.dump_entry writes `obj` in place (its keys are strings, none of them
    written as an end marker), so that text(obj, d + 2) with a dash is its entry."""
    return obj.__class__ is dict and all(k.__class__ is str and not emitter.scalar(k).startswith("...") for k in obj)


def _mapping(d: dict[Any, Any], ind: int, out: list[str], shape: dict[str, Any]) -> bool:
    """Write mapping `d` at indent `ind` as emitter._emit does, each field by its shape; False
    (nothing to trust in `out`) for a key that is not a string."""
    if not d:
        out.append(" " * ind + "{}\n")
        return True
    pad = " " * ind
    scalar = emitter.scalar
    cached = emitter.SCALARS.get  # scalar() of the strings written before
    append = out.append
    for k, v in d.items():
        if k.__class__ is not str:
            return False
        key = cached(k) or scalar(k)
        if v.__class__ is str:
            append(f"{pad}{key}: {cached(v) or scalar(v)}\n")
            continue
        how = shape.get(k)
        if v.__class__ is dict and v:
            append(f"{pad}{key}:\n")
            if how is None:
                emitter.write(v, ind + 2, out)
            elif how is SAME:
                append(_same(v, ind + 2))
            elif how is FLAT:
                _flat(v, ind + 2, out)
            elif not _mapping(v, ind + 2, out, how):
                return False
        elif v.__class__ is list and v:
            append(f"{pad}{key}:\n")
            if how is SAME:
                append(_same(v, ind))
            elif isinstance(how, dict):
                if not _entries(v, ind, out, how):
                    return False
            else:
                emitter.write(v, ind, out)
        elif v is None or v.__class__ is int or v.__class__ is bool:
            append(f"{pad}{key}: {scalar(v)}\n")  # as the emitter writes a scalar (`replicas: 1`)
        else:
            emitter.write({k: v}, ind, out)
    return True


def _entries(items: list[Any], ind: int, out: list[str], shape: dict[str, Any]) -> bool:
    """A list of mappings (the containers), each by `shape`; the dash on its first line."""
    pad = " " * ind
    cut = ind + 2
    for v in items:
        if v.__class__ is dict and v:
            first = len(out)
            if not _mapping(v, cut, out, shape):
                return False
            out[first] = pad + "- " + out[first][cut:]
        else:
            emitter.write([v], ind, out)
    return True


def _flat(d: dict[Any, Any], ind: int, out: list[str]) -> None:
    pad = " " * ind
    scalar = emitter.scalar
    cached = emitter.SCALARS.get
    append = out.append
    for k, v in d.items():
        if k.__class__ is str and v.__class__ is str:
            append(f"{pad}{cached(k) or scalar(k)}: {cached(v) or scalar(v)}\n")
        else:
            emitter.write({k: v}, ind, out)


def _same(v: Any, ind: int) -> str:
    # The key is the value's marshal (format 2: no back-references, so equal data of exact
    # types gives equal bytes, and the bytes give the data back: bool, int and float apart,
    # key order kept), at less than half repr's cost (a placeholder's seven repeated
    # subtrees: ~28% of writing it, issue 34); repr for what marshal does not take (the
    # light path's DQ strings, any other subclass), as before: a bytes key never equals a
    # str one.
    try:
        at: tuple[Any, int] = (marshal.dumps(v, 2), ind)
    except ValueError:
        at = (repr(v), ind)
    found = _SAME.get(at)
    if found is None:
        part: list[str] = []
        emitter.write(v, ind, part)
        found = "".join(part)
        _SAME.keep(at, found)
    return found


# What `proven` refuses in a text: a character other than printable ASCII and LF (a raw
# line break or non-printable character inside a quoted scalar, which JSON's escapes leave
# as it is above U+001F: DEL, NEL, U+2028...), a line of 1,000 characters or more (libyaml
# takes no implicit key over 1,024), and a line that starts as a document marker or a
# directive would (`---`, `...`, `%`) or as a comment. Asked of bytes, each check in C
# (a 2 KB placeholder: ~10 us, where libyaml takes ~100).
_PRINTABLE = bytes(range(0x20, 0x7F)) + b"\n"
_LINE_START = rb"\n(?:---|\.\.\.|%|#|[^\n]{1000})"  # compiled on first use (re's cache): files mode only


def proven(text: str) -> bool:
    """Whether `text`, written by text() (never pass another writer's), is YAML to libyaml
    without reading it: its structure is the emitter's by construction (each line `key:
    scalar`, `key:` with its block below, `- scalar` or `- key: ...`, `{}` or `[]`, indented
    by nesting: tests/unit/yaml/test_placeholder.py checks the same bytes as
    emitter.dump_block, and that every text it calls proven is read back by libyaml as the
    object), so what can break it is a scalar: each one is emitter.scalar's, plain only
    when safe in any position (emitter._plain_ok: no indicator first, no `: ` or ` #`, no
    quote, no trailing colon or blank) or else a double-quoted JSON string, whose escapes are
    YAML's; this refuses the texts where that is not enough (_PRINTABLE, _LINE_START). A
    text it refuses is read by libyaml as before (streamwrite._check)."""
    try:
        b = ("\n" + text).encode("ascii")
    except UnicodeEncodeError:
        return False
    return not b.translate(None, _PRINTABLE) and patterns.search(_LINE_START, b) is None
