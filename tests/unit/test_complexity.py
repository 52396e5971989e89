"""Functions a reader can hold in mind: no function, method or closure in core, the plugins or
the test kit passes radon's cyclomatic complexity of 25 (the bar the developers' guide sets).
Each closure and method counts on its own, nested ones too, so splitting a long function into
inner functions does not hide it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("core", "plugins", "testing")
MOST = 25


def _functions(blocks: Iterable[Function | Class]) -> Iterator[Function]:
    """Every function radon sees, closures and methods included, each once (radon lists a
    class's methods both on the class and beside it). A class's own figure, the average of its
    methods, is no function's and is not counted."""
    seen: set[tuple[int, str]] = set()
    stack = list(blocks)
    while stack:
        block = stack.pop()
        stack += [*getattr(block, "closures", ()), *getattr(block, "methods", ())]
        if isinstance(block, Function) and (block.lineno, block.name) not in seen:
            seen.add((block.lineno, block.name))
            yield block


def too_complex(root: Path = ROOT, folders: Iterable[str] = FOLDERS, most: int = MOST) -> list[str]:
    """``file:line name complexity`` for each block over ``most``, most complex first."""
    rows: list[tuple[int, str]] = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            for block in _functions(cc_visit(path.read_text(encoding="utf-8"))):
                if block.complexity > most:
                    name = f"{block.classname}.{block.name}" if block.classname else block.name
                    where = f"{path.relative_to(root)}:{block.lineno}"
                    rows.append((-block.complexity, where, f"{where} {name} {block.complexity}"))
    return [row for *_, row in sorted(rows)]


def test_no_function_passes_complexity_25() -> None:
    found = too_complex()
    assert not found, f"{len(found)} functions over complexity {MOST}:\n" + "\n".join(found)


def test_the_check_counts_closures_and_methods(tmp_path: Path) -> None:
    branches = "".join(f"        if x == {i}:\n            y += {i}\n" for i in range(30))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "def small(x):\n    return x\n\n"
        f"def outer(x):\n    def inner(x):\n        y = 0\n{branches}        return y\n    return inner(x)\n\n"
        f"class C:\n    def method(self, x):\n        y = 0\n{branches}        return y\n",
        encoding="utf-8",
    )
    assert too_complex(tmp_path, ["pkg"]) == ["pkg/m.py:5 inner 31", "pkg/m.py:71 C.method 31"]
