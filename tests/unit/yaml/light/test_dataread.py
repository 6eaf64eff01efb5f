"""light/dataread: the light reader's reading without positions must be parser.read's (the
same data, the same texts refused), and a document read data-only must write what a
document read whole writes (its positions read later get back its collections)."""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from golden import build_resource_list  # type: ignore[import-not-found]
from hypothesis import given
from hypothesis import settings
from shared import yaml_documents
from unit.yaml.light.test_parser import BAIL  # type: ignore[import-not-found]
from unit.yaml.light.test_parser import CASES  # type: ignore[import-not-found]
from unit.yaml.light.test_parser import EXAMPLES  # type: ignore[import-not-found]
from unit.yaml.light.test_parser import READ_SAME  # type: ignore[import-not-found]
from unit.yaml.light.test_parser import block_docs  # type: ignore[import-not-found]

from krm_fn.core import errors
from krm_fn.io import items as items_mod
from krm_fn.io import resourcelist
from krm_fn.yaml.document import LightDocument
from krm_fn.yaml.light import dataread
from krm_fn.yaml.light import parser


def _readings(read_full: Any, read_data: Any, *args: Any) -> tuple[Any, Any]:
    """(full, data-only): each (data, extra) or the Unsure it raised, by its class."""
    out = []
    for read in (read_full, read_data):
        try:
            out.append(read(*args))
        except errors.Unsure:
            out.append(errors.Unsure)
    return out[0], out[1]


def _same(full: Any, data_only: Any) -> None:
    if full is errors.Unsure or data_only is errors.Unsure:
        assert full is data_only
        return
    (data, doc), (data2, nodes) = full, data_only
    if isinstance(nodes, dataread.Unplaced):
        _is_a_copy(nodes.read, data2)
        nodes = nodes.nodes
    assert data2 == data
    assert [type(x) for x in _scalars(data2)] == [type(x) for x in _scalars(data)]  # str subclasses: how it was written
    entries = dataread.collections(doc)
    assert [e.node for e in entries] == nodes
    assert all(e.node is not n for e, n in zip(entries, nodes, strict=True))  # two readings: no collection shared
    assert len(entries) == sum(1 for e in doc.order if e.node is not None)


def _collections(v: Any) -> list[Any]:
    if isinstance(v, dict):
        return [v, *(c for x in v.values() for c in _collections(x))]
    if isinstance(v, list):
        return [v, *(c for x in v for c in _collections(x))]
    return []


def _is_a_copy(copy: Any, data: Any) -> None:
    """The reader's copy (Unplaced.read) is copy_read's: equal, the same scalar types,
    exact dicts and lists, and no collection shared with the data."""
    assert copy == data == dataread.copy_read(data)
    assert [type(x) for x in _scalars(copy)] == [type(x) for x in _scalars(data)]
    assert {type(c) for c in _collections(copy)} <= {dict, list}
    assert not {id(c) for c in _collections(copy)} & {id(c) for c in _collections(data)}


def _scalars(v: Any) -> list[Any]:
    if isinstance(v, dict):
        return [s for k, x in v.items() for s in (k, *_scalars(x))]
    if isinstance(v, list):
        return [s for x in v for s in _scalars(x)]
    return [v]


def _items(text: str) -> list[tuple[str, int, int, int, list[str]]]:
    out = []
    for it in resourcelist.parse(text).items:
        if it.text is None:
            continue
        entry = it.entry_text()
        lines = items_mod.layout_mod.split_lines(entry, keepends=False)
        body, c = items_mod._body(lines)  # noqa: SLF001 - as Item.load reads an item
        m, s, o = items_mod.detect_indent(body, c)
        out.append((entry, m, s, o, lines))
    return out


@pytest.mark.parametrize("path", CASES + EXAMPLES, ids=[p.name if p in CASES else str(p) for p in CASES + EXAMPLES])
def test_every_item_of_the_fixtures_reads_the_same_data_only(path: Path) -> None:
    text = build_resource_list(path).decode() if path in CASES else path.read_text()
    for args in _items(text):
        _same(*_readings(parser.load_item, dataread.load_item, *args))


@pytest.mark.parametrize("text", READ_SAME + BAIL)
def test_the_parsers_cases_read_the_same_data_only(text: str) -> None:
    m, _, o = items_mod.detect_indent(text.splitlines(True), 0)
    _same(*_readings(parser.read, dataread.read, text.split("\n")[:-1], m, o, 0))


@settings(max_examples=300, deadline=None)
@given(block_docs())
def test_random_documents_read_the_same_data_only(lines: list[str]) -> None:
    _same(*_readings(parser.read, dataread.read, lines, 2, 0, 0))


