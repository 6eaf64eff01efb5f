"""The check-only reader (krm_fn.yaml.light.check): what it takes, libyaml's parser and the
round-trip loader's parser take too (it decides the syntax check of untouched objects, which
are then echoed unread); what it is unsure of it leaves to the light reader and libyaml, so
a False refuses nothing. And it takes the objects manifests are made of (else it saves
nothing)."""
from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from shared import ROOT
from unit.yaml.light.test_parser import BAIL  # type: ignore[import-not-found]
from unit.yaml.light.test_parser import READ_SAME  # type: ignore[import-not-found]
from unit.yaml.light.test_parser import block_docs  # type: ignore[import-not-found]

from krm_fn.io import resourcelist
from krm_fn.io.items import light_reads
from krm_fn.yaml import guards
from krm_fn.yaml.light.check import checks

sys.path.insert(0, str(ROOT / "bench"))
import gen  # noqa: E402


def libyaml_parses(text: str) -> bool:
    from _ruamel_yaml import CParser

    try:
        CParser(text).raw_parse()
    except Exception:  # noqa: BLE001 - libyaml's errors of every kind
        return False
    return True


def ruamel_parses(text: str) -> bool:
    try:
        for _ in YAML(typ="rt", pure=True).parse(text):
            pass
    except Exception:  # noqa: BLE001 - the pure parser's errors of every kind
        return False
    return True


def assert_sound(text: str) -> bool:
    """checks(text) only when both parsers take `text`; its verdict."""
    said = checks(text)
    if said:
        assert guards.flow_nesting_within_limit(text)
        assert libyaml_parses(text), text
        assert ruamel_parses(text), text
    return said


def as_item(lines: list[str], dash: int, head: str | None) -> str:
    """`lines` (a block mapping at column 0) as an entry of `items` whose dash sits at `dash`."""
    pad = " " * dash
    out = [pad + "- " + lines[0]] if head is None else [pad + "- " + head, pad + "  " + lines[0]]
    out += [(pad + "  " + x) if x else x for x in lines[1:]]
    return "\n".join(out) + "\n"


# what the mutations put in: YAML's indicators, blanks, and characters YAML refuses
_INSERTS = ["\\\"", "x:y", "\"a:b\""] + list(":#-?'\"[]{},|>&*!%@`\\ \t") + [": ", " #", "- ", "  ", "\n", "\n  ", "\n- ", "\u0085", "\x01", "\u00a0", "---\n"]


@st.composite
def mutated_items(draw: Any) -> str:
    lines = draw(block_docs())
    text = as_item(lines, draw(st.sampled_from([0, 0, 2, 4])), draw(st.sampled_from([None, None, "# c", ""])))
    for _ in range(draw(st.integers(0, 3))):
        what = draw(st.integers(0, 3))
        at = draw(st.integers(0, len(text)))
        if what == 0:
            text = text[:at] + draw(st.sampled_from(_INSERTS)) + text[at:]
        elif what == 1:
            text = text[:at] + text[at + draw(st.integers(1, 3)) :]  # a few characters gone
        else:  # a line moved left or right
            start = text.rfind("\n", 0, at) + 1
            if what == 2:
                text = text[:start] + " " * draw(st.integers(1, 3)) + text[start:]
            elif text.startswith(" ", start):
                text = text[:start] + text[start + 1 :]
    return text


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_items())
def test_what_it_takes_both_parsers_take(text: str) -> None:
    assert_sound(text)


@pytest.mark.parametrize("text", READ_SAME + BAIL)
def test_the_light_readers_cases(text: str) -> None:
    lines = text.split("\n")[:-1]
    for dash in (0, 2):
        assert_sound(as_item(lines, dash, None))
        assert_sound(as_item(lines, dash, "# head"))


