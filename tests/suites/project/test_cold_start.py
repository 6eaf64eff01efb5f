"""What a small input pays for at start-up (issue 34), pinned so that it cannot grow unseen:
the benchmark's one PipelineRun and its 20 mixed items (bench/gen.py, as `bench/run.py`
makes them), each rendered in KRM mode by a fresh interpreter, import no YAML parser but the
light reader (no ruamel.yaml, no libyaml binding: PyYAML or ruamel.yaml.clib), no jsonschema,
no `typing`, `dataclasses`, `inspect`, `signal`, `re` or `collections`, no transform of a kind
they do not hold, and compile no pattern (each costs 0.3-1.5 M instructions to compile at every start:
more than all its uses on a small input). No timing is asserted: bench/README.md has the
figures. A new pattern or module on this path: measure it there, then raise the bound here."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared import BENCH

import krm_fn

sys.path.insert(0, str(BENCH))
import gen  # noqa: E402

# runs the console script's steps (pip's wrapper: `sys`, then krm_fn.cli.main; before pip
# 25.2 it imported `re` first, which hid what krm_fn imports) on stdin, then reports the
# modules loaded, those new since krm_fn was first imported, and the patterns compiled, as
# JSON in the file named by its argument
_PROBE = """
import sys
out = sys.argv[1]
modules_before = set(sys.modules)
from krm_fn.cli import main
sys.argv = ["krm-coschedule"]
try:
    main()
except SystemExit:
    pass
modules = sorted(sys.modules)
re = sys.modules.get("re")
patterns = sorted(repr(k[1]) for k in re._cache) if re is not None else []
new = sorted(set(modules) - modules_before)
import json
with open(out, "w") as f:
    json.dump({"modules": modules, "new": new, "patterns": patterns}, f)
"""

# modules a one-object input never needs: parsers of the round trip, the schema library, and
# what `typing` and `dataclasses` bring (issue 5); transforms of kinds these inputs do not hold
ABSENT = ("ruamel", "_ruamel_yaml", "yaml", "jsonschema", "typing", "dataclasses", "inspect")
# stdlib modules heavier than the C module they wrap, which does the same: `signal` builds its
# enums at import (3.3 M instructions; core/signals uses `_signal`, issue 34); `errno` builds
# its tables of every error name (1 M) for the two constants cli and io/stdio spell out;
# `bisect` defines in Python what it then replaces by `_bisect`'s (splice/positions: 0.5 M).
# And `re` with what it loads (enum, functools, collections: 26 M, two thirds of the
# interpreter's own start), which these inputs never use (core/patterns imports it on first
# use); `collections.abc` loads `collections` (11 M) for names only annotations use (the
# `isinstance` ones come from `_collections_abc`, which the interpreter has loaded already)
ABSENT_STDLIB = ("signal", "errno", "bisect", "re", "enum", "functools", "collections")
ABSENT_OURS = ("krm_fn.transforms.shipwright", "krm_fn.transforms.tekton.triggers")
# patterns compiled: 22 before issue 34, then 11 (the item scanner's line patterns, three per
# indent read, and two key patterns), then none for the one PipelineRun and three for the 20
# items; now none for either (core/patterns.scan_pattern: the first pattern of a process
# costs the import of `re` too, and string operations cover 512 KB before it is repaid)
MAX_PATTERNS = {1: 0, 20: 0}


def _probe(text: str, tmp_path: Path) -> dict[str, list[str]]:
    out = tmp_path / "report.json"
    # -S: no site, so no editable install's path finder (it imports pathlib and errno at every
    # start); the package from where it was imported here, as a regular install has it
    env = {**os.environ, "PYTHONPATH": str(Path(krm_fn.__file__).parent.parent)}
    proc = subprocess.run([sys.executable, "-S", "-c", _PROBE, str(out)], input=text.encode(), capture_output=True, timeout=120, check=False, env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"\nkind: ResourceList\n" in proc.stdout and b"\nresults:\n" in proc.stdout
    return json.loads(out.read_text())


@pytest.mark.parametrize(("items", "targets"), [(1, 1.0), (20, 0.05)], ids=["one-pipelinerun", "twenty-mixed"])
def test_a_small_input_imports_no_parser_it_does_not_read(items: int, targets: float, tmp_path: Path) -> None:
    text = gen.generate(items, targets, 1)
    report = _probe(text, tmp_path)
    loaded = report["modules"]
    assert [m for m in loaded if m.split(".")[0] in ABSENT] == []
    assert [m for m in loaded if m in ABSENT_OURS] == []
    assert [m for m in report["new"] if m in ABSENT_STDLIB] == []
    assert "krm_fn.transforms.tekton.handlers" in loaded  # the probe did render the run
    assert len(report["patterns"]) <= MAX_PATTERNS[items], report["patterns"]
