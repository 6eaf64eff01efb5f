"""Bounded YAML loading: the round-trip loader behind depth, alias-expansion and surrogate
checks, and parser errors turned into one-line messages with the place and the fix."""
from __future__ import annotations

from krm_fn.core import patterns
from krm_fn.core.errors import InputError
from krm_fn.core.errors import YamlSyntaxError
from krm_fn.core.errors import short
from krm_fn.yaml.plain import to_plain
from krm_fn.yaml.roundtrip import loader as roundtrip

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_ALIAS_NODES = 200_000  # nodes an expanded tree may have (billion-laughs guard)
MAX_DEPTH = 200  # nesting depth of any collection


def load_guarded(text: str, what: str, limits: bool = True) -> Any:
    """Parse `text` with the round-trip loader, bounded: nesting is measured on the event
    stream first (the loader recurses, and slows down sharply on deep flow nesting), alias
    expansion after (`check_limits`; skipped when the caller runs it itself). Every failure
    is an InputError whose message starts with `what`."""
    if may_nest_deeper_than_limit(text) or _may_alias_its_anchor(text):
        _scan_events(text, what)  # raises for nesting too deep, or an alias inside its own anchor
    try:
        root = _rt_load(text)
    except RecursionError:
        raise InputError(f"{what} nests deeper than {MAX_DEPTH} levels; flatten it") from None
    except Exception as e:  # noqa: BLE001 - parser errors of every kind
        # the event walk names a duplicate key's path and lines; only failures pay for it
        dup = _scan_events(text, what) if type(e).__name__ == "DuplicateKeyError" else None
        msg = f"{what} is not valid YAML: {_describe(e, dup)}"
        if type(e).__name__ == "DuplicateKeyError":
            raise InputError(msg) from None  # well-formed: names the object and the field
        raise YamlSyntaxError(msg) from None
    if limits:
        check_limits(root, what)
    if patterns.search(_SURROGATE_ESCAPE, text):
        _join_surrogates(root, what)
    return root


def load_plain(text: str, what: str) -> Any:
    """The one way to read a YAML text to plain data (dicts, lists, strings, numbers): the
    bounded round-trip loader (`load_guarded`), then `plain.to_plain`. Raises as
    load_guarded does."""
    return to_plain(load_guarded(text, what))


def safe_load_guarded(text: str, what: str) -> Any:
    """Plain data from one YAML document (PyYAML's safe loader, libyaml when present: YAML
    1.1, as kpt reads a Kptfile), with the bounds of load_guarded: nesting measured on the
    event stream before the loader (which recurses) builds anything, alias expansion on the
    tree after. Every failure is an InputError whose message starts with `what`."""
    import yaml

    if may_nest_deeper_than_limit(text) or _may_alias_its_anchor(text):
        _scan_events(text, what)
    try:
        root = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except RecursionError:
        raise InputError(f"{what} nests deeper than {MAX_DEPTH} levels; flatten it") from None
    except yaml.YAMLError as e:
        raise InputError(f"{what} is not valid YAML: {short(e, 300)}") from None
    check_limits(root, what)
    return root


def _rt_load(text: str) -> Any:
    """The round-trip loader, which refuses a tab where YAML allows it as separation
    (`kind:<TAB>PipelineRun`, read by libyaml and kpt): then the same text with those tabs
    written as spaces, the only change, is read instead."""
    try:
        return roundtrip.rt_load(text)
    except Exception as e:  # noqa: BLE001 - the caller words every failure
        if "\t" not in text or "'\\t'" not in str(e):
            raise
        spaced = _separating_tabs_as_spaces(text)
        if spaced is None:
            raise
        return roundtrip.rt_load(spaced)


