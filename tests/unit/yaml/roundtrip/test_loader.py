"""A rewritten object is never written with data the input did not have: when ruamel's
round-trip emitter would change the data (ruamel 0.19.1: a comment before the items of a
sequence turns `- a` and `- b` into the one string "a - b"; a float loses a digit), the plain
emitter writes the object instead and a warning says so."""
from __future__ import annotations

import yaml
from golden import function_config  # type: ignore[import-not-found]

from krm_fn.modes.krm import run_resource_list
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader

RUN = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: r
    namespace: ci
  spec:
    pipelineRef:
      name: p
    params:
    - name: list
      value:
        # a comment before the first entry
        - {}
        - a
        - b
    - name: big
      value: 2.689713820191949e+16
""" + function_config("pipelineruns")


def test_the_round_trip_emitter_bug_is_real() -> None:
    # if ruamel fixes it, this guard becomes a no-op; the test below still holds
    node = loader.rt_load("k:\n  # c\n  - {}\n  - a\n  - b\n")
    _text, faithful = loader.dump_verified(node)
    back = to_plain(loader.rt_load(loader.rt_dump(node)))
    assert faithful == (back == {"k": [{}, "a", "b"]})


def test_spliced_object_keeps_the_text_the_emitter_would_break() -> None:
    """The edit is spliced into the object's text (yaml/splice): the params the emitter would
    break are not written anew at all, so no warning."""
    out, outcome, code = run_resource_list(RUN.encode())
    assert code == 0 and outcome is not None
    assert RUN.split("  spec:\n")[1].split("functionConfig:")[0] in out
    assert "affinity" in yaml.safe_load(out)["items"][0]["spec"]["taskRunTemplate"]["podTemplate"]
    assert not [r for r in outcome.results if r.severity == "warning"]


# an alias where the edit goes (the new taskRunTemplate follows the last param): the splicing
# writer steps aside, and the whole object goes through the emitter
ALIASED = RUN.replace(
    "      value: 2.689713820191949e+16\n",
    "      value: &big 2.689713820191949e+16\n    - name: again\n      value: *big\n",
)


def test_rewritten_object_keeps_its_data() -> None:
    out, outcome, code = run_resource_list(ALIASED.encode())
    assert code == 0 and outcome is not None
    doc = yaml.safe_load(out)
    run = doc["items"][0]
    assert run["spec"]["params"][0]["value"] == [{}, "a", "b"]
    assert run["spec"]["params"][1]["value"] == 2.689713820191949e16
    assert "affinity" in run["spec"]["taskRunTemplate"]["podTemplate"]  # it was rewritten
    warned = [r for r in outcome.results if r.severity == "warning" and "could not write this object" in r.message]
    assert len(warned) == 1 and warned[0].resource is not None and warned[0].resource.name == "r"
    # and a second pass changes nothing
    again, _o, code2 = run_resource_list(out.encode())
    assert code2 == 0
    assert again.split("\nresults:\n")[0] == out.split("\nresults:\n")[0]


def test_faithful_rewrite_keeps_comments() -> None:
    text = RUN.replace("        # a comment before the first entry\n", "").replace("2.689713820191949e+16", "2.5")
    text = text.replace("    params:\n", "    params: # kept\n")
    out, outcome, code = run_resource_list(text.encode())
    assert code == 0 and outcome is not None
    assert "params: # kept" in out
    assert not [r for r in outcome.results if r.severity == "warning"]
