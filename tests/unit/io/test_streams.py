"""Multi-document streams: exact splitting, items, and the kustomize plugin mode."""
from __future__ import annotations

from pathlib import Path

import fake_transform
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from krm_fn.core import errors
from krm_fn.core import keys
from krm_fn.io import headers
from krm_fn.io import identity
from krm_fn.io import streams
from krm_fn.modes.kustomize import run_plugin
from krm_fn.yaml import emitter
from krm_fn.yaml import layout
from krm_fn.yaml import placeholder
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

RUN = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: build
  namespace: ci
spec:
  workspaces:
  - name: src
    volumeClaimTemplate:
      spec:
        accessModes: [ReadWriteOnce]
"""
CM = """\
# a comment that belongs to the ConfigMap
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data:
  a: "yes"   # quoted on purpose
"""
POLICY = "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: p\nspec:\n  coschedule: workspaces\n"

# streams the function must hand back byte for byte when nothing applies to them
UNCHANGED = [
    "",
    "# only a comment\n",
    "---\n",
    CM,
    "# license header\n---\n" + CM + "---\n" + CM,
    CM + "...\n---\n" + CM,
    "%YAML 1.2\n---\n" + CM,
    CM.replace("\n", "\r\n"),
    CM.rstrip("\n"),
    "\ufeff" + CM,
    '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}, "data": {"on": "off"}}\n',
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  x: |\n    a\tb\n",
    "- a\n- b\n",
    "just a string\n",
    "name: no-kind\non: push\n",
    CM + "---\n---\n# trailing comment\n",
    "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: p\n",
]


@pytest.mark.parametrize("text", UNCHANGED)
def test_split_keeps_every_byte(text: str) -> None:
    s = streams.split(text)
    assert s.bom + "".join(d.sep + d.body for d in s.docs) + s.tail == text
    assert s.raw == text


@settings(database=None)  # never write .hypothesis/ into the repository
@given(st.lists(st.sampled_from(["---\n", "...\n", "# c\n", "a: 1\n", "\n", "  b: 2\n", "--- # x\n", "%TAG\n", "-- \n"]), max_size=30))
def test_split_property(lines: list[str]) -> None:
    text = "".join(lines)
    s = streams.split(text)
    assert "".join(d.sep + d.body for d in s.docs) + s.tail == text
    for d in s.docs:
        assert any(x.strip() and not x.lstrip().startswith("#") for x in d.body.splitlines())


def test_split_documents() -> None:
    s = streams.split("# head\n---\n" + RUN + "---\n" + CM)
    assert [d.sep for d in s.docs] == ["# head\n---\n", "---\n"]
    assert [d.body for d in s.docs] == [RUN, CM]
    assert s.newline == "\n"
    assert streams.split(RUN.replace("\n", "\r\n")).newline == "\r\n"


def test_make_items_only_kubernetes_objects() -> None:
    s = streams.split(RUN + "---\n- a\n---\nname: x\n---\n" + '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}\n')
    streams.make_items(s)
    kinds = [d.item.meta.kind if d.item else None for d in s.docs]
    assert kinds == ["PipelineRun", None, None, "ConfigMap"]


def test_make_items_sets_location_in_memory_only() -> None:
    s = streams.split(RUN.replace("  namespace: ci\n", "  namespace: ci\n  annotations:\n    config.kubernetes.io/path: ../evil.yaml\n"), "dir/run.yaml")
    streams.make_items(s)
    item = s.docs[0].item
    assert item is not None
    assert item.meta.annotations[keys.PATH_KEY] == "dir/run.yaml"
    assert keys.LEGACY_PATH_KEY not in item.meta.annotations
    assert s.docs[0].location == {keys.LEGACY_PATH_KEY: "../evil.yaml"}
    assert item.text is not None and "dir/run.yaml" not in item.text


def test_make_items_bad_yaml_is_a_doc_error() -> None:
    s = streams.split(CM + "---\n{\"apiVersion\": \"v1\", \"kind\": [\n", "x.yaml")
    line = CM.count("\n") + 3  # in the file's lines: the document starts after CM and `---`
    with pytest.raises(errors.InputError, match=rf"x.yaml: document 2 is not valid YAML: .* at line {line}, column 1$"):
        streams.make_items(s)


def test_make_items_untouched_block_object_that_is_not_yaml_is_a_doc_error() -> None:
    """A ConfigMap no transform reads is still syntax-checked: a pre-commit run fails on it."""
    s = streams.split(CM + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  a: [x\n", "x.yaml")
    with pytest.raises(errors.InputError, match=r"x.yaml: document 2 is not valid YAML: .*flow sequence"):
        streams.make_items(s)


def test_head_comment_stays_after_the_dash() -> None:
    # before the dash kpt would give the comment to the previous item (another file)
    assert layout.indent_entry("# head\na: 1\n", 0) == "- # head\n  a: 1\n"
    assert streams.unentry("- # head\n  a: 1\n") == "# head\na: 1\n"


@pytest.mark.parametrize(
    "doc",
    [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "yes"}},
        {"a": [{"b": 1}, "c"], "d": {}},
    ],
)
def test_unentry_reverses_indent_entry(doc: dict) -> None:
    text = emitter.dump_block(doc)
    assert streams.unentry(layout.indent_entry(text, 0)) == text


@pytest.mark.parametrize("text", UNCHANGED)
def test_plugin_passthrough(text: str) -> None:
    # the stub transform and a default policy change nothing: every byte comes back
    out, results, code = _plugin(text, POLICY)
    assert code == 0, results
    assert out == text


def _plugin(text: str, policy: str, tmp: Path | None = None) -> tuple[str, list, int]:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "policy.yaml"
        p.write_text(policy)
        return run_plugin(str(p), text.encode())


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn.orchestration import process

    monkeypatch.setitem(process.HANDLERS, ("tekton.dev", "PipelineRun"), fake_transform.handle_pipelinerun)


KUSTOMIZE_IN = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  annotations:
    kustomize.config.k8s.io/id: |
      group: tekton.dev
      kind: PipelineRun
      name: build
      namespace: ci
      version: v1
  name: build
  namespace: ci
spec:
  workspaces:
  - name: src
    volumeClaimTemplate:
      spec:
        accessModes:
        - ReadWriteOnce
---
apiVersion: v1
data:
  a: "yes"
kind: ConfigMap
metadata:
  annotations:
    kustomize.config.k8s.io/id: |
      kind: ConfigMap
      name: c
      version: v1
  name: c
"""


