"""rlist: the fast path (slicing) against the full round-trip parse.

Every input here runs both ways (`parse(text)` and `parse(text, fast=False)`): the outputs
must read back as the same data, untouched items must leave byte for byte, and the inputs
where slicing is unsafe must take the full parse."""
from __future__ import annotations

import sys
from typing import Any

import pytest
import yaml
from shared import ROOT

from krm_fn.core import errors
from krm_fn.io import identity
from krm_fn.io import resourcelist
from krm_fn.io.items import Item
from krm_fn.io.items import ResourceList
from krm_fn.modes.krm import run_resource_list
from krm_fn.orchestration import process
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

sys.path.insert(0, str(ROOT / "bench"))
import gen  # noqa: E402

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"

KPT = HEAD + """items:
- # head comment stays on this item
  apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: shop
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'web.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'web.yaml'
  spec:
    replicas: 3 # trailing comment
    template:
      spec:
        containers:
        - name: web
          image: "nginx:1.25"
          env: [{name: A, value: "yes"}]
- {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}, "data": {"on": "off"}}
- {"apiVersion": "v1", "kind": "ConfigMap", metadata: {name: k, annotations: {config.kubernetes.io/index: '1', internal.config.kubernetes.io/path: 'k.yaml'}}}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata:
    name: reader
  rules:
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["get"]
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/local-config: "true"
"""

PIPELINERUN = """- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: build
    namespace: ci
  spec:
    pipelineRef:
      name: build # the pipeline
    workspaces:
    - name: source
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
"""

ANCHOR_ACROSS = HEAD + """items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
  data: &shared
    k: v
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
  data: *shared
"""

ANCHOR_LOCAL = HEAD + """items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
  data: &d {k: v}
  binaryData: *d
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: glob
  data:
    script: |
      ls *.txt
      **bold** and - *x
"""

# name -> (input, takes the fast path)
CASES: dict[str, tuple[str, bool]] = {
    "kpt-shapes": (KPT, True),
    "kpt-shapes-with-config": (
        KPT + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: function-input}\n",
        True,
    ),
    "json-document": (
        '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": '
        '[{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}]}\n',
        False,
    ),
    "flow-items": (HEAD + "items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]\n", False),
    "multi-line-flow-item": (HEAD + "items:\n- {apiVersion: v1,\n  kind: ConfigMap, metadata: {name: a}}\n", True),
    "anchor-across-items": (ANCHOR_ACROSS, False),
    "anchor-inside-one-item": (ANCHOR_LOCAL, True),
    "tab-inside-block-scalar": (
        KPT.replace("  rules:\n", "  data:\n    Makefile: |\n      all:\n      \techo hi\n  rules:\n"),
        True,
    ),
    "tab-in-flow-and-quotes": (
        KPT.replace('verbs: ["get"]', 'verbs: ["get",\t"list"]').replace(
            "name: reader\n", 'name: reader\n    annotations:\n      internal.config.kubernetes.io/path: "a\tb"\n'),
        True,
    ),
    "document-start": ("---\n" + KPT, True),
    "document-end": (KPT + "...\n# trailing comment\n", True),
    "document-start-with-comment": ("--- # a list\n" + KPT, False),
    "directive": ("%YAML 1.2\n---\n" + KPT, False),
    "comment-between-sections": (KPT + "# the configuration\nfunctionConfig: {}\n", True),
    "comment-before-first-key": ("# rendered by kpt\n\n" + KPT, True),
    "crlf": (KPT.replace("\n", "\r\n"), True),
    "lone-cr": (KPT.replace("name: reader\n", "name: reader\r  labels: {a: b}\n"), False),
    "line-separator-in-string": (KPT.replace('value: "yes"', 'value: "a\u2028b"'), False),
    "sections-out-of-order": (
        "kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: A\n  metadata: {name: x}\n"
        "apiVersion: config.kubernetes.io/v1\n",
        True,
    ),
    "unknown-top-level-key": (KPT + "x-note: kept as written\n", True),
    "items-indented": (HEAD + "items:\n  - apiVersion: v1\n    kind: A\n    metadata:\n      name: x\n", True),
    "wide-offset": (HEAD + "items:\n-   apiVersion: v1\n    kind: A\n    metadata:\n        name: x\n", True),
    "odd-indentation": (HEAD + "items:\n- apiVersion: v1\n  kind: A\n  metadata:\n   name: a\n  spec:\n"
                        "     x: 1\n   # odd but valid\n", True),
    "wide-item-indentation": (HEAD + "items:\n-\n    apiVersion: v1\n    kind: A\n    metadata:\n"
                              "      name: a\n", True),
    "quoted-key": (HEAD + 'items:\n- "apiVersion": v1\n  "kind": A\n  metadata: {name: q}\n', True),
    "multi-line-name": (HEAD + "items:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n      b\n", True),
    "typed-name": (HEAD + "items:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: 0755\n", True),
    "quoted-continuation-under-indented": (
        HEAD + 'items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: q\n  data:\n'
        '    x: "a\n  kind: Secret\n    b"\n',
        True,
    ),
    "head-comment-before-dash": (HEAD + "items:\n# file a.yaml\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n"
                                 "# file b.yaml\n\n- apiVersion: v1\n  kind: B\n  metadata:\n    name: b\n", True),
    "comment-inside-item-at-dash-indent": (
        HEAD + "items:\n- apiVersion: v1\n  kind: A\n# not a head comment\n  metadata:\n    name: a\n"
        "- apiVersion: v1\n  kind: B\n  metadata:\n    name: b\n",
        True,
    ),
    "empty-items": (HEAD + "items: []\n", True),
    "comment-after-items-key": (KPT.replace("items:\n", "items: # the package\n"), True),
    "null-items": (HEAD + "items:\n", True),
    "with-pipelinerun": (KPT + PIPELINERUN, True),
}


