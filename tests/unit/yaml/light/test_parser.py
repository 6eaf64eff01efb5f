"""The light path (krm_fn.yaml.light.parser) must give the round-trip path's bytes, or step aside.

Every case runs twice: as users run it (light path on) and with KRM_COSCHEDULE_LIGHT=0
(round-trip loader for every item); outputs and exit codes must be identical. Random runs
come in the layouts the reader takes (several indentation styles, quoted strings, comments
and blank lines anywhere) so that both the splicing writer and its fallback are exercised."""
from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from golden import build_resource_list  # type: ignore[import-not-found]
from golden import function_config  # type: ignore[import-not-found]
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from shared import ROOT
from suites.properties.test_tekton_properties import MODES  # type: ignore[import-not-found]
from suites.properties.test_tekton_properties import pipelineruns  # type: ignore[import-not-found]

from krm_fn.core import errors
from krm_fn.io import items as items_mod
from krm_fn.io import resourcelist
from krm_fn.modes.krm import run_resource_list
from krm_fn.yaml.document import LightDocument
from krm_fn.yaml.light import dataread
from krm_fn.yaml.light import parser
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

CASES = sorted(p for p in (ROOT / "fixtures").iterdir() if (p / "input.yaml").exists())
EXAMPLES = sorted(
    p for p in (ROOT / "examples").rglob("*.yaml") if ".expected" not in p.parts and b"kind: ResourceList" in p.read_bytes()
)
sys.path.insert(0, str(ROOT / "bench"))
import gen  # noqa: E402


def both(data: bytes) -> tuple[tuple[str, int], tuple[str, int]]:
    """(output, exit code) with the light path on, and with it off. The light run reads the
    list once: an item the splicing writer refuses is redone alone, not the whole list."""
    parses = []
    real_parse = resourcelist.parse

    def counting_parse(*a: Any, **k: Any) -> Any:
        parses.append(1)
        return real_parse(*a, **k)

    resourcelist.parse = counting_parse  # type: ignore[assignment]
    try:
        out, _, code = run_resource_list(data, light=True)
    finally:
        resourcelist.parse = real_parse  # type: ignore[assignment]
    assert len(parses) <= 1
    out0, _, code0 = run_resource_list(data, light=False)
    return (out, code), (out0, code0)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixture_same_bytes_on_both_paths(case: Path) -> None:
    light, full = both(build_resource_list(case))
    assert light == full


@pytest.mark.parametrize("path", EXAMPLES, ids=[str(p.relative_to(ROOT)) for p in EXAMPLES])
def test_example_same_bytes_on_both_paths(path: Path) -> None:
    light, full = both(path.read_bytes())
    assert light == full


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bench_input_same_bytes_and_light(seed: int) -> None:
    """The benchmark's lists: identical output, and every target on the light path."""
    data = gen.generate(60, 0.3, seed).encode()
    light, full = both(data)
    assert light == full
    assert light[1] == 0
    rl = resourcelist.parse(data.decode())
    targets = [it for it in rl.items if it.meta.kind in gen.TARGET_KINDS]
    assert targets
    for it in targets:
        it.load(light=True)
        assert isinstance(it.doc, LightDocument), it.text


def test_one_pipelinerun_never_imports_the_round_trip_loader() -> None:
    """The start-up claim of issue #5, checked on the real process: a one-PipelineRun run
    is rewritten without ruamel being imported at all."""
    data = gen.generate(1, 1.0, 1).encode()
    code = (
        "import sys\n"
        "from krm_fn.modes.krm import run_resource_list\n"
        "out, _, code = run_resource_list(sys.stdin.buffer.read())\n"
        "sys.stdout.write(out)\n"
        "sys.stderr.write(repr(sorted(m for m in sys.modules if m.split('.')[0] in ('ruamel', '_ruamel_yaml', 'yaml', 'jsonschema'))))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True)
    assert p.stderr == b"[]"
    out, _, _ = run_resource_list(data)
    assert p.stdout.decode() == out
    assert "affinity-assistant-" in out


def test_light_env_var_is_the_users_escape_hatch() -> None:
    """KRM_COSCHEDULE_LIGHT=0 (read in krm.light_default, nowhere else) puts every target
    through the round-trip loader: the same bytes, with ruamel loaded."""
    data = gen.generate(1, 1.0, 1).encode()
    code = (
        "import sys\n"
        "from krm_fn.modes.krm import run_resource_list\n"
        "out, _, code = run_resource_list(sys.stdin.buffer.read())\n"
        "sys.stdout.write(out)\n"
        "sys.stderr.write(str('ruamel.yaml' in sys.modules))\n"
    )
    env = {**os.environ, "KRM_COSCHEDULE_LIGHT": "0"}
    p = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True, env=env)
    assert p.stderr == b"True"
    assert p.stdout.decode() == run_resource_list(data, light=True)[0]


# --------------------------------------------------------------------------- random runs


def _styled(value: Any, draw: Any) -> Any:
    """Plain data as a ruamel tree with random scalar quoting (what users write)."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.comments import CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    if isinstance(value, dict):
        m = CommentedMap()
        pairs = list(value.items())
        if draw(st.integers(0, 4)) == 0:
            pairs.reverse()  # keys in another order than the API's (a binding's `name` last)
        for k, v in pairs:
            quote = draw(st.sampled_from(["plain"] * 8 + ["single", "double"]))  # keys as people quote them
            key = SingleQuotedScalarString(k) if quote == "single" else DoubleQuotedScalarString(k) if quote == "double" else k
            m[key] = _styled(v, draw)
        if value and not any(isinstance(v, (dict, list)) and not v for v in value.values()) and draw(st.integers(0, 5)) == 0:
            m.fa.set_flow_style()  # on one line, nested collections too
        return m
    if isinstance(value, list):
        s = CommentedSeq()
        for v in value:
            s.append(_styled(v, draw))
        return s
    if isinstance(value, str):
        style = draw(st.sampled_from(["plain", "plain", "single", "double", "folded"]))
        if style == "single":
            return SingleQuotedScalarString(value)
        if style == "double":
            return DoubleQuotedScalarString(value)
        if style == "folded" and value and "\n" not in value:
            from ruamel.yaml.scalarstring import FoldedScalarString

            return FoldedScalarString(value)
    return value


def _commented(text: str, draw: Any) -> str:
    """Comments and blank lines at random places, at the indentation of the next line."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        what = draw(st.sampled_from(["", "", "", "", "full", "eol", "blank"]))
        ind = len(line) - len(line.lstrip(" "))
        if what == "full" and i > 0:
            out.append(" " * ind + f"# note {i}")
        elif what == "blank" and i > 0:
            out.append("")
        out.append(line + (f" # eol {i}" if what == "eol" else ""))
    return "\n".join(out) + "\n"


