"""krm_fn.yaml.placeholder writes a placeholder StatefulSet by its fixed shape: it must give
exactly the bytes of the general emitter (emitter.dump_block / dump_entry), on every
placeholder the snapshots and the examples hold, and on generated ones whose values need
quoting (issue 34: same bytes)."""
from __future__ import annotations

import io
import shutil
import sys
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from shared import ROOT

from krm_fn.policy.config import Policy
from krm_fn.transforms.tekton import assistant
from krm_fn.transforms.tekton import names
from krm_fn.yaml import document
from krm_fn.yaml import emitter
from krm_fn.yaml import libyaml
from krm_fn.yaml import placeholder

sys.path.insert(0, str(ROOT / "bench"))
import gen


def _statefulsets(text: str) -> list[dict[str, Any]]:
    out = []
    for doc in yaml.load_all(text, Loader=yaml.CSafeLoader):  # noqa: S506 - the C safe loader
        for obj in doc.get("items") or [] if isinstance(doc, dict) and doc.get("kind") == "ResourceList" else [doc]:
            if isinstance(obj, dict) and obj.get("kind") == "StatefulSet":
                out.append(obj)
    return out


def _rendered_examples(tmp: Path) -> list[dict[str, Any]]:
    """The placeholders each example package renders to (files mode, as kpt's pipeline runs it)."""
    from krm_fn.cli import main

    found = []
    for example in sorted(p for p in (ROOT / "examples").iterdir() if (p / "coschedule-policy.yaml").is_file()):
        work = tmp / example.name
        shutil.copytree(example, work, ignore=shutil.ignore_patterns(".expected"))
        with redirect_stderr(io.StringIO()):
            main(["--config", str(work / "coschedule-policy.yaml"), str(work)])
        for f in sorted(work.rglob("*.yaml")):
            found.extend(_statefulsets(f.read_text()))
    return found


def _all_placeholders(tmp: Path) -> list[dict[str, Any]]:
    objs = []
    for p in sorted((ROOT / "tests").glob("suites/**/__snapshots__/**/*.yaml")):
        try:
            objs.extend(_statefulsets(p.read_text()))
        except yaml.YAMLError:
            continue
    objs.extend(_rendered_examples(tmp))
    pkg = tmp / "bench-package"
    gen.write_package(gen.package(3, seed=2), pkg)
    from krm_fn.cli import main

    with redirect_stderr(io.StringIO()):
        main(["--config", str(pkg / "coschedule-policy.yaml"), str(pkg)])
    for f in sorted(pkg.rglob("*.yaml")):
        objs.extend(_statefulsets(f.read_text()))
    return objs


def _same_bytes(obj: dict[str, Any]) -> None:
    assert placeholder.text(obj) == emitter.dump_block(obj)
    _proven_reads_back(obj)
    assert document.new_block(obj) == emitter.dump_block(obj)
    for d in (0, 2, 4):
        assert document.new_entry(obj, d) == emitter.dump_entry(obj, d)


def _proven_reads_back(obj: dict[str, Any]) -> bool:
    """A text placeholder.proven calls YAML is read back by libyaml, as the object (files
    mode does not read it again: streamwrite._check); whether it was proven."""
    text = placeholder.text(obj)
    assert text is not None
    if not placeholder.proven(text):
        return False
    assert libyaml.reads(text), text
    assert yaml.load(text, Loader=yaml.CSafeLoader) == obj  # noqa: S506 - the C safe loader
    return True


def test_every_placeholder_of_the_snapshots_and_examples_is_written_alike(tmp_path: Path) -> None:
    objs = _all_placeholders(tmp_path)
    assert len(objs) > 30, len(objs)  # 39 when this was written
    shapes = set()
    for obj in objs:
        _same_bytes(obj)
        assert _proven_reads_back(obj)  # every one is YAML by construction
        pod = obj["spec"]["template"]["spec"]
        shapes.add((tuple(obj["spec"]), tuple(pod)))
    assert len(shapes) >= 4, shapes  # with and without claim templates, volumes, tolerations...


def test_another_object_is_left_to_the_emitter() -> None:
    assert placeholder.text({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}}) is None
    assert placeholder.text({"apiVersion": "apps/v2", "kind": "StatefulSet"}) is None
    assert placeholder.text({"apiVersion": "apps/v1", "kind": "StatefulSet", 1: "x"}) is None


# strings a reader would re-type, or that need quotes for other reasons
_AWKWARD = st.one_of(
    st.sampled_from(["true", "no", "null", "~", "", "1", "0o17", "1e3", "0x1F", ".inf", "2026-11-27", "a: b", "a #b", "#a", "- a", "x:", " a", "a ", "[a]", "{a}", "*a", "&a", "!a", "'a'", '"a"', "...", "---", "é", "a\nb", "\t", "$(params.x)", "=", "<<"]),
    st.text(max_size=6),
)
_NAME = st.from_regex(r"[a-z0-9]([a-z0-9.-]{0,10}[a-z0-9])?", fullmatch=True)
_LABELS = st.dictionaries(st.one_of(_NAME, _AWKWARD), _AWKWARD, max_size=4)
_TOLERATION = st.fixed_dictionaries(
    {"key": _AWKWARD, "operator": st.sampled_from(["Exists", "Equal"])},
    optional={"value": _AWKWARD, "effect": st.sampled_from(["NoSchedule", "NoExecute"]), "tolerationSeconds": st.integers(0, 10**6)},
)