# invalid YAML that both paths must refuse with the same kind of message
INVALID: dict[str, str] = {
    "tab-indentation": KPT.replace("  rules:\n", "\trules: []\n  rules:\n"),
    "tab-after-dash": KPT.replace("- apiVersion: rbac", "-\tapiVersion: rbac"),
    "item-key-indented-one-space": HEAD + "items:\n- apiVersion: v1\n  kind: A\n metadata: {}\n",
    "second-document": KPT + "---\napiVersion: v1\nkind: List\n",
    "duplicate-top-level-key": KPT + "kind: List\n",
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_input_is_refused_both_ways(name: str) -> None:
    with pytest.raises(errors.InputError) as full:
        resourcelist.parse(INVALID[name], fast=False)
    try:
        frame = resourcelist.parse(INVALID[name])
    except errors.InputError as fast:
        assert str(fast) == str(full.value) or "second YAML document" in str(fast) or "duplicate" in str(fast)
        return
    # the fast path may only meet the problem when it parses that item: an error result, or
    # the whole input refused
    try:
        outcome = process.process(frame)
    except errors.InputError as late:
        assert "not valid YAML" in str(late)
        return
    assert outcome.exit_code == 1
    assert any(r.severity == "error" and "not valid YAML" in r.message for r in outcome.results)


def _run(text: str, fast: bool) -> tuple[ResourceList, str, int]:
    frame = resourcelist.parse(resourcelist.decode(text.encode()), fast=fast)
    outcome = process.process(frame)
    out = resourcelist.render(frame, outcome.item_texts, outcome.generated_texts, [r.as_dict() for r in outcome.results])
    return frame, out, outcome.exit_code


def _data(text: str) -> Any:
    return yaml.load(text, Loader=yaml.CSafeLoader)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_full_parse_agree(name: str) -> None:
    text, fast = CASES[name]
    frame, out, code = _run(text, fast=True)
    assert frame.fast is fast
    full_frame, full_out, full_code = _run(text, fast=False)
    assert not full_frame.fast
    assert code == full_code
    assert _data(out) == _data(full_out)
    # same identities both ways
    assert [(it.meta.api_version, it.meta.kind, it.meta.namespace, it.meta.name) for it in frame.items] == [
        (it.meta.api_version, it.meta.kind, it.meta.namespace, it.meta.name) for it in full_frame.items
    ]


@pytest.mark.parametrize("name", sorted(n for n, (_t, fast) in CASES.items() if fast))
def test_fast_path_keeps_untouched_items_byte_for_byte(name: str) -> None:
    text, _ = CASES[name]
    frame, out, _code = _run(text, fast=True)
    normalized = text.replace("\r\n", "\n")
    pos = 0
    for it in frame.items:
        assert it.text is not None
        at = out.find(it.text, pos)
        assert at >= 0, f"item {it.pos} not found verbatim in the output"
        assert it.text in normalized
        pos = at + len(it.text)
    assert "".join(it.text or "" for it in frame.items) in normalized


def test_untouched_input_comes_back_whole() -> None:
    # nothing to change: the output is the input plus results
    _frame, out, code = _run(KPT + "x-note: kept\n", fast=True)
    assert code == 0
    assert out.startswith(KPT + "x-note: kept\nresults:\n")


def test_crlf_input_gives_the_lf_output() -> None:
    assert _run(KPT.replace("\n", "\r\n"), True)[1] == _run(KPT, True)[1]


def test_kpt_flow_items_are_identified_without_the_round_trip_loader() -> None:
    frame = resourcelist.parse(KPT)
    j, k = frame.items[1], frame.items[2]
    assert (j.meta.kind, j.meta.name, j.complex_meta, j.node) == ("ConfigMap", "j", False, None)
    assert (k.meta.name, k.meta.annotations["internal.config.kubernetes.io/path"]) == ("k", "k.yaml")
    assert not k.complex_meta
    head = frame.items[0]
    assert head.text is not None and head.text.startswith("- # head comment")
    assert (head.meta.kind, head.meta.namespace, head.meta.annotations["config.kubernetes.io/index"]) == (
        "Deployment", "shop", "0")
    role = frame.items[3]
    assert (role.meta.kind, role.complex_meta) == ("Role", False)  # indentless `rules:` list
    assert frame.items[4].meta.annotations["config.kubernetes.io/local-config"] == "true"


@pytest.mark.parametrize(
    "name", ["quoted-key", "multi-line-name", "multi-line-flow-item", "quoted-continuation-under-indented"]
)
def test_unsure_identity_is_read_from_libyaml_nodes(name: str) -> None:
    frame = resourcelist.parse(CASES[name][0])
    assert frame.fast
    item = frame.items[0]
    assert not item.complex_meta and item.node is None  # no round-trip load
    assert item.meta.kind in ("A", "ConfigMap") and item.meta.name in ("q", "a", "a b")


def test_values_yaml_versions_disagree_on_go_to_the_round_trip_loader() -> None:
    frame = resourcelist.parse(CASES["typed-name"][0])
    assert frame.fast
    assert any(it.complex_meta for it in frame.items)


def test_tabs_that_separate_tokens_are_yaml() -> None:
    """A tab after `:` or `,` or before a comment separates tokens, as YAML allows and
    libyaml and kpt read; a tab inside a quoted value is content."""
    frame = resourcelist.parse(CASES["tab-in-flow-and-quotes"][0])
    assert frame.fast
    role = [it for it in frame.items if it.meta.kind == "Role"][0]
    assert not role.complex_meta and role.meta.annotations["internal.config.kubernetes.io/path"] == "a\tb"
    text = KPT.replace("kind: Role\n", "kind: Role\t# tab\n").replace("name: reader\n", "name:\treader\n")
    for fast in (True, False):
        rl = resourcelist.parse(text, fast=fast)
        outcome = process.process(rl)
        assert outcome.exit_code == 0
        assert [it.meta.name for it in rl.items if it.meta.kind == "Role"] == ["reader"]


def test_duplicate_identity_keys_last_wins_and_loading_reports_them() -> None:
    text = HEAD + "items:\n" + PIPELINERUN.replace("    name: build\n", "    name: build\n    name: again\n")
    frame, out, code = _run(text, fast=True)
    assert frame.fast and frame.items[0].meta.name == "again" and frame.items[0].meta.kind == "PipelineRun"
    assert code == 1 and "duplicate key" in out and "name: again" in out.split("results:")[1]


def test_head_comments_belong_to_the_next_item_only_when_they_lead_it() -> None:
    frame = resourcelist.parse(CASES["head-comment-before-dash"][0])
    assert [it.text.splitlines()[0] for it in frame.items if it.text] == ["# file a.yaml", "# file b.yaml"]
    frame = resourcelist.parse(CASES["comment-inside-item-at-dash-indent"][0])
    first = frame.items[0].text or ""
    assert "# not a head comment" in first and "name: a" in first
    assert frame.items[0].meta.name == "a"


def test_trailing_comments_stay_after_generated_items() -> None:
    text = KPT + "# end of items\nfunctionConfig: {}\n"
    frame = resourcelist.parse(text)
    assert frame.items_trailer == "# end of items\n"
    out = resourcelist.render(frame, [it.text or "" for it in frame.items], ["kind: New\n"], [])
    assert out.index("- kind: New\n") < out.index("# end of items\n") < out.index("functionConfig")


def test_second_document_is_an_input_error() -> None:
    lines = KPT.count("\n")
    with pytest.raises(errors.InputError, match=f"line {lines + 1}: a second YAML document starts here"):
        resourcelist.parse(KPT + "---\napiVersion: v1\nkind: List\n")
    with pytest.raises(errors.InputError, match="several YAML documents"):
        resourcelist.parse(KPT + "---\n# only a comment\n")  # an empty second document: the full parse says so


def test_duplicate_top_level_key_is_an_input_error() -> None:
    with pytest.raises(errors.InputError, match="duplicate top-level key 'kind' in the ResourceList; remove one"):
        resourcelist.parse(KPT + "kind: List\n")


def test_directive_does_not_leak_into_later_dumps() -> None:
    _run(CASES["directive"][0], True)
    assert loader.rt_dump({"a": 1}) == "a: 1\n"
    _frame, out, _code = _run(CASES["directive"][0], True)
    assert "%YAML" not in out


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("Deployment", "Deployment"),
        ("Deployment # c", "Deployment"),
        ("'it''s'", "it's"),
        ("'0' # index", "0"),
        ('"a\\"b"', 'a"b'),
        ('"a\\\\"', "a\\"),
        ('"tab\\there"', "tab\there"),
        ("", None),
        ("# only a comment", None),
    ],
)
def test_scalar_reads_one_line_values(raw: str, value: Any) -> None:
    assert identity.plain_scalar(raw) == value