def _wrapped(text: str, draw: Any) -> str:
    """Plain scalars with blanks wrapped over two or three lines, as people wrap a long
    description (the continuation indented two or four further, an empty line between
    paragraphs at times)."""
    out = []
    for line in text.split("\n"):
        body = line.lstrip(" -")
        key, sep, value = body.partition(": ")
        if sep and " " in value and value[:1] not in "'\"[{|>" and draw(st.booleans()):
            words = value.split(" ")
            cut = draw(st.integers(1, len(words) - 1))
            pad = " " * (len(line) - len(body) + draw(st.sampled_from([2, 4])))
            gap = draw(st.sampled_from(["", "", "\n"]))
            out.append(line[: len(line) - len(value)] + " ".join(words[:cut]))
            out.append(gap + pad + " ".join(words[cut:]))
            continue
        out.append(line)
    return "\n".join(out)


def _wrapped_quoted(text: str, draw: Any) -> str:
    """Some quoted scalars with blanks wrapped over two lines, the rest two or four columns
    deeper than the key (a long quoted description wrapped by hand)."""
    out = []
    for line in text.split("\n"):
        body = line.lstrip(" -")
        key, sep, value = body.partition(": ")
        if sep and value[:1] in ("'", '"') and value[-1:] == value[:1] and " " in value[1:-1] and draw(st.booleans()):
            cut = value.index(" ", 1)
            pad = " " * (len(line) - len(body) + draw(st.sampled_from([2, 4])))
            out.append(line[: len(line) - len(value)] + value[:cut])
            out.append(pad + value[cut + 1 :])
            continue
        out.append(line)
    return "\n".join(out)


def _wrapped_flow(text: str, draw: Any) -> str:
    """Some one-line flow collections wrapped after a comma, the rest two further in than the
    key, or laid out as JSON is (each entry on its line, the closing bracket at the key's
    column)."""
    out = []
    for line in text.split("\n"):
        body = line.lstrip(" -")
        key, sep, value = body.partition(": ")
        col = len(line) - len(body)
        if sep and value[:1] in "[{" and ", " in value and "#" not in value and draw(st.booleans()):
            if draw(st.booleans()):
                cut = value.index(", ")
                out.append(line[: len(line) - len(value)] + value[: cut + 1])
                out.append(" " * (col + 2) + value[cut + 2 :])
            elif value[-1] in "]}" and value.count("[") + value.count("{") == 1:
                out.append(line[: len(line) - len(value)] + value[0])
                entries = value[1:-1].split(", ")
                out.extend(" " * (col + 2) + x + ("," if k < len(entries) - 1 else "") for k, x in enumerate(entries))
                out.append(" " * col + value[-1])
            else:
                out.append(line)
            continue
        out.append(line)
    return "\n".join(out)


def _dash_alone(text: str, draw: Any) -> str:
    """Some mapping entries of sequences written with `-` alone on its line and the mapping
    below it (as some generators and people write them)."""
    out = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        if body.startswith("- ") and body[2:3] not in ("", " ", "#", "{", "[", "'", '"') and ": " in body and draw(st.integers(0, 2)) == 0:
            pad = line[: len(line) - len(body)]
            out.append(pad + "-")
            out.append(pad + "  " + body[2:])
            continue
        out.append(line)
    return "\n".join(out)


def _moved_blocks(text: str, draw: Any, pick: Any) -> str:
    """`text` with blocks of lines moved sideways. At each line i that ends in `:`, with its
    key at key_col and the next line's text at col, pick(lines, i, key_col, col) gives None
    or (end, shift): lines i+1..end-1 move by `shift` columns (blank lines stay)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines) - 1:
        t, nxt = lines[i], lines[i + 1]
        key_col = len(t) - len(t.lstrip(" -"))
        col = len(nxt) - len(nxt.lstrip(" "))
        picked = pick(lines, i, key_col, col) if t.rstrip().endswith(":") else None
        if picked is None or draw(st.integers(0, 2)) != 0:
            i += 1
            continue
        j, shift = picked
        lines[i + 1 : j] = [(" " * shift + x if shift > 0 else x[-shift:]) if x.strip() else x for x in lines[i + 1 : j]]
        i += 1
    return "\n".join(lines)


def _indented(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _mixed_sequences(text: str, draw: Any) -> str:
    """Some block sequences moved to the other of the two offsets people write (`- ` at the
    key's column, or two further in): one file, both styles."""

    def pick(lines: list[str], i: int, key_col: int, dash: int) -> tuple[int, int] | None:
        if not (lines[i + 1].lstrip(" ").startswith("- ") and dash in (key_col, key_col + 2)):
            return None
        j = i + 1  # the sequence's lines: its entries and what is deeper
        while j < len(lines) and (
            not lines[j].strip() or _indented(lines[j]) > dash
            or lines[j].startswith(" " * dash + "- ") or lines[j].startswith(" " * dash + "#")
        ):
            j += 1
        return j, 2 if dash == key_col else -2

    return _moved_blocks(text, draw, pick)


def _mixed_mappings(text: str, draw: Any) -> str:
    """Some nested block mappings moved two columns further in, with all they hold (a spec
    pasted from elsewhere under metadata indented by two): one object, two widths."""

    def pick(lines: list[str], i: int, key_col: int, col: int) -> tuple[int, int] | None:
        nxt = lines[i + 1]
        if not nxt.strip() or nxt.lstrip(" ").startswith(("- ", "#")) or col <= key_col:
            return None
        j = i + 1  # the mapping's lines: everything deeper than its key (and blank lines)
        while j < len(lines) and (not lines[j].strip() or _indented(lines[j]) > key_col):
            j += 1
        return j, 2

    return _moved_blocks(text, draw, pick)


@st.composite
def styled_lists(draw: Any) -> bytes:
    prs = draw(st.lists(pipelineruns(), min_size=1, max_size=2))
    m, o = draw(st.sampled_from([(2, 0), (2, 2), (4, 0), (4, 2)]))
    texts = []
    for i, pr in enumerate(prs):
        pr["metadata"]["name"] = f"pr{i}"
        if draw(st.booleans()):  # text as people write it: other scripts, escapes, URLs
            pr["metadata"]["annotations"] = {
                "note": draw(st.sampled_from([
                    "Zoë — nächtlich ✓", "夜間ビルド", "tab\there \"q\"", "https://h:8443/x", "a b c",
                    "built every night from main by the release bot, then tested, signed and pushed to the registry",
                ])),
            }
        dumped = loader.rt_dump(_styled(pr, draw), m, o + 2, o)
        if draw(st.integers(0, 3)) == 0:
            dumped = _wrapped(dumped, draw)
        if draw(st.integers(0, 3)) == 0:
            dumped = _wrapped_quoted(dumped, draw)
        if draw(st.integers(0, 3)) == 0:
            dumped = _wrapped_flow(dumped, draw)
        if draw(st.booleans()):
            dumped = _commented(dumped, draw)
        if draw(st.booleans()):
            dumped = _mixed_sequences(dumped, draw)
        if draw(st.integers(0, 3)) == 0:
            dumped = _dash_alone(dumped, draw)
        if draw(st.integers(0, 3)) == 0:
            dumped = _mixed_mappings(dumped, draw)
        lines = dumped.splitlines()
        head = "- " + lines[0]
        if draw(st.integers(0, 3)) == 0:
            head = "- # a head comment\n  " + lines[0]
        elif draw(st.integers(0, 4)) == 0:
            head = "- # Copyright 2026 ACME Corp.\n\n  # a head comment\n  " + lines[0]  # a license header
        tail = draw(st.sampled_from(["", "", "  # trailing\n", "\n", "  # trailing\n\n", "\n  # after a blank\n", "# column 0\n"]))
        texts.append(head + "\n" + "".join("  " + x + "\n" if x else "\n" for x in lines[1:]) + tail)
    mode = draw(st.sampled_from(MODES))
    policy: dict[str, Any] = {"coschedule": mode}
    if draw(st.booleans()):
        policy["assistant"] = {"podTemplate": {"nodeSelector": {"pool": "ci"}}}
    if draw(st.booleans()):
        policy["defaultPodTemplate"] = {"nodeSelector": {"disk": "ssd"}, "schedulerName": "batch"}
    cfg = yaml.safe_dump(
        {"functionConfig": {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "c"}, "spec": policy}},
        sort_keys=False,
    )
    return ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(texts) + cfg).encode()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=styled_lists())
