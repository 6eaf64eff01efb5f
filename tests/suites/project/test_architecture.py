"""The package's shape, checked on its source: imports go one way (no cycle, counting the
imports inside functions), no module sets another module's attributes, and no module grows
past 600 lines, no function over cyclomatic complexity 25. The folders of krm_fn are the layers (`FOLDERS`, bottom to top): a module may
import only from its own folder or the ones below it. Transforms see the YAML layer through
yaml/document alone (issue 26)."""
from __future__ import annotations

import ast
from pathlib import Path

from shared import ROOT

PKG = ROOT / "krm_fn"

# The layers are the folders, bottom to top; a module may import only from its own folder
# or the folders below it (transforms/tekton stands above the generic transforms it uses).
# yaml's subfolders (the light reader, the splicer, the round-trip code) are one layer with
# it: yaml/document, the interface the layers above use, stands on all of them.
FOLDERS = ["core", "yaml", "io", "policy", "transforms", "transforms/tekton", "orchestration", "modes", "."]
ONE_LAYER = {"yaml/light": "yaml", "yaml/splice": "yaml", "yaml/roundtrip": "yaml"}


def _name(p: Path) -> str:
    """A module's dotted name below krm_fn (`yaml.lite`, `cli`)."""
    return ".".join(p.relative_to(PKG).with_suffix("").parts)


def _folder(p: Path) -> str:
    rel = p.parent.relative_to(PKG).as_posix()
    return rel


def _modules() -> dict[str, ast.Module]:
    return {_name(p): ast.parse(p.read_text(), str(p)) for p in sorted(PKG.rglob("*.py")) if p.stem != "__init__"}


def _level(name: str) -> int:
    """The place of a module's folder among the layers."""
    folder = "/".join(name.split(".")[:-1]) or "."
    return FOLDERS.index(ONE_LAYER.get(folder, folder))