def test_plugin_rewrites_and_appends(fake: None) -> None:
    out, results, code = _plugin(KUSTOMIZE_IN, POLICY)
    assert code == 0, [r.message for r in results]
    docs = streams.split(out).docs
    assert len(docs) == 3
    # the untouched ConfigMap is the exact input document
    assert docs[1].body == KUSTOMIZE_IN.split("---\n")[1]
    run = to_plain(loader.rt_load(docs[0].body))
    assert run["metadata"]["annotations"]["kustomize.config.k8s.io/id"].startswith("group: tekton.dev")
    assert "persistentVolumeClaim" in run["spec"]["workspaces"][0]
    sts = to_plain(loader.rt_load(docs[2].body))
    assert sts["kind"] == "StatefulSet"
    # never another item's ids, never a location annotation
    assert set(sts["metadata"]["annotations"]) == {keys.OWNER_ANNOTATION}
    # a second pass (kustomize output fed back) changes nothing
    again, _r, code2 = _plugin(out, POLICY)
    assert code2 == 0 and again == out


def test_plugin_error_leaves_stream_unchanged(fake: None) -> None:
    text = KUSTOMIZE_IN.replace(
        "    kustomize.config.k8s.io/id: |\n      group", f"    {fake_transform.ERROR_ANNOTATION}: x\n    kustomize.config.k8s.io/id: |\n      group", 1
    )
    out, results, code = _plugin(text, POLICY)
    assert code == 1
    assert out == text
    assert any(r.severity == "error" and "fake error" in r.message for r in results), [r.message for r in results]


