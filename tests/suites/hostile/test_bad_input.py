"""A catalog of bad input for KRM stdin mode. Whatever arrives, the function answers with a
clear result: exit 1 with an error result that names the object, the field and the fix (or
exit 0 with a warning where that is right), never a traceback, and always the complete
ResourceList on stdout with the items unchanged (byte-identical on the fast path).

Each case drives `krm_fn.cli.main` with patched stdin/stdout; a handful also run the real
console script in a subprocess. The last group is caught by the Tekton and Shipwright
transforms rather than by the I/O core.
"""
from __future__ import annotations

import dataclasses
import io
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from conftest import require_tool  # type: ignore[import-not-found]
from shared import ROOT

from krm_fn import cli
from krm_fn.core import errors
from krm_fn.core import keys
from krm_fn.io.items import Item
from krm_fn.io.items import ResourceList
from krm_fn.orchestration import process
from krm_fn.transforms.context import Context
from krm_fn.yaml import guards

H = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"


def rl(items: str, fc: str = "") -> bytes:
    """A block-style ResourceList: header, `items:` + the given text, optional functionConfig."""
    text = H + ("items:\n" + items if items.strip() else "items: []\n")
    if fc:
        text += "functionConfig:\n" + "".join("  " + x if x.strip() else x for x in fc.splitlines(True))
    return text.encode()


# an embedded pipeline, so that no case depends on resolving a pipelineRef
EMBEDDED = "    pipelineSpec:\n      tasks:\n      - name: t\n        taskRef:\n          name: t\n"


def pipelinerun(name: str = "run", spec: str = EMBEDDED, extra_meta: str = "") -> str:
    return (
        "- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata:\n"
        f"    name: {name}\n{extra_meta}  spec:\n{spec}"
    )


CM = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: plain\n  data:\n    a: \"1\"\n"


def bomb(levels: int = 9, indent: str = "    ") -> str:
    """Billion laughs: 10**levels leaves from a few hundred bytes."""
    lines = [f"{indent}a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"]
    for i in range(1, levels):
        lines.append(f"{indent}a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n")
    return "".join(lines)


def policy(spec: str) -> str:
    return "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: ci\nspec:\n" + spec


def cm_config(data: str) -> str:
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n" + data


@dataclasses.dataclass
class Case:
    id: str
    data: bytes
    code: int
    must: tuple[str, ...] = ()  # substrings of one error (code 1) or warning (code 0) message
    field: str | None = None  # that result's field.path
    identical: bool = True  # output items are the input's items, byte for byte
    readable: bool = True  # False: the input cannot be read at all, so `items: []`


JSON_DUP = b'{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "name": "b"}}]}'
DEEP_JSON = (
    b'{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": ['
    + b"[" * 5000
    + b"]" * 5000
    + b"]}"
)