def test_random_runs_same_bytes_on_both_paths(data: bytes) -> None:
    light, full = both(data)
    assert light == full
    if light[1] == 0:
        assert yaml.safe_load(light[0])  # and it reads


# --------------------------------------------------------------------------- the reader


READ_SAME = [
    "spec: !!map\n  a: 1\n  b: !!seq\n  - x\nc:\n  d: !!map\n    k: v\n",  # collections tagged as what they are
    # scalars tagged !!str: the strings they write (a number's text, `true`), double-quoted
    "a: !!str 0755\nb: !!str 'x'  # c\nc:\n- !!str true\n- !!str x y\nd: !!str \"q\"\ne: !!str ~\n",
    # flow collections over several lines (a scalar over two of their lines folds with a space)
    'a: ["--a",\n  "--b"]\nb: [\n  x,\n  \'y\'\n]  # c\nc: {requests: {\n    storage: 1Gi}}\nd: [x\n  y, [z,\n  w]]\ne:\n- [p,\n   q]\n',
    # block scalars kept (`+`: the empty lines after the text are its own), with an indentation
    # indicator (the first line deeper: its blanks are text), at another width than the object's
    "a: |+\n  keep\n\n\nb: >+\n  x\n  y\n\n# c\nc: |2-\n    x\n  y\nd: >-2\n   x\n  y\n  z\ne:\n    f: |\n        four\n    g: |1\n      x\n",
    # a folded scalar with more-indented lines (YAML 1.2's example 8.10): their breaks are kept
    "a: >\n  folded\n  line\n\n  next\n  line\n    * bullet\n\n    * list\n    * lines\n\n  last\n  line\nb: >-\n  x\n   y\n  z\n",
    # quoted scalars over several lines (a long description wrapped by hand)
    "a: 'multi\n  line'\nb: \"x\n\n   y \\\n   z\\ty\"  # c\nc:\n- 'it''s\n   fine'\n- \"\n   lead\"\n",
    "a:\n   b: 1\nc:\n    d:\n      e: x\n    f:\n    - g\n",  # mappings of other widths than the first's
    "a: 1\nb: -2\nc: true\nd: false\ne:\nf: x\n",
    "a: 'it''s'\nb: \"x y\"\nc: $(params.a[0])\nd: -x\ne: a,b\nf: 1Gi\ng: v1.15.0\n",
    "a: [x, y]\nb: []\nc: {}\nd: {k: v, n: 'q'}\n",
    "a: [\"ReadWriteOnce\", 'x y', z]\nb: {k: \"v: w\", n: 'q r'}\n",
    "a:\n  b:\n  - c: 1\n    d: [e]\n  - f\n",
    "a:\n  - x\n  - y: z\n    w: v\n",
    "s: |\n  line one\n    indented\n  three\nt: |-\n  no newline\n",
    "a: x   # comment\n# full line\nb: y\n",
    "a:   # comment after blanks\n  b: 1\nc:  # c\n- d\n",
    "a: c386bbc4\nb: 0a\nc: e5\nd: 12abc\n",
    "a: null\nb: ~\nc: [x, null]\nd: {k: NULL}\ne:\n- Null\n",
    "a: [x:y, https://h:80/p]\nb: {k: a:b:c, url: http://x.y/z?q=1}\n",
    "a: {b: {c: d}}\nb: [x,y]\nc: [\"a\\\"b\"]\n",
    "a: [{name: out, workspace: src}]\nb: {nodeSelector: {d: ssd}, t: [{key: ci, operator: Exists}]}\nc: [ x , 'y' ,[z], ]\n",
    "a: x  \nb: 'q' \nc:  \nd: # c \n- e \n   \n- {k: v} \nf: |\n  y\n",  # trailing blanks
    'a: "esc\\n"\nb: "t\\tx \\"q\\" \\\\ \\/ \\u00e9"  # c\n',
    "a: >\n  folded\n  text\n\n  paragraph\nb: >-\n  x\n\n\n  y\nc: |\n  one\n\n    two\n\n\nd: |-\n  # not a comment\n\n  z\n",
    "a: caf\u00e9\nb: '\u00dcberblick'\nc: \"\u65e5\u672c\"\nd: [\u00e4, '\u00f6']\ne: {k: \U0001f680 go}\n",
    # plain scalars over several lines (a description wrapped by hand, or by ruamel at 80 columns)
    "a: one two\n  three\n\n  four\n     five\nb: x\nc:\n  d: e f\n    g\n\n\n  h: |\n    i\n",
    "s:\n- k: x\n  v: a b\n    c\n- k: y\n",
    # `-` alone on its line, the entry's mapping below it
    "a:\n  -\n    name: x\n    v: 1\n  - name: y\nb:\n-\n  # c\n  k: [1]\n",
    # quoted keys, as people and JSON converters write them
    '"app.kubernetes.io/name": x\n\'team\': \'y\'\n"spec":\n  "a b": 1\n  c:\n  - "name": n  # c\n    \'v\':\n  - "q"\n"true": "1"\n"e\\"q": z\n',
]

