"""The layers of ui/ (ui/__init__.py is the map) and of the core below it: read from the source with `ast`, every
module is in a layer, imports go only downward or sideways, there is no import cycle, no import inside a function
(unless listed below with the measurement that needs it), and each ui package's docstring names its modules."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ui", "ffn_core")

# Top to bottom, as ui/__init__.py draws them. A module belongs to the first layer one of whose
# prefixes it starts with; it may import its own layer and the ones below.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("app", ("ui.server",)),  # the one st.App (routes, lifespan), beside the pages: it may import any layer
    ("kit", ("ui.kit",)),
    ("features", ("ui.questions", "ui.room", "ui.gpt")),
    ("blocks", ("ui.widgets", "ui.charts", "ui.verdicts")),
    ("compute", ("ui.compute",)),
    ("registry", ("ui.registry",)),
    ("base", ("ui.base",)),
    # The core: its report gathers every section (it may import everything); the GPT is built from the
    # primitives (ffn_core/*.py, sweep/), which never reach up to it.
    ("core report", ("ffn_core.report",)),
    ("core gpt", ("ffn_core.gpt",)),
    ("core primitives", ("ffn_core",)),
)

# Imports made inside a function, each with the reason that needs it: (module, imported) → why.
# Only start-up time measured to matter earns a place here; write the number.
INNER_IMPORTS_ALLOWED: dict[tuple[str, str], str] = {}


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}
TREES: dict[str, ast.Module] = {name: ast.parse(path.read_text(), str(path)) for name, path in MODULES.items()}


def _resolve(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The ui and core modules an import statement loads (a name imported from a package may be a module of it)."""
    out = []
    if isinstance(node, ast.Import):
        out = [alias.name for alias in node.names]
    elif node.module is not None and node.level == 0:
        for alias in node.names:
            sub = f"{node.module}.{alias.name}"
            out.append(sub if sub in MODULES else node.module)
    return [m for m in out if m.split(".")[0] in PACKAGES]


def _imports(tree: ast.Module) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement and whether it sits inside a function."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append((child, in_function))
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    visit(tree, False)
    return found


GRAPH: dict[str, set[str]] = {
    name: {m for node, _ in _imports(tree) for m in _resolve(node) if m != name} for name, tree in TREES.items()
}


def _layer(module: str) -> int | None:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def test_the_graph_is_read():
    # A parser that found nothing would pass every test below.
    assert len(MODULES) > 60
    assert "ui.room.session" in GRAPH["ui.kit.shell"]
    assert "ui.registry.catalog" in GRAPH["ui.compute.warmup"]
    assert "ui.registry.kinds" in GRAPH["ui.registry.catalog"]
    assert "ffn_core.ffn" in GRAPH["ffn_core.gpt.model"]
    assert "ffn_core.gpt.moe_probes" in GRAPH["ffn_core.report"]


def test_questions_and_verdicts_import_no_streamlit():
    # Pure functions of a core result: property tests run them by the thousand, the store checks a guess with them.
    for prefix in ("ui.questions", "ui.verdicts", "ui.base"):
        for m in (m for m in GRAPH if m.startswith(prefix) and m != "ui.questions.quiz" and m != "ui.questions.chart"):
            seen, todo = set(), [m]
            while todo:
                here = todo.pop()
                seen.add(here)
                todo += [d for d in GRAPH.get(here, ()) if d not in seen]
            third = {alias.name.split(".")[0] for here in seen for node, _ in _imports(TREES[here])
                     for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])}
            assert not third & {"streamlit", "altair"}, (m, sorted(seen))


def test_every_module_is_in_a_layer():
    outside = [m for m in MODULES if m not in PACKAGES and _layer(m) is None]
    assert outside == [], f"add these to a layer in LAYERS and ui/__init__.py: {outside}"


def test_no_upward_import():
    upward = [(m, dep, LAYERS[_layer(m)][0], LAYERS[_layer(dep)][0])  # type: ignore[index]
              for m, deps in GRAPH.items() if m not in PACKAGES for dep in sorted(deps)
              if dep not in PACKAGES and _layer(dep) is not None and _layer(dep) < _layer(m)]  # type: ignore[operator]
    assert upward == []


def test_no_import_cycle():
    # Tarjan's strongly connected components: a component of more than one module is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            connect(v)
    assert cycles == []


def test_no_import_inside_a_function():
    inner = sorted((m, alias.name if isinstance(node, ast.Import) else (node.module or "."), node.lineno)
                   for m, tree in TREES.items() for node, in_function in _imports(tree) if in_function
                   for alias in node.names[:1])
    unexplained = [(m, what, line) for m, what, line in inner if (m, what) not in INNER_IMPORTS_ALLOWED]
    assert unexplained == [], "import at the top, or list it in INNER_IMPORTS_ALLOWED with the measured reason"
    assert all(why.strip() for why in INNER_IMPORTS_ALLOWED.values())


@pytest.mark.parametrize("package", sorted(p for p in MODULES if MODULES[p].name == "__init__.py" and p.startswith("ui")))
def test_each_package_names_its_modules(package: str):
    folder = MODULES[package].parent
    doc = ast.get_docstring(TREES[package]) or ""
    own = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
    own += sorted(f"{p.name}/" for p in folder.iterdir() if (p / "__init__.py").exists())
    missing = [name for name in own if name not in doc]
    assert missing == [], f"{package}'s docstring does not name {missing}"