@pytest.mark.parametrize(
    "raw",
    ["123", "true", "null", "~", "2024-01-01", "0755", '"unclosed', "'unclosed", '"a\\\\" x', "{a: 1}", "[a]",
     "&anchor x", "*alias", "!tag x", "|", ">-", "a: b", "x\t# tab", '"\\x41"'],
)
def test_scalar_is_unsure_about_anything_else(raw: str) -> None:
    assert identity.plain_scalar(raw) is identity.COMPLEX


# --------------------------------------------------------------------------- rewrites


def _fake_pipelinerun_handler(item: Item, ctx: process.Context) -> None:
    """Stand-in for the real transform: one label and one new key, edited in place."""
    md = item.node["metadata"]
    md.setdefault("labels", loader.yamlsafe({}))["bench/touched"] = "yes"
    item.node["spec"]["timeouts"] = loader.yamlsafe({"pipeline": "1h0m0s"})


def test_generated_list_fast_path_matches_full_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(process.HANDLERS, ("tekton.dev", "PipelineRun"), _fake_pipelinerun_handler)
    text = gen.generate(120, 0.2, seed=7)
    frame, out, code = _run(text, fast=True)
    assert frame.fast and code == 0
    _full_frame, reference, ref_code = _run(text, fast=False)
    assert ref_code == 0
    assert _data(out) == _data(reference)
    touched = [it for it in frame.items if it.changed]
    assert touched and all(it.meta.kind == "PipelineRun" for it in touched)
    assert {it.pos for it in touched} == {it.pos for it in frame.items if it.meta.kind == "PipelineRun"}
    # every other item leaves exactly as it came, in order
    pos = 0
    for it in frame.items:
        assert it.text is not None
        if it.changed:
            assert out.find(it.text, pos) < 0
            continue
        at = out.find(it.text, pos)
        assert at >= 0
        pos = at + len(it.text)
    # and the touched ones keep their comments
    assert out.count("# nightly build") == text.count("# nightly build")
    assert out.count("# the pipeline") == text.count("# the pipeline")


