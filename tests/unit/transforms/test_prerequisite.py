"""The cluster prerequisite (issue 23): a Tekton feature-flags ConfigMap in the input or the
package that leaves Tekton's own affinity assistant on is a warning naming the key and the
value it needs; the summaries name the prerequisite once when placeholders are rendered."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from shared import ROOT

from krm_fn.modes.krm import run_resource_list
from krm_fn.transforms import prerequisite

EXAMPLE = ROOT / "examples" / "pre-commit" / "manifests"


def _entry(text: str) -> str:
    lines = [ln for ln in text.splitlines() if not ln.startswith("#")]
    return "- " + "\n".join(("  " + ln) if ln else ln for ln in lines)[2:] + "\n"


def _flags(data: dict[str, str]) -> str:
    body = "".join(f"  {k}: {v!r}\n" for k, v in data.items()) or "  {}\n"
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: feature-flags\n  namespace: tekton-pipelines\ndata:\n{body}"


def _run(flags: dict[str, str] | None, policy: str = "") -> tuple[list[tuple[str, str, str]], object]:
    docs = [(EXAMPLE / "pipelinerun.yaml").read_text(), (EXAMPLE / "pipeline.yaml").read_text()]
    if flags is not None:
        docs.append(_flags(flags))
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(_entry(d) for d in docs)
    if policy:
        rl += "functionConfig:\n" + "".join(f"  {ln}\n" for ln in policy.splitlines())
    _out, outcome, code = run_resource_list(rl.encode())
    assert outcome is not None and code == 0, outcome
    found = [
        (r.field_path or "", r.message, dict(r.tags).get("reason", ""))
        for r in outcome.results
        if r.severity == "warning"
    ]
    return found, outcome


@pytest.mark.parametrize(
    ("flags", "key", "fragment"),
    [
        ({"coschedule": "workspaces"}, "data.coschedule", 'coschedule is "workspaces"'),
        ({"coschedule": "pipelineruns"}, "data.coschedule", 'coschedule is "pipelineruns"'),
        ({"enable-api-fields": "beta"}, "data.coschedule", "coschedule is not set"),
    ],
)
def test_flags_that_leave_tektons_assistant_on_warn(flags: dict[str, str], key: str, fragment: str) -> None:
    (w,), _ = _run(flags)
    path, message, reason = w
    assert path == key and fragment in message and reason == prerequisite.REASON
    assert 'set coschedule: "disabled"' in message and "kubectl patch configmap feature-flags" in message


def test_disabled_flags_and_no_flags_are_quiet() -> None:
    assert _run({"coschedule": "disabled"})[0] == []
    assert _run(None)[0] == []


def test_below_v1_the_disable_flag_counts() -> None:
    old = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: policy}\ndata:\n  tekton-version: v0.49.0\n"
    (w,), _ = _run({"disable-affinity-assistant": "false"}, old)
    assert w[0] == "data.disable-affinity-assistant" and 'set disable-affinity-assistant: "true"' in w[1]
    assert _run({"disable-affinity-assistant": "true"}, old)[0] == []


def test_a_policy_that_renders_nothing_does_not_warn() -> None:
    off = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: policy}\ndata:\n  coschedule: disabled\n"
    assert _run({"coschedule": "workspaces"}, off)[0] == []


def test_the_summary_names_the_prerequisite_once_when_placeholders_are_rendered() -> None:
    _found, outcome = _run(None)
    needs = prerequisite.note(outcome.plans)  # type: ignore[attr-defined]
    assert 'coschedule: "disabled"' in needs and "kubectl patch" in needs
    assert prerequisite.note([]) == ""


def test_files_mode_warns_for_the_packages_feature_flags(tmp_path: Path) -> None:
    """feature-flags is context (not a file given), yet its warning is shown, and the
    prerequisite is named once after the summary."""
    (tmp_path / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n")
    for name in ("pipeline.yaml", "pipelinerun.yaml"):
        (tmp_path / name).write_text((EXAMPLE / name).read_text())
    (tmp_path / "flags.yaml").write_text(_flags({"coschedule": "workspaces"}))
    p = subprocess.run([sys.executable, "-m", "krm_fn", "--check", "pipelinerun.yaml"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 1
    assert "flags.yaml: [warning] v1/ConfigMap/tekton-pipelines/feature-flags data.coschedule:" in p.stderr
    assert p.stderr.count("placeholders rendered: the cluster needs Tekton's feature-flags") == 1


@pytest.mark.parametrize("flags", [{"coschedule": "disabled"}, {"coschedule": "workspaces"}])
def test_a_package_that_turns_the_assistant_off_is_not_told_again(tmp_path: Path, flags: dict[str, str]) -> None:
    """A repository that manages its Tekton holds feature-flags: when it turns the assistant
    off, the prerequisite is met as far as the package can say, and the summary does not
    name it on every commit (files mode and KRM mode alike); when it leaves it on, the
    warning and the note both stay."""
    (tmp_path / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n")
    for name in ("pipeline.yaml", "pipelinerun.yaml"):
        (tmp_path / name).write_text((EXAMPLE / name).read_text())
    (tmp_path / "flags.yaml").write_text(_flags(flags))
    p = subprocess.run([sys.executable, "-m", "krm_fn", "--check", "pipelinerun.yaml"], capture_output=True, text=True, cwd=tmp_path)
    off = flags["coschedule"] == "disabled"
    assert ("placeholders rendered" in p.stderr) is not off, p.stderr
    assert ("[warning]" in p.stderr) is not off, p.stderr
    _found, outcome = _run(flags)
    assert outcome.assistant_off is off  # type: ignore[attr-defined]
    needs = prerequisite.note(outcome.plans, assistant_off=outcome.assistant_off)  # type: ignore[attr-defined]
    assert (needs == "") is off


def test_a_feature_flags_copy_used_as_config_is_not_the_clusters() -> None:
    """Without a namespace, or marked local-config, it is a copy of Tekton's values used as
    the function's own config (SPEC §3), not the cluster's ConfigMap."""
    local = _flags({"coschedule": "workspaces"}).replace(
        "  namespace: tekton-pipelines\n",
        "  namespace: tekton-pipelines\n  annotations:\n    config.kubernetes.io/local-config: 'true'\n",
    )
    nameless = _flags({"coschedule": "workspaces"}).replace("  namespace: tekton-pipelines\n", "")
    for text in (local, nameless):
        docs = [(EXAMPLE / "pipelinerun.yaml").read_text(), (EXAMPLE / "pipeline.yaml").read_text(), text]
        rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(_entry(d) for d in docs)
        _out, outcome, code = run_resource_list(rl.encode())
        assert outcome is not None and code == 0
        assert [r for r in outcome.results if r.severity == "warning"] == []
