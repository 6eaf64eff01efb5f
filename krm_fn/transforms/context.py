"""What a transform sees and produces: the policy, the other items, results, generated
objects and plans. It sits below the transforms; the orchestrator (`process`) makes one per
run."""
from __future__ import annotations

from krm_fn.core.errors import InputError
from krm_fn.core.errors import Unsure
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.core.keys import INDEX_ANNOTATIONS
from krm_fn.core.keys import OWNER_ANNOTATION
from krm_fn.core.keys import PATH_ANNOTATIONS
from krm_fn.core.record import Record
from krm_fn.core.results import ResourceRef
from krm_fn.core.results import Result
from krm_fn.io.items import Item
from krm_fn.policy import config as config_mod
from krm_fn.yaml import document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Generated(Record):
    """An object a transform wants in the output (a placeholder StatefulSet)."""

    __slots__ = ("owner", "obj")

    def __init__(self, owner: Item, obj: dict[str, Any]) -> None:
        self.owner = owner
        self.obj = obj  # plain data, metadata.annotations includes the owner marker

    @property
    def key(self) -> tuple[str, str, str, str]:
        md = self.obj["metadata"]
        return (self.obj["apiVersion"], self.obj["kind"], md.get("namespace", ""), md["name"])


class Plan(Record):
    """What the coscheduling transform decided for one run (read by `explain`)."""

    __slots__ = ("run", "mode", "assistants", "strategy", "scope", "waits", "resources")

    def __init__(
        self, run: ResourceRef, mode: str, assistants: list[dict[str, Any]], strategy: str = "placeholder", scope: str = "",
        waits: tuple[str, ...] = (), resources: dict[str, Any] | None = None,
    ) -> None:
        self.run = run
        self.mode = mode
        self.strategy = strategy  # run-keyed: the "assistants" are claim groups, name ""
        # where the terms that keep runs apart look: "namespace", "cluster", or "" (none)
        self.scope = scope
        # where the run may wait for kube-scheduler's flush (policy/scheduler.flush_waits)
        self.waits = waits
        self.resources = resources  # the placeholders' container resources (None: Tekton's)
        # {name, tasks: [..], claims: [{template, claim, bindings}], volumes: [...]}
        self.assistants = assistants


def file_of(item: Item) -> tuple[str | None, int | None]:
    """The item's file and index, from kpt's annotations (index 0 when only a path is set).
    Loops, not generators: asked 7,500 times in a re-render of 1,500 runs."""
    ann = item.meta.annotations
    if not ann:
        return None, None
    path = idx = None
    for k in PATH_ANNOTATIONS:
        if k in ann:
            path = ann[k]
            break
    for k in INDEX_ANNOTATIONS:
        if k in ann:
            idx = ann[k]
            break
    try:
        return path, int(idx) if idx is not None else (0 if path else None)
    except ValueError:
        return path, 0


_UNSURE = object()


class Refuted(Exception):  # noqa: N818 - a verdict, not an error the user sees
    """A field Context.generated_field read with peek.spot was not what the object holds:
    the caller renders again, without peek.spot (files mode: its eager reading)."""