def test_rewritten_item_keeps_its_sequence_indentation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(process.HANDLERS, ("tekton.dev", "PipelineRun"), _fake_pipelinerun_handler)
    wide = PIPELINERUN.replace("    - name: source\n      volumeClaimTemplate:\n        spec:\n          accessModes",
                               "      - name: source\n        volumeClaimTemplate:\n          spec:\n            accessModes")
    _frame, out, code = _run(HEAD + "items:\n" + wide, fast=True)
    assert code == 0
    assert "      - name: source\n" in out
    assert "bench/touched" in out


def test_generated_list_with_the_real_transforms_matches_full_round_trip() -> None:
    text = gen.generate(150, 0.1, seed=11)
    frame, out, code = _run(text, fast=True)
    assert frame.fast and code == 0, out[-2000:]
    _full_frame, reference, ref_code = _run(text, fast=False)
    assert ref_code == 0
    assert _data(out) == _data(reference)
    touched = {it.pos for it in frame.items if it.changed}
    assert touched  # the PipelineRuns are rewritten, and StatefulSets generated
    assert out.count("kind: StatefulSet") == reference.count("kind: StatefulSet") > 0
    pos = 0
    for it in frame.items:
        assert it.text is not None
        if it.pos in touched:
            continue
        at = out.find(it.text, pos)
        assert at >= 0, f"untouched item {it.pos} ({it.meta.kind}) is not in the output verbatim"
        pos = at + len(it.text)