BAIL = [
    "a: &x 1\nb: *x\n",  # anchors and aliases
    "a: !!int 3\n",  # tags (but !!str on a scalar, !!map and !!seq on what they tag)
    "a: !!map\nb: 1\n",
    "a: !!seq\n  k: v\n",
    "a: !!map  # c\n  k: v\n",
    "a: !foo x\n",
    "a: !!str\n",
    "a: !!str [x]\n",
    "a: !!str x\n  y\n",
    "a: 0755\n",
    "a: 1.5\n",
    "a: +1\n",
    "a: 2001-12-14\n",
    "a: 1_000\n",
    "a: .inf\n",
    "a: True\n",
    "a:  x\n",  # two spaces
    "a: x\t\n",  # a trailing tab
    "a: |\n  x \n",  # a trailing blank in a block scalar is its text
    'a: "\\x41"\n',  # an escape JSON does not have
    'a: "\\ud83d\\ude80"\n',  # a surrogate pair (JSON joins it, YAML does not)
    "a: >\n  x\n  \ty\n",  # a tab at the start of a folded scalar's line
    "a: |\n  x\n  \n  y\n",  # a blank line of spaces inside
    "a: |\n    deeper first line\n  b\n",  # a reader takes the first line's indentation
    "a: |3\n  x\n",  # a line left of the indentation its header gives
    "a: [x,\n\n  y]\n",  # a flow collection over lines: an empty line in it
    "a: [x, # c\n  y]\n",  # a comment in it
    "a: [x,\ny]\n",  # an entry at its key's column
    "a: [x,\n  y]]\n",
    "a: |2+-\n  x\n",
    "a:\n\tb: 1\n",
    "a: caf\u00e9\tx\n",  # a tab inside a scalar
    "a: x\u00a0\n",  # a non-ASCII blank at the end of a line
    "a: x\u00a0y\n",  # a no-break space: not taken (str.isprintable)
    "a:\n- b: |\n    x\n  \n     \n",  # lines of blanks after a block scalar: text, for YAML
    "a: 'x\ufeffy'\n",  # a byte order mark inside
    "? a\n: b\n",
    "a: [x:]\n",
    "a: {k: x:}\n",  # libyaml refuses it, ruamel reads "x:"
    "a: [k: v]\n",  # a pair inside a sequence
    "a: {k: [x, y}\n",
    "a: [{k: v}\n",  # closed on another line
    "a: 1\na: 2\n",  # duplicate key: the round-trip loader reports it
    "true: 1\n",
    "a: b: c\n",
    '"a" : 1\n',  # a blank before the colon
    '"a":b\n',  # no blank after it
    'a: 1\n"a": 2\n',  # the same key, once quoted
    '"multi\n  line": x\n',
    "{a: 1}: x\n",
    "a: x # c\n  y\n",  # a comment ends a plain scalar: the line below is an error
    'k:\n  b: "x\n  y"\n',  # a quoted scalar's line at its key's column (read so, but left alone)
    'a: "x\\\n\n  y"\n',  # an escaped line break before an empty line
    'a: "x\n  y" z\n',
    'a: "x\n  y \n  z"\n',  # blanks at the end of a line of it
    'a: "x\n\ty"\n',
    '"k\n  x": 1\n',  # a quoted key over two lines
    "a: x\n  # c\n  y\n",
    "a: x\n  y: z\n",
    "a: x\n  - y\n",
    "a: 'q'\n  y\n",
    "a: 2001-12-14\n  21:59:43.10\n",  # a timestamp over two lines
    "a: 1\n  2\n",
    "a:\n-\n- b\n",  # a null entry
    "a:\n- # c\n  name: x\n",
]


@pytest.mark.parametrize("text", READ_SAME)
def test_reader_reads_what_ruamel_reads(text: str) -> None:
    m, s, o = items_mod.detect_indent(text.splitlines(True), 0)
    data, _ = parser.read(text.split("\n")[:-1], m, o, 0)
    assert to_plain(data) == to_plain(loader.rt_load(text))


@pytest.mark.parametrize("text", BAIL)
def test_reader_steps_aside(text: str) -> None:
    with pytest.raises(errors.Unsure):
        parser.read(text.split("\n")[:-1], 2, 0, 0)


_KEYS = st.sampled_from(
    ["a", "b", "name", "app.kubernetes.io/name", "x-y", "k8s_1", '"a"', "'b'", '"app.kubernetes.io/part-of"', '"x y"',
     "'it''s'", '"true"', '"1"', '"t\\tk"', '"q\\"k"', '"\\x41"', '"k" ', "'n\u00e4me'"]
)
_SCALAR_TEXT = st.sampled_from(
    ["!!str 0755", "!!str x y", "!!str 'q'", "!!int 3", "!x y", "!!str", "x", "1", "-3", "0", "true", "false", "'q'", "'it''s'", '"dq"', "1Gi", "v1.2", "a b", "$(x)", "0x1f", "1e3",
     "012", "yes", "null", "~", "a#b", "-", "[a, b]", "[]", "{}", "{k: v}", "2020-01-01", "-x", ".5", "+1",
     "caf\u00e9", "'n\u00e4chtlich'", '"\u65e5\u672c"', "\u00dc: x", "x \u2014 y", "\u00a0x", "[\u00e4, '\u00f6']", "{k: \u00fc}",
     "[x:y]", "{u: https://h:80/p}", '"t\\tx"', '"q\\"q"', '"\\\\"', '"\\x41"', '"\\u00e9\\n"', '"a\\"', "{u: x:}", "[:x]", "{a: b:, c: d}",
     "[{a: b}, [c]]", "{k: {j: [1, x]}, l: 'q'}", "[ a , b , ]", "[a: b]", "{k: }", "{k:}", "[{a: b} ]",
     "{a: [x, {b: \"c\"}]}", "[a, {b: [c, ~]}]", "{a: b, a: c}", "[a #c]", "{a: 'x', b: [\"y\", 1, true]}"]
)


