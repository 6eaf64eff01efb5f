"""The package's shape, checked on its source: imports go one way (no cycle, counting the
imports inside functions), no module sets another module's attributes, and no module grows
past 800 lines. `LAYERS` is the map a newcomer reads: a module may import only from its own
layer or the ones below it."""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "krm_fn"

# bottom to top
LAYERS = [
    ["errors", "record", "keys", "results", "names", "validation", "hardening", "schemacheck", "schemadata"],
    ["yamltext", "yamlio", "guards", "rtedit", "rtsplice", "litescalar", "lite", "litesplice", "peek", "document"],
    ["items", "scanner", "resourcelist"],
    ["config"],
    ["context"],
    ["assistant", "tekton_run", "tekton_workspaces", "tekton_checks", "scheduling", "runkeyed", "tekton", "shipwright", "triggers"],
    ["process"],
    ["streams", "packages", "krm", "files", "kustomize", "explain"],
    ["cli", "__main__"],
]
LAYER_OF = {m: i for i, layer in enumerate(LAYERS) for m in layer}


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(), str(p)) for p in sorted(PKG.glob("*.py")) if p.stem != "__init__"}


def _imports(tree: ast.Module) -> set[str]:
    """Every krm_fn module a module imports, anywhere in it (functions included)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "krm_fn":
                out.update(a.name for a in node.names if (PKG / f"{a.name}.py").exists())
            elif node.module.startswith("krm_fn."):
                out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("krm_fn."))
    return out


def test_every_module_has_a_layer() -> None:
    assert set(_modules()) == set(LAYER_OF), "add the module to LAYERS"


def test_imports_go_down_the_layers() -> None:
    wrong = []
    for name, tree in _modules().items():
        for dep in sorted(_imports(tree)):
            if dep != name and LAYER_OF[dep] > LAYER_OF[name]:
                wrong.append(f"{name} (layer {LAYER_OF[name]}) imports {dep} (layer {LAYER_OF[dep]})")
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
            if isinstance(node, ast.ImportFrom) and node.module == "krm_fn":
                imported.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.Import):
                imported.update(a.asname or a.name.split(".")[0] for a in node.names)
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in imported:
                    wrong.append(f"{name}:{t.lineno} sets {t.value.id}.{t.attr}")
    assert wrong == []


def test_no_module_over_800_lines() -> None:
    sizes = {p.name: len(p.read_text().splitlines()) for p in PKG.glob("*.py")}
    assert {n: s for n, s in sizes.items() if s > 800} == {}