def test_untouched_item_that_is_not_yaml_is_refused() -> None:
    """The fast path never parses a ConfigMap, but a list with one that is not YAML is
    refused whole (a pre-commit hook must fail on it), with the line of the problem."""
    from krm_fn.modes.krm import run_resource_list

    data = (
        b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n  data:\n    a: [x\n"
        b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: y\n"
    )
    out, outcome, code = run_resource_list(data)
    assert code == 1 and outcome is None
    doc = yaml.safe_load(out)
    assert doc["items"] == []
    (res,) = doc["results"]
    assert res["severity"] == "error" and "not valid YAML" in res["message"] and res["message"].startswith("<stdin>:10:")


def test_untouched_items_that_are_yaml_are_echoed_byte_for_byte() -> None:
    from krm_fn.modes.krm import run_resource_list

    data = (
        b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        b"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x   # odd spacing kept\n  data:\n    a: [x,   y]\n"
        b"    b: |\n      text\n"
    )
    out, _, code = run_resource_list(data)
    assert code == 0 and out.startswith(data.decode())


@pytest.mark.parametrize("continuation", ["- b: c\"", "functionConfig: x\""])
def test_quoted_string_running_on_in_column_zero_is_not_split(continuation: str) -> None:
    """A double-quoted value whose continuation line starts in the dash's column (or in
    column 0 like a top-level key) looks like a new item to the line scanner; the run must
    still see one ConfigMap holding that text, not an extra object or section."""
    from krm_fn.modes.krm import run_resource_list

    data = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n  data:\n    a: \"line one\n"
        + continuation
        + "\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: y\n"
    ).encode()
    out, _, code = run_resource_list(data)
    assert code == 0, out
    doc = yaml.safe_load(out)
    assert [i["metadata"]["name"] for i in doc["items"]] == ["x", "y"]
    assert doc["items"][0]["data"]["a"] == "line one " + continuation[:-1]


def test_full_parse_keeps_a_scalar_extra_section_readable() -> None:
    """A top-level key the function does not know, with a plain scalar value, on the full
    parse path: written as `key: value`, with no document end marker (`...`) after it that
    would end the output's only document (found by test_fuzz_yaml_alphabet)."""
    from krm_fn.modes.krm import run_resource_list

    out, _, code = run_resource_list(b"apiVersion: v1\nkind: ResourceList\nakind: ResourceList\n?")
    assert code == 0
    assert "\n...\n" not in out and "akind: ResourceList\n" in out
    assert yaml.safe_load(out)["akind"] == "ResourceList"


@pytest.mark.parametrize("fast", [True, False])
def test_int_and_bool_keys_in_one_mapping_are_two_keys(fast: bool) -> None:
    """`1:` and `true:` are different keys (Kubernetes reads them as the strings "1" and
    "true"); Python's 1 == True made the round-trip loader call them a duplicate. An edited
    object keeps them as written; a real duplicate (`1:` twice) is still refused."""
    keys = "    annotations:\n      1: one\n      true: yes-value\n      2.5: f\n"
    per_run = "functionConfig:\n  apiVersion: fn.kpt.dev/v1alpha1\n  kind: CoschedulePolicy\n  metadata: {name: c}\n  spec: {coschedule: pipelineruns}\n"
    text = HEAD + "items:\n" + PIPELINERUN.replace("    name: build\n", "    name: build\n" + keys) + per_run
    _frame, out, code = _run(text, fast=fast)
    assert code == 0, out
    assert keys in out and "pipelineRun: build" in out  # edited (pinned), keys as they were
    data = to_plain(loader.rt_load(out))
    assert data["items"][0]["metadata"]["annotations"] == {"1": "one", "true": "yes-value", "2.5": "f"}
    dup = HEAD + "items:\n" + PIPELINERUN.replace("    name: build\n", "    name: build\n    annotations:\n      1: a\n      1: b\n") + per_run
    out, _outcome, code = run_resource_list(dup.encode())
    assert code == 1 and "duplicate key '1'" in out


