"""The words beside the code name what exists: every ``medlit.*`` dotted name and every
``core/...py`` / ``plugins/...py`` / ``testing/...py`` path in a docstring or a comment of core,
the plugins or the test kit resolves in the source tree. A module moved or renamed leaves its
old name in prose that nothing imports, and the next author follows it to nowhere (the contract
sent authors to ``medlit.core.plugin.kit`` long after the kit had become namespaces).

Read with ``ast`` and ``tokenize``: nothing is imported. A dotted name resolves when its longest
prefix that is a module of the tree is followed by nothing, or by a name that module defines
(a class, function, assignment, import or ``__all__`` entry); what comes after that name (a
field, a method) is not checked.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# [tool.setuptools] package-dir in pyproject.toml: the installed names and their folders
PACKAGE_DIRS = {
    "medlit.core": "core",
    "medlit.plugins": "plugins",
    "medlit.testing": "testing",
    "medlit": "entry",
}
CHECKED = ("core", "plugins", "testing")
DOTTED = re.compile(r"(?<![\w.])medlit(?:\.\w+)+")
PATH = re.compile(r"(?<![\w./])(?:core|plugins|testing)/[\w/]+\.py\b")


def module_file(dotted: str, root: Path = ROOT) -> Path | None:
    """The source file of an installed module name, or ``None`` when the tree has no such module."""
    for package, folder in PACKAGE_DIRS.items():  # longest package names first
        if dotted == package or dotted.startswith(package + "."):
            rest = dotted[len(package) :].lstrip(".").split(".") if dotted != package else []
            base = root / folder / Path(*rest) if rest else root / folder
            for candidate in (base.with_suffix(".py") if rest else None, base / "__init__.py"):
                if candidate is not None and candidate.is_file():
                    return candidate
            return None
    return None


@functools.cache  # a module is named in prose many times: parsed once per run, not per mention
def defined_names(path: Path) -> frozenset[str]:
    """The names a module defines at its top level, ``__all__`` (lazy exports) included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value:
                names |= {
                    c.value
                    for c in ast.walk(node.value)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                }
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.If | ast.Try):  # TYPE_CHECKING blocks, optional imports
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    names |= {(a.asname or a.name).split(".")[0] for a in inner.names}
    return frozenset(names)


def dotted_problem(dotted: str, root: Path = ROOT) -> str | None:
    """Why ``dotted`` names nothing in the tree, or ``None`` when it resolves."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        path = module_file(".".join(parts[:cut]), root)
        if path is None:
            continue
        if cut == len(parts):
            return None
        attribute = parts[cut]
        if attribute in defined_names(path):
            return None
        return f"{'.'.join(parts[:cut])} has no module or name {attribute!r}"
    return "no such module"


def prose(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every docstring (any bare string statement) and every comment of a file."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            yield node.lineno, node.value.value
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def stale_names(root: Path = ROOT, folders: tuple[str, ...] = CHECKED) -> list[str]:
    problems: list[str] = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            where = path.relative_to(root)
            for line, text in prose(path):
                for dotted in DOTTED.findall(text):
                    if (why := dotted_problem(dotted, root)) is not None:
                        problems.append(f"{where}:{line}: {dotted} ({why})")
                for named in PATH.findall(text):
                    if not (root / named).is_file():
                        problems.append(f"{where}:{line}: {named} (no such file)")
    return problems


def test_docstrings_and_comments_name_modules_that_exist() -> None:
    problems = stale_names()
    assert not problems, "prose naming modules or files that do not exist:\n" + "\n".join(problems)


# -- the check finds what it must -----------------------------------------------------------------
@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {
        "core/__init__.py": "",
        "core/plugin/__init__.py": '__all__ = ["hookimpl"]\n',
        "core/types.py": "class PluginInfo:\n    name: str\n",
        "plugins/__init__.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_real_names_resolve(tree: Path) -> None:
    for dotted in (
        "medlit.core",
        "medlit.core.plugin",
        "medlit.core.plugin.hookimpl",
        "medlit.core.types.PluginInfo.name",
    ):
        assert dotted_problem(dotted, tree) is None, dotted


def test_a_gone_module_or_name_is_named(tree: Path) -> None:
    assert dotted_problem("medlit.core.plugin.kit", tree) == "medlit.core.plugin has no module or name 'kit'"
    assert (
        dotted_problem("medlit.core.types.ToolSpec", tree)
        == "medlit.core.types has no module or name 'ToolSpec'"
    )


def test_stale_prose_is_reported_with_its_line(tree: Path) -> None:
    (tree / "plugins" / "acme.py").write_text(
        '"""Helpers from :mod:`medlit.core.plugin.kit`."""\n\n'
        "X = 1  # read by core/types.py and core/review/diagram.py\n"
        'Y = "medlit.core.gone"  # a string value, not prose: not checked\n',
        encoding="utf-8",
    )
    assert stale_names(tree, ("core", "plugins")) == [
        "plugins/acme.py:1: medlit.core.plugin.kit (medlit.core.plugin has no module or name 'kit')",
        "plugins/acme.py:3: core/review/diagram.py (no such file)",
    ]