class Context:
    """What a transform sees: the policy, the other items, and where results go. `light`:
    items a transform looks up are read with the light reader where it can."""

    def __init__(self, policy: config_mod.Policy, items: list[Item], light: bool = False) -> None:
        self.policy = policy
        self.items = items
        self.light = light
        self.results: list[Result] = []
        self.generated: list[Generated] = []
        self.plans: list[Plan] = []
        self.stale: set[int] = set()  # positions of generated items no run wants any more
        # a Tekton feature-flags ConfigMap among the items turns Tekton's own assistant off,
        # as placeholders need (prerequisite): the summaries need not say it again
        self.assistant_off = False
        # whether the last object the dispatch read was left unchanged: the next one is then
        # read data-only first (orchestration/process._dispatch)
        self.last_unchanged = False
        self._index: dict[tuple[str, str, str, str], Item] = {}
        # (kind, namespace, name) of every lookup that found nothing: files mode names a context
        # file it left out (not YAML) that may hold one (modes/files._left_out_warnings)
        self.missed: set[tuple[str, str, str]] = set()
        self.broken: set[tuple[str, str, str]] = set()  # looked up, and found unreadable (its error says why)
        self._peeked: dict[tuple[int, tuple[str, ...]], Any] = {}  # generated_field's readings
        # files mode's first reading: generated_field reads a field where the writer puts it
        # (peek.spot), each such reading proven by the object's text written again being the
        # same (`proven`: their positions, orchestration/generated) or confirmed at the end
        # (confirm_spotted); Refuted when one was wrong (the caller renders again without)
        self.speculate = False
        self._spotted: dict[tuple[int, tuple[str, ...]], Item] = {}
        self.proven: set[int] = set()
        self.memo: dict[tuple[Any, ...], Any] = {}  # what transforms derive from the input, once (shared: do not change it)
        self.prefix = ""  # field paths of results go under it (a run template inside an item)
        self.reindex()

    def scoped(self, prefix: str) -> Context:
        """This context for an object embedded at `prefix` in an item: the same lists and
        lookups, with every result's field path placed under the prefix."""
        scoped = object.__new__(Context)  # copy.copy's result (copy is not imported at start)
        scoped.__dict__.update(self.__dict__)
        scoped.prefix = self.prefix + prefix
        return scoped

    def reindex(self) -> None:
        """Index the items by identity (again, once loading has corrected some identities)."""
        self._index = {}
        for it in self.items:
            m = it.meta
            self._index.setdefault((m.group, m.kind, m.namespace, m.name), it)

    # ---- lookups
    def find(self, group: str, kind: str, namespace: str, name: str) -> Item | None:
        """An input item by group/kind/namespace/name (loaded for reading). One that cannot be
        read (a duplicate key) is found as none, with the error named on it, not on whoever
        looked it up; YamlSyntaxError escapes (the caller reads the whole input instead)."""
        it = self._index.get((group, kind, namespace, name))
        if it is None:
            self.missed.add((kind, namespace, name))
            return None
        if it.doc is None and it.text is not None and not it.unreadable:
            try:
                it.load(self.light)
            except YamlSyntaxError:
                raise
            except InputError as e:
                it.unreadable = True
                self.error(it, None, str(e))
        if it.unreadable:
            self.broken.add((kind, namespace, name))
            return None
        return it

    def generated_field(self, kind: str, namespace: str, name: str, owner: str, path: tuple[str, ...]) -> Any:
        """A field of the object `owner` had generated before, in the input (None when it
        is not there, or has no such field). While nothing else has read that object, only
        the field's lines are read (peek): a re-render looks up every placeholder's claim
        templates, and reading each StatefulSet whole cost as much as reading its run. The
        value is plain data (document.plain's: new dicts and lists, str keys, plain scalars),
        shared between calls: do not change it."""
        it = self._index.get(("apps" if kind == "StatefulSet" else "", kind, namespace, name))
        if it is None or it.meta.annotations.get(OWNER_ANNOTATION) != owner:
            return None
        if it.doc is None and it.text is not None and self.light:
            at = (it.pos, path)
            if at not in self._peeked:  # asked for twice per assistant (the claim check, its volumes)
                self._peeked[at] = self._spot(it, path) if self.speculate and it.document else _UNSURE
                if self._peeked[at] is _UNSURE:
                    try:
                        self._peeked[at] = it.field(path)
                    except Unsure:
                        pass
            found = self._peeked[at]
            if found is not _UNSURE:
                return found
        return self._loaded_field(it, path)

    def _loaded_field(self, it: Item, path: tuple[str, ...]) -> Any:
        """The field at `path` of the object read whole (loaded once), as plain data."""
        node = it.load(self.light)
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        return document.plain(node)

    def _spot(self, it: Item, path: tuple[str, ...]) -> Any:
        """Item.spot's reading of the field (_UNSURE when the writer's lines are not there),
        to be proven or confirmed (confirm_spotted)."""
        try:
            found = it.spot(path)
        except Unsure:
            return _UNSURE
        self._spotted[(it.pos, path)] = it
        return found

    def confirm_spotted(self) -> None:
        """Every field read by peek.spot whose object's text was not proven the writer's
        (`proven`) is read again as generated_field reads it without spot: Refuted when one
        differs, or cannot be read so (the caller renders again, without spot, which then
        meets whatever that reading meets). A re-render of an unchanged package proves
        every one."""
        for (pos, path), it in self._spotted.items():
            if pos in self.proven:
                continue
            found = self._peeked[(pos, path)]
            try:
                again = it.field(path) if it.doc is None else _UNSURE
            except Unsure:
                again = _UNSURE
            if again is _UNSURE:
                try:
                    again = self._loaded_field(it, path)
                except Exception:  # noqa: BLE001 - the reading without spot meets it, and reports it
                    raise Refuted from None
            # repr too: `==` takes 1 for True and 1.0, which the writer writes apart
            if again != found or repr(again) != repr(found):
                raise Refuted

    # ---- what a transform adds; undone when its item is transformed again
    def mark(self) -> tuple[int, int, int]:
        return (len(self.results), len(self.generated), len(self.plans))

    def rollback(self, mark: tuple[int, int, int]) -> None:
        del self.results[mark[0] :]
        del self.generated[mark[1] :]
        del self.plans[mark[2] :]

    def generate(self, owner: Item, obj: dict[str, Any]) -> None:
        self.generated.append(Generated(owner, obj))

    # ---- results
    def ref(self, item: Item) -> ResourceRef:
        m = item.meta
        return ResourceRef(m.api_version, m.kind, m.name or m.generate_name, m.namespace or None)

    def add(
        self,
        severity: str,
        item: Item | None,
        field_path: str | None,
        message: str,
        tags: dict[str, str] | None = None,
        current: Any = None,
        proposed: Any = None,
    ) -> None:
        """Record a result. The object is named by its resourceRef (kpt prints it before the
        message; files mode too), so the message does not repeat it."""
        ref = self.ref(item) if item is not None else None
        path, idx = file_of(item) if item is not None else (None, None)
        self._append(severity, ref, path, idx, field_path, message, tags, current, proposed)

    def _append(
        self,
        severity: str,
        ref: ResourceRef | None,
        path: str | None,
        idx: int | None,
        field_path: str | None,
        message: str,
        tags: dict[str, str] | None = None,
        current: Any = None,
        proposed: Any = None,
    ) -> None:
        # kpt prints the resourceRef before every message, and files mode does too
        # (Result.one_line): the message itself does not repeat it
        text = message
        if self.prefix:
            field_path = f"{self.prefix}.{field_path}" if field_path else self.prefix
        self.results.append(
            Result(
                severity,
                text,
                resource=ref,
                field_path=field_path,
                file_path=path,
                file_index=idx,
                tags=tuple(sorted((tags or {}).items())),
                current_value=current,
                proposed_value=proposed,
            )
        )

    @staticmethod
    def place(item: Item, field: str = "") -> tuple[str, str]:
        """(how a message names an item that has no usable identity, its field path): by its
        document in its file where it has one (`document 2`, field `kind`: the same whichever
        files were read with it), else by its place in the list (`items[5]`, `items[5].kind`)."""
        path, idx = file_of(item)
        if path:
            return f"document {(idx or 0) + 1}", field
        where = f"items[{item.pos}]"
        return where, f"{where}.{field}" if field else where

    def error_at(self, item: Item, field_path: str, message: str) -> None:
        """An error about an item that has no usable identity: named by its place in the list
        (`field_path` starts with items[N]), and by its file when it has one."""
        path, idx = file_of(item)
        self._append("error", None, path, idx, field_path, message)

    def error(self, item: Item | None, field_path: str | None, message: str, **kw: Any) -> None:
        self.add("error", item, field_path, message, **kw)

    def warning(self, item: Item | None, field_path: str | None, message: str, **kw: Any) -> None:
        self.add("warning", item, field_path, message, **kw)

    def info(self, item: Item | None, field_path: str | None, message: str, **kw: Any) -> None:
        self.add("info", item, field_path, message, **kw)

    def config_result(self, severity: str, field_path: str, message: str, tags: dict[str, str] | None = None) -> None:
        """A result that points at the functionConfig."""
        p = self.policy
        self._append(severity, p.ref, p.file_path, p.file_index, field_path, message, tags)


# A transform: one object (its item) and the context in; edits, results and generated objects
# out. Each lives in its own module (tekton, shipwright); `process.HANDLERS` dispatches. A name
# for the type checker only: `Callable` is not imported at run time (collections.abc imports
# collections, 11 M instructions at start-up)
if TYPE_CHECKING:
    Handler = Callable[[Item, Context], None]