@settings(max_examples=150, deadline=None)
@given(
    name=_NAME,
    namespace=st.one_of(st.just(""), _NAME),
    run_labels=_LABELS,
    node_selector=_LABELS,
    tolerations=st.lists(_TOLERATION, max_size=3),
    sa=st.one_of(st.just(""), _AWKWARD),
    claims=st.lists(_AWKWARD, max_size=2),
    template_labels=_LABELS,
    storage=st.one_of(_AWKWARD, st.integers()),
    isolate=st.booleans(),
    annotations=_LABELS,
    secure=st.booleans(),
)
def test_generated_placeholders_with_awkward_values_are_written_alike(
    name: str, namespace: str, run_labels: dict[str, str], node_selector: dict[str, str], tolerations: list[dict[str, Any]],
    sa: str, claims: list[str], template_labels: dict[str, str], storage: Any, isolate: bool, annotations: dict[str, str], secure: bool,
) -> None:
    aa = names.assistant_name("", name)
    tpl = {"metadata": {"name": f"pvc-{name}", "labels": template_labels}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}}}
    spec = assistant.Spec(
        name=aa, namespace=namespace, owner_kind="PipelineRun", owner_name=name, run_labels=run_labels,
        run_pod_template={"nodeSelector": node_selector, "tolerations": tolerations}, run_service_account=sa,
        own_assistants=frozenset({aa}), claim_templates=[tpl], claims=claims, isolate=isolate,
    )
    obj = assistant.statefulset(spec, Policy(set_security_context=secure))
    obj["metadata"]["annotations"].update(annotations)  # the location and tool annotations a copy keeps
    _same_bytes(obj)
    _same_bytes(emitter.plain_safe(obj))  # strings marked for double quotes (the light path's)


def _one_placeholder() -> dict[str, Any]:
    spec = assistant.Spec(
        name="affinity-assistant-a", namespace="ci", owner_kind="PipelineRun", owner_name="r", run_labels={"team": "a"},
        run_pod_template={}, run_service_account="", own_assistants=frozenset({"affinity-assistant-a"}),
        claim_templates=[], claims=["c"], isolate=False,
    )
    return assistant.statefulset(spec, Policy())


@pytest.mark.parametrize(
    "value",
    ["caf\u00e9", "a\x7fb", "a\x85b", "a\u2028b", "\ufeff", "x" * 1000],
)
def test_a_text_proven_cannot_vouch_for_is_left_to_libyaml(value: str) -> None:
    """What the writer's construction does not prove: a character other than printable ASCII
    (kept raw inside a double-quoted scalar: libyaml refuses DEL, and reads NEL or U+2028 as
    a line break), a line too long for an implicit key."""
    obj = _one_placeholder()
    assert placeholder.proven(placeholder.text(obj) or "")
    obj["metadata"]["labels"]["team"] = value
    assert not placeholder.proven(placeholder.text(obj) or "")
    obj["metadata"]["labels"] = {value: "a"}
    assert not placeholder.proven(placeholder.text(obj) or "")


@pytest.mark.parametrize("line", ["---", "--- x", "...", "%YAML 1.1", "# c"])
def test_a_line_that_would_start_a_document_is_not_proven(line: str) -> None:
    assert not placeholder.proven(f"a: b\n{line}\nc: d\n")
    assert not placeholder.proven(f"{line}\nc: d\n")


@pytest.mark.parametrize(
    "templates",
    [
        [{"metadata": {"name": "a"}}],  # no labels, no spec
        [{"spec": {}}, {}],  # empty mappings, no metadata
        [{"metadata": {"name": "b", "labels": {}, "annotations": {"n": 2, "x": "y: z"}}, "spec": {"accessModes": []}}],
        [{"metadata": {"name": "c", "labels": {"k": None, 1: "one"}}, "spec": ["a", {"b": 1}]}],  # kept as edited in Git
        ["a-scalar", None, [1, 2]],  # not mappings at all
        [{"metadata": {"name": "d", "labels": {"team": "a"}}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}] * 2,
    ],
)
def test_claim_templates_of_any_shape_are_written_alike(templates: list[Any]) -> None:
    """The claim templates are written by their shape (names and labels line by line, the
    spec taken again by its value): a template kept from Git may hold anything."""
    obj = _one_placeholder()
    obj["spec"]["volumeClaimTemplates"] = templates
    _same_bytes(obj)
    _same_bytes(emitter.plain_safe(obj))


def test_a_repeated_subtree_is_taken_again_only_for_the_same_data() -> None:
    """Subtrees that repeat between placeholders are written once and taken again by their
    value (marshal, or repr where marshal refuses): data that `==` calls equal but the
    emitter writes apart (1, 1.0, True), key order, and strings marked for double quotes
    are each written as dump_block writes them, one after another in one process."""
    values: list[Any] = [1, True, 1.0, 2, "1", emitter.DQ("1"), None, 0, False, 0.0, -0.0]
    selectors: list[dict[str, Any]] = [{"pool": v} for v in values]
    selectors += [{"a": "x", "b": "y"}, {"b": "y", "a": "x"}, {"a": ["x"]}, {"a": ("x",)}]
    for sel in selectors * 2:
        obj = _one_placeholder()
        obj["spec"]["template"]["spec"]["nodeSelector"] = sel
        assert placeholder.text(obj) == emitter.dump_block(obj), sel