@st.composite
def block_docs(draw: Any, depth: int = 0) -> list[str]:
    lines: list[str] = []
    for key in draw(st.lists(_KEYS, min_size=1, max_size=4, unique=True)):
        kind = draw(st.sampled_from(["scalar", "scalar", "map", "seq", "empty", "block", "lines", "quoted", "flowlines"] if depth < 3 else ["scalar", "lines", "quoted", "flowlines"]))
        if kind == "block":
            lines.append(f"{key}: " + draw(st.sampled_from(["|", "|-", "|+", ">", ">-", ">+", "|2", "|1-", ">2", ">+2"])))
            for _ in range(draw(st.integers(1, 5))):
                if draw(st.integers(0, 3)) == 0:
                    lines.append(draw(st.sampled_from(["", "", "  ", "   "])))  # empty lines, or of blanks
                    continue
                extra = " " * draw(st.sampled_from([0, 0, 1, 2]))
                lines.append("  " + extra + draw(st.sampled_from(["x", "# y", "a: b", "- z", "x ", "\tt"])))
        elif kind == "scalar":
            lines.append(f"{key}: {draw(_SCALAR_TEXT)}")
        elif kind == "lines":  # a scalar over several lines, plain or not
            lines.append(f"{key}: {draw(_SCALAR_TEXT)}")
            for _ in range(draw(st.integers(1, 3))):
                if draw(st.integers(0, 3)) == 0:
                    lines.append(draw(st.sampled_from(["", "  # c"])))
                lines.append(" " * draw(st.sampled_from([2, 2, 3, 4, 1])) + draw(_SCALAR_TEXT))
        elif kind == "flowlines":  # a flow collection over lines, JSON's layout among others
            items = draw(st.lists(st.sampled_from(["x", '"a b"', "'it''s'", "[y, z]", "{k: v}", '{"k": "v"}', "1", "a b", "[]"]), min_size=1, max_size=4))
            opener, closer = draw(st.sampled_from([("[", "]"), ("{", "}")]))
            if opener == "{":
                items = [f"k{i}: {x}" for i, x in enumerate(items)]
            lines.append(f"{key}: {opener}" + (items[0] + "," if draw(st.booleans()) else ""))
            rest = items[1:] if lines[-1].endswith(",") else items
            for k, x in enumerate(rest):
                sep = "," if k < len(rest) - 1 else draw(st.sampled_from(["", ","]))
                lines.append(" " * draw(st.sampled_from([0, 1, 2, 4])) + x + sep)
            lines.append(" " * draw(st.sampled_from([0, 0, 2])) + closer + draw(st.sampled_from(["", "", " # c", " x"])))
        elif kind == "quoted":  # a quoted scalar over lines: escapes, empty lines, an escaped break
            q = draw(st.sampled_from(['"', "'"]))
            words = st.sampled_from(["x", "a b", "it''s", 'q\\"q', "\\t", "\\", "# c", "- d", "k: v", "é", ""])
            lines.append(f"{key}: {q}{draw(words)}")
            for _ in range(draw(st.integers(0, 3))):
                lines.append(" " * draw(st.sampled_from([0, 1, 2, 3, 4])) + draw(words) + draw(st.sampled_from(["", "", " ", "\\"])))
            lines.append(" " * draw(st.sampled_from([1, 2, 4])) + draw(words) + q + draw(st.sampled_from(["", "", " # c", " x", ":"])))
        elif kind == "empty":
            lines.append(f"{key}:")
        elif kind == "map":
            lines.append(f"{key}:" + draw(st.sampled_from(["", "", "", " !!map", " !!seq"])))  # a tag, right or wrong
            pad = draw(st.sampled_from(["  ", "  ", "    ", "   "]))  # mixed widths in one object
            lines.extend(pad + x for x in draw(block_docs(depth + 1)))
        else:
            lines.append(f"{key}:" + draw(st.sampled_from(["", "", "", " !!seq", " !!map"])))
            off = draw(st.sampled_from(["", "", "  ", " "]))  # both offsets people write (and one nobody does)
            for _ in range(draw(st.integers(1, 3))):
                if draw(st.booleans()):
                    lines.append(f"{off}- {draw(_SCALAR_TEXT)}")
                else:
                    sub = draw(block_docs(depth + 1))
                    if draw(st.integers(0, 3)) == 0:  # `-` alone on its line, the mapping below
                        lines.append(f"{off}-")
                        lines.extend(off + "  " + x for x in sub)
                        continue
                    lines.append(f"{off}- " + sub[0])
                    lines.extend(off + "  " + x for x in sub[1:])
        if draw(st.integers(0, 3)) == 0:
            lines[-1] += " " * draw(st.integers(1, 2))  # trailing blanks
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["# c", "# c ", "  ", ""])))
    return lines


@st.composite
def folded_scalars(draw: Any) -> list[str]:
    """`key: >` blocks of text lines, some more indented (a list inside a description),
    with empty lines between them; at the top or one mapping down."""
    col = draw(st.sampled_from([0, 2]))
    lines = ["k:"] if col else []
    lines.append(" " * col + "a: " + draw(st.sampled_from([">", ">-"])))
    pad = " " * (col + 2)
    lines.append(pad + draw(st.sampled_from(["text", "a b", "é"])))
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 3)) == 0:
            lines.append("")
            continue
        lines.append(pad + " " * draw(st.sampled_from([0, 0, 1, 2, 4])) + draw(st.sampled_from(["x", "* item", "y z", "- d", "# h"])))
    lines.append(draw(st.sampled_from([" " * col + "z: 1", "", "# end"])))
    return lines


@settings(max_examples=200, deadline=None)
@given(folded_scalars())
def test_folded_scalars_with_more_indented_lines_read_as_ruamel_reads_them(lines: list[str]) -> None:
    """The breaks around a line more indented than its folded scalar are kept, the others
    folded: the light reader reads every such scalar as the round-trip loader does (it
    must take them all: none of these layouts is one it steps aside for)."""
    text = "\n".join(lines) + "\n"
    want = to_plain(loader.rt_load(text))
    data, _ = parser.read(lines, 2, 0, 0)
    assert to_plain(data) == want


