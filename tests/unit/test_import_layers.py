"""Core's modules and every plugin's import in one direction: no cycles, counting type-only
imports (under ``TYPE_CHECKING``) and imports inside functions, which Python tolerates at run
time but which still tie two modules into one. Read with ``ast``: nothing is imported or run.

A package importing its own children (and a child its package) is how packages work and is not
counted. Nothing is left out: core whole, and the plugins whole (the workflows, review sets, the
reference audit, full text, related articles, the guide, as much as the providers).
"""

from __future__ import annotations

import ast
import itertools
import shutil
from collections.abc import Iterable
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
PLUGINS = CORE.parent / "plugins"
Graph = dict[str, dict[str, str]]  # module -> {imported module: "file:line" of the import}


def module_name(root: Path, path: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def import_graph(root: Path, package: str, leave_out: Iterable[str] = ()) -> Graph:
    """Every import between the modules under ``root`` (installed as ``package``), wherever it
    sits in the file: top level, under ``if TYPE_CHECKING``, inside a function."""
    skipped = tuple(f"{package}.{name}" for name in leave_out)
    files = {
        name: path
        for path in sorted(root.rglob("*.py"))
        if not (name := module_name(root, path, package)).startswith(skipped)
    }
    graph: Graph = {name: {} for name in files}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    here = name.split(".") if is_package else name.split(".")[:-1]
                    base = ".".join(
                        here[: len(here) - node.level + 1] + ([node.module] if node.module else [])
                    )
                else:
                    base = node.module or ""
                # `from pkg import mod` imports the submodule; `from mod import name` the module.
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                if target in files and target != name:
                    graph[name].setdefault(target, f"{path.relative_to(root.parent)}:{node.lineno}")
    return graph


def cycles(graph: Graph) -> list[tuple[set[str], list[str]]]:
    """Each group of modules that import each other in a circle (a strongly connected component
    of more than one module) with one shortest cycle through it, ``[a, b, ..., a]``. A group that
    is only a package and modules inside it is how packages work (``__init__`` importing its
    children, a child reading its package), not a cycle."""
    found: list[tuple[set[str], list[str]]] = []
    for group in _components(graph):
        package = min(group, key=len)
        if all(m == package or m.startswith(package + ".") for m in group):
            continue
        found.append((group, _shortest_cycle(graph, min(group), group)))
    return found


def _components(graph: Graph) -> list[set[str]]:
    # Tarjan's algorithm, iterative: core is deep enough that recursion is not worth the risk.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return groups


def _shortest_cycle(graph: Graph, start: str, group: set[str]) -> list[str]:
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target == start:
                    path = [start]
                    while node != start:
                        path.append(node)
                        node = came_from[node]
                    return [start, *reversed(path[1:]), start]
                if target in group and target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} is in a strongly connected group but on no cycle")  # unreachable


def describe(graph: Graph, group: set[str], cycle: list[str]) -> str:
    steps = [f"{a} -> {b} ({graph[a][b]})" for a, b in itertools.pairwise(cycle)]
    others = sorted(group - set(cycle))
    tail = f"\n  (and in the same circle: {', '.join(others)})" if others else ""
    return "import cycle:\n  " + "\n  ".join(steps) + tail


def check(root: Path, package: str = "medlit.core") -> list[str]:
    graph = import_graph(root, package)
    return [describe(graph, group, cycle) for group, cycle in cycles(graph)]


# -- the rule on core ----------------------------------------------------------------------------
def test_core_imports_in_one_direction() -> None:
    problems = check(CORE)
    assert not problems, "\n".join(problems)


def test_every_plugin_imports_in_one_direction() -> None:
    """One graph over every plugin: a cycle inside one plugin and a cycle between two both count
    (plugins may not import each other, a rule the plugin-import checks hold; a cycle is worse)."""
    problems = check(PLUGINS, "medlit.plugins")
    assert not problems, f"{len(problems)} import cycles in plugins/:\n" + "\n".join(problems)


def test_wire_values_sit_in_a_leaf() -> None:
    """What the client, the cache, the batches and the contract share imports nothing of theirs:
    only the errors and the hardened XML parser, which import nothing from core at all."""
    graph = import_graph(CORE, "medlit.core")
    assert set(graph["medlit.core.net.wire"]) <= {"medlit.core.errors", "medlit.core.xml"}
    assert graph["medlit.core.errors"] == {}
    assert graph["medlit.core.xml"] == {}


# -- the checker finds what it must --------------------------------------------------------------
def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_type_only_import_closes_a_cycle(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from .b import B\n",
            "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n",
        },
    )
    assert check(pkg, "pkg") == [
        "import cycle:\n  pkg.a -> pkg.b (pkg/a.py:1)\n  pkg.b -> pkg.a (pkg/b.py:3)"
    ]


def test_a_function_local_import_closes_a_cycle(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "sub/__init__.py": "",
            "sub/c.py": "import pkg.d\n",
            "d.py": "def late():\n    from .sub import c\n    return c\n",
            "e.py": "from . import d\n",  # leads into the cycle, is not on it
        },
    )
    (problem,) = check(pkg, "pkg")
    assert "pkg.d -> pkg.sub.c (pkg/d.py:2)" in problem
    assert "pkg.sub.c -> pkg.d (pkg/sub/c.py:1)" in problem
    assert "pkg.e" not in problem


def test_a_package_and_its_own_children_are_no_cycle(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "from .a import A\n",
            "a.py": "from . import b\nA = 1\n",
            "b.py": "import pkg\n",
        },
    )
    assert check(pkg, "pkg") == []


def test_a_cycle_through_a_package_and_an_outsider_counts(tmp_path: Path) -> None:
    """A child reading its package is fine, unless the package's ``__init__`` leads out of the
    package and back to that child."""
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "sub/__init__.py": "from ..x import X\n",
            "sub/a.py": "from . import b\nA = 1\n",
            "sub/b.py": "",
            "x.py": "from .sub.a import A\nX = A\n",
        },
    )
    assert check(pkg, "pkg") == [
        "import cycle:\n  pkg.sub -> pkg.x (pkg/sub/__init__.py:1)\n  pkg.x -> pkg.sub.a (pkg/x.py:1)\n"
        "  pkg.sub.a -> pkg.sub (pkg/sub/a.py:1)"
    ]


def test_a_cycle_added_to_core_fails_the_rule(tmp_path: Path) -> None:
    """The rule on the real tree: one type-only import from the leaf back up to the contract."""
    copy = tmp_path / "core"
    shutil.copytree(CORE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    wire = copy / "net" / "wire.py"
    wire.write_text(
        wire.read_text(encoding="utf-8") + "\nif TYPE_CHECKING:\n    from ..types import ToolContext\n",
        encoding="utf-8",
    )
    problems = check(copy)
    assert len(problems) == 1
    assert "medlit.core.net.wire -> medlit.core.types (core/net/wire.py:" in problems[0]
