"""Write krm_fn/policy/schemadata.py from krm_fn/schemas/coschedulepolicy.schema.json.

config.py reads the schema as Python data: parsing the JSON at every start would import
json (~1 ms). The schema's text is a Python expression once JSON's literals are names, so
the generated module holds that text as it is. Run it after the schema changes:

    python tools/gen_schemadata.py          # write the module
    python tools/gen_schemadata.py --check  # exit 1 when the module is out of date

tests/unit/policy/test_schemacheck.py runs the same check.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "krm_fn" / "schemas" / "coschedulepolicy.schema.json"
MODULE = ROOT / "krm_fn" / "policy" / "schemadata.py"
COMMAND = "python tools/gen_schemadata.py"


def text() -> str:
    """krm_fn/policy/schemadata.py as it must read."""
    schema = SCHEMA.read_text(encoding="utf-8")
    data = json.loads(schema)
    # only what json.dumps writes (no `\/`, no surrogate escapes) reads the same in Python
    if schema != json.dumps(data, indent=2, ensure_ascii=False) + "\n":
        raise SystemExit(f"{SCHEMA.relative_to(ROOT)}: write the schema with json.dumps(indent=2, ensure_ascii=False)")
    return (
        f"# Generated from krm_fn/schemas/coschedulepolicy.schema.json by `{COMMAND}`: do not edit.\n"
        '"""schemas/coschedulepolicy.schema.json as Python data, which config.py reads: parsing the\n'
        "JSON would import json (~1 ms of every start). The file's text as it is, after the names\n"
        f"of JSON's literals; `{COMMAND}` writes it again after the schema\n"
        'changes (a test checks that both agree)."""\n'
        "from __future__ import annotations\n\n"
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
        "    from typing import Any\n\n"
        "true, false, null = True, False, None\n\n"
        "SCHEMA: dict[str, Any] = " + schema + "\n"
        "del true, false, null\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 when the module is out of date")
    a = ap.parse_args(argv)
    want = text()
    have = MODULE.read_text(encoding="utf-8") if MODULE.exists() else None
    if have == want:
        return 0
    if a.check:
        sys.stderr.write(f"{MODULE.relative_to(ROOT)} is out of date: run `{COMMAND}`\n")
        return 1
    MODULE.write_text(want, encoding="utf-8")
    sys.stderr.write(f"wrote {MODULE.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