@settings(max_examples=300, deadline=None)
@given(block_docs())
def test_reader_never_reads_differently(lines: list[str]) -> None:
    """Whatever the reader takes, it reads as the round-trip loader does."""
    text = "\n".join(lines) + "\n"
    try:
        want = to_plain(loader.rt_load(text))
    except Exception:  # noqa: BLE001 - not YAML (or a duplicate key): the reader must refuse it
        with pytest.raises(errors.Unsure):
            parser.read(lines, 2, 0, 0)
        return
    try:
        data, _ = parser.read(lines, 2, 0, 0)
    except errors.Unsure:
        return
    assert to_plain(data) == want


def test_reader_takes_the_benchmark_targets() -> None:
    """Not a vacuous property: the common layouts are read, not refused."""
    data = gen.generate(20, 1.0, 5)
    frame = resourcelist.parse(data)
    for it in frame.items:
        assert it.text is not None
        body, c = items_mod.item_body(it.text)
        m, s, o = items_mod.detect_indent(body, c)
        got, _ = parser.load_item(it.text, m, s, o)
        assert to_plain(got) == to_plain(items_mod.parse_item_text(it.text))


def test_a_comment_where_the_new_entries_go_stays_after_them() -> None:
    """A comment at the end of the spec, right where the new taskRunSpecs go: the new lines
    go before it, and the output is the round-trip path's."""
    data = gen.generate(1, 1.0, 1).replace(
        "        claimName: cache-0\n", "        claimName: cache-0\n    # end of spec\n", 1
    ).encode()
    assert b"# end of spec" in data
    light, full = both(data)
    assert light == full and light[1] == 0
    assert "    # end of spec\n" in light[0]


def test_a_spec_indented_wider_than_its_metadata_is_read_light_and_written_the_same() -> None:
    """A spec pasted with four-space indentation under metadata indented by two: each mapping
    is read at its own width, and the rewritten run (new keys at their siblings' column, new
    blocks in the object's first width) matches the round-trip path byte for byte."""
    data = gen.generate(1, 1.0, 1)
    head, sep, rest = data.partition("\n  spec:\n")
    body, fsep, tail = rest.partition("\nfunctionConfig:")
    wide = "\n".join("  " + x if x.strip() else x for x in body.split("\n"))
    data = head + sep + wide + fsep + tail
    assert "\n  spec:\n      " in data and "\n  metadata:\n    name:" in data
    light, full = both(data.encode())
    assert light == full and light[1] == 0
    assert "\n      taskRunSpecs:\n" in light[0]
    rl = resourcelist.parse(data)
    rl.items[0].load(light=True)
    assert isinstance(rl.items[0].doc, LightDocument)


def _light_params(extra: str) -> dict[str, Any]:
    """The benchmark's run with `extra` params after its first: the same bytes on both paths,
    read by the light reader; its params by name, as read."""
    data = gen.generate(1, 1.0, 1)
    data = data.replace('      value: "c386bbc4"\n', '      value: "c386bbc4"\n' + extra, 1)
    assert extra in data
    light, full = both(data.encode())
    assert light == full and light[1] == 0
    rl = resourcelist.parse(data)
    rl.items[0].load(light=True)
    assert isinstance(rl.items[0].doc, LightDocument)
    return {p["name"]: p["value"] for p in rl.items[0].doc.data["spec"]["params"]}


def test_kept_and_indicated_block_scalars_are_read_light_and_written_the_same() -> None:
    """Block scalars kept (`|+`: the empty lines after the text are its own), with an
    indentation indicator (`|2-`: the first line deeper), folded with a more-indented line:
    read by the light reader, and the rewritten run matches the round-trip path byte for
    byte (the new taskRunSpecs go after them)."""
    params = _light_params(
        "    - name: notes\n      value: |+\n        kept\n\n"
        "    - name: script\n      value: |2-\n          indented first\n        then\n"
        "    - name: folded\n      value: >\n        text\n          - a list\n        more\n"
    )
    assert params["notes"] == "kept\n\n" and params["script"] == "  indented first\nthen"
    assert params["folded"] == "text\n  - a list\nmore\n"


def test_flow_collections_over_lines_are_read_light_and_written_the_same() -> None:
    """A flow sequence wrapped after a comma (kaniko's args as people write them) and one laid
    out as JSON is (the closing bracket at the key's column): read by the light reader, and
    the rewritten run matches the round-trip path byte for byte."""
    params = _light_params(
        '    - name: args\n      value: ["--context=$(params.context)",\n        "--destination=$(params.image)"]\n'
        "    - name: modes\n      value: [\n        ReadWriteOnce,\n        'ReadOnlyMany'\n      ]  # both\n"
    )
    assert params["args"] == ["--context=$(params.context)", "--destination=$(params.image)"]
    assert params["modes"] == ["ReadWriteOnce", "ReadOnlyMany"]


def test_scalars_tagged_str_are_read_light_and_written_the_same() -> None:
    """`!!str` on a label and a param (a mode that reads as a number without it), `!!map` on
    the spec: read by the light reader, the scalars as the strings they write, double-quoted
    where a generated object copies them (as the round-trip path makes them), and the
    rewritten run (its new taskRunSpecs inside the tagged spec) matches that path byte for
    byte."""
    data = gen.generate(1, 1.0, 1).replace(
        "    name: build-0\n", "    name: build-0\n    labels:\n      mode: !!str 0755\n", 1
    ).replace('      value: "c386bbc4"\n', "      value: !!str 1e3  # a revision\n", 1).replace("\n  spec:\n", "\n  spec: !!map\n", 1)
    assert "mode: !!str 0755" in data and "value: !!str 1e3" in data and "spec: !!map" in data
    light, full = both(data.encode())
    assert light == full and light[1] == 0
    assert 'mode: "0755"' in light[0]  # copied into the placeholder's labels
    rl = resourcelist.parse(data)
    rl.items[0].load(light=True)
    assert isinstance(rl.items[0].doc, LightDocument)
    assert rl.items[0].doc.data["spec"]["params"][0]["value"] == "1e3"


def test_block_scripts_same_bytes_and_light() -> None:
    """Embedded task scripts (literal block scalars, one ending in a `#` line) are read by
    the light reader and the rewritten run matches the round-trip path byte for byte."""
    data = (ROOT / "tests" / "data" / "lite-literal-scripts.yaml").read_bytes()
    light, full = both(data)
    assert light == full
    assert light[1] == 0 and "persistentVolumeClaim" in light[0]
    rl = resourcelist.parse(data.decode())
    rl.items[0].load(light=True)
    assert isinstance(rl.items[0].doc, LightDocument)