def test_the_ascii_fast_path_agrees_with_the_printable_check() -> None:
    """printable_ascii() (bytes, one C pass) passes exactly the ASCII texts check_printable()
    passes: every ASCII character alone and inside a line, and a non-ASCII text is left to
    check_printable()."""
    from krm_fn.core.errors import InputError
    from krm_fn.io.resourcelist import check_printable
    from krm_fn.io.resourcelist import printable_ascii

    for c in range(128):
        for data in (bytes([c]), b"a: b" + bytes([c]) + b"c\n"):
            try:
                check_printable(data.decode())
                ok = True
            except InputError:
                ok = False
            assert printable_ascii(data) == ok, data
    assert not printable_ascii("a: é\n".encode())


@pytest.mark.parametrize("line", ["items:", "items  :", "items: ~", "items: null", "items  :  # none yet", "items: NULL"])
def test_a_null_items_is_written_as_an_empty_list(line: str) -> None:
    """Every spelling of a null `items` comes out as `items: []`: the output's items are a
    list whatever the input wrote (found by test_properties' fuzzing: `items  :` was echoed)."""
    out, _outcome, code = run_resource_list(f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n{line}\n".encode())
    assert code == 0, out
    assert yaml.safe_load(out)["items"] == []
    assert "\nitems: []\n" in out


@pytest.mark.parametrize("depth", [10_000, 60_000])
@pytest.mark.parametrize("where", ["results", "item"])
def test_flow_nesting_too_deep_never_reaches_libyaml(monkeypatch: pytest.MonkeyPatch, depth: int, where: str) -> None:
    """Incoming results are read with the guards of items (issue 25): flow nesting past the
    bound is refused by the event walk before ruamel.yaml.clib's libyaml sees it (its time
    grows with the square of the depth: 60,000 levels in results took 20 s, and older ones
    crash with SIGSEGV)."""
    import _ruamel_yaml

    handed: list[int] = []
    real = _ruamel_yaml.CParser

    def no_cparser(text: str, *a: Any, **k: Any) -> Any:
        handed.append(text.count("["))
        return real("", *a, **k)  # libyaml_reads takes every error as "does not read"

    deep = "[" * depth + "]" * depth
    head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
    if where == "results":
        text = head + "items: []\nresults:\n- message: " + deep + "\n  severity: info\n"
    else:
        text = head + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    x: " + deep + "\n"
    monkeypatch.setattr(_ruamel_yaml, "CParser", no_cparser)
    out, _outcome, _code = run_resource_list(text.encode())
    assert "nests deeper than 200 levels" in out
    assert [n for n in handed if n > 200] == [], "libyaml was handed flow nesting past the bound"


_RUN = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: {name}
  spec:
    pipelineSpec:
      workspaces:
      - name: src
      tasks:
      - name: build
        workspaces:
        - name: src
          workspace: src
        taskRef:
          name: t
    workspaces:
    - name: src
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
"""


@pytest.mark.parametrize("elsewhere", ["", "bad-run"], ids=["alone", "with-another-error"])
def test_a_users_statefulset_under_an_assistants_name_changes_no_item(elsewhere: str) -> None:
    """The collision is found when the generated objects are placed, after every transform
    ran: all or nothing held only for errors found before (issue 25: the run was rewritten to
    bind a claim of an assistant that was never written)."""
    head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    probe, _, _ = run_resource_list((head + _RUN.format(name="a")).encode())
    sts = next(i for i in yaml.safe_load(probe)["items"] if i["kind"] == "StatefulSet")["metadata"]["name"]
    user = f"- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata:\n    name: {sts}\n  spec:\n    replicas: 3\n"
    bad = "- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata:\n    name: b\n  spec:\n    workspaces: 7\n" if elsewhere else ""
    text = head + _RUN.format(name="a") + user + bad
    out, _outcome, code = run_resource_list(text.encode())
    assert code == 1
    assert out.startswith(text), "an item changed although the run failed"
    assert "nothing was changed (all or nothing)" in out


@pytest.mark.parametrize("d", [0, 2])
def test_generated_entries_after_the_documents_are_those_emitted_in_place(d: int) -> None:
    """Once the generated objects were written as documents (generated_texts), their entries
    are those texts indented: the same text as emitting each object as an entry."""
    from krm_fn.yaml import document

    frame = resourcelist.parse(gen.generate(3, 1.0))
    outcome = process.process(frame)
    objs = list(outcome.generated)
    assert objs, "the runs generate placeholders"
    texts = outcome.generated_texts
    assert texts == [document.new_block(o) for o in objs]
    assert outcome.generated_entries(d) == [document.new_entry(o, d) for o in objs]