_RUN = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- # a head comment
  apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: r  # the run
    labels: {a: b}
  spec:
    params: # what the run is given
    - name: x
      value: 'y'
      description: a long
        line
    workspaces:
    -
      name: w
      emptyDir: {}
    - name: v
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
"""


def _edits() -> list[Any]:
    def in_place(d: dict[str, Any]) -> None:
        d["metadata"]["labels"]["c"] = "d"
        d["spec"]["params"][0]["value"] = "z"
        d["spec"]["workspaces"][1]["volumeClaimTemplate"]["spec"]["accessModes"].append("ReadOnlyMany")

    def replaced(d: dict[str, Any]) -> None:
        d["spec"]["workspaces"][0] = {"name": "w", "emptyDir": {}}  # equal, but a new mapping
        d["metadata"]["labels"] = {"a": "b"}
        d["spec"]["workspaces"].append({"name": "u", "persistentVolumeClaim": {"claimName": "c"}})

    def removed(d: dict[str, Any]) -> None:
        del d["spec"]["workspaces"][1]["volumeClaimTemplate"]
        d["spec"]["workspaces"][1]["persistentVolumeClaim"] = {"claimName": "c"}

    return [in_place, replaced, removed]


@pytest.mark.parametrize("edit", _edits(), ids=lambda f: f.__name__)
def test_a_document_read_data_only_writes_what_one_read_whole_writes(edit: Any) -> None:
    """Item.load(positions=False): the positions are read when the edit is written, and
    get the collections the data-only reading built (an edit in place and a new collection
    are told apart as on a whole reading)."""
    texts = []
    for positions in (True, False):
        item = resourcelist.parse(_RUN).items[0]
        item.load(light=True, positions=positions)
        assert isinstance(item.doc, LightDocument)
        assert (item.doc._layout is None) is not positions  # noqa: SLF001 - read data-only
        assert not item.changed
        edit(item.doc.data)
        assert item.changed
        texts.append(item.render(0)[0])
        item.doc.compact()
        assert item.render(0)[0] == texts[-1]
    assert texts[0] == texts[1]
    assert "  # the run\n" in texts[0] and "      description: a long\n        line\n" in texts[0]


def test_an_unchanged_document_read_data_only_never_reads_its_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real = parser.read
    monkeypatch.setattr(parser, "read", lambda *a, **k: reads.append(1) or real(*a, **k))
    item = resourcelist.parse(_RUN).items[0]
    item.load(light=True, positions=False)
    assert not item.changed and item.render(0)[0] == item.text
    item.release()
    assert reads == []


@pytest.mark.parametrize("text", READ_SAME + BAIL)
def test_indentation_remembered_by_line_reads_as_measured(text: str) -> None:
    """parser.Reader keeps each content line's indentation by its text (_INDENTS): a text
    read with its lines remembered, with some of them only, and measured afresh gives the
    same indentation, next content lines and comment lines (and refuses alike)."""
    lines = text.split("\n")[:-1]

    def reading(remembered: list[str]) -> Any:
        parser._INDENTS.clear()  # noqa: SLF001
        for x in remembered:  # as an earlier object's reading left them
            with contextlib.suppress(errors.Unsure):
                parser.Reader([x], 2, 0)
        try:
            r = parser.Reader(lines, 2, 0, 0)
        except errors.Unsure:
            return errors.Unsure
        return r.ind, r.nxt, r.notes

    fresh = reading([])
    assert reading(lines) == fresh  # every content line remembered
    assert reading(lines[::2]) == fresh
    assert reading(lines[: len(lines) // 2 + 1]) == fresh
    parser._INDENTS.clear()  # noqa: SLF001
    with contextlib.suppress(errors.Unsure):
        parser.Reader(lines, 2, 0)
    assert not any(not x.strip(" ") or x.lstrip(" ").startswith("#") for x in parser._INDENTS)  # noqa: SLF001


# --------------------------------------------------------------------------- a document read off its own lines


def _by_entry(text: str) -> Any:
    """What Item.load's data-only reading of a document's entry gives: (data, Unplaced) or Unsure."""
    entry = items_mod.entry_of(text)
    lines = items_mod.layout_mod.split_lines(entry, keepends=False)
    body, c = items_mod._body(lines)  # noqa: SLF001 - as Item.load reads an item
    m, s, o = items_mod.detect_indent(body, c)
    try:
        return dataread.load_item(entry, m, s, o, lines)
    except errors.Unsure:
        return errors.Unsure


def _same_document(text: str) -> bool:
    """load_document(text) reads what the entry's reading reads (None: not taken); whether taken."""
    try:
        got = dataread.load_document(text)
    except errors.Unsure:
        got = errors.Unsure
    if got is None:
        return False
    want = _by_entry(text)
    if want is errors.Unsure or got is errors.Unsure:
        assert got is want, text
        return True
    assert got[0] == want[0], text
    assert [type(x) for x in _scalars(got[0])] == [type(x) for x in _scalars(want[0])]
    assert got[1].nodes == want[1].nodes
    _is_a_copy(got[1].read, got[0])
    assert (got[1].m, got[1].o) == (want[1].m, want[1].o)
    return True