CASES: list[Case] = [
    # ---- input that is not one readable ResourceList: nothing to echo but the error
    Case("not-yaml", b"{{{: : :\n", 1, ("not valid YAML", "<stdin>:1:"), readable=False),
    Case("binary-nul", b"\x00\x01\x02\x03binary", 1, ("NUL", "binary", "YAML or JSON"), readable=False),
    Case("utf16-bom", "kind: ResourceList\n".encode("utf-16"), 1, ("UTF-16", "re-encode it as UTF-8"), readable=False),
    Case("control-character", rl(CM.replace("kind: ConfigMap", "kind: Config\x13Map")), 1, ("control character U+0013", "<stdin>:5:15:", "remove it"), readable=False),
    Case("c1-control-character", rl(CM.replace("plain", "pl\x85ain\x9b")), 1, ("U+009B", "<stdin>:7:"), readable=False),
    Case("utf16-without-bom", "kind: ResourceList\n".encode("utf-16-le"), 1, ("NUL", "binary"), readable=False),
    Case(
        "json-lone-surrogate-escape",
        b'{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"e": "\\ud83d x"}}]}',
        1,
        ("items[0].data.e", "half a UTF-16 surrogate pair", "write the character itself"),
        readable=False,
    ),
    Case("empty-stdin", b"", 1, ("empty", "ResourceList"), readable=False),
    Case("only-comments", b"# nothing here\n\n# still nothing\n", 1, ("empty",), readable=False),
    Case("bare-scalar", b"hello\n", 1, ("string", "not a ResourceList", "kind: ResourceList"), readable=False),
    Case("bare-number", b"42\n", 1, ("number", "not a ResourceList"), readable=False),
    Case("bare-list", b"- a\n- b\n", 1, ("list", "not a ResourceList"), readable=False),
    Case(
        "several-documents",
        rl("") + b"---\n" + rl(""),
        1,
        ("second YAML document", "exactly one ResourceList", "--config POLICY FILE"),
        readable=False,
    ),
    Case(
        "several-documents-leading-marker",
        b"---\n" + rl(CM) + b"---\n" + rl(CM),
        1,
        ("second YAML document",),
        readable=False,
    ),
    Case(
        "several-documents-flow",
        b"{kind: ResourceList, items: []}\n---\n{kind: ResourceList, items: []}\n",
        1,
        ("several YAML documents", "exactly one ResourceList"),
        readable=False,
    ),
    Case(
        "wrong-wrapper-kind",
        b"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n",
        1,
        ("kind 'Deployment'", "ResourceList", "--config POLICY FILE"),
        readable=False,
    ),
    Case("no-wrapper-kind", b"apiVersion: v1\nitems: []\n", 1, ("no kind", "ResourceList"), readable=False),
    Case(
        "non-utf8-bytes",
        rl(CM.replace("plain", "cafe")).replace(b"cafe", b"caf\xe9"),
        1,
        ("not UTF-8", "0xe9", "re-encode the file as UTF-8"),
        readable=False,
    ),
    Case(
        "tab-indentation",
        rl("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n\tname: a\n"),
        1,
        ("tab character", "<stdin>:7:", "spaces"),
        readable=False,
    ),
    Case(
        "duplicate-top-level-key",
        rl(CM).replace(b"kind: ResourceList\n", b"kind: ResourceList\nkind: List\n"),
        1,
        ("duplicate top-level key 'kind'", "remove one"),
        readable=False,
    ),
    Case("items-is-a-mapping", rl("  a: 1\n  b: 2\n"), 1, ("`items` is a mapping", "must be a list"), readable=False),
    Case("items-is-a-string", H.encode() + b"items: hello\n", 1, ("`items` is a string", "must be a list"), readable=False),
    Case(
        "alias-bomb-full-parse",
        (H + "items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]\nextra:\n" + bomb(indent="  ")).encode(),
        1,
        ("expands to more than", "alias", "expand anchors"),
        readable=False,
    ),
    Case(
        "alias-bomb-inside-flow-items",  # the full-parse fallback, bomb reached from an item
        (H + "bombs:\n" + bomb(indent="  ") + "items: [{apiVersion: tekton.dev/v1, kind: TaskRun, metadata: {name: t}, spec: {x: *a8}}]\n").encode(),
        1,
        ("the input expands to more than 200000 nodes", "expand anchors"),
        readable=False,
    ),
    Case("deep-nesting-json", DEEP_JSON, 1, ("nests deeper than 200 levels", "items[0][0]", "flatten"), readable=False),
    Case(
        "duplicate-key-json",
        JSON_DUP,
        1,
        ("duplicate key 'name'", "items[0].metadata.name", "keep one"),
        readable=False,
    ),
    # ---- readable list, broken items: error names the item, every item leaves as it came
    Case("item-is-a-scalar", rl(CM + "- hello\n"), 1, ("items[1] is not a mapping", "Kubernetes object"), "items[1]"),
    Case("item-is-null", rl("-\n" + CM), 1, ("items[0] is not a mapping",), "items[0]"),
    Case("item-is-a-list", rl(CM + "- [a, b]\n"), 1, ("items[1] is not a mapping",), "items[1]"),
    Case(
        "item-without-kind",
        rl("- apiVersion: v1\n  metadata:\n    name: x\n"),
        1,
        ("items[0] has no kind", "apiVersion and kind"),
        "items[0].kind",
    ),
    Case("item-kind-is-a-list", rl("- apiVersion: v1\n  kind: [a]\n"), 1, ("kind is a list", "must be a string"), "items[0].kind"),
    # a part that is not YAML makes the whole input not YAML: refused whole, with its line
    Case("item-flow-not-yaml", rl(CM + "- {apiVersion: v1, kind: [}\n"), 1, ("the input is not valid YAML", "<stdin>:10:"), readable=False),
    Case("tekton-item-not-yaml", rl(pipelinerun(spec="    params: [a\n")), 1, ("the input is not valid YAML", "<stdin>:10:"), readable=False),
    Case(
        "duplicate-key-in-tekton-metadata",
        rl(pipelinerun(extra_meta="    name: again\n")),
        1,
        ("PipelineRun", "duplicate key 'name'", "metadata.name", "lines 7 and 8", "keep one"),
    ),
    Case(
        "duplicate-key-in-tekton-spec",
        rl(pipelinerun(spec="    timeouts:\n      pipeline: 1h\n    params: []\n    timeouts:\n      pipeline: 2h\n")),
        1,
        ("PipelineRun run", "duplicate key 'timeouts'", "spec.timeouts", "keep one"),
    ),
    Case(
        "duplicate-key-deep-in-tekton-item",
        rl(pipelinerun(spec="    params:\n    - name: a\n      value: x\n      value: y\n")),
        1,
        ("PipelineRun run", "spec.params[0].value"),
    ),
    # an untouched item is never parsed: its duplicate key is not ours to judge (kpt's kyaml
    # rejects it before the function runs) and it passes through byte for byte
    Case("duplicate-key-in-untouched-item", rl(CM + "    a: \"2\"\n"), 0),
    Case(
        "alias-bomb-in-tekton-item",
        rl(pipelinerun(spec=bomb())),
        1,
        ("PipelineRun run", "expands to more than 200000 nodes", "expand anchors"),
    ),
    # never expanded: the function does not read items it leaves alone
    Case("alias-bomb-in-untouched-item", rl(CM + bomb()), 0),
    Case(
        "alias-bomb-in-function-config",
        rl(CM, fc=cm_config("  x: y\nbomb:\n" + bomb(indent="  "))),
        1,
        ("functionConfig", "expands to more than"),
        readable=False,
    ),
    Case(
        "alias-bomb-in-configmap-pod-template-string",
        rl(CM, fc=cm_config(f"  default-pod-template: {json.dumps(bomb(indent=''))}\n")),
        1,
        ("ConfigMap flags", "expands to more than", "expand anchors"),
        "data.default-pod-template",
    ),
    Case(
        "deep-flow-nesting-in-tekton-item",
        rl(pipelinerun(spec="    x: " + "[" * 5000 + "]" * 5000 + "\n")),
        1,
        ("PipelineRun run", "nests deeper than 200 levels", "spec.x[0]", "flatten"),
    ),
    Case(
        "deep-block-nesting-in-tekton-item",
        rl(pipelinerun(spec="".join("  " * (i + 2) + "k:\n" for i in range(400)) + "  " * 402 + "v: 1\n")),
        1,
        ("PipelineRun run", "nests deeper than 200 levels", "spec.k.k"),
    ),
    Case(
        "deep-nesting-in-configmap-pod-template-string",
        rl(CM, fc=cm_config("  default-pod-template: '" + "[" * 3000 + "]" * 3000 + "'\n")),
        1,
        ("ConfigMap flags", "nests deeper than 200 levels"),
        "data.default-pod-template",
    ),
    Case("tekton-metadata-is-a-list", rl("- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata: [1]\n"), 1, ("items[0] (PipelineRun)", "metadata is a list", "mapping"), "items[0].metadata"),
    Case("tekton-name-is-a-number", rl(pipelinerun(name="12")), 1, ("PipelineRun 12", "metadata.name is a number", "quote it"), "metadata.name"),
    Case("tekton-spec-is-a-string", rl(pipelinerun(spec="    hello\n").replace("  spec:\n    hello", "  spec: hello")), 1, ("PipelineRun run", "spec is a string", "mapping"), "spec"),
    Case("tekton-labels-is-a-list", rl(pipelinerun(extra_meta="    labels: [a]\n")), 1, ("PipelineRun run", "metadata.labels is a list"), "metadata.labels"),
    # ---- unsupported versions: a warning, the object left alone, exit 0
    Case(
        "tekton-unsupported-api-version",
        rl(pipelinerun().replace("tekton.dev/v1\n", "tekton.dev/v1alpha1\n", 1)),
        0,
        ("tekton.dev/v1alpha1 is not supported", "tekton.dev/v1, tekton.dev/v1beta1", "left unchanged"),
        "apiVersion",
    ),
    Case(
        "shipwright-unsupported-api-version",
        rl("- apiVersion: shipwright.io/v1alpha1\n  kind: BuildRun\n  metadata:\n    name: br\n  spec:\n    buildRef:\n      name: b\n"),
        0,
        ("shipwright.io/v1alpha1 is not supported", "shipwright.io/v1beta1"),
        "apiVersion",
    ),
    # ---- functionConfig of the wrong kind or with wrong types
    Case(
        "config-wrong-kind",
        rl(CM, fc="apiVersion: example.com/v1\nkind: Frobnicate\nmetadata:\n  name: f\n"),
        1,
        ("Frobnicate f", "unsupported functionConfig", "CoschedulePolicy.v1alpha1.fn.kpt.dev", "ConfigMap.v1"),
        "kind",
    ),
    Case("config-is-a-string", rl(CM) + b"functionConfig: hello\n", 1, ("functionConfig is a string", "CoschedulePolicy"), "functionConfig"),
    Case("config-is-a-list", rl(CM) + b"functionConfig: [1, 2]\n", 1, ("functionConfig is a list",), "functionConfig"),
    Case("config-wrong-type", rl(CM, fc=policy("  coschedule: 5\n")), 1, ("CoschedulePolicy ci", "5 is not one of", "workspaces"), "spec.coschedule"),
    Case("config-wrong-nested-type", rl(CM, fc=policy("  scheduling:\n    tolerations: yes\n")), 1, ("CoschedulePolicy ci", "not of type"), "spec.scheduling.tolerations"),
    Case("config-unknown-field", rl(CM, fc=policy("  coschedul: workspaces\n")), 1, ("coschedul", "did you mean 'coschedule'"), "spec.coschedul"),
    Case("configmap-non-string-value", rl(CM, fc=cm_config("  coschedule: [1]\n")), 1, ("ConfigMap flags", "must be a string", "quote it"), "data.coschedule"),
    Case("configmap-bad-boolean", rl(CM, fc=cm_config("  disable-affinity-assistant: maybe\n")), 1, ("'maybe' is not a boolean", "\"true\" or \"false\""), "data.disable-affinity-assistant"),
    Case("configmap-bad-yaml-value", rl(CM, fc=cm_config("  default-pod-template: 'a: [1'\n")), 1, ("ConfigMap flags", "not valid YAML"), "data.default-pod-template"),
    # ---- path annotations that leave the package (see also the generation tests below)
    Case(
        "path-annotation-with-dotdot-on-untouched-item",
        rl(CM.replace("    name: plain\n", "    name: plain\n    annotations:\n      config.kubernetes.io/path: '../../etc/passwd'\n      internal.config.kubernetes.io/path: '../../etc/passwd'\n")),
        0,
    ),
    Case(
        "absolute-path-annotation-on-run",
        rl(pipelinerun(extra_meta="    annotations:\n      internal.config.kubernetes.io/path: /etc/run.yaml\n")),
        0,
    ),
    # ---- cases the transforms catch
    Case(
        "tekton-workspaces-is-a-string",
        rl(pipelinerun(spec="    workspaces: shared-data\n    pipelineRef:\n      name: p\n")),
        1,
        ("PipelineRun", "spec.workspaces is a string", "must be a list of workspace bindings"),
        "spec.workspaces",
    ),
    Case(
        "tekton-taskrunspecs-unknown-task",
        rl(pipelinerun(spec="    pipelineSpec:\n      tasks:\n      - name: build\n        taskRef:\n          name: t\n    taskRunSpecs:\n    - pipelineTaskName: nosuchtask\n      podTemplate:\n        nodeSelector:\n          a: b\n")),
        1,
        ("defined wrong taskName: \"nosuchtask\", does not exist in Pipeline", "use one of: build"),
        "spec.taskRunSpecs[0].pipelineTaskName",
    ),
    Case(
        "tekton-vct-without-spec",
        rl(pipelinerun(spec="    pipelineSpec:\n      workspaces:\n      - name: ws\n      tasks:\n      - name: t\n        workspaces:\n        - name: ws\n        taskRef:\n          name: t\n    workspaces:\n    - name: ws\n      volumeClaimTemplate:\n        metadata:\n          name: data\n")),
        1,
        ("volumeClaimTemplate has no spec", "spec.accessModes", "storage"),
        "spec.workspaces[0].volumeClaimTemplate.spec",
    ),
    # a run name over 63 characters becomes an invalid label value; a VCT name over 63 is
    # shortened the Tekton v1.13 way (fixtures/tekton-long-vct-name)
    Case(
        "tekton-name-over-63-characters",
        rl(pipelinerun(name="r" * 80, spec="    pipelineSpec:\n      workspaces:\n      - name: ws\n      tasks:\n      - name: t\n        workspaces:\n        - name: ws\n        taskRef:\n          name: t\n    workspaces:\n    - name: ws\n      volumeClaimTemplate:\n        metadata:\n          name: " + "v" * 70 + "\n        spec:\n          accessModes: [ReadWriteOnce]\n          resources:\n            requests:\n              storage: 1Gi\n")),
        1,
        ("80 characters long", "at most 63", "shorten it"),
        "metadata.name",
    ),
    Case(
        "shipwright-tolerations-is-a-string",
        rl("- apiVersion: shipwright.io/v1beta1\n  kind: Build\n  metadata:\n    name: b\n  spec:\n    tolerations: everything\n"),
        1,
        ("Build b", "must be a list of tolerations"),
        "spec.tolerations",
    ),
]