def _imports(tree: ast.Module) -> set[str]:
    """Every krm_fn module a module imports, anywhere in it (functions included), by its
    dotted name below krm_fn."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and (node.module == "krm_fn" or node.module.startswith("krm_fn.")):
            base = node.module.split(".")[1:]
            for a in node.names:
                as_module = PKG.joinpath(*base, f"{a.name}.py")
                if as_module.exists():
                    out.add(".".join([*base, a.name]))
                elif base and PKG.joinpath(*base).with_suffix(".py").exists():
                    out.add(".".join(base))
        elif isinstance(node, ast.Import):
            out.update(".".join(a.name.split(".")[1:]) for a in node.names if a.name.startswith("krm_fn."))
    return out


def test_every_module_is_in_a_layer_folder() -> None:
    for name in _modules():
        _level(name)  # raises for a module outside the layers
    assert {p.parent.relative_to(PKG).as_posix() for p in PKG.rglob("*.py")} <= set(FOLDERS) | set(ONE_LAYER), "add the folder to FOLDERS"


def test_every_folder_says_what_it_holds() -> None:
    for folder in [*FOLDERS[:-1], *ONE_LAYER]:
        init = PKG / folder / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text())), f"{init}: say what the layer holds"


def test_imports_go_down_the_layers() -> None:
    wrong = []
    for name, tree in _modules().items():
        for dep in sorted(_imports(tree)):
            if dep != name and _level(dep) > _level(name):
                wrong.append(f"{name} {_level(name)} imports {dep} {_level(dep)}")
    assert wrong == []


def _document_names(tree: ast.Module) -> set[str]:
    """The names a module takes from krm_fn.yaml.document: imported from it by name, or read
    off the module as an attribute (`document.plain`), anywhere in it."""
    out: set[str] = set()
    aliases = {"krm_fn.yaml.document"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "krm_fn.yaml.document":
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "krm_fn.yaml":
            aliases.update(a.asname or a.name for a in node.names if a.name == "document")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and ast.unparse(node.value) in aliases:
            out.add(node.attr)
    return out


def test_transforms_see_the_yaml_layer_only_through_the_document_module() -> None:
    """Issue 26: transforms edit plain data through the Document interface. Of the YAML layer
    they import yaml/document alone (counting the imports inside functions), and of it only
    what it defines for them: Document and the document-level functions, not a concrete
    document (LightDocument, ...) nor a module or name it imports itself."""
    from krm_fn.yaml import document

    def for_transforms(value: object) -> bool:
        if getattr(value, "__module__", None) != document.__name__:
            return False
        return not (isinstance(value, type) and issubclass(value, document.Document) and value is not document.Document)

    allowed = {n for n, v in vars(document).items() if not n.startswith("_") and for_transforms(v)}
    assert {"Document", "plain", "new_block", "new_entry"} <= allowed
    wrong = []
    for name, tree in _modules().items():
        if name.split(".")[0] != "transforms":
            continue
        wrong += [f"{name} imports {dep}" for dep in sorted(_imports(tree)) if dep.startswith("yaml.") and dep != "yaml.document"]
        wrong += [f"{name} uses document.{n}" for n in sorted(_document_names(tree) - allowed)]
    assert wrong == []


def test_no_import_cycle() -> None:
    graph = {name: _imports(tree) - {name} for name, tree in _modules().items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        path.append(n)
        for d in sorted(graph.get(n, ())):
            assert state.get(d) != 1, "import cycle: " + " -> ".join(path[path.index(d) :] + [d])
            if d not in state:
                visit(d)
        path.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)


def test_no_module_sets_another_modules_attributes() -> None:
    wrong = []
    for name, tree in _modules().items():
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and (node.module == "krm_fn" or node.module.startswith("krm_fn.")):
                imported.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.Import):
                imported.update(a.asname or a.name.split(".")[0] for a in node.names)
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in imported:
                    wrong.append(f"{name}:{t.lineno} sets {t.value.id}.{t.attr}")
    assert wrong == []


def test_no_module_over_600_lines() -> None:
    sizes = {_name(p): len(p.read_text().splitlines()) for p in PKG.rglob("*.py")}
    assert {n: s for n, s in sizes.items() if s > 600} == {}


MAX_COMPLEXITY = 25


def _complexity(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """McCabe's cyclomatic complexity of one function, counted as radon counts it: 1, plus
    one per if/elif, loop (and its else), except, conditional expression, `and`/`or`
    operand after the first, comprehension `for` and `if`, match case and assert. The
    functions and classes defined inside it count on their own."""
    n = 1
    stack: list[ast.AST] = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.If, ast.IfExp, ast.ExceptHandler, ast.Assert, ast.match_case)):
            n += 1
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            n += 1 + bool(node.orelse)
        elif isinstance(node, ast.BoolOp):
            n += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            n += 1 + len(node.ifs)
        stack.extend(ast.iter_child_nodes(node))
    return n


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out = []
    stack: list[tuple[str, ast.AST]] = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + child.name, child))
                stack.append((prefix + child.name + ".", child))
            elif isinstance(child, ast.ClassDef):
                stack.append((prefix + child.name + ".", child))
    return out


def test_complexity_is_counted_as_radon_counts_it() -> None:
    tree = ast.parse(
        "def f(a, b):\n"
        "    if a and b or a:\n        return [x for x in a if x]\n"
        "    for x in b:\n        pass\n    else:\n        pass\n"
        "    try:\n        pass\n    except ValueError:\n        pass\n"
        "    return 1 if a else 2\n"
    )
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    # 1 + if + 2 boolean operands + comprehension for and if + for and its else + except + ternary
    assert _complexity(fn) == 10


def test_no_function_over_max_complexity() -> None:
    wrong = {}
    for p in sorted(PKG.rglob("*.py")):
        for name, fn in _functions(ast.parse(p.read_text(), str(p))):
            if _complexity(fn) > MAX_COMPLEXITY:
                wrong[f"{_name(p)}.{name}"] = _complexity(fn)
    assert wrong == {}, f"split these functions (cyclomatic complexity over {MAX_COMPLEXITY})"


def _parser_imports(tree: ast.Module) -> set[str]:
    """The YAML parsers a module imports, anywhere in it: PyYAML, ruamel.yaml or its C
    extension."""
    out: set[str] = set()
    for node in ast.walk(tree):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
        out.update(n for n in names if n.split(".")[0] in ("yaml", "ruamel", "_ruamel_yaml"))
    return out


def test_only_the_yaml_layer_imports_a_yaml_parser() -> None:
    """Issue 30: every question to a parser goes through yaml/ (yaml/libyaml for libyaml's
    node graph and syntax check, yaml/roundtrip for ruamel)."""
    outside = {name: sorted(p) for name, tree in _modules().items() if not name.startswith("yaml.") and (p := _parser_imports(tree))}
    assert outside == {}
    assert _parser_imports(_modules()["yaml.libyaml"]), "the check must see an import of a parser"


def test_no_two_modules_share_a_name() -> None:
    """A module's name says what it holds, once: `identity` in io/ and transforms/ meant two
    things (issue 30)."""
    stems: dict[str, list[str]] = {}
    for name in _modules():
        stems.setdefault(name.rsplit(".", 1)[-1], []).append(name)
    assert {s: n for s, n in stems.items() if len(n) > 1} == {}


def _stdlib_imports(tree: ast.Module, names: set[str]) -> list[str]:
    """Where a module imports one of `names` (itself or a submodule), anywhere in it."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] in names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] in names:
            out.append(f"{node.lineno}: from {node.module}")
    return out


def test_re_is_imported_only_by_core_patterns() -> None:
    """Issue 34's cold start: `import re` costs two thirds of the interpreter's own start, so
    krm_fn uses it through core/patterns, which imports it when a pattern is first used."""
    found = {name: where for name, tree in _modules().items() if name != "core.patterns" and (where := _stdlib_imports(tree, {"re"}))}
    assert found == {}
    assert _stdlib_imports(_modules()["core.patterns"], {"re"}), "the check must see core/patterns' import"


_ABC_MODULES = {"collections.abc", "_collections_abc", "typing"}


def _abc_isinstance(tree: ast.Module) -> list[str]:
    """Where a module asks isinstance/issubclass of a class it imports from collections.abc (or
    typing's aliases of them)."""
    abcs = {
        a.asname or a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module in _ABC_MODULES
        for a in node.names
    }
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            out += [f"{node.lineno}: {k.id}" for k in kinds if isinstance(k, ast.Name) and k.id in abcs]
    return out


def test_no_isinstance_against_a_collections_abc() -> None:
    """Every mapping the function handles is a dict (the light reader's, ruamel's CommentedMap,
    JSON's, plain data) and every sequence a list, so a type check asks `dict` or `list`:
    isinstance against an ABC (Mapping, MutableMapping) runs abc's __instancecheck__ in Python
    and, for a value that is not one, __subclasshook__ too (issue 34: 1.3% of a --check)."""
    found = {name: where for name, tree in _modules().items() if (where := _abc_isinstance(tree))}
    assert found == {}
    probe = ast.parse("from collections.abc import Mapping\nisinstance(x, (Mapping, list))\n")
    assert _abc_isinstance(probe) == ["2: Mapping"], "the check must see an ABC isinstance"