def test_every_document_of_the_fixtures_reads_as_its_entry() -> None:
    taken = sum(_same_document(doc) for doc in yaml_documents())
    assert taken > 50


@pytest.mark.parametrize("text", READ_SAME + BAIL)
def test_the_parsers_cases_read_as_their_entry(text: str) -> None:
    _same_document(text)


@settings(max_examples=300, deadline=None)
@given(block_docs())
def test_random_documents_read_as_their_entry(lines: list[str]) -> None:
    _same_document("# head\n" + "\n".join(lines) + "\n")


def test_the_deepest_indentation_is_the_entrys() -> None:
    """The entry is two columns deeper: a document as deep as parser.MAX_INDENT allows
    in the entry reads, one column deeper is Unsure, as the entry's reading is."""
    for deep in (parser.MAX_INDENT - 2, parser.MAX_INDENT - 1):
        text = "a:\n" + "".join(" " * k + f"k{k}:\n" for k in range(1, deep)) + " " * deep + "k: v\n"
        assert _same_document(text)
    with pytest.raises(errors.Unsure):
        dataread.load_document(text)


def test_a_document_not_read_line_for_line_is_left_to_its_entry() -> None:
    for text in ("a: 1\n\nb: 2\n", "a: 1 \n", "a: é\n", "a: 1", "  a: 1\n", "# only\n", "a:\tb\n"):
        assert dataread.load_document(text) is None


def test_a_document_item_is_read_off_its_own_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Item.load(positions=False) of a document: no entry read (dataread.load_item), the same
    data, and its positions read from the entry when an edit is written."""
    text = items_mod.layout_mod.unentry(_RUN.split("items:\n", 1)[1])
    calls: list[int] = []
    real = dataread.load_item
    monkeypatch.setattr(dataread, "load_item", lambda *a, **k: calls.append(1) or real(*a, **k))
    item = items_mod.Item(0, text, items_mod.Meta("tekton.dev/v1", "PipelineRun"), document=True)
    item.load(light=True, positions=False)
    assert calls == [] and isinstance(item.doc, LightDocument)
    assert item.node == _by_entry(text)[0]
    item.node["spec"]["params"][0]["value"] = "z"
    assert "    value: 'z'\n" in item.render(0)[0]


def test_an_unchanged_document_read_data_only_never_makes_its_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """LightDocument.source (the entry) is made when a writing needs it, not on reading."""
    made: list[str] = []
    real = items_mod.layout_mod.entry_of
    monkeypatch.setattr(items_mod.layout_mod, "entry_of", lambda t: made.append(t) or real(t))
    text = items_mod.layout_mod.unentry(_RUN.split("items:\n", 1)[1])
    item = items_mod.Item(0, text, items_mod.Meta("tekton.dev/v1", "PipelineRun"), document=True)
    item.load(light=True, positions=False)
    assert not item.changed and item.render(0)[0] == text
    item.release()
    assert made == []
    item.load(light=True, positions=False)
    item.node["metadata"]["name"] = "s"
    assert "  name: s  # the run\n" in item.render(0)[0]
    assert made == [text]  # the positions, read from the entry


def _measures_alike(text: str) -> None:
    first = items_mod.layout_mod.line_for_line(text)
    if first < 0 or text[first] == " ":
        return
    lines = text[first:-1].split("\n")
    try:
        r = dataread.DataReader(lines, 0, 0, 0, bare=True)
    except errors.Unsure:
        return
    assert dataread._detect_indent(r) == items_mod.detect_indent(lines, 0), text  # noqa: SLF001


def test_the_readers_measures_give_detect_indents_layout() -> None:
    for doc in yaml_documents():
        _measures_alike(doc)
    for text in READ_SAME + BAIL:
        _measures_alike(text)


@settings(max_examples=300, deadline=None)
@given(block_docs())
def test_random_documents_measure_alike(lines: list[str]) -> None:
    _measures_alike("\n".join(lines) + "\n")
    _measures_alike("a:\n" + "".join(f"  {x}\n" if x else "\n" for x in lines) + "b:\n- 1\n  - x\n")