# --------------------------------------------------------------------------- harness


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def run_cli(monkeypatch: pytest.MonkeyPatch, data: bytes) -> tuple[int, str, str]:
    """`krm_fn.cli.main([])` with stdin/stdout/stderr patched; (exit, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = cli.main([])
    monkeypatch.undo()
    return code, out.getvalue(), err.getvalue()


def parse_output(out: str) -> dict[str, Any]:
    """The output must be one block-style ResourceList with an items list and v1 results."""
    try:
        doc = yaml.load(out, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as e:
        # libyaml 0.2.6 (PyYAML 6.0.3+) reads no document nesting past 1,000 levels: an
        # item that deep, echoed as it came, is unreadable to it as it was in the input.
        # Read the list's other keys; check_contract compares the echoed items to the input
        if "maximum nesting depth" not in str(e):
            raise
        head, sep, tail = out.partition("\nresults:\n")
        assert sep and head.startswith("apiVersion:"), out[:500]
        doc = yaml.safe_load(head.split("\nitems:", 1)[0] + "\nitems: [deeper than libyaml reads]\nresults:\n" + tail)
    assert isinstance(doc, dict), out[:500]
    assert doc.get("kind") in ("ResourceList", "List")
    assert isinstance(doc.get("apiVersion"), str)
    assert isinstance(doc.get("items"), list)
    results = doc.get("results")
    assert isinstance(results, list) and results, "every run ends with at least one result"
    for r in results:
        assert isinstance(r.get("message"), str) and r.get("severity") in ("error", "warning", "info"), r
    assert not out.lstrip().startswith("{"), "output is block YAML, never flow or JSON"
    return doc


def shown(r: dict[str, Any]) -> str:
    """A result as kpt prints it: the object (resourceRef), the field, then the message."""
    ref = r.get("resourceRef") or {}
    who = f"{ref.get('kind', '')} {ref.get('namespace', '') + '/' if ref.get('namespace') else ''}{ref.get('name', '')}".strip()
    field = (r.get("field") or {}).get("path", "")
    return " ".join(x for x in (who, field) if x) + ": " + r["message"] if (who or field) else r["message"]


def check_contract(case: Case, code: int, out: str, err: str) -> None:
    text = case.data.decode("utf-8", "replace").replace("\r\n", "\n")
    assert "Traceback" not in out and "Traceback" not in err
    doc = parse_output(out)
    results = doc["results"]
    assert code == case.code, results
    errors = [r for r in results if r["severity"] == "error"]
    assert bool(errors) == (code == 1), results
    if case.must:
        wanted = "error" if code == 1 else "warning"
        hits = [r for r in results if r["severity"] == wanted and all(m in shown(r) for m in case.must)]
        assert hits, f"no {wanted} mentions {case.must}: {[shown(r) for r in results]}"
        if case.field is not None:
            assert any((r.get("field") or {}).get("path") == case.field for r in hits), hits
    if not case.readable:
        assert doc["items"] == [] and code == 1
        assert "internal error" not in out
        return
    assert "internal error" not in out, "an input problem is not a bug"
    if case.identical and (code == 1 or case.code == 0):
        # all or nothing: the list is echoed with every item as it came, byte for byte
        body = text if text.endswith("\n") else text + "\n"
        assert out.startswith(body), "items changed"
    # stderr carries the human summary
    assert "krm-coschedule:" in err


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run_cli(monkeypatch, case.data)
    check_contract(case, code, out, err)


def test_catalog_is_large_enough() -> None:
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


def test_twenty_megabytes_are_processed_not_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    parts = [H, "items:\n"]
    size, i = 0, 0
    pad = "x" * 400
    while size < 20_000_000:
        if i % 100 == 0:
            t = pipelinerun(name=f"run-{i}")
        else:
            t = (
                f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n"
                f"    annotations:\n      config.kubernetes.io/path: 'cms/{i}.yaml'\n"
                f"  data:\n    # comment {i}\n    key: \"{pad}\"\n"
            )
        parts.append(t)
        size += len(t)
        i += 1
    data = "".join(parts).encode()
    assert len(data) >= 20_000_000
    start = time.perf_counter()
    code, out, err = run_cli(monkeypatch, data)
    elapsed = time.perf_counter() - start
    print(f"\n20 MB, {i} items: exit {code} in {elapsed:.2f} s", file=sys.__stderr__)
    assert code == 0, err
    assert out.startswith(data.decode())  # byte-identical passthrough
    assert "0 object(s) changed" in out


def test_many_nodes_without_aliases_are_no_bomb() -> None:
    # the alias bound counts what aliases add, not the size of an honest input
    items = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}, "data": {"a": "1", "b": "2"}}
             for i in range(guards.MAX_ALIAS_NODES // 6)]
    root = {"apiVersion": "v1", "kind": "List", "items": items}
    guards.check_limits(root)  # more than MAX_ALIAS_NODES nodes, no alias: accepted
    shared = {"k": list(range(1000))}
    with pytest.raises(errors.InputError, match="expands to more than"):
        guards.check_limits({"a": [shared] * (guards.MAX_ALIAS_NODES // 1000 + 2)})


def test_depth_just_under_the_bound_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bound must not refuse legitimate input, and the fallback re-emits every item, so
    # the dumper must cope with the deepest input the bound lets through
    node: dict[str, Any] = {}
    cur = node
    for _ in range(guards.MAX_DEPTH - 5):
        cur["k"] = {}
        cur = cur["k"]
    doc = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
           "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": node}]}
    code, out, err = run_cli(monkeypatch, json.dumps(doc).encode())
    assert code == 0, out[-500:]
    assert parse_output(out)["items"] == doc["items"]


def test_json_surrogate_pair_escape_is_one_character(monkeypatch: pytest.MonkeyPatch) -> None:
    # Python's json.dumps writes an emoji as "\ud83d\ude00"; YAML reads two lone halves,
    # which no YAML reader (go-yaml, PyYAML) takes back: they are joined on input
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"e": "\U0001F600 ok"}}]}).encode()
    assert b"\\ud83d\\ude00" in data
    code, out, _ = run_cli(monkeypatch, data)
    assert code == 0
    assert parse_output(out)["items"][0]["data"]["e"] == "\U0001F600 ok"


def test_alias_to_an_anchor_in_another_item(monkeypatch: pytest.MonkeyPatch) -> None:
    # valid YAML that cannot be sliced: read whole, and the items keep their data
    data = rl(CM.replace("  data:\n", "  data: &shared\n") + pipelinerun(spec="    params: *shared\n"))
    code, out, err = run_cli(monkeypatch, data)
    assert code == 0, out
    items = parse_output(out)["items"]
    assert items[0]["data"] == {"a": "1"} and items[1]["spec"]["params"] == {"a": "1"}


def test_edit_through_an_alias_does_not_reach_the_other_item(monkeypatch: pytest.MonkeyPatch) -> None:
    def edit(item: Item, ctx: Context) -> None:
        item.node["spec"]["params"]["a"] = "changed"

    _use(monkeypatch, edit)
    data = rl(CM.replace("  data:\n", "  data: &shared\n") + pipelinerun(spec="    params: *shared\n"))
    code, out, _ = run_cli(monkeypatch, data)
    assert code == 0
    items = parse_output(out)["items"]
    assert items[1]["spec"]["params"] == {"a": "changed"}
    assert items[0]["data"] == {"a": "1"}


def test_function_config_alias_to_an_item(monkeypatch: pytest.MonkeyPatch) -> None:
    data = rl(CM.replace("  data:\n", "  data: &d\n")) + b"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: f\n  data: *d\n"
    code, out, _ = run_cli(monkeypatch, data)
    assert code == 0, out
    assert parse_output(out)["functionConfig"]["data"] == {"a": "1"}


def test_fallback_keeps_empty_collections_with_comments_readable(monkeypatch: pytest.MonkeyPatch) -> None:
    # the fallback re-emits in block style; an empty `{}` after a comment used to land on a
    # line of its own, which no reader could parse
    data = (b"apiVersion: v1\nkind: List\nitems: [\n  {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]\n"
            b"x: y\n")
    code, out, _ = run_cli(monkeypatch, data)
    assert code == 0
    data = b":odd: key\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data: {} # note\n  binaryData: [] # n\n"
    code, out, _ = run_cli(monkeypatch, data)
    assert code == 0
    assert parse_output(out)["items"] == [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {}, "binaryData": []}]


def test_tab_inside_a_quoted_value_is_valid_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    # a tab is only an error as indentation: inside a scalar it is data (fallback parse)
    data = rl(CM.replace('a: "1"', 'a: "x\ty"'))
    code, out, _ = run_cli(monkeypatch, data)
    assert code == 0
    assert parse_output(out)["items"][0]["data"]["a"] == "x\ty"


# --------------------------------------------------------------------------- handler guard


def _use(monkeypatch: pytest.MonkeyPatch, handler: Callable[[Item, Context], None]) -> None:
    """Every kind the function transforms goes to `handler`."""
    for key in process.HANDLERS:
        monkeypatch.setitem(process.HANDLERS, key, handler)


def test_handler_exception_becomes_an_error_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(item: Item, ctx: Context) -> None:
        item.node["spec"]["mutated"] = True  # a half-done edit must not leak out
        raise KeyError("spec")

    _use(monkeypatch, broken)
    data = rl(CM + pipelinerun())
    code, out, err = run_cli(monkeypatch, data)
    assert code == 1
    assert "Traceback" not in out + err
    assert out.startswith(data.decode())  # all items unchanged
    errors = [r for r in parse_output(out)["results"] if r["severity"] == "error"]
    assert len(errors) == 1
    msg = errors[0]["message"]
    assert msg.split(": ", 1)[1].startswith("internal error (KeyError") and msg.startswith("<stdin>:")  # at its object (issue 33)
    assert "please report it" in msg
    assert errors[0]["resourceRef"]["name"] == "run"


def test_handler_exception_in_fallback_mode_keeps_items(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(item: Item, ctx: Context) -> None:
        item.node["spec"]["mutated"] = True
        raise RecursionError("deep")

    _use(monkeypatch, broken)
    doc = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
           "items": [{"apiVersion": "tekton.dev/v1", "kind": "TaskRun", "metadata": {"name": "tr"}, "spec": {"a": "yes"}}]}
    code, out, _ = run_cli(monkeypatch, json.dumps(doc).encode())
    assert code == 1
    parsed = parse_output(out)
    assert parsed["items"] == doc["items"]
    assert "internal error (RecursionError" in out


def test_input_error_inside_a_handler_is_not_called_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    def reads_a_bomb(item: Item, ctx: Context) -> None:
        ctx.find("", "ConfigMap", "", "boom")

    _use(monkeypatch, reads_a_bomb)
    data = rl(pipelinerun() + CM.replace("plain", "boom") + bomb())
    code, out, _ = run_cli(monkeypatch, data)
    assert code == 1
    assert "the object expands to more than" in out
    assert "internal error" not in out
    assert out.startswith(data.decode())


def test_bug_outside_the_handlers_keeps_the_items(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(frame: ResourceList, ctx: Context, known_kinds: frozenset[tuple[str, str]]) -> None:
        raise ValueError("reconcile went wrong")

    monkeypatch.setattr(process, "reconcile", boom)
    data = rl(CM)
    code, out, err = run_cli(monkeypatch, data)
    assert code == 1
    assert out.startswith(data.decode())
    assert "internal error (ValueError: reconcile went wrong)" in out


# --------------------------------------------------------------------------- path safety


def _generator(item: Item, ctx: Context) -> None:
    md = item.node["metadata"]
    ctx.generate(item, {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": f"affinity-assistant-{md['name']}", "namespace": md.get("namespace", "default"),
                     "annotations": {keys.OWNER_ANNOTATION: f"{item.meta.kind}/{md['name']}"}},
        "spec": {"replicas": 1},
    })


def _generated(out: str) -> list[dict[str, Any]]:
    return [i for i in parse_output(out)["items"] if i.get("kind") == "StatefulSet"]


@pytest.mark.parametrize(
    "path",
    ["../outside.yaml", "pkg/../../outside.yaml", "/etc/run.yaml", "..", "C:\\runs\\run.yaml", "a\\..\\..\\b.yaml"],
)
def test_unsafe_owner_path_is_not_propagated(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, _generator)
    ann = (
        "    annotations:\n"
        f"      internal.config.kubernetes.io/path: {json.dumps(path)}\n"
        f"      config.kubernetes.io/path: {json.dumps(path)}\n"
        "      internal.config.kubernetes.io/index: '0'\n"
    )
    data = rl(pipelinerun(extra_meta=ann))
    code, out, _ = run_cli(monkeypatch, data)
    assert code == 0
    (sts,) = _generated(out)
    anns = sts["metadata"]["annotations"]
    assert not any(k.endswith(("/path", "/index")) for k in anns), anns
    warnings = [r for r in parse_output(out)["results"] if r["severity"] == "warning"]
    assert len(warnings) == 1
    assert warnings[0]["message"].startswith("path annotation")
    assert "kpt picks one" in warnings[0]["message"]
    assert warnings[0]["field"]["path"] == "metadata.annotations.internal.config.kubernetes.io/path"


@pytest.mark.parametrize("path", ["run.yaml", "pipelines/run.yaml", "a..b/run..yaml", "./run.yaml"])
def test_safe_owner_path_is_propagated(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _use(monkeypatch, _generator)
    ann = (
        "    annotations:\n"
        f"      internal.config.kubernetes.io/path: {json.dumps(path)}\n"
        "      internal.config.kubernetes.io/index: '2'\n"
    )
    code, out, _ = run_cli(monkeypatch, rl(pipelinerun(extra_meta=ann)))
    assert code == 0
    (sts,) = _generated(out)
    anns = sts["metadata"]["annotations"]
    assert anns["internal.config.kubernetes.io/path"] == path
    assert anns["internal.config.kubernetes.io/index"] == "3"
    assert "config.kubernetes.io/path" not in anns  # no legacy mirror unless the input has it
    assert not [r for r in parse_output(out)["results"] if r["severity"] == "warning"]


def test_unsafe_path_warns_once_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def two(item: Item, ctx: Context) -> None:
        for n in ("a", "b"):
            ctx.generate(item, {"apiVersion": "apps/v1", "kind": "StatefulSet",
                                "metadata": {"name": f"aa-{n}", "annotations": {keys.OWNER_ANNOTATION: "PipelineRun/run"}},
                                "spec": {}})

    _use(monkeypatch, two)
    ann = "    annotations:\n      internal.config.kubernetes.io/path: ../x.yaml\n"
    code, out, _ = run_cli(monkeypatch, rl(pipelinerun(extra_meta=ann)))
    assert code == 0
    assert len(_generated(out)) == 2
    assert sum(r["severity"] == "warning" for r in parse_output(out)["results"]) == 1


# --------------------------------------------------------------------------- real console script

SUBPROCESS_CASES = ["empty-stdin", "binary-nul", "several-documents", "alias-bomb-in-tekton-item", "alias-bomb-inside-flow-items",
                    "deep-flow-nesting-in-tekton-item", "duplicate-key-in-tekton-spec", "config-wrong-kind",
                    "alias-bomb-in-configmap-pod-template-string"]


@pytest.mark.parametrize("case_id", SUBPROCESS_CASES)
def test_console_script(case_id: str) -> None:
    exe = require_tool("krm-coschedule")
    case = next(c for c in CASES if c.id == case_id)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([exe], input=case.data, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # measured, not asserted (no wall-clock limits in tests): printed for the report
    print(f"\n{case_id}: {elapsed:.2f} s, child peak RSS so far {after.ru_maxrss / 1024:.0f} MiB "
          f"(cpu {after.ru_utime - before.ru_utime:.2f} s)", file=sys.__stderr__)
    check_contract(case, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def test_console_script_passthrough_is_byte_identical() -> None:
    exe = require_tool("krm-coschedule")
    data = ROOT.joinpath("fixtures", "passthrough-mixed", "input.yaml").read_bytes()
    proc = subprocess.run([exe], input=data, capture_output=True, check=False, env={**os.environ, "PYTHONHASHSEED": "1"})
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr
    assert proc.stdout.startswith(data)
