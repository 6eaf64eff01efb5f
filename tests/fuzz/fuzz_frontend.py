"""Coverage-guided fuzzing of the YAML front end with atheris, by hand (CI does not run it;
the bounded hypothesis fuzz targets in tests/suites/properties/test_properties.py do).

    pip install atheris          # 3.x has wheels for CPython 3.11
    python tests/fuzz/fuzz_frontend.py -max_total_time=300 -rss_limit_mb=2048 \
        /tmp/fuzz-corpus tests/fuzz/seeds

The target is the whole KRM path on bytes: decode, `resourcelist.parse`, `process`, render. A crash
is any exception escaping `run_resource_list`, an exit code other than 0 or 1, an internal
error result, or unreadable output for input that is YAML. The `-rss_limit_mb` and libFuzzer's
slow-input report catch alias bombs and nesting that get past the bounds.
"""
from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    import yaml

    from krm_fn.modes.krm import run_resource_list


class _AnyTagLoader(yaml.CSafeLoader):
    """A YAML reader that takes any local tag (`!foo`) as the plain node below it."""


def _untagged(loader: yaml.SafeLoader, _suffix: str, node: yaml.Node) -> object:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)  # type: ignore[arg-type]


_AnyTagLoader.add_multi_constructor("", _untagged)


def _is_yaml(data: bytes) -> bool:
    # the same reader as the output check: ruamel and libyaml disagree at the edges (an empty
    # implicit key, say), and the promise is "readable in, readable out" for one reader
    try:
        yaml.load(data.decode("utf-8"), Loader=_AnyTagLoader)
        return True
    except Exception:  # noqa: BLE001
        return False


def test_one_input(data: bytes) -> None:
    out, _outcome, code = run_resource_list(data)
    if code not in (0, 1):
        raise AssertionError(f"exit code {code}")
    if "internal error" in out:
        raise AssertionError(out[-2000:])
    # an untouched item is echoed as it came (the fast path never reads it), so only input
    # that is YAML promises readable output
    if _is_yaml(data):
        doc = yaml.load(out, Loader=_AnyTagLoader)
        if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
            raise AssertionError("output is not a ResourceList")


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
