"""The shape of the code: imports point down, no private name crosses a module, small modules.

Read from the source with ``ast`` (nothing is imported): every ``import`` of a gblas
module, at the top of a file or inside a function, is an edge of the graph; a package
is the first level below ``gblas`` (the facade ``gblas/__init__.py`` and its lazily
loaded upper packages are the one allowed loop, see ``docs/architecture.md``).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest
from locations import REPO

ROOT = REPO / "gblas"
MAX_LINES = 800


def _modules() -> dict[str, Path]:
    mods = {}
    for p in ROOT.rglob("*.py"):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    return mods


MODULES = _modules()


def _imports(mod: str, path: Path):
    """``(target module, imported name or None)`` of every gblas import in ``mod``."""
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("gblas"):
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}"
                yield (full if full in MODULES else target), alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("gblas"):
                    yield alias.name, None


def _package(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for mod, path in MODULES.items():
        for target, _ in _imports(mod, path):
            a, b = _package(mod), _package(target)
            if a and b and a != b:
                graph[a].add(b)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (a list of nodes), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(v):
        state[v] = 1
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if state.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in state:
                found = visit(w)
                if found:
                    return found
        stack.pop()
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state:
            found = visit(v)
            if found:
                return found
    return None


def test_cycle_finder_finds_cycles():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}}) is None


def test_no_import_cycle_between_packages():
    assert _cycle(_package_graph()) is None


def test_kernels_and_formats_stay_below_the_core():
    graph = _package_graph()
    for low in ("backends", "formats", "planner", "semirings", "hardware", "dtypes"):
        above = graph.get(low, set()) & {"core", "algorithms", "csgraph", "io", "nx", "cli",
                                         "commands", "distributed", "analysis"}
        assert not above, f"{low} imports {sorted(above)}"
    assert "formats" not in graph.get("backends", set())


def test_no_cycle_inside_core():
    graph: dict[str, set[str]] = defaultdict(set)
    for mod, path in MODULES.items():
        if mod.startswith("gblas.core."):
            for target, _ in _imports(mod, path):
                if target.startswith("gblas.core.") and target != mod:
                    graph[mod].add(target)
    assert _cycle(graph) is None


def test_no_private_name_crosses_a_module():
    crossing = []
    for mod, path in MODULES.items():
        for target, name in _imports(mod, path):
            if name and name.startswith("_") and not name.startswith("__"):
                crossing.append(f"{mod} imports {name} from {target}")
    assert not crossing, "\n".join(crossing)


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_module_size(mod):
    lines = MODULES[mod].read_text().count("\n")
    assert lines <= MAX_LINES, f"{mod}: {lines} lines; split it by what it holds"
