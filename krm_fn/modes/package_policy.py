"""A package's own policy in files mode: its Kptfile's config for this function, or a
CoschedulePolicy document among its files; and the path a policy read from a file carries
(results about it name the file)."""
from __future__ import annotations

import os

from krm_fn.core.errors import InputError
from krm_fn.core.keys import PATH_KEY
from krm_fn.core.results import elsewhere
from krm_fn.io import packages
from krm_fn.io import reader
from krm_fn.io import streams
from krm_fn.policy import config as config_mod

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any


def find(
    pkg: packages.Package, files: list[Any], kptfile: tuple[Any, str | None, str | None], pre: dict[str, Any] | None = None
) -> tuple[Any, str | None]:
    """The package's own policy: its Kptfile's config for this function (`kptfile`, from
    packages.kptfile_config), or a CoschedulePolicy document among its files; (None, None) for none
    (the defaults), or (None, reason) when there are two or one cannot be read. `pre`: the
    package's files as the verdict cache's probe read them (name -> (bytes, stat)): a policy
    among them is taken from there, the bytes it was keyed by."""
    node, source, problem = kptfile
    if problem is not None:
        return None, problem
    found: dict[str, Any] = {}
    if source is not None:
        if node is not None:
            found[os.path.realpath(source) + "#configMap"] = (source, node)
        else:
            found[os.path.realpath(source)] = (source, None)
    for f in files:
        if f.stream is None:
            continue
        for doc in f.stream.docs:
            if doc.item is not None and doc.item.meta.kind == config_mod.POLICY_KIND:
                found.setdefault(os.path.realpath(f.name), (f.name, None))
    if len(found) > 1:
        where = ", ".join(sorted(src for src, _ in found.values()))
        return None, (
            f"the package {pkg.root} has two policies for krm-coschedule ({where}); keep one (or "
            "name it with --config)"
        )
    if not found:
        return None, None
    path, node = next(iter(found.values()))
    if node is not None:
        return node, None
    got = None if pre is None else pre.get(path)
    try:
        if isinstance(got, tuple):
            try:
                text = reader.utf8(got[0])
            except InputError as e:
                raise reader.FileRefused(path, str(e)) from None
        else:
            text = reader.read_text(path)
    except reader.FileRefused as e:
        return None, f"the package's policy {e}"
    try:
        fc = streams.read_config(text, path)
    except InputError as e:
        # the place is in the policy, not in the file this error is reported for
        return None, f"the package's policy {elsewhere(str(e), path)}"
    annotate_config(fc, path)
    return fc, None


def annotate_config(fc: Any, path: str) -> None:
    """In memory: results about the policy name its file."""
    md = fc.get("metadata") if isinstance(fc, dict) else None
    if isinstance(md, dict):
        ann = md.get("annotations")
        if ann is None or isinstance(ann, dict):
            md["annotations"] = {**(ann or {}), PATH_KEY: path}