def _separating_tabs_as_spaces(text: str) -> str | None:
    """`text` with each tab that separates two tokens on one line (after `:`, `-`, `,`...)
    written as a space; scalars, comments and indentation untouched. None when libyaml
    cannot scan it either (then it is not YAML) or no such tab exists."""
    import yaml

    try:
        tokens = list(yaml.scan(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except yaml.YAMLError:
        return None
    out: list[str] = []
    pos = 0
    changed = False
    for tok in tokens:
        start = tok.start_mark.index
        if start > pos:
            gap = text[pos:start]
            cut = min((i for i in (gap.find("#"), gap.find("\n")) if i >= 0), default=len(gap))
            if "\t" in gap[:cut]:
                gap = gap[:cut].replace("\t", " ") + gap[cut:]
                changed = True
            out.append(gap)
            pos = start
        end = max(tok.end_mark.index, pos)
        out.append(text[pos:end])
        pos = end
    out.append(text[pos:])
    return "".join(out) if changed else None


def may_nest_deeper_than_limit(text: str) -> bool:
    """False when `text` surely nests at most MAX_DEPTH levels, so the event walk (PyYAML's
    import and a Python loop over every event: most of a one-PipelineRun run's parse time)
    can be skipped. A bound, not a measure: every level of block nesting needs a deeper
    indentation within two levels (an indentless sequence shares its key's column) or an
    indicator on the line (`- `, `? `, `: `), and every flow level a bracket."""
    flow = text.count("[") + text.count("{")
    if flow > MAX_DEPTH:
        return True
    deepest = 0
    for line in text.split("\n"):
        ind = len(line) - len(line.lstrip(" "))
        inline = line.count("- ") + line.count("? ") + line.count(": ")
        deepest = max(deepest, 2 * ind + inline)
    return deepest + flow + 2 > MAX_DEPTH


_ANCHOR_RE = r"&([^\s,\[\]{}]+)"


def _may_alias_its_anchor(text: str) -> bool:
    """Whether some anchor `&a` of `text` is also used as an alias `*a` (then the event walk
    checks that no alias sits inside its own anchor's value). C-speed searches only."""
    if "&" not in text or "*" not in text:
        return False
    return any("*" + m.group(1) in text for m in patterns.finditer(_ANCHOR_RE, text))


def may_hold_aliases(text: str) -> bool:
    """False when `text` surely holds no YAML alias (no `*` at all): then no alias bomb can
    hide in it, and a loader without the expansion bound is safe."""
    return "*" in text


def check_flow_depth(text: str, what: str) -> None:
    """Refuse flow nesting deeper than MAX_DEPTH before a C parser reads `text`: libyaml's
    time grows with the square of the flow depth (100,000 levels: 36 s) and a C composer
    recurses once per level (40,000 levels: SIGSEGV). Block nesting that deep needs lines
    wider than any real file, so flow brackets are what is counted: one C-speed count, and
    the event walk (which stops at the first level too deep) only past the bound."""
    if text.count("[") + text.count("{") > MAX_DEPTH and _bracket_depth(text) > MAX_DEPTH:
        _scan_events(text, what)


def flow_nesting_within_limit(text: str) -> bool:
    """True when no flow nesting in `text` can exceed MAX_DEPTH, by the same bound as
    check_flow_depth, without the event walk. For a stream of documents it bounds every
    document at once: a document's bracket depth alone is never above its depth in the
    stream (the count starts there at 0 or more, and never goes below 0)."""
    return text.count("[") + text.count("{") <= MAX_DEPTH or _bracket_depth(text) <= MAX_DEPTH


_BRACKET_RE = r"[\[\]{}]"


def _bracket_depth(text: str) -> int:
    """The deepest bracket nesting in `text`, counting every bracket (also those in quoted
    scalars and comments: an upper bound of the flow depth, one pass over the brackets)."""
    depth = deepest = 0
    for m in patterns.finditer(_BRACKET_RE, text):
        if m.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif depth:
            depth -= 1
    return deepest


# the patterns of this module are compiled on first use (re's cache): most runs need none
_SURROGATE_ESCAPE = r"\\u[dD][89a-fA-F]"
_LONE_SURROGATE = "[\ud800-\udfff]"


def _pair(s: str) -> str:
    return s.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def _join_surrogates(root: Any, what: str) -> None:
    """JSON writers escape a character outside the BMP as a UTF-16 surrogate pair
    (`"\\ud83d\\ude00"`); YAML reads each half as a character of its own, and no YAML
    reader takes such halves back. Join the pairs; an unpaired half is an input error."""
    stack: list[tuple[Any, str]] = [(root, "")]
    seen: set[int] = set()
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        entries = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for k, v in entries:
            p = f"{path}[{k}]" if isinstance(node, list) else (f"{path}.{k}" if path else str(k))
            if isinstance(k, str) and patterns.search(_LONE_SURROGATE, k):
                raise InputError(f"{what}: key {p} holds a \\u escape of half a UTF-16 surrogate pair; write the character itself")
            if isinstance(v, str) and patterns.search(_LONE_SURROGATE, v):
                joined = _pair(str(v))
                if patterns.search(_LONE_SURROGATE, joined):
                    raise InputError(
                        f"{what}: {p} holds a \\u escape of half a UTF-16 surrogate pair, which "
                        "is not a character; write the character itself (or its full pair)"
                    )
                node[k] = type(v)(joined) if type(v) is not str else joined
            elif isinstance(v, (dict, list)):
                stack.append((v, p))


def _describe(e: Exception, dup: tuple[str, str, int, int] | None) -> str:
    """A one-line reason with the place and the fix, instead of the parser's dump."""
    name = type(e).__name__
    problem = str(getattr(e, "problem", "") or "")
    mark = getattr(e, "problem_mark", None)
    at = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    if name == "DuplicateKeyError":
        if dup is not None:
            path, key, first, second = dup
            top = "." not in path and "[" not in path
            hint = " (a missing `---` between two documents?)" if top else ""
            return (
                f"duplicate key {key!r} at {path} (lines {first} and {second}){hint}; a key may "
                "appear only once in a mapping: keep one of them"
            )
        return f"{problem} ({at}); a key may appear only once in a mapping: keep one of them"
    if "Composer" in name and "document" in str(e):
        return (
            "it holds several YAML documents; the function reads exactly one ResourceList on "
            "stdin (to rewrite a multi-document file, use `krm-coschedule --config POLICY FILE`)"
        )
    if "\\t" in problem or "\t" in problem:
        return f"a tab character at {at}; YAML indentation must be spaces: replace the tab"
    if problem and at:
        ctx = str(getattr(e, "context", "") or "")
        return f"{ctx + ': ' if ctx else ''}{problem} at {at}"
    return short(e)


class _Level:
    __slots__ = ("is_map", "seen", "expect_key", "key", "index", "is_key", "anchor")

    def __init__(self, is_map: bool, is_key: bool) -> None:
        self.is_map = is_map
        self.seen: dict[str, int] = {}
        self.expect_key = True
        self.key = ""
        self.index = 0
        self.is_key = is_key
        self.anchor: str | None = None


def _path_of(stack: list[_Level]) -> str:
    out = ""
    for f in stack:
        if f.is_map:
            out += ("." if out else "") + f.key
        else:
            out += f"[{f.index}]"
    return out or "the top level"


def _scan_events(text: str, what: str) -> tuple[str, str, int, int] | None:
    """Walk libyaml's event stream (iterative, C speed, no tree): refuse nesting deeper than
    MAX_DEPTH, and note the first duplicate mapping key (path, key, line, line) so that a
    DuplicateKeyError from the round-trip loader can name the field. A syntax error stops the
    walk: the round-trip loader reports it in its own words."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    walk = _Walk(what)
    try:
        for ev in yaml.parse(text, Loader=loader):
            walk.event(ev, yaml)
    except yaml.YAMLError as e:
        _refused_by_libyaml(e, text, what)
    return walk.dup


class _Walk:
    """The state of one _scan_events walk: the open collections, and the first duplicate key."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.stack: list[_Level] = []
        self.dup: tuple[str, str, int, int] | None = None

    def done(self) -> None:
        """A node in value position is complete."""
        if self.stack:
            top = self.stack[-1]
            if top.is_map:
                top.expect_key = True
            else:
                top.index += 1

    def event(self, ev: Any, yaml: Any) -> None:
        stack = self.stack
        if isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            if not stack.pop().is_key:
                self.done()
            return
        if not isinstance(ev, yaml.NodeEvent):
            return
        if isinstance(ev, yaml.AliasEvent) and any(level.anchor == ev.anchor for level in stack):
            raise InputError(
                f"{self.what} refers to itself through a YAML alias (*{ev.anchor} inside the value of "
                f"its own anchor &{ev.anchor}, at {_path_of(stack)[:120]}); a Kubernetes object "
                "cannot contain itself: write the value out"
            )
        top = stack[-1] if stack else None
        in_key = top is not None and top.is_map and top.expect_key
        if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self.start(ev, isinstance(ev, yaml.MappingStartEvent), top, in_key)
        elif top is not None and in_key:
            self.key(ev, top, isinstance(ev, yaml.ScalarEvent))
        else:
            self.done()

    def start(self, ev: Any, is_map: bool, top: _Level | None, in_key: bool) -> None:
        if top is not None and in_key:
            top.expect_key = False
            top.key = "?"
        self.stack.append(_Level(is_map, in_key))
        self.stack[-1].anchor = ev.anchor
        if len(self.stack) > MAX_DEPTH + 1:
            raise InputError(
                f"{self.what} nests deeper than {MAX_DEPTH} levels (at "
                f"{_path_of(self.stack[:-1])[:120]}...); flatten it"
            )

    def key(self, ev: Any, top: _Level, scalar: bool) -> None:
        key = str(getattr(ev, "value", "*"))
        line = ev.start_mark.line + 1 if ev.start_mark is not None else 0
        if scalar and self.dup is None and key in top.seen:
            top.key = key
            self.dup = (_path_of(self.stack), key, top.seen[key], line)
        top.seen.setdefault(key, line)
        top.key = key
        top.expect_key = False


def _refused_by_libyaml(e: Exception, text: str, what: str) -> None:
    """A parser error that ends the walk: libyaml's own nesting limit is the nesting error
    (raised); any other is left to the round-trip loader to word."""
    if _LIBYAML_DEPTH not in str(getattr(e, "problem", "")):
        return
    mark = getattr(e, "problem_mark", None)
    if mark is not None and 0 < mark.index < len(text):
        # libyaml 0.2.6 (PyYAML 6.0.3+) refuses nesting past its own limit in the scanner,
        # before the walk sees the level too deep: walk the text up to where it stopped,
        # which nests past MAX_DEPTH, so that the message names the path like any other;
        # only then the parser's own place
        _scan_events(text[: mark.index], what)
    at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    raise InputError(f"{what} nests deeper than {MAX_DEPTH} levels{at}; flatten it") from None


# libyaml's own nesting limit (0.2.6 and later: 1000 levels), far above MAX_DEPTH
_LIBYAML_DEPTH = "exceeded maximum nesting depth"


def check_limits(root: Any, what: str = "the input") -> None:
    """Refuse alias bombs and absurd nesting before anything walks the tree.

    The bound is on what aliases add: a node's expanded size minus the distinct nodes seen
    so far (all of its subtree, in post-order). A large input without aliases is no bomb (a
    20,000-item JSON list was refused as one)."""
    memo: dict[int, int] = {}
    on_path: set[int] = set()  # the nodes whose subtree is being walked: a child among them is a cycle
    distinct = 0
    stack: list[tuple[Any, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        key = id(node)
        if done:
            on_path.discard(key)
            kids = list(node.values() if isinstance(node, dict) else node)
            total = 1 + sum(memo.get(id(k), 1) for k in kids)
            distinct += 1 + sum(1 for k in kids if not isinstance(k, (dict, list)))
            if total - distinct > MAX_ALIAS_NODES:
                raise InputError(
                    f"{what} expands to more than {MAX_ALIAS_NODES} nodes through YAML "
                    "aliases (an alias bomb?); expand anchors by hand or split the input"
                )
            memo[key] = total
            continue
        if key in memo:
            continue
        if depth > MAX_DEPTH:
            raise InputError(f"{what} nests deeper than {MAX_DEPTH} levels; flatten it")
        memo[key] = 1  # cycle guard
        on_path.add(key)
        stack.append((node, depth, True))
        for k in node.values() if isinstance(node, dict) else node:
            if isinstance(k, (dict, list)) and id(k) in on_path:
                raise InputError(
                    f"{what} refers to itself through a YAML alias (an alias inside the value of its "
                    "own anchor); a Kubernetes object cannot contain itself: write the value out"
                )
            if isinstance(k, (dict, list)) and id(k) not in memo:
                stack.append((k, depth + 1, False))

