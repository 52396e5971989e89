"""No module reaches into another's private names (``_x``): a sibling that needs a helper gets a
public face (a name without the underscore, or a module named for it), so what a module keeps to
itself can change without breaking a neighbour. Checked over the plugins, core and the test kit,
read with ``ast`` (nothing imported):

- ``from .tool import _existing`` (relative or absolute, ``medlit.*``);
- ``from . import tool`` (or ``import medlit.plugins.review.tool as tool``) then ``tool._existing``.

A module's own private names, dunders (``__version__``) and aliases a module gives what it
imports (``from . import models as _models``: the private name is the importer's own) are fine.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TREES = {"plugins": "medlit.plugins", "core": "medlit.core", "testing": "medlit.testing"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(root: Path, path: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def _source_of(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    here = module.split(".") if is_package else module.split(".")[:-1]
    base = here[: len(here) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports(root: Path, package: str) -> list[str]:
    """``file:line: name from module`` for each private name of another module the tree uses."""
    modules = {_module_name(root, p, package) for p in root.rglob("*.py")}
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        me = _module_name(root, path, package)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(root.parent)
        bound: dict[str, str] = {}  # local name -> the tree's module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("medlit.")):
                source = _source_of(me, path.name == "__init__.py", node)
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:
                        bound[alias.asname or alias.name] = f"{source}.{alias.name}"
                    elif _private(alias.name) and source != me:
                        found.append(f"{where}:{node.lineno}: {alias.name} from {source}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and alias.name in modules:
                        bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and _private(node.attr)
                and bound[node.value.id] != me
            ):
                found.append(f"{where}:{node.lineno}: {node.attr} from {bound[node.value.id]}")
    return found


@pytest.mark.parametrize("folder", list(TREES))
def test_no_module_uses_another_modules_private_names(folder: str) -> None:
    found = private_imports(ROOT / folder, TREES[folder])
    assert not found, f"{len(found)} uses of another module's private names in {folder}/:\n" + "\n".join(
        found
    )


def test_the_check_finds_both_forms(tmp_path: Path) -> None:
    files = {
        "__init__.py": "",
        "tool.py": "_existing = 1\n_mine = 2\nvalue = _mine\n",
        "importing.py": "from .tool import _existing\n",
        "screen.py": "from . import tool\n\ndef f():\n    return tool._existing\n",
        "fine.py": "from . import tool as _tool\nfrom .tool import __doc__\nvalue = _tool.value\n",
    }
    for name, text in files.items():
        (tmp_path / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text, encoding="utf-8")
    assert private_imports(tmp_path / "pkg", "pkg") == [
        "pkg/importing.py:1: _existing from pkg.tool",
        "pkg/screen.py:4: _existing from pkg.tool",
    ]
