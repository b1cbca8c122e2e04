"""No import cycle among koudian's Python modules, and ``koudian.arena``
both a package and the function (issue 36, "The Python layer").

The graph is built from the source with ``ast``, not by importing: its
nodes are the modules under ``python/koudian`` (a package is its
``__init__``), its edges every ``import`` and ``from ... import``
statement naming another koudian module, **wherever it stands**: at
module level, inside a function, and under ``if TYPE_CHECKING:``. A
function-level import is an import deferred (for start-up time or an
optional extra), not a dependency removed: ``simulation`` importing
``cluster`` inside ``simulate`` and ``cluster`` importing ``simulation``
inside ``run`` is the circle the issue names, invisible to a module-level
count. A type-only import names what the module is written against, so
it counts too. ``from koudian.x import y`` is an edge to ``koudian.x.y``
when that is a module, else to ``koudian.x``.

The compiled binding ``koudian._core`` is a node without edges: its
stub's imports describe types, and the Python it calls back at run time
(``koudian.tiles.Tile`` to convert tiles, ``koudian._presets``) is the
binding's own business (issue 36, "A thin binding"), not an import
statement of a Python module.

Not counted: the package ``__init__`` that Python runs before a
submodule (an edge to ``koudian.arena.chunks`` is not an edge to
``koudian.arena``; a package's ``__init__`` only gathers its own
submodules' names, which its own edges show), and imports made by name at
run time (``importlib.import_module`` in ``koudian.__getattr__``).
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "python"
PACKAGE = ROOT / "koudian"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    """Every module by name; the compiled binding by its stub (a leaf)."""
    found = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.pyi"))}
    found.update({_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))})
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The koudian module ``name`` names, or its nearest enclosing module."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Every koudian module's koudian imports (see the module docstring)."""
    known = _modules()
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        if path.suffix == ".pyi":
            continue  # the compiled binding: a leaf (see the module docstring)
        is_package = path.name == "__init__.py"
        package = module if is_package else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                if not t.startswith("koudian"):
                    continue
                found = _resolve(t, known)
                if found is not None and found != module:
                    graph[module].add(found)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan),
    each as one cycle through its first module, then the rest of its
    modules (``[a, b, a, "+", c]``), for the failure message."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for c in comps:
        cycle = _cycle_through(graph, set(c))
        rest = sorted(set(c) - set(cycle))
        out.append([*cycle, "+", *rest] if rest else cycle)
    return out


def _cycle_through(graph: dict[str, set[str]], comp: set[str]) -> list[str]:
    """One cycle inside a strongly connected component: a -> ... -> a."""
    start = min(comp)
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & comp):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return sorted(comp)  # pragma: no cover


def test_the_graph_sees_every_kind_of_import() -> None:
    # The counter itself: a function-level and a type-only import count.
    graph = import_graph()
    assert "koudian.cluster" in graph and "koudian.arena" in graph
    assert "koudian._core" in graph["koudian.match"]  # module level
    assert "koudian.cluster" in graph["koudian.simulation"]  # inside simulate()
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []
    assert find_cycles({"a": {"b"}, "b": {"a", "c"}, "c": {"b"}}) == [["a", "b", "a", "+", "c"]]


def test_no_import_cycle_among_koudians_modules() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles (a cycle, + the rest of its modules):\n" + "\n".join(
        " -> ".join(c) for c in cycles
    )


def test_no_module_imports_another_modules_private_names() -> None:
    # A helper two modules need has a home of its own (koudian._cli_args,
    # koudian._labels, ...), not another module's underscore name.
    known = _modules()
    bad = []
    for module, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith(
                "koudian"
            ):
                continue
            source = _resolve(node.module or "", known)
            if source is None or source == "koudian._core":
                continue  # the binding's own underscore helpers are its API to Python
            if source == module:
                continue
            for a in node.names:
                if a.name.startswith("_") and f"{source}.{a.name}" not in known:
                    bad.append(f"{module} imports {source}.{a.name}")
    assert not bad, "\n".join(bad)


def test_no_module_swaps_its_class() -> None:
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    assert not (isinstance(t, ast.Attribute) and t.attr == "__class__"), path


def test_koudian_arena_is_the_function_and_the_package() -> None:
    import koudian

    assert isinstance(koudian.arena, types.FunctionType)
    assert koudian.arena.__module__ == "koudian.arena.running"
    from koudian.arena import ArenaInterrupted, ArenaResult, arena, ladder

    assert arena is koudian.arena and ladder is koudian.ladder
    assert issubclass(ArenaInterrupted, KeyboardInterrupt) and ArenaResult.__name__ == "ArenaResult"
    package = importlib.import_module("koudian.arena")
    assert isinstance(package, types.ModuleType) and package.ArenaResult is ArenaResult
    # `import koudian.arena as m` binds m to koudian's attribute (Python
    # 3.7+ looks it up there first): the function; the package is the
    # module of sys.modules.
    import koudian.arena as m

    assert m is koudian.arena
    assert sys.modules["koudian.arena"] is package
    r = koudian.arena(["greedy", "random", "random", "random"], "shanxi", 2, threads=1)
    assert isinstance(r, ArenaResult) and r.deals == 2


@pytest.mark.parametrize(
    "first",
    [
        "from koudian.arena import ArenaResult",
        "import koudian.arena",
        "import koudian.arena.cli",
        "import koudian.cli; koudian.cli.build_parser()",
        "import koudian.cluster",
    ],
)
def test_koudian_arena_stays_callable_whatever_is_imported_first(first: str) -> None:
    code = (
        f"{first}\nimport koudian, types\n"
        "assert isinstance(koudian.arena, types.FunctionType), koudian.arena\n"
        "r = koudian.arena(['greedy', 'random', 'random', 'random'], 'shanxi', 2, threads=1)\n"
        "print(r.deals)"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["2"]
