"""Helpers for the end-to-end tests (real kpt, kubectl kustomize, pre-commit).

Expected outputs live beside each example in `.expected/`. They are never written by a
normal test run; `KRM_UPDATE_EXPECTED=1 .venv/bin/python -m pytest tests/test_e2e_*.py`
regenerates them (read the diff before committing: an expected file is a claim).
"""
from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

from krm_fn.io import streams
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

UPDATE = os.environ.get("KRM_UPDATE_EXPECTED", "") == "1"


def copy_package(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".expected"))
    return dst


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (relative path -> bytes), `.expected/` left out."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not rel.startswith(".expected/"):
            out[rel] = p.read_bytes()
    return out


def package_diff(before: dict[str, bytes], after: dict[str, bytes]) -> str:
    """A unified diff of a package, file by file (empty when nothing changed)."""
    chunks = []
    for rel in sorted(set(before) | set(after)):
        a = before.get(rel, b"").decode().splitlines(keepends=True)
        b = after.get(rel, b"").decode().splitlines(keepends=True)
        fa = f"a/{rel}" if rel in before else "/dev/null"
        fb = f"b/{rel}" if rel in after else "/dev/null"
        chunks.extend(difflib.unified_diff(a, b, fromfile=fa, tofile=fb))
    return "".join(chunks)


def check_expected(path: Path, actual: str) -> None:
    """Compare with an expected file, or rewrite it under KRM_UPDATE_EXPECTED=1."""
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    assert path.exists(), f"{path} missing: run with KRM_UPDATE_EXPECTED=1 to create it"
    expected = path.read_text()
    assert actual == expected, f"output differs from {path} (KRM_UPDATE_EXPECTED=1 regenerates it):\n" + "".join(
        difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "expected", "actual")
    )


def documents(text: str) -> list[dict]:
    return [to_plain(loader.rt_load(d.body)) for d in streams.split(text).docs]


def check_generated_beside_runs(files: dict[str, bytes]) -> int:
    """Every generated object sits in the file of the run that owns it. Returns how many
    generated objects there are."""
    count = 0
    for rel, data in files.items():
        if not rel.endswith((".yaml", ".yml")):
            continue
        try:
            docs = documents(data.decode())
        except Exception:  # noqa: BLE001 - not YAML: nothing generated in it
            continue
        runs = {(d.get("kind"), (d.get("metadata") or {}).get("name")) for d in docs if isinstance(d, dict)}
        for d in docs:
            if not isinstance(d, dict):
                continue
            owner = ((d.get("metadata") or {}).get("annotations") or {}).get("krm-coschedule.dev/owner")
            if owner:
                count += 1
                kind, _, name = owner.partition("/")
                assert (kind, name) in runs, f"{rel}: {d['kind']} {d['metadata']['name']} is not beside its run {owner}"
            ann = (d.get("metadata") or {}).get("annotations") or {}
            leaked = [k for k in ann if k.startswith("internal.config.kubernetes.io/")]
            assert not leaked, f"{rel}: internal annotations written to the file: {leaked}"
    return count


_LOCATION_PREFIXES = ("internal.config.kubernetes.io/", "config.kubernetes.io/path", "config.kubernetes.io/index", "kustomize.config.k8s.io/")


def normalized(objs: list[dict]) -> list[dict]:
    """Objects without the orchestrators' bookkeeping annotations, in a stable order, so the
    output of different paths (stdin, kpt, kustomize, files) can be compared."""
    out = []
    for o in objs:
        if not isinstance(o, dict):
            continue
        md = o.get("metadata") or {}
        ann = {k: v for k, v in (md.get("annotations") or {}).items() if not k.startswith(_LOCATION_PREFIXES)}
        md = {**md, "annotations": ann} if ann else {k: v for k, v in md.items() if k != "annotations"}
        out.append({**o, "metadata": md})
    return sorted(out, key=lambda o: (o.get("apiVersion", ""), o.get("kind", ""), o["metadata"].get("namespace", ""), o["metadata"].get("name", "")))


def stdin_objects(resource_files: list[Path], policy: Path) -> list[dict]:
    """What KRM stdin mode makes of the same resources and policy (run in this process)."""
    from krm_fn.modes.krm import run_resource_list

    items = []
    for f in resource_files:
        for d in streams.split(f.read_text()).docs:
            items.append("".join(("- " if i == 0 else "  ") + line for i, line in enumerate(_strip_head(d.body).splitlines(True))))
    cfg = "".join("  " + line for line in _strip_head(policy.read_text()).splitlines(True))
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(items) + "functionConfig:\n" + cfg
    out, _outcome, code = run_resource_list(rl.encode())
    assert code == 0, out
    data = to_plain(loader.rt_load(out))
    return normalized(data["items"])


def _strip_head(text: str) -> str:
    lines = text.splitlines(True)
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
        lines.pop(0)
    return "".join(lines)
