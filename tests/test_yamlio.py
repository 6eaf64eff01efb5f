"""yamlio.to_plain on dates: the datetime branch imports datetime lazily (#5), and both loaders'
date values must still compare equal."""
from __future__ import annotations

import datetime

import yaml

from krm_fn import yamlio


def test_to_plain_dates_from_either_loader_agree() -> None:
    text = "d: 2020-01-02\nt: 2020-01-02T03:04:05Z\nu: 2020-01-02 03:04:05\n"
    rt = yamlio.to_plain(yamlio.rt_load(text))
    safe = yamlio.to_plain(yaml.safe_load(text))
    assert rt["d"] == safe["d"] == "2020-01-02"
    assert rt == safe
    assert all(isinstance(v, str) for v in rt.values())


def test_to_plain_date_values() -> None:
    assert yamlio.to_plain(datetime.date(2020, 1, 2)) == "2020-01-02"
    assert yamlio.to_plain(datetime.datetime(2020, 1, 2)) == "2020-01-02"
    assert yamlio.to_plain(datetime.datetime(2020, 1, 2, 3, 4)) == "2020-01-02T03:04:00"
    tz = datetime.datetime(2020, 1, 2, tzinfo=datetime.timezone.utc)
    assert yamlio.to_plain(tz) == "2020-01-02T00:00:00+00:00"


def test_to_plain_other_values() -> None:
    assert yamlio.to_plain({"a": [1, 2.5, True, None, "x"], 3: b"y"}) == {"a": [1, 2.5, True, None, "x"], "3": "b'y'"}
