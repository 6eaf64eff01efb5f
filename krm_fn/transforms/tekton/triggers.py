"""Tekton Triggers' TriggerTemplate: the PipelineRun and TaskRun templates in its
`spec.resourcetemplates` are runs without a name (Triggers creates one per event, usually
under generateName or with `$(uid)` in the name), transformed in place like any run (SPEC
§4b). Tekton and Triggers variables (`$(tt.params.*)`, `$(uid)`, `$(...)`) are left exactly
as written; other resources in the list are not touched."""
from __future__ import annotations

from krm_fn.core.data import type_name
from krm_fn.core.errors import FieldError
from krm_fn.io.items import Item
from krm_fn.io.items import meta_of
from krm_fn.transforms.context import Context
from krm_fn.transforms.tekton import handlers

RUN_KINDS = ("PipelineRun", "TaskRun")
RUN_VERSIONS = ("v1", "v1beta1")


def handle_triggertemplate(item: Item, ctx: Context) -> None:
    spec = item.node.get("spec")
    if not isinstance(spec, dict):
        return
    templates = spec.get("resourcetemplates")
    if templates is None:
        return
    if not isinstance(templates, list):
        raise FieldError(
            "spec.resourcetemplates",
            f"spec.resourcetemplates is a {type_name(templates)}; it must be a list of resource templates",
        )
    for i, node in enumerate(templates):
        meta = meta_of(node)
        if meta.group != "tekton.dev" or meta.kind not in RUN_KINDS:
            continue
        where = f"spec.resourcetemplates[{i}]"
        if meta.version not in RUN_VERSIONS:
            ctx.warning(
                item,
                f"{where}.apiVersion",
                f"{meta.api_version} is not supported for {meta.kind}; supported: tekton.dev/v1, "
                "tekton.dev/v1beta1. The template is left unchanged",
            )
            continue
        if not meta.namespace:
            meta.namespace = item.meta.namespace  # Triggers creates it in the listener's namespace
        handlers.handle_template(item, ctx.scoped(where), node, meta)