def test_quoted_flow_scalars_are_read_light_and_written_the_same() -> None:
    """JSON-ish one-line flow collections (`["ReadWriteOnce"]`, `{team: "a: b"}`) stay on the
    light path, and the rewritten run matches the round-trip path byte for byte."""
    data = (
        gen.generate(1, 1.0, 1)
        .replace("accessModes: [ReadWriteOnce]", "accessModes: [\"ReadWriteOnce\", 'ReadOnlyMany']")
        .replace("runAfter: [clone]", 'runAfter: ["clone"]')
        .replace("  spec:\n    params:\n", "  spec:\n    x-meta: {team: \"a: b\", tier: 'x y', n: '1'}\n    params:\n", 1)
    )
    assert 'runAfter: ["clone"]' in data and "x-meta: {team:" in data
    light, full = both(data.encode())
    assert light == full and light[1] == 0
    rl = resourcelist.parse(data)
    rl.items[0].load(light=True)
    assert isinstance(rl.items[0].doc, LightDocument)
    assert rl.items[0].node["spec"]["x-meta"] == {"team": "a: b", "tier": "x y", "n": "1"}


NULL_RUN = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: exported
    creationTimestamp: null
  spec:
    pipelineRef:
      name: build
    params:
    - name: optional
      value: ~
    workspaces:
    - name: source
      volumeClaimTemplate:
        metadata:
          creationTimestamp: null
        spec:
          accessModes: [ReadWriteOnce]
          resources:
            requests:
              storage: 1Gi
  status: {}
