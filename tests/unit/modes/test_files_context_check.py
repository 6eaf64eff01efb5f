"""Issue 34, deliverable 3: files mode checks the syntax of a context file only when a lookup
read one of its items (Item.looked_up) or it holds the policy. A context file nothing read
needs no check: whether the eager reading would keep it as context or leave it out, nothing
used it, so the outcome is the eager reading's without reading the package again."""
from __future__ import annotations

from pathlib import Path

import pytest
from files_util import PIPELINE
from files_util import cli
from files_util import run_doc

from krm_fn.modes import files as files_mod

BROKEN_CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n  a: "never closed\n  b: [1, 2\n'


def _outcomes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tree: dict[str, str], *args: str) -> dict[bool, tuple[object, int]]:
    """{deferred: ((code, out, err), passes over the package)} for the deferred and the
    eager reading, each on its own copy of `tree`, rendered once first (so it is clean)."""
    real = files_mod._render_package
    found = {}
    for defer in (True, False):
        d = tmp_path / ("deferred" if defer else "eager")
        for name, text in tree.items():
            (d / name).parent.mkdir(parents=True, exist_ok=True)
            (d / name).write_text(text)
        cli(d, "--no-cache", "runs")  # the first render: the runs are rendered from now on
        passes = []
        with monkeypatch.context() as m:
            def counted(pkg, override, light, deferred, tick, pre, on=defer, passes=passes):  # type: ignore[no-untyped-def]
                passes.append(deferred)
                return real(pkg, override, light, deferred and on, tick, pre)

            m.setattr(files_mod, "_render_package", counted)
            got = cli(d, "--no-cache", *args)
        found[defer] = ((got[0], got[1], got[2].replace(str(d), "<dir>")), len(passes))
    assert found[True][0] == found[False][0]
    return found


def _tree(**extra: str) -> dict[str, str]:
    tree = {
        "Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
        "pipeline.yaml": PIPELINE,
        **{f"runs/r{i}.yaml": run_doc(f"r{i}") for i in range(4)},
    }
    tree.update(extra)
    return tree


def test_a_broken_context_file_nothing_reads_is_not_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _outcomes(tmp_path, monkeypatch, _tree(**{"cm.yaml": BROKEN_CM}), "--check", "--files", "runs/r2.yaml")
    (code, _out, err), passes = found[True]
    assert code == 0, err
    assert passes == 1  # no second, eager reading of the package (there was one before)


def test_a_context_file_a_lookup_reads_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Pipeline's file, read by the staged run's lookup, holds a broken document: the
    eager reading leaves the whole file out of the context, and so does the outcome."""
    tree = _tree()
    tree["pipeline.yaml"] = PIPELINE + "---\n" + BROKEN_CM
    found = _outcomes(tmp_path, monkeypatch, tree, "--check", "--files", "runs/r2.yaml")
    (code, _out, err), passes = found[True]
    assert code == 1 and "is not in the input" in err, err
    assert passes == 2  # the deferred pass, then the eager one that decides


def test_broken_context_runs_beside_one_staged_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another run's file, not YAML below its identity: context only (nothing reads it) for a
    staged run of another name."""
    tree = _tree()
    tree["runs/r3.yaml"] = run_doc("r3") + "  extra: [1, 2\n"
    found = _outcomes(tmp_path, monkeypatch, tree, "--check", "--files", "runs/r1.yaml")
    assert found[True][1] == 1
