"""transforms/context: the helpers every transform uses."""
from __future__ import annotations

import pytest

from krm_fn.core.keys import INDEX_KEY
from krm_fn.core.keys import LEGACY_INDEX_KEY
from krm_fn.core.keys import LEGACY_PATH_KEY
from krm_fn.core.keys import PATH_KEY
from krm_fn.io.items import Item
from krm_fn.io.items import Meta
from krm_fn.transforms.context import file_of


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({}, (None, None)),
        ({"other": "x"}, (None, None)),
        ({PATH_KEY: "a.yaml"}, ("a.yaml", 0)),
        ({LEGACY_PATH_KEY: "b.yaml", LEGACY_INDEX_KEY: "2"}, ("b.yaml", 2)),
        # kpt's current keys win over the legacy ones, whichever comes first
        ({LEGACY_PATH_KEY: "old.yaml", PATH_KEY: "new.yaml", LEGACY_INDEX_KEY: "1", INDEX_KEY: "3"}, ("new.yaml", 3)),
        ({INDEX_KEY: "4"}, (None, 4)),
        ({PATH_KEY: "c.yaml", INDEX_KEY: "x"}, ("c.yaml", 0)),
    ],
)
def test_file_of_reads_kpts_annotations(annotations: dict[str, str], expected: tuple[str | None, int | None]) -> None:
    item = Item(0, "kind: ConfigMap\n", Meta("v1", "ConfigMap", annotations=annotations))
    assert file_of(item) == expected
