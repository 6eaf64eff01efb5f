"""to_plain on dates: the datetime branch imports datetime lazily (#5), and both loaders'
date values must still compare equal. The emitter's quoting, written without json and without
patterns compiled at import, against what it was."""
from __future__ import annotations

import datetime
import json
import re

import yaml
from hypothesis import given
from hypothesis import strategies as st

from krm_fn.yaml import emitter
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader


def test_to_plain_dates_from_either_loader_agree() -> None:
    text = "d: 2020-01-02\nt: 2020-01-02T03:04:05Z\nu: 2020-01-02 03:04:05\n"
    rt = to_plain(loader.rt_load(text))
    safe = to_plain(yaml.safe_load(text))
    assert rt["d"] == safe["d"] == "2020-01-02"
    assert rt == safe
    assert all(isinstance(v, str) for v in rt.values())


def test_to_plain_date_values() -> None:
    assert to_plain(datetime.date(2020, 1, 2)) == "2020-01-02"
    assert to_plain(datetime.datetime(2020, 1, 2)) == "2020-01-02"
    assert to_plain(datetime.datetime(2020, 1, 2, 3, 4)) == "2020-01-02T03:04:00"
    tz = datetime.datetime(2020, 1, 2, tzinfo=datetime.timezone.utc)
    assert to_plain(tz) == "2020-01-02T00:00:00+00:00"


def test_to_plain_other_values() -> None:
    assert to_plain({"a": [1, 2.5, True, None, "x"], 3: b"y"}) == {"a": [1, 2.5, True, None, "x"], "3": "b'y'"}


@given(st.text())
def test_double_quoted_scalars_are_json_strings(s: str) -> None:
    """emitter quotes with _json's encode_basestring (json is not imported at start-up): the
    same text as json.dumps(s, ensure_ascii=False)."""
    assert emitter._json_string(s) == json.dumps(s, ensure_ascii=False)
    if not emitter._plain_ok(s):
        assert emitter.scalar(s) == json.dumps(s, ensure_ascii=False)


# the patterns the emitter's quoting used (compiled at every start); it now answers with sets and
# compiles _NUMBER and _TIMESTAMP only for a string that could match
NUMBER_RE = re.compile(emitter._NUMBER)
_TIMESTAMP_RE = re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}")
_PLAIN_RE = re.compile(r"^[A-Za-z0-9_./$(][A-Za-z0-9_./:@+=$(){}\[\], -]*$")
_FLOW_CHAR_RE = re.compile(r"[{}\[\],]")
NUMBERISH = st.lists(
    st.sampled_from(list("0123456789_-+.:eExXoObBaAfFiInNGMm \n#{}[],$()@=/٣²") + ["inf", "nan", "NaN", "0x", "2024-01-02"]),
    max_size=8,
).map("".join)


def _old_ambiguous(s: str) -> bool:
    return s in emitter._BOOL_NULL or bool(NUMBER_RE.match(s)) or bool(_TIMESTAMP_RE.match(s))


def _old_plain_ok(s: str) -> bool:
    if not _PLAIN_RE.match(s) or _old_ambiguous(s):
        return False
    if s.endswith((":", " ")) or ": " in s or " #" in s:
        return False
    return not (_FLOW_CHAR_RE.search(s) and not s.startswith("$("))


@given(NUMBERISH | st.text(max_size=12))
def test_quoting_decisions_are_the_patterns_decisions(s: str) -> None:
    assert bool(emitter.NUMBER_RE.match(s)) == bool(NUMBER_RE.match(s))
    assert emitter.is_ambiguous(s) == _old_ambiguous(s)
    assert emitter._plain_ok(s) == (_old_plain_ok(s) and not s.endswith("\n"))


def test_a_trailing_newline_is_kept() -> None:
    """The old pattern ended in `$`, which also matches before a final newline: "abc\n" was
    written plain (`k: abc`) and read back as "abc". Every string the emitter writes reads
    back as itself."""
    for s in ("abc\n", "12\n", "a\n\n", "\n", "2024-01-02\n", "$(x)\n"):
        assert not emitter._plain_ok(s)
        assert yaml.safe_load(emitter.dump_block({"k": s})) == {"k": s}
        assert emitter.is_ambiguous(s) == _old_ambiguous(s)
