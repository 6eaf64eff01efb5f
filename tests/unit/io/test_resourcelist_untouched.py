"""Issue 34, deliverable 3: a small input pays for no parser it does not need. The syntax
check of the objects KRM mode leaves untouched is made by the light reader when they are
few (resourcelist.LIGHT_CHECK_BYTES), so no libyaml binding (ruamel.yaml.clib, which imports
ruamel.yaml) is imported; its verdicts and messages are those of the libyaml check."""
from __future__ import annotations

import subprocess
import sys

import pytest
from shared import BENCH

from krm_fn.io import resourcelist
from krm_fn.modes.krm import run_resource_list

sys.path.insert(0, str(BENCH))
import gen  # noqa: E402

PARSERS = "sorted(m for m in sys.modules if m.split('.')[0] in ('ruamel', '_ruamel_yaml', 'yaml'))"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_twenty_mixed_items_import_no_yaml_parser(seed: int) -> None:
    data = gen.generate(20, 0.05, seed).encode()
    code = (
        "import sys\n"
        "from krm_fn.modes.krm import run_resource_list\n"
        "out, _, code = run_resource_list(sys.stdin.buffer.read(), light=True)\n"
        "sys.stdout.write(out)\n"
        f"sys.stderr.write(repr({PARSERS}))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True)
    assert p.stderr == b"[]"
    assert p.stdout.decode() == run_resource_list(data, light=True)[0]


UNTOUCHED = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c{n}
  data:
    key: value # a comment
"""
ANCHORED = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: anchored
    labels: &l {{a: b}}
    annotations: *l
  data: {{}}
"""
BROKEN = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: broken
  data:
    key: a: b
"""


def _list(*items: str) -> bytes:
    return ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(items)).encode()


@pytest.mark.parametrize(
    "items",
    [
        [UNTOUCHED.format(n=i) for i in range(5)],
        [UNTOUCHED.format(n=1), ANCHORED.format(), UNTOUCHED.format(n=2)],
        [UNTOUCHED.format(n=1), BROKEN, UNTOUCHED.format(n=2)],
        [BROKEN],
    ],
    ids=["plain", "anchored", "broken", "broken-alone"],
)
def test_the_light_check_says_what_the_libyaml_check_says(items: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    data = _list(*items)
    light = run_resource_list(data, light=True)
    monkeypatch.setattr(resourcelist, "LIGHT_CHECK_BYTES", -1)  # every check by libyaml
    assert run_resource_list(data, light=True) == light
    out, _results, code = light
    if BROKEN in items:
        assert code == 1 and "not valid YAML" in out
    else:
        assert code == 0


# items of a shape each (a key of their own): none is proven by another of its shape at scan
# time (io/scanner.shaped_item), so every one is left to check_untouched
UNIQUE = UNTOUCHED.replace("key:", "key{n}:")


def test_a_large_input_is_checked_by_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past LIGHT_CHECK_BYTES the light readers are slower than libyaml's import repays.
    Below it, the check-only reader is asked first, and the light reader only for what it
    is not sure of (nothing here)."""
    seen: list[str] = []
    real_check, real_light = resourcelist.checks, resourcelist.light_reads
    monkeypatch.setattr(resourcelist, "checks", lambda t: seen.append("check") or real_check(t))
    monkeypatch.setattr(resourcelist, "light_reads", lambda t: seen.append("light") or real_light(t))
    run_resource_list(_list(*[UNIQUE.format(n=i) for i in range(3)]), light=True)
    assert seen == ["check"] * 3
    seen.clear()
    run_resource_list(_list(*[UNIQUE.format(n=i) for i in range(3000)]), light=True)  # ~300 KB
    assert seen == []


def test_items_of_one_shape_are_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Items that differ only in their values and comments (io/scanner's shapes): the
    shape is checked once, and none of them again; a broken one has a shape of its own."""
    seen: list[str] = []
    real_check = resourcelist.checks
    monkeypatch.setattr(resourcelist, "checks", lambda t: seen.append("check") or real_check(t))
    data = _list(*[UNTOUCHED.format(n=i) for i in range(2000)])
    assert len(data) < resourcelist.LIGHT_CHECK_BYTES  # (else libyaml would check them, unseen here)
    out, _, code = run_resource_list(data, light=True)
    assert code == 0 and seen == []
    items = [UNTOUCHED.format(n=i) for i in range(5)]
    out, _, code = run_resource_list(_list(*items[:2], BROKEN, *items[2:]), light=True)
    assert code == 1 and "not valid YAML" in out and seen == ["check"]
