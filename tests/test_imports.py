"""The project's import graph: no cycles, no private names imported across modules.

Every `import` and `from ... import` in the project's packages counts, also those inside
functions (a lazy import is still a dependency: a cycle through one means two modules cannot be
understood, or moved, apart). Relative imports are resolved; `from package import name` counts
as an import of the submodule `package.name` when that is a module.
"""
import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("model", "simulations", "mcp_resume_guard")


def _modules():
    """module name -> source path, for every module of the project's packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "_native" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def _base(module: str, node: ast.ImportFrom) -> str:
    """The absolute module a `from` import reads from."""
    if not node.level:
        return node.module or ""
    package = module if _is_package(module) else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _imports(module: str, path: Path):
    """(imported project module, names imported from it) for every import in `path`."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, node)
            if base not in MODULES:
                continue
            plain = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:
                    yield sub, []
                else:
                    plain.append(alias.name)
            if plain:
                yield base, plain


def import_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for module, path in MODULES.items():
        graph.add_node(module)
        for target, names in _imports(module, path):
            if target != module:
                graph.add_edge(module, target, names=names)
    return graph


def _ancestor(a: str, b: str) -> bool:
    """A package's __init__ importing its own submodules (or a submodule its package's public
    names) is how a package is assembled, not a cycle between concepts."""
    return b.startswith(a + ".") or a.startswith(b + ".")


def test_the_project_has_no_import_cycle():
    graph = import_graph()
    graph.remove_edges_from([(a, b) for a, b in graph.edges if _ancestor(a, b)])
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, f"import cycles: {cycles}"


def test_no_module_imports_another_modules_private_names():
    private = [f"{a} imports {name} from {b}" for a, b, data in import_graph().edges(data=True)
               for name in data["names"] if name.startswith("_") and not name.startswith("__")]
    assert not private, "\n".join(private)


def test_the_graph_sees_the_imports_it_should():
    """The checks above are not vacuous: known edges are found."""
    graph = import_graph()
    assert graph.has_edge("simulations.explore.frontier", "model.symmetry")
    assert graph.has_edge("simulations.verify.cell", "simulations.explore.search")
    assert len(graph) > 60


def test_the_model_imports_nothing_of_the_engines():
    """The model is the bottom layer: engines, the CLI and the guard import it, never the
    other way round."""
    upward = [f"{a} -> {b}" for a, b in import_graph().edges
              if a.startswith("model") and not b.startswith("model")]
    assert not upward, upward