def test_plugin_bad_config() -> None:
    out, results, code = _plugin(CM, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")
    assert code == 1 and out == CM
    assert "unsupported functionConfig" in results[0].message


def test_plugin_bad_yaml_document() -> None:
    text = CM + "---\n{\"kind\": [\n"
    out, results, code = _plugin(text, POLICY)
    assert code == 1 and out == text
    line = CM.count("\n") + 3  # in the stream's lines
    assert "document 2 is not valid YAML: " in results[0].message and f"line {line}," in results[0].message


# --------------------------------------------------------------------------- the check of a new text


def _package(tmp_path: Path) -> tuple[Path, Path]:
    from files_util import PIPELINE
    from files_util import run_doc

    (tmp_path / "pipeline.yaml").write_text(PIPELINE)
    run = tmp_path / "run.yaml"
    run.write_text(run_doc("r"))
    (tmp_path / "policy.yaml").write_text(POLICY)
    return run, tmp_path / "policy.yaml"


def test_generated_documents_are_read_by_libyaml_before_a_file_is_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The block emitter's documents are read by nothing else: a generated document libyaml
    refuses keeps the file as it was (the light writer's run is proven, the assistant not)."""
    from files_util import cli

    run, policy = _package(tmp_path)
    before = run.read_text()
    real = emitter.dump_block

    def broken(obj: object, *a: object, **k: object) -> str:
        text = real(obj, *a, **k)  # type: ignore[arg-type]
        return text + "broken: [\n" if isinstance(obj, dict) and obj.get("kind") == "StatefulSet" else text

    monkeypatch.setattr(emitter, "dump_block", broken)
    # placeholders have a writer of their own (yaml/placeholder): left to the broken emitter here
    monkeypatch.setattr(placeholder, "text", lambda obj, indent=0: None)
    code, _out, err = cli(tmp_path, "--config", str(policy), str(run))
    assert code == 1
    assert "would not read back" in err
    assert run.read_text() == before


def _libyaml_reads_of_rendering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """A run file with a ConfigMap before the run, rendered: (the file, every text libyaml
    was asked to read while it was)."""
    from files_util import cli

    from krm_fn.yaml import libyaml

    run, policy = _package(tmp_path)
    run.write_text(CM + "---\n" + run.read_text())
    read: list[str] = []
    real = libyaml.reads

    def spy(text: str) -> bool:
        read.append(text)
        return real(text)

    monkeypatch.setattr(libyaml, "reads", spy)
    code, _out, err = cli(tmp_path, "--config", str(policy), str(run))
    assert code == 1, err  # rewritten
    return run, read


def test_documents_proven_already_are_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """libyaml reads only what nothing has proven: not the run (the light writer read it
    back), nor the untouched documents (checked when read), nor the placeholder (YAML by
    construction: placeholder.proven; issue 34)."""
    run, read = _libyaml_reads_of_rendering(tmp_path, monkeypatch)
    assert "kind: StatefulSet" in run.read_text()
    # what was written (the rendered run names its assistant); the input may be read, by the
    # syntax check of untouched objects once the light reader's budget for them is spent
    assert [t for t in read if "StatefulSet" in t or "affinity-assistant" in t] == []


def test_a_placeholder_not_proven_is_read_by_libyaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A placeholder text placeholder.proven refuses is read by libyaml, alone: not the run
    (the light writer proved it) nor the untouched documents (checked when read)."""
    monkeypatch.setattr(placeholder, "proven", lambda text: False)
    run, read = _libyaml_reads_of_rendering(tmp_path, monkeypatch)
    written = [t for t in read if "StatefulSet" in t]
    assert len(written) == 1
    assert "kind: PipelineRun" not in written[0] and "kind: ConfigMap" not in written[0]
    assert streams.split(run.read_text()).docs[2].body in written[0]


@settings(database=None)
@given(st.lists(st.sampled_from(["---", "--- ", "---\t# x", "...", "... x", "%YAML 1.2", "%", "a: ---", "  ---", "x...", "b: 1", "", "---x", "....", "-- -"]), max_size=12), st.lists(st.sampled_from(["\n", "\r\n", "\r", ""]), min_size=12, max_size=12))
def test_special_lines_are_the_regular_expressions_matches(lines: list[str], ends: list[str]) -> None:
    text = "".join(line + end for line, end in zip(lines, ends, strict=False))
    assert [m.span() for m in streams.special_lines(text)] == [m.span() for m in streams._SPECIAL_LINE_RE.finditer(text)]


# issue 34: the identity of a document in the common shape read from its first lines
# (headers.document_item) must be the identity reader's, or no answer at all
QUICK_BASES = [
    RUN,
    POLICY,
    "# a head comment\n\n  # indented\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: aa-1\n  namespace: ci\n"
    "  labels:\n    app: x\n    tier: 'db'\n  annotations:\n    krm-coschedule.dev/owner: PipelineRun/r\n"
    "    description: 'nightly build'\nspec:\n  replicas: 1\n",
    "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n    name: rb\n    generateName: rb-\n"
    "roleRef:\n  kind: ClusterRole\n  name: edit\nsubjects:\n- kind: ServiceAccount\n  name: ci-bot\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\nspec: {}\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    a: b\n   odd: 1\n  annotations:\n    z: 'it''s'\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n# in column 0\n\n  namespace: ns\ndata:\n# another\n\n  a: b\n",
]
# lines that change what the identity reader sees, or make it unsure
QUICK_LINES = [
    "kind: Other", "metadata:", "apiVersion: v2", "  name: other", "  namespace: ns2", "  generateName: g-",
    "  annotations:", "    a.b/c: 'v'", "    a.b/c: d", "      deeper", "   odd: 3", " one: 1", "  - item", "- item", "-",
    "# comment", "  # comment", "", "   ", "\tkind: T", '"kind": Q', "'metadata': {}", "? complex", "kind : Spaced",
    "  name: 'quoted'", '  name: "double"', "  name: yes", "  name: 0o17", "  name: a b # c", "  name:", "  labels: {a: b}",
    "  annotations: {}", "    x: |", "    y: 1", "    z: 'it''s'", "spec:", "kindx: 1", "data: |", " text at one",
    "  name: x\ty", "plain words", "  annotations:\n    k: v",
]


@settings(database=None, max_examples=400)
@given(
    st.sampled_from(QUICK_BASES),
    st.lists(st.tuples(st.integers(0, 30), st.sampled_from(QUICK_LINES)), max_size=3),
)
def test_quick_identity_is_the_identity_readers(base: str, inserts: list[tuple[int, str]]) -> None:
    lines = base.splitlines()
    for at, line in inserts:
        lines.insert(min(at, len(lines)), line)
    text = "\n".join(lines) + "\n"
    quick = headers.document_item(text)
    if quick is None:
        return
    full = identity.make_document_item(0, text)
    assert not full.complex_meta and full.meta.is_mapping and not full.meta.duplicates
    assert quick.meta == full.meta
    assert (quick.text, quick.document, quick.complex_meta) == (full.text, full.document, full.complex_meta)


@pytest.mark.parametrize("base", QUICK_BASES)
def test_quick_identity_reads_the_common_shape(base: str) -> None:
    quick = headers.document_item(base)
    assert quick is not None and quick.meta == identity.make_document_item(0, base).meta


_SS = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: a\n"
# documents the identity reader is unsure of, or reads otherwise than their first lines say
QUICK_UNSURE = [
    _SS + "- item\n  namespace: hidden\nspec: {}\n",  # the lines after `- item` are metadata's
    _SS + "  annotations:\n    k: v\n      deeper\n",  # a value going on below its key
    _SS + "  annotations:\n      k: v\n    j: w\n",  # a key between the two indents
    _SS + " one: 1\n",
    _SS + "  name: b\n",
    _SS + "  namespace: x\n    more\n",
    _SS + "spec: {}\nkind: Other\n",
    _SS + "spec: {}\n\nkind: Other\n",  # after a blank line
    _SS + "spec: {}\n# a comment\n\nkind: Other\n",
    _SS + "spec: {}\n\tkind: T\n",
    _SS + 'spec: {}\n"kind": Q\n',
    _SS + "spec: {}\nmetadata : {}\n",
    _SS + "plain words\n",
    "apiVersion: apps/v1\nkind: yes\nmetadata:\n  name: a\n",
]


@pytest.mark.parametrize("text", QUICK_UNSURE)
def test_quick_identity_leaves_the_unsure_to_the_identity_reader(text: str) -> None:
    assert headers.document_item(text) is None