TAKEN = [
    "- a: 1\n  b:\n  - x\n  - y: z\n    w: [1, 2]\n",
    "- # head\n  a: 'q''s'  # c\n  b: \"x \\\"y\\\"\"\n\n  c:\n    d: |\n      text\n\n      more\n    e: >-\n      f\n",
    "  - a:\n    - b\n    c: {k: v}\n",
    "- a: x:y\n  b: http://h:80/p #c\n  c: a#b\n  d: -1\n  e: ?x\n  f: :y\n  g: a, b [c] {d}\n",
    "- a:\n    -\n      b: 1\n  c: ~\n",
    '- "quoted key": 1\n  \'k\': 2\n  x:\n  - "q": 3\n',
    "- apiVersion: v1\n  kind: ConfigMap\n  data:\n    script: |\n      #!/bin/sh\n      echo \"a: b\" # not a comment\n\n  # after\n",
]
REFUSED_OR_UNSURE = [
    "- a: b: c\n",
    "- a: x\n   y: z\n",
    "- a: x\n  - y\n",
    "- a: 'x\n  y'\n",
    "- a: &x 1\n  b: *x\n",
    "- a: !!str x\n",
    "- a:\tx\n",
    "- a: x:\n",
    "- a: [x,\n    y]\n",
    "- a: |2\n    x\n",
    "- a: 1\n- b: 2\n",  # two entries: not one item
    "- a: 1\nb: 2\n",
    "- a: @x\n",
    "- a: `x`\n",
    "- a: %x\n",
    "- a: \"\\q\"\n",
    "- a: 'x' y\n",
    "- a: x\n    # c\n   y\n",
    "- a: |\n  x\n",  # the scalar's lines at its key's column: empty, then an error
    "- ? a\n  : b\n",
    "- a: - b\n",
    "- - a\n",
    "---\n- a: 1\n",
    "- a: x\u0085y\n",
    "- a: \x01\n",
]


@pytest.mark.parametrize("text", TAKEN)
def test_takes(text: str) -> None:
    assert assert_sound(text)


@pytest.mark.parametrize("text", REFUSED_OR_UNSURE)
def test_steps_aside(text: str) -> None:
    assert not checks(text)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_takes_every_benchmark_object(seed: int) -> None:
    """What a 20-item input holds (bench/gen.py): every object is taken, so the syntax check
    of untouched objects never needs the light reader or libyaml for such input."""
    rl = resourcelist.parse(gen.generate(60, 0.3, seed))
    for it in rl.items:
        assert it.text is not None
        assert assert_sound(it.text), it.text


def _fixture_items() -> list[str]:
    out = []
    for p in sorted((ROOT / "fixtures").glob("*/input.yaml")):
        try:
            rl = resourcelist.parse(resourcelist.decode(p.read_bytes()))
        except Exception:  # noqa: BLE001 - fixtures of unreadable input
            continue
        out += [it.text for it in rl.items if it.text is not None]
    return out


def test_fixtures_sound_and_mostly_taken() -> None:
    """Every object of the fixtures: taken only when both parsers take it, and most that the
    light reader takes are taken."""
    texts = _fixture_items()
    assert len(texts) > 100
    light = [t for t in texts if light_reads(t)]
    taken = [t for t in light if assert_sound(t)]
    assert len(taken) >= 0.8 * len(light), (len(taken), len(light))
    for t in texts:
        assert_sound(t)


def test_untouched_objects_are_not_read_by_the_light_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """The syntax check of a small input's untouched objects asks the check-only reader, not
    the light reader that builds their data (0.7 M instructions an object: issue 34)."""
    asked: list[str] = []
    monkeypatch.setattr(resourcelist, "light_reads", lambda t: asked.append(t) or True)
    rl = resourcelist.parse(gen.generate(20, 0.05, 1))
    resourcelist.check_untouched(rl)
    assert asked == []


def test_what_it_is_unsure_of_goes_on_to_the_others() -> None:
    """An item the check-only reader is not sure of is not refused: the light reader, then
    libyaml decide (a folded plain scalar here, which the light reader takes)."""
    text = "- a: one\n    two\n"
    assert not checks(text)
    rl = resourcelist.parse("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + text)
    resourcelist.check_untouched(rl)  # no error

