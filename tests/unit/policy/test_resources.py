"""assistant.resources (issue 32, deliverable 5): the placeholder container's requests and
limits, validated as a pod's are; unset, Tekton's fixed 50m / 100Mi."""
from __future__ import annotations

from typing import Any

import pytest

from krm_fn.modes.krm import run_resource_list
from krm_fn.policy import config
from krm_fn.policy import resources
from krm_fn.transforms.tekton import assistant

RUN = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata: {name: r, namespace: ci}
  spec:
    pipelineSpec:
      tasks: [{name: a, taskRef: {name: s}}]
"""


def typed(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "CoschedulePolicy", "metadata": {"name": "ci"}, "spec": spec}


def _render(res: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
    import json

    spec: dict[str, Any] = {"coschedule": "pipelineruns"}
    if res is not None:
        spec["assistant"] = {"resources": res}
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + RUN + "functionConfig: " + json.dumps(typed(spec)) + "\n"
    out, outcome, code = run_resource_list(rl.encode())
    assert code == 0, out
    import yaml

    (sts,) = [i for i in yaml.safe_load(out)["items"] if i["kind"] == "StatefulSet"]
    summary = next(r.message for r in outcome.results if "placeholder pod(s)" in r.message)
    return sts["spec"]["template"]["spec"]["containers"][0]["resources"], summary


def test_unset_is_tektons_fixed_value() -> None:
    res, summary = _render(None)
    assert res == {"requests": {"cpu": "50m", "memory": "100Mi"}, "limits": {"cpu": "50m", "memory": "100Mi"}}
    assert "request 50m CPU and 100Mi memory in all" in summary


def test_set_replaces_the_fixed_value_and_the_cost_line_follows() -> None:
    want = {"requests": {"cpu": "10m", "memory": "16Mi"}, "limits": {"memory": "32Mi"}}
    res, summary = _render(want)
    assert res == want
    assert "request 10m CPU and 16Mi memory in all" in summary
    res, summary = _render({"limits": {"cpu": "0.1", "memory": "1Gi"}})  # a limit is also the request
    assert "request 100m CPU and 1024Mi memory in all" in summary


@pytest.mark.parametrize(
    ("res", "path", "fragment"),
    [
        ({"requests": {"cpu": "lots"}}, "spec.assistant.resources.requests.cpu", "is not a quantity"),
        ({"requests": {"memory": "-1Mi"}}, "spec.assistant.resources.requests.memory", "must not be negative"),
        ({"requests": {"cpu": "200m"}, "limits": {"cpu": "100m"}}, "spec.assistant.resources.requests.cpu", "more than the limit"),
        ({"requests": {"gpu": "1"}}, "spec.assistant.resources.requests.gpu", "needs a domain"),
        ({"requests": {"example.com/dev": "1"}, "limits": {"example.com/dev": "2"}}, "spec.assistant.resources.requests.example.com/dev", "not overcommitable"),
        ({"requests": {"hugepages-2Mi": "2Mi"}}, "spec.assistant.resources.limits", "needs a limit"),
    ],
)
def test_what_the_api_server_refuses_is_an_error(res: dict[str, Any], path: str, fragment: str) -> None:
    p, results = config.load(typed({"assistant": {"resources": res}}))
    assert p is None
    assert any(r.field_path == path and fragment in r.message for r in results), results


def test_a_wrong_shape_is_a_schema_error() -> None:
    p, results = config.load(typed({"assistant": {"resources": {"request": {"cpu": "1"}}}}))
    assert p is None and results[0].field_path.startswith("spec.assistant.resources")


def test_quantities() -> None:
    assert resources.quantity("100m") == resources.quantity("0.1") == resources.quantity(0.1)
    assert resources.quantity("1Ki") == 1024 and resources.quantity("1e3") == 1000 and resources.quantity("1k") == 1000
    assert resources.quantity("1.5Gi") == 1.5 * 2**30
    assert resources.quantity("") is None and resources.quantity("1 Gi") is None and resources.quantity(True) is None
    assert resources.requests(None) == resources.requests({"requests": assistant.RESOURCES, "limits": assistant.RESOURCES})
