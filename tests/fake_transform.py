"""A stand-in coscheduling transform for the plumbing tests.

The real Tekton transform lives in krm_fn/transforms/tekton/tekton.py. The I/O paths (files, kustomize plugin,
kpt, explain) must carry whatever a transform does: edit a run in place, generate a
StatefulSet beside it, record a Plan, report an error. This fake does exactly those things in
a few lines, so the plumbing is tested for real whatever state the transform is in.

`install()` swaps it in; `write_wrapper()` makes an executable named `krm-coschedule` that
runs the real CLI with the fake installed (for kpt, kubectl kustomize and pre-commit).
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.io.items import Item
from krm_fn.transforms.context import Context
from krm_fn.transforms.context import Plan
from krm_fn.yaml.plain import to_plain

ERROR_ANNOTATION = "fake.krm-coschedule.dev/error"


def _h10(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()[:10]


def handle_pipelinerun(item: Item, ctx: Context) -> None:
    node = item.node
    md = node.get("metadata") or {}
    if ERROR_ANNOTATION in (md.get("annotations") or {}):
        ctx.error(item, f"metadata.annotations.{ERROR_ANNOTATION}", "fake error requested by the test")
        return
    if ctx.policy.mode == "disabled":
        ctx.plans.append(Plan(ctx.ref(item), ctx.policy.mode, []))
        return
    name, ns = item.meta.name, item.meta.namespace
    ref = ((node.get("spec") or {}).get("pipelineRef") or {}).get("name")
    if ref and ctx.find("tekton.dev", "Pipeline", ns, ref) is None:
        ctx.error(item, "spec.pipelineRef.name", f"Pipeline {ref} is not in the input")
        return
    aa = "affinity-assistant-" + _h10(name)
    existing = ctx.generated_field("StatefulSet", ns, aa, f"PipelineRun/{name}", ("spec", "volumeClaimTemplates"))
    templates: list[Any] = to_plain(existing or [])
    claims = []
    spec = node.get("spec") or {}
    for i, ws in enumerate(spec.get("workspaces") or []):
        vct = ws.get("volumeClaimTemplate")
        if vct is None:
            continue
        template = "pvc-" + _h10(str(ws.get("name")) + name)
        claim = f"{template}-{aa}-0"
        plain = to_plain(vct)
        plain.setdefault("metadata", {})["name"] = template
        templates.append(plain)
        del ws["volumeClaimTemplate"]
        ws["persistentVolumeClaim"] = item.doc.safe({"claimName": claim})
        claims.append({"template": template, "claim": claim, "bindings": [f"spec.workspaces[{i}]"]})
    if not claims:
        claims = [{"template": t["metadata"]["name"], "claim": f"{t['metadata']['name']}-{aa}-0", "bindings": []} for t in templates]
    metadata: dict[str, Any] = {"name": aa}
    if ns:
        metadata["namespace"] = ns
    metadata["labels"] = {"tekton.dev/pipelineRun": name, "app.kubernetes.io/component": "affinity-assistant"}
    metadata["annotations"] = {OWNER_ANNOTATION: f"PipelineRun/{name}"}
    obj = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": metadata,
        "spec": {"replicas": 1, "serviceName": aa, "volumeClaimTemplates": templates},
    }
    ctx.generate(item, obj)
    ctx.plans.append(Plan(ctx.ref(item), ctx.policy.mode, [{"name": aa, "tasks": ["build", "test"], "claims": claims, "volumes": []}]))


def install() -> None:
    from krm_fn.orchestration import process

    process.HANDLERS[("tekton.dev", "PipelineRun")] = handle_pipelinerun


def write_wrapper(directory: Path) -> Path:
    """An executable `krm-coschedule` in `directory` running the CLI with the fake."""
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / "krm-coschedule"
    tests_dir = Path(__file__).resolve().parent
    exe.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "os.environ['KRM_COSCHEDULE_NO_CACHE'] = '1'  # another transform than krm_fn's: no verdict of it is kept\n"
        f"sys.path.insert(0, {str(tests_dir)!r})\n"
        "import fake_transform\n"
        "fake_transform.install()\n"
        "from krm_fn.cli import main\n"
        "raise SystemExit(main())\n"
    )
    exe.chmod(0o755)
    return exe


def path_with(directory: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{directory}{os.pathsep}{env.get('PATH', '')}"
    return env
