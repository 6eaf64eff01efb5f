"""A changed object differs from its input only in the lines the edit needs (issue 11, classes
16 and 17), on the round-trip path too: krm_fn.yaml.splice.splicer splices the changed entries into the
item's text instead of writing the whole object anew.

Each case is a realistic PipelineRun in a layout the light reader refuses (so it goes on the
round-trip path), edited by a coschedule policy. The check is a line diff between the input
item and the output item: every input line that is removed or changed lies inside the fields
the edit touches, and the output reads back as the data the whole-object writer gives."""
from __future__ import annotations

import difflib
import re
from typing import Any

import pytest
from golden import function_config  # type: ignore[import-not-found]
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from krm_fn.core.errors import Unsure
from krm_fn.modes.krm import run_resource_list
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader
from krm_fn.yaml.splice import splicer

POLICY = function_config("pipelineruns", "ci")
SCHEDULING = POLICY + """\
    scheduling:
      nodeSelector:
        pool: ci
      tolerations:
      - key: dedicated
        operator: Equal
        value: ci
        effect: NoSchedule
"""

# (a) PaC placeholders, (b) mixed sequence indentation, (c) `key: null`, (d) block scalars
# with an indentation indicator and extra indentation, (e) multi-line flow lists, (f) a long
# plain scalar, (g) comments everywhere
PAC = """\
- apiVersion: tekton.dev/v1   # the run
  kind: PipelineRun
  metadata:
    name: build-push   # the run's name
    creationTimestamp: null
    annotations:
      pipelinesascode.tekton.dev/on-event: "[push]"
      pipelinesascode.tekton.dev/on-target-branch: "[main]"
  spec:
    params:
    # where the sources come from
    - name: repo_url
      value: {{GITHUB_URL}}
    - name: revision
      value: "{{ revision }}"
    - name: description
      value: this is a rather long plain scalar that a reviewer wrote on one line and that goes well past the usual width of eighty columns ok
    - name: wrapped
      value: a plain scalar written
        over two lines
    pipelineSpec:
      workspaces:
        - name: source   # indented list
        - name: cache
      tasks:
      - name: build
        params:
        - name: args
          value: [--verbose,
            --race]
        taskSpec:
          steps:
          - name: compile
            image: golang:1.22
            script: |2
                set -e
                go build ./...
              # still the script
            args: [build,
                   ./...]
          - name: notes
            image: alpine
            script: >-
                echo folded
                and more
        workspaces:
        - name: source
        - name: cache
    # the workspaces
    workspaces:
      - name: source
        volumeClaimTemplate:
          spec:
            accessModes: [ReadWriteOnce]
            resources:
              requests:
                storage: 1Gi
      - name: cache
        persistentVolumeClaim:
          claimName: go-cache   # shared
    # end of spec
"""

# a run that already has a pod template: the policy's scheduling adds to it
PODTEMPLATE = """\
- apiVersion: tekton.dev/v1
  kind: PipelineRun
  metadata:
    name: release-7
    creationTimestamp: null
  spec:
    pipelineRef: {name: release}
    params:
      - name: url
        value: {{GITHUB_URL}}
    taskRunTemplate:
      serviceAccountName: builder   # the builder
      podTemplate:
        securityContext: {runAsNonRoot: true,
          runAsUser: 1000}
        # tolerations chosen by the platform team
        tolerations:
          - key: spot
            operator: Exists
        # more about the pod
    workspaces:
    - name: source
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce,
                        ReadWriteOncePod]
          resources: {requests: {storage: 1Gi}}
"""


def _run(item: str, policy: str = POLICY) -> tuple[str, Any]:
    data = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + item + policy
    out, outcome, code = run_resource_list(data.encode())
    assert code == 0, out
    return out, outcome


def _first_item(out: str) -> str:
    body = out.split("items:\n", 1)[1]
    lines = body.splitlines(True)
    end = next(i for i, x in enumerate(lines) if i and (x.startswith("- ") or not x.startswith(" ")))
    return "".join(lines[:end])


def _data(item: str) -> Any:
    return to_plain(loader.rt_load("items:\n" + item))["items"][0]


