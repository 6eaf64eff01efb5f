"""io/items: the entry form of a document (items.entry_of, layout.entry_of's fast path)."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from krm_fn.io import items
from krm_fn.yaml import layout

_ROOT = Path(__file__).resolve().parents[3]

# the lines documents are made of, and the characters that send a text to layout's loop
_LINES = st.sampled_from(
    ["a: 1", "  b: x", "- c", "  - d: 2", "# head", "  # note", "", " ", "   ", "k: v # c", "x: 'q'", "-", "\t", "y:\r", "z: \x85", "w: é"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINES, max_size=8), st.sampled_from(["\n", ""]))
def test_the_same_text_as_layouts_loop(lines: list[str], end: str) -> None:
    text = "\n".join(lines) + end if lines else end
    assert items.entry_of(text) == layout._entry_of_lines(text)  # noqa: SLF001 - the loop the fast path must equal


def test_every_document_of_the_examples_and_fixtures() -> None:
    n = 0
    for path in sorted([*(_ROOT / "examples").rglob("*.yaml"), *(_ROOT / "tests").rglob("*.yaml")]):
        try:
            raw = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for doc in raw.split("\n---\n"):
            for text in (doc, doc + "\n"):
                assert items.entry_of(text) == layout._entry_of_lines(text), path  # noqa: SLF001
                n += 1
    assert n > 100


def test_a_document_gets_its_dash_after_the_head_comment() -> None:
    text = "# nightly\n  # more\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
    assert items.entry_of(text) == "  # nightly\n    # more\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n"


# --------------------------------------------------------------------------- the document form


def test_unentry_gives_layouts_text() -> None:
    """yaml/document.unentry (used by items and the writers) is layout.unentry's string: on
    every example and fixture document's entry form, and on generated texts."""
    import random

    from krm_fn.yaml import document

    texts = []
    for path in sorted([*(_ROOT / "examples").rglob("*.yaml"), *(_ROOT / "tests").rglob("*.yaml")]):
        try:
            texts += [layout.entry_of(d) for d in path.read_text(encoding="utf-8").split("\n---\n")]
        except (UnicodeDecodeError, OSError):
            continue
    rnd = random.Random(2)
    parts = ["- ", "a", " ", "  ", "   ", "\n", "\n  ", "#", ":", "\t", "\r", "\x85", "\n \n", "\n   \n", "x: 1\n", "\x1f", "\u2028"]
    texts += ["".join(rnd.choice(parts) for _ in range(rnd.randint(0, 10))) for _ in range(20000)]
    for text in texts:
        assert document.unentry(text) == layout.unentry(text), repr(text)