""" + function_config("pipelineruns", "ci")


_WORKSPACES_POLICY = function_config("workspaces")
_END_EDIT = """apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: pr1, namespace: ci, annotations: {note: https://h:8443/x}}
  spec:
    pipelineSpec: {tasks: [{name: t1, taskRef: {name: x}, workspaces: [{name: w, workspace: a}]}]}
    workspaces:
    - name: b
      volumeClaimTemplate: {spec: {resources: {requests: {storage: 1Gi}}}, metadata: {name: data}}
    taskRunTemplate:
      podTemplate:
        nodeSelector:
          pool: ci
%s""" + _WORKSPACES_POLICY + """\
    defaultPodTemplate:
      schedulerName: batch
"""


@pytest.mark.parametrize("tail", ["", "\n", "\n\n", "  # c\n", "\n  # c\n", "  # c\n\n"])
def test_an_edit_at_the_end_of_an_item_with_blank_lines_or_comments_after_it(tail: str) -> None:
    """The edit (schedulerName) goes at the end of the item's last mapping, and the item's
    placeholder after the item. The round-trip path writes the edit before the comments that
    end the item, but after blank lines alone (found by the random runs above, seed 101):
    the light path does the same, or steps aside."""
    light, full = both((_END_EDIT % tail).encode())
    assert light == full and light[1] == 0
    assert "schedulerName: batch" in light[0].split("functionConfig:")[0]


_BOUND = """apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: pr1
    namespace: ci
  spec:
    pipelineSpec:
      tasks:
      - name: t1
        taskRef:
          name: x
        workspaces:
        - name: w
          workspace: a
    workspaces:
    - name: a
      volumeClaimTemplate:
        spec:  # the claim
          resources:
            requests:
              storage: 1Gi
%s    - name: b
      emptyDir: {}
""" + _WORKSPACES_POLICY


@pytest.mark.parametrize("between", ["", "    # b next\n", "          # deeper\n", "\n", "\n    # after a blank\n", "# column 0\n", "    # one\n\n    # two\n"])
def test_a_bound_claim_template_followed_by_comments_or_blank_lines(between: str) -> None:
    """Binding the template rewrites its entry in place (splice: a swapped key), dropping the
    comment inside it; what follows it stays after the new lines, on both paths alike,
    and the light path does it without the round-trip loader."""
    data = (_BOUND % between).encode()
    light, full = both(data)
    assert light == full and light[1] == 0
    assert "# the claim" not in light[0] and "persistentVolumeClaim:\n        claimName: " in light[0]
    assert "              storage: 1Gi\n" not in light[0].split("- apiVersion: apps/v1")[0]
    assert between + "    - name: b\n" in light[0]
    real, loads = loader.rt_load, []
    loader.rt_load = lambda *a, **k: loads.append(1) or real(*a, **k)  # type: ignore[assignment]
    try:
        run_resource_list(data, light=True)
    finally:
        loader.rt_load = real  # type: ignore[assignment]
    assert not loads or between == "# column 0\n"  # left of the item: the light reader steps aside


def test_explicit_null_is_read_light_and_kept() -> None:
    """`creationTimestamp: null` (every `kubectl ... -o yaml --dry-run` export) is read by the
    light reader; both writers keep it as written (issue 11, class 17)."""
    rl = resourcelist.parse(NULL_RUN)
    rl.items[0].load(light=True)
    assert isinstance(rl.items[0].doc, LightDocument)
    light, full = both(NULL_RUN.encode())
    assert light == full and light[1] == 0
    assert "    creationTimestamp: null\n" in light[0] and "      value: ~\n" in light[0]
    assert "persistentVolumeClaim:" in light[0]


def test_explicit_null_outside_the_edit_stays_on_the_light_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.yaml.splice import splicer

    def never(*_a: Any, **_k: Any) -> str:
        raise AssertionError("the round-trip path was taken")

    text = NULL_RUN.replace("        metadata:\n          creationTimestamp: null\n", "")
    monkeypatch.setattr(splicer, "render_round_trip", never)
    out, _, code = run_resource_list(text.encode(), light=True)
    assert code == 0 and "    creationTimestamp: null\n" in out and "persistentVolumeClaim:" in out


def _light(text: str) -> LightDocument:
    item = resourcelist.parse(text).items[0]
    item.load(light=True)
    assert isinstance(item.doc, LightDocument)
    return item.doc


_COMPACT_ITEM = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- # a head comment
  apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: r  # the run
    labels:
      a: b
  spec:
    params: # what the run is given
    - name: x
      value: 'y'
    workspaces:
    - name: w
      emptyDir: {}
"""


def test_a_compacted_document_edited_again_writes_what_an_uncompacted_one_writes() -> None:
    """Once written, a light document lets go of its layout and its copy as read
    (LightDocument.compact: 10,000 runs held all of them at once). An edit after that (no
    transform makes one today) reads both again from the item's text, and the positions get
    back the collections they had: the text is the one the document would have written."""
    def edit1(d: dict[str, Any]) -> None:
        d["metadata"]["labels"]["c"] = "d"

    def edit2(d: dict[str, Any]) -> None:
        d["spec"]["params"][0]["value"] = "z"
        d["spec"]["workspaces"].append({"name": "v", "emptyDir": {}})

    whole = _light(_COMPACT_ITEM)
    edit1(whole.data)
    edit2(whole.data)
    expected = whole.render(0)[0]

    doc = _light(_COMPACT_ITEM)
    edit1(doc.data)
    first = doc.render(0)[0]
    doc.compact()
    assert doc._layout is None and doc._read is None  # noqa: SLF001 - what compact lets go of
    assert doc.changed and doc.render(0)[0] == first  # the text written, without a reading
    assert doc.before["metadata"]["labels"] == {"a": "b"}  # the data as read, read again
    edit2(doc.data)
    assert doc.render(0)[0] == expected
    assert "    - name: v\n      emptyDir: {}\n" in expected and "  # the run\n" in expected
    # what was written is remembered by a fingerprint of the data, not a copy: an edit of
    # the same length after writing is seen too
    again = _light(_COMPACT_ITEM)
    edit1(again.data)
    again.render(0)
    again.data["metadata"]["labels"]["c"] = "e"
    assert "c: e" in again.render(0)[0]
    # an unchanged document written and compacted says it is unchanged
    same = _light(_COMPACT_ITEM)
    same.render(0)
    same.compact()
    assert not same.changed


def test_a_written_document_keeps_its_text_and_reads_it_when_looked_at() -> None:
    """Item.release after a changed light document is written keeps only the text written
    (document.WrittenDocument): a list of 10,000 runs held every run's data to the end. The
    output is that text; a lookup after reads it (the same data); an edit after is written
    as an edit of the whole would be; `before` is still the data of the item's own text."""
    from krm_fn.yaml.document import WrittenDocument

    item = resourcelist.parse(_COMPACT_ITEM).items[0]
    item.load(light=True)
    assert isinstance(item.doc, LightDocument)
    item.doc.data["metadata"]["labels"]["c"] = "d"
    data = copy.deepcopy(item.doc.data)
    first = item.render(0)[0]
    item.release()
    assert isinstance(item.doc, WrittenDocument) and item.doc._doc is None  # noqa: SLF001
    assert item.changed and item.render(0)[0] == first
    assert item.before["metadata"]["labels"] == {"a": "b"}
    assert item.node == data  # read from the text written
    item.node["spec"]["params"][0]["value"] = "z"
    assert item.doc is not None
    item.doc.add_key(item.node["metadata"], "annotations", item.doc.safe({"k": "v"}))  # edits go to the reading
    whole = _light(_COMPACT_ITEM)
    whole.data["metadata"]["labels"]["c"] = "d"
    whole.data["spec"]["params"][0]["value"] = "z"
    whole.add_key(whole.data["metadata"], "annotations", whole.safe({"k": "v"}))
    assert item.render(0)[0] == whole.render(0)[0]
    assert "annotations:" in whole.render(0)[0]


_FLOW_BUILD = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: shipwright.io/v1beta1
  kind: Build
  metadata: {name: gpu-build, namespace: ci}
  spec:
    strategy: {name: buildah}
    output: {image: 'registry.example.com/gpu'}
    nodeSelector: {pool: gpu, "zone": 'a'}
    tolerations: [{key: dedicated, operator: Equal, value: gpu}]
    schedulerName: default-scheduler
functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: CoschedulePolicy
  metadata:
    name: ci
  spec:
    scheduling:
      nodeSelector:
        pool: builds
      tolerations:
      - key: team
        operator: Equal
        value: builds
        effect: NoSchedule
      onConflict: override
"""


@pytest.mark.parametrize("edit", ["nodeSelector", "tolerations"])
def test_a_flow_collection_edited_in_place_is_written_on_the_light_path(edit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flow mapping or sequence the policy edits (`nodeSelector: {pool: gpu}` overridden,
    a toleration added to a flow list) is written by the light path as the round-trip path
    writes it: the entry in flow style, its quoted scalars still quoted, and the item is
    not read again by the round-trip loader (it used to be, for every such edit)."""
    text = _FLOW_BUILD if edit == "nodeSelector" else _FLOW_BUILD.replace("        pool: builds\n", "        pool: gpu\n")
    light, full = both(text.encode())
    assert light == full and light[1] == 0
    if edit == "nodeSelector":
        assert "    nodeSelector: {pool: builds, \"zone\": 'a'}\n" in light[0]
    else:
        assert "    tolerations: [{key: dedicated, operator: Equal, value: gpu}, {key: team, operator: Equal, value: builds, effect: NoSchedule}]\n" in light[0]
    loads: list[int] = []
    real = loader.rt_load
    monkeypatch.setattr(loader, "rt_load", lambda *a, **k: loads.append(1) or real(*a, **k))
    assert run_resource_list(text.encode(), light=True)[0] == light[0]
    assert not loads


def _collections(v: Any) -> list[Any]:
    out = []
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, (dict, list)):
            out.append(x)
            stack.extend(x.values() if isinstance(x, dict) else x)
    return out


def _scalars(v: Any) -> list[Any]:
    if isinstance(v, dict):
        return [s for k, x in v.items() for s in (k, *_scalars(x))]
    if isinstance(v, list):
        return [s for x in v for s in _scalars(x)]
    return [v]


@pytest.mark.parametrize("case", CASES[:40], ids=[c.name for c in CASES[:40]])
def test_copy_read_copies_every_collection_the_reader_builds(case: Path) -> None:
    """LightDocument keeps dataread.copy_read's copy of what it read, to tell what the
    transform changed: equal data, the same scalar objects (their str subclasses say how a
    scalar was written), and no collection shared with the data the transform edits (which
    relies on the reader building exact dicts and lists only)."""
    rl = resourcelist.parse(build_resource_list(case).decode())
    read = 0
    for it in rl.items:
        it.load(light=True)
        if not isinstance(it.doc, LightDocument):
            continue
        read += 1
        data = it.doc.data
        assert all(c.__class__ in (dict, list) for c in _collections(data))
        copy = dataread.copy_read(data)
        assert copy == data
        assert [type(s) for s in _scalars(copy)] == [type(s) for s in _scalars(data)]
        assert all(a is b for a, b in zip(_scalars(copy), _scalars(data), strict=True))
        assert not {id(c) for c in _collections(copy)} & {id(c) for c in _collections(data)}
    assert read or not rl.items
