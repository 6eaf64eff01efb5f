from __future__ import annotations

from krm_fn.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