def _whole(item: str, policy: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The output item as the whole-object writer gives it (the splice turned off)."""

    def unsure(*_a: Any, **_k: Any) -> str:
        raise Unsure("off")

    with monkeypatch.context() as m:
        m.setattr(splicer, "render_round_trip", unsure)
        return _first_item(_run(item, policy)[0])


def _changed_input_lines(before: str, after: str) -> set[int]:
    """Indexes of input lines that the output removes or changes."""
    a = before.splitlines()
    b = after.splitlines()
    out: set[int] = set()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            out.update(range(i1, i2))
    return out


def _lines_of(text: str, first: str, count: int) -> set[int]:
    lines = text.splitlines()
    i = next(k for k, x in enumerate(lines) if x.strip() == first)
    return set(range(i, i + count))


@pytest.mark.parametrize(
    ("item", "policy", "edited"),
    [
        (PAC, POLICY, [("volumeClaimTemplate:", 6)]),
        (PODTEMPLATE, SCHEDULING, [("volumeClaimTemplate:", 6)]),
    ],
    ids=["pac-layouts", "existing-pod-template"],
)
def test_only_edited_lines_change(item: str, policy: str, edited: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    out = _first_item(_run(item, policy)[0])
    allowed: set[int] = set()
    for first, count in edited:
        allowed |= _lines_of(item, first, count)
    assert _changed_input_lines(item, out) <= allowed, out
    # the same data as the whole-object writer, which is exact
    assert _data(out) == _data(_whole(item, policy, monkeypatch))
    # and the edit happened
    assert "affinity" in _data(out)["spec"]["taskRunTemplate"]["podTemplate"]


def test_placeholder_is_not_rewritten() -> None:
    """Class 16: `value: {{GITHUB_URL}}` is a flow mapping with a complex key to YAML; the
    emitter writes it as `{{GITHUB_URL: null}: null}`, which a later sed no longer finds."""
    out = _run(PAC)[0]
    assert "      value: {{GITHUB_URL}}\n" in out
    assert '      value: "{{ revision }}"\n' in out
    assert "null}" not in out


@pytest.mark.parametrize(
    "kept",
    [
        "    creationTimestamp: null\n",
        "        - name: source   # indented list\n        - name: cache\n",
        "            script: |2\n                set -e\n                go build ./...\n              # still the script\n",
        "            script: >-\n                echo folded\n                and more\n",
        "          value: [--verbose,\n            --race]\n",
        "            args: [build,\n                   ./...]\n",
        "      value: this is a rather long plain scalar that a reviewer wrote on one line and that goes well past the usual width of eighty columns ok\n",
        "      value: a plain scalar written\n        over two lines\n",
        "          claimName: go-cache   # shared\n",
    ],
)
def test_layout_outside_the_edit_is_kept(kept: str) -> None:
    assert kept in PAC
    assert kept in _run(PAC)[0]


def test_a_url_in_a_flow_collection_does_not_cost_the_splice(monkeypatch: pytest.MonkeyPatch) -> None:
    """ruamel.yaml.clib's libyaml refuses a colon inside a plain scalar in a flow collection,
    which the round-trip loader reads (a URL); the node graph then comes from PyYAML's
    libyaml, and the splice keeps the layout (here, a sequence indented unlike the rest)
    where the whole-object writer re-indents it (found by tests/unit/yaml/light/test_parser.py, seed 101)."""
    item = PAC.replace(
        "    # where the sources come from\n",
        "    # where the sources come from\n    - {name: mirror, value: https://mirror.example.com:8443/shop}\n",
    )
    assert item != PAC
    out = _first_item(_run(item)[0])
    assert _changed_input_lines(item, out) <= _lines_of(item, "volumeClaimTemplate:", 6), out
    assert "    - {name: mirror, value: https://mirror.example.com:8443/shop}\n" in out
    assert "        - name: source   # indented list\n" in out
    assert _data(out) == _data(_whole(item, POLICY, monkeypatch))


def test_new_key_goes_before_the_comment_that_ends_the_block() -> None:
    """As roundtrip/comments does on the whole-object path: a comment after the last entry stays last."""
    out = _first_item(_run(PAC)[0])
    assert out.endswith("              topologyKey: kubernetes.io/hostname\n    # end of spec\n")


def test_scheduling_edit_in_an_existing_pod_template() -> None:
    """The policy's toleration joins the run's list, after its last entry and before the
    comment that follows it; the flow securityContext and its comments stay as they were."""
    out = _first_item(_run(PODTEMPLATE, SCHEDULING)[0])
    assert "        securityContext: {runAsNonRoot: true,\n          runAsUser: 1000}\n" in out
    tol = out.split("        tolerations:\n", 1)[1]
    assert tol.startswith("          - key: spot\n            operator: Exists\n          - key: dedicated\n")
    assert "        # more about the pod\n" in out
    assert "      serviceAccountName: builder   # the builder\n" in out


def test_second_pass_changes_nothing() -> None:
    for item, policy in ((PAC, POLICY), (PODTEMPLATE, SCHEDULING)):
        out = _run(item, policy)[0]
        items = out.split("items:\n", 1)[1].split("functionConfig:\n")[0]
        again = _run(items, policy)[0]
        assert again.split("results:\n")[0] == out.split("results:\n")[0]


def test_comment_in_a_replaced_entry_falls_back_to_the_whole_object() -> None:
    """An entry that is replaced whole and holds a comment: splicing would lose the comment,
    so the whole-object writer (which keeps it) writes the object."""
    item = PODTEMPLATE.replace("          accessModes: [ReadWriteOnce,\n", "          accessModes: [ReadWriteOnce,  # one node\n")
    out = _first_item(_run(item, SCHEDULING)[0])
    assert "# one node" not in out  # the volumeClaimTemplate moved into the StatefulSet
    assert _data(out)["spec"]["workspaces"][0]["persistentVolumeClaim"]


def test_head_comment_goes_after_the_dash() -> None:
    """As on the light path: kpt (yaml.v3) gives a comment before the dash to the previous
    item, so a changed item carries it after its dash."""
    out = _first_item(_run("# built on push\n" + PAC)[0])
    assert out.startswith("- # built on push\n  apiVersion: tekton.dev/v1   # the run\n")


# --------------------------------------------------------------------------- property


_KEYS = st.sampled_from(["alpha", "beta", "gamma", "delta"])
_SCALARS = st.one_of(
    st.sampled_from(["x", "null", "'q'", '"{{ revision }}"', "{{GITHUB_URL}}", "[a,\n  b]", "|2\n    lit\n", "a\n  wrapped"]),
    st.integers(0, 9).map(str),
)


def _layout(draw: Any, depth: int, col: int) -> list[str]:
    """A random block mapping at column `col`: scalars in odd forms, nested mappings and
    lists (dash at the key's column or indented), comments between entries."""
    keys = draw(st.lists(_KEYS, min_size=1, max_size=3, unique=True))
    out: list[str] = []
    for k in keys:
        if draw(st.booleans()):
            out.append(" " * col + "# note")
        kind = draw(st.sampled_from(["scalar", "map", "list"] if depth < 2 else ["scalar"]))
        pad = " " * col
        if kind == "scalar":
            raw = draw(_SCALARS)
            first, *rest = raw.split("\n")
            out.append(f"{pad}{k}: {first}")
            out.extend(" " * col + x for x in rest if x)
        elif kind == "map":
            out.append(f"{pad}{k}:")
            out.extend(_layout(draw, depth + 1, col + draw(st.sampled_from([2, 4]))))
        else:
            out.append(f"{pad}{k}:")
            dash = col + draw(st.sampled_from([0, 2]))
            for _ in range(draw(st.integers(1, 2))):
                sub = _layout(draw, 2, dash + 2)
                out.append(" " * dash + "- " + sub[0][dash + 2 :] if not sub[0].lstrip().startswith("#") else " " * dash + "- z: 1")
                out.extend(sub[1:] if not sub[0].lstrip().startswith("#") else sub)
    return out


@st.composite
def runs(draw: Any) -> str:
    body = _layout(draw, 0, 4)
    return (
        "- apiVersion: tekton.dev/v1\n  kind: PipelineRun\n  metadata:\n    name: r\n"
        "    creationTimestamp: null\n  spec:\n    pipelineRef:\n      name: p\n    extra:\n"
        + "\n".join("  " + x for x in body)
        + "\n    workspaces:\n    - name: source\n      volumeClaimTemplate:\n        spec:\n"
        "          accessModes: [ReadWriteOnce]\n"
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_random_layouts_change_only_the_edit(item: str) -> None:
    try:
        before = _data(item)
    except Exception:  # noqa: BLE001 - a drawn layout that is not YAML
        return
    out = _first_item(_run(item)[0])
    # everything before `workspaces:` is outside the edit
    head = item.split("    workspaces:\n")[0]
    assert out.startswith(head), out
    got = _data(out)
    assert got["spec"]["extra"] == before["spec"]["extra"]
    assert re.search(r"claimName: pvc-", out)


def test_end_of_line_comment_of_an_edited_one_line_entry_stays() -> None:
    """`nodeSelector: {disk: ssd}   # why` gets the policy's key and keeps its comment."""
    item = PODTEMPLATE.replace("      podTemplate:\n", "      podTemplate:\n        nodeSelector: {disk: ssd}   # the fast disks\n")
    out = _first_item(_run(item, SCHEDULING)[0])
    assert "        nodeSelector: {disk: ssd, pool: ci}   # the fast disks\n" in out
    assert _changed_input_lines(item, out) <= _lines_of(item, "volumeClaimTemplate:", 6) | _lines_of(
        item, "nodeSelector: {disk: ssd}   # the fast disks", 1
    )


# --------------------------------------------------------------------------- direct edits


from unit.yaml.light.test_parser import block_docs  # type: ignore[import-not-found]  # noqa: E402

from krm_fn.io import items as items_mod  # noqa: E402


def _edits(draw: Any, doc: Any, node: Any, swaps: list[str], depth: int = 0) -> None:
    """Random edits through the document's interface: new keys and entries, changed scalars,
    edits one level down."""
    if isinstance(node, dict) and node:
        keys = list(node)
        for k in keys:
            if isinstance(node[k], (dict, list)) and node[k] and draw(st.booleans()):
                _edits(draw, doc, node[k], swaps, depth + 1)
            elif draw(st.integers(0, 4)) == 0:
                node[k] = doc.safe(draw(st.sampled_from(["new", "on", 7, {"n": "v"}, ["a"]])))
                swaps.append(k)
        if draw(st.booleans()):
            doc.add_key(node, draw(st.sampled_from(["zz", "yy"])) + str(depth), doc.safe({"k": ["v"]}))
        if draw(st.integers(0, 3)) == 0:
            old = draw(st.sampled_from(keys))
            doc.replace_key(node, old, f"swapped{depth}", doc.safe({"claimName": "c"}))
            swaps.append(old)
    elif isinstance(node, list) and node:
        i = draw(st.integers(0, len(node) - 1))
        if isinstance(node[i], (dict, list)) and node[i]:
            _edits(draw, doc, node[i], swaps, depth + 1)
        if len(node) > 1 and draw(st.integers(0, 3)) == 0:
            del node[draw(st.integers(0, len(node) - 1))]
            swaps.append("removed")
        if draw(st.booleans()):
            doc.append(node, doc.safe(draw(st.sampled_from(["added", {"name": "w", "x": [1]}]))))


def _full_line_comments(text: str) -> int:
    """block_docs writes its comments as `# c` (and `# y` inside block scalars)."""
    return sum(1 for x in text.splitlines() if x.strip() == "# c")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_random_edits_splice_or_step_aside(data: Any) -> None:
    """Any edit on any layout: the splice gives the edited data exactly, keys in order, and
    keeps every full-line comment (only a replaced value or swapped key loses its own), or
    it steps aside."""
    lines = data.draw(block_docs())
    if data.draw(st.booleans()):  # some entries' content on the line below their dash
        split = []
        for x in lines:
            m = re.match(r"( *)- (\S.*)$", x)
            if m and data.draw(st.booleans()):
                split += [m.group(1) + "-", m.group(1) + "  " + m.group(2)]
            else:
                split.append(x)
        lines = split
    doc_text = "\n".join(lines) + "\n"
    try:
        loader.rt_load(doc_text)
    except Exception:  # noqa: BLE001 - a drawn layout that is not YAML
        return
    item = "- " + "".join(("  " + x if x else x) + "\n" for x in lines)[2:]
    try:
        doc = items_mod._round_trip_document(item)
    except Exception:  # noqa: BLE001 - refused by the loader's own checks
        return
    if not isinstance(doc.data, dict):
        return
    swaps: list[str] = []
    _edits(data.draw, doc, doc.data, swaps)
    if not doc.changed:
        return
    from krm_fn.yaml.roundtrip import comments

    comments.flush(doc.pending)
    try:
        out = splicer.render_round_trip(item, doc.before, doc.data, doc.indent)
    except Unsure:
        return
    back = to_plain(loader.rt_load(items_mod.layout_mod.item_document(out)[0]))
    assert splicer.ordered(back) == splicer.ordered(to_plain(doc.data))
    if swaps:  # a replaced value takes its comments with it, as on the whole-object path
        assert _full_line_comments(out) <= _full_line_comments(item)
    else:
        assert _full_line_comments(out) == _full_line_comments(item)


def _from_git(item: str) -> str:
    """The sample without its Pipelines-as-Code annotations: a run applied by name from Git,
    which gets a placeholder (PaC runs are run-keyed: their claim templates stay)."""
    return item.replace("pipelinesascode.tekton.dev/", "example.com/")


def test_binding_whose_first_key_is_swapped_keeps_its_dash_and_comments() -> None:
    """replace_key(volumeClaimTemplate -> persistentVolumeClaim) on the first key of a list
    entry: the entry is rewritten in place (the dash stays), the rest of the run is kept."""
    item = _from_git(PAC).replace(
        "      - name: source\n        volumeClaimTemplate:\n          spec:\n            accessModes: [ReadWriteOnce]\n"
        "            resources:\n              requests:\n                storage: 1Gi\n",
        "      - volumeClaimTemplate:   # a fresh claim per run\n          spec:\n            accessModes: [ReadWriteOnce]\n"
        "            resources:\n              requests:\n                storage: 1Gi\n        name: source   # checkout\n",
    )
    out = _first_item(_run(item)[0])
    assert "      - persistentVolumeClaim:\n          claimName: pvc-" in out
    assert "        name: source   # checkout\n" in out
    allowed = _lines_of(item, "- volumeClaimTemplate:   # a fresh claim per run", 6)
    assert _changed_input_lines(item, out) <= allowed, out


def test_list_entries_whose_content_starts_below_the_dash() -> None:
    """`-` alone on its line (or with a comment), the entry's keys below it."""
    item = _from_git(PAC).replace(
        "      - name: source\n        volumeClaimTemplate:\n",
        "      -   # the checkout\n        name: source\n        volumeClaimTemplate:\n",
    ).replace("      - name: cache\n        persistentVolumeClaim:\n", "      -\n        name: cache\n        persistentVolumeClaim:\n")
    out = _first_item(_run(item)[0])
    assert "      -   # the checkout\n        name: source\n        persistentVolumeClaim:\n" in out
    assert "      -\n        name: cache\n" in out
    assert _changed_input_lines(item, out) <= _lines_of(item, "volumeClaimTemplate:", 6), out


def test_tab_separated_value_and_placeholder_are_both_kept() -> None:
    """`kind:<TAB>PipelineRun` (which only the tab-tolerant reading of guards takes) and a
    `{{GITHUB_URL}}` placeholder (which only the round-trip loader takes) in one run."""
    item = PODTEMPLATE.replace("  kind: PipelineRun", "  kind:\tPipelineRun")
    out = _first_item(_run(item, SCHEDULING)[0])
    assert "  kind:\tPipelineRun\n" in out and "        value: {{GITHUB_URL}}\n" in out


def test_files_mode_diff_is_only_the_edit(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """As pre-commit runs it: a `.tekton/` file with a PaC placeholder, mixed indentation,
    block scalars and comments; the rewritten file differs only in the edited lines, and its
    second document (a ConfigMap) keeps its bytes."""
    from krm_fn.cli import main

    doc = "\n".join(x[2:] for x in PAC.rstrip("\n").split("\n")) + "\n"
    other = "---\n# untouched\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: {{ value }}\n"
    text = "# .tekton/push.yaml\n" + doc + other
    (tmp_path / "push.yaml").write_text(text)
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: CoschedulePolicy\nmetadata:\n  name: ci\nspec:\n  coschedule: pipelineruns\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["--config", "policy.yaml", "push.yaml"]) == 1  # rewritten
    out = (tmp_path / "push.yaml").read_text()
    assert _changed_input_lines(text, out) <= _lines_of(text, "volumeClaimTemplate:", 6), out
    assert "value: {{GITHUB_URL}}\n" in out and other in out
    assert main(["--config", "policy.yaml", "push.yaml"]) == 0  # and nothing more to do


def test_aliases_away_from_the_edit_keep_the_layout() -> None:
    """An anchored param and its alias: the edit is elsewhere, so the run is spliced; an
    alias where the edit goes sends the run to the whole-object writer (test_emit_guard)."""
    item = PODTEMPLATE.replace(
        "      - name: url\n        value: {{GITHUB_URL}}\n",
        "      - &url\n        name: url\n        value: {{GITHUB_URL}}\n      - *url\n",
    )
    out = _first_item(_run(item, SCHEDULING)[0])
    assert "      - &url\n        name: url\n        value: {{GITHUB_URL}}\n      - *url\n" in out
    assert _changed_input_lines(item, out) <= _lines_of(item, "volumeClaimTemplate:", 6), out


def test_head_comments_before_and_after_the_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """`# before` then `- # after` with the keys below: one head, as the whole-object writer
    gives it."""
    item = "# before\n- # after\n  " + PAC[2:]
    out = _first_item(_run(item)[0])
    assert out.startswith("- # before\n  # after\n  apiVersion: tekton.dev/v1   # the run\n"), out
    assert _whole(item, POLICY, monkeypatch).startswith("- # before\n  # after\n  apiVersion: tekton.dev/v1")


BUILD = """\
- apiVersion: shipwright.io/v1beta1
  kind: Build
  metadata:
    name: app
    creationTimestamp: null
  spec:
    source:
      type: Git
      git:
        url: {{ repo_url }}
    paramValues:
      - name: dockerfile
        value: |4
              FROM scratch
          # not a comment
    strategy:
      name: buildah # cluster-wide
      kind: ClusterBuildStrategy
    output:
      image: registry.example.com/a-very-long-image-name-that-goes-on-and-on/and-on/and-on/and-on-some-more:latest-tag-value
    nodeSelector: {disk: ssd,
      kind: fast}
    tolerations:
      - key: spot   # spot nodes
        operator: Exists
    # end
"""
BUILD_POLICY = """\
functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: CoschedulePolicy
  metadata:
    name: ci
  spec:
    scheduling:
      nodeSelector:
        pool: builds
      tolerations:
      - key: dedicated
        operator: Exists
      schedulerName: volcano
"""


def test_shipwright_build_changes_only_the_scheduling_fields() -> None:
    """The policy's nodeSelector joins the flow mapping (which is rewritten, on one line), its
    toleration joins the list and schedulerName is added: nothing else moves."""
    out = _first_item(_run(BUILD, BUILD_POLICY)[0])
    assert _changed_input_lines(BUILD, out) <= _lines_of(BUILD, "nodeSelector: {disk: ssd,", 2), out
    assert "    nodeSelector: {disk: ssd, kind: fast, pool: builds}\n" in out
    assert out.endswith("        operator: Exists\n      - key: dedicated\n        operator: Exists\n    schedulerName: volcano\n    # end\n")


def test_list_entry_removed_and_another_added_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A term removed from the middle of a list while another is added (a re-render that
    pins another assistant): the other entries and their comments stay where they are."""
    from krm_fn.yaml.document import RoundTripDocument

    item = (
        "- apiVersion: v1\n  kind: X\n  metadata:\n    name: x   # keep\n  spec:\n    terms:\n"
        "      - name: a   # first\n        v: {{A}}\n      - name: b\n        v: 2\n      # about c\n"
        "      - name: c\n        v: [1,\n          2]\n    tail: {{T}}\n"
    )
    from krm_fn.io import items as items_mod

    doc = items_mod._round_trip_document(item)
    assert isinstance(doc, RoundTripDocument)
    terms = doc.data["spec"]["terms"]
    del terms[1]
    terms[0]["v2"] = 1
    doc.append(terms, doc.safe({"name": "d"}))
    out = doc.render(0)[0]
    assert out == item.replace("      - name: b\n        v: 2\n", "").replace(
        "        v: {{A}}\n", "        v: {{A}}\n        v2: 1\n"
    ).replace("          2]\n", "          2]\n      - name: d\n"), out
