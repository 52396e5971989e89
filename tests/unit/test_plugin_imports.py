"""Built-in plugins use the public API alone: every module under plugins/ imports names of
medlit.core.plugin (the contract and its helper namespaces, imported as modules) and nothing else
of medlit.core, never pluggy or the MCP SDK, and never another plugin. Ruff enforces the core part
at lint time (plugins/ruff.toml, TID251); this test keeps that list in step with core/."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "plugins"
CONTRACT = "medlit.core.plugin"
BANNED_ROOTS = ("pluggy", "mcp")


def _modules() -> list[Path]:
    return sorted(p for p in PLUGINS.rglob("*.py") if "__pycache__" not in p.parts)


def _package(path: Path) -> list[str]:
    """The dotted package of a module under plugins/ as installed (medlit.plugins.<...>)."""
    rel = path.relative_to(PLUGINS).with_suffix("")
    return ["medlit", "plugins", *rel.parts[:-1]]  # a package's __init__ is its own package


def _imported(path: Path) -> list[tuple[int, str]]:
    """(line, qualified name) of every import in a module, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                pkg = _package(path)
                base = pkg[: len(pkg) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            # "from medlit.core import errors" imports the module medlit.core.errors.
            out += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return out


def _violation(name: str, own: str = "") -> bool:
    """``name`` (a module or ``module.attribute``) is outside what plugin ``own`` may import."""
    if name.split(".")[0] in BANNED_ROOTS:
        return True
    if name == "medlit.core" or name.startswith("medlit.core."):
        if name == CONTRACT:
            return False
        # a name of the contract (a helper namespace included), never something inside one
        head, _, attr = name.rpartition(".")
        return head != CONTRACT or attr not in _contract_names()
    if own and name.startswith("medlit.plugins."):
        return name.split(".")[2] != own
    return False


def _contract_names() -> set[str]:
    import medlit.core.plugin as contract

    return set(contract.__all__)


def test_there_are_plugin_modules_to_check():
    assert len(_modules()) > 20 and (PLUGINS / "ncbi" / "__init__.py") in _modules()


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PLUGINS)))
def test_plugin_imports_only_the_public_api(path: Path):
    own = path.relative_to(PLUGINS).parts[0] if len(path.relative_to(PLUGINS).parts) > 1 else ""
    bad = [f"line {line}: {name}" for line, name in _imported(path) if _violation(name, own)]
    assert not bad, f"{path.relative_to(ROOT)} imports outside medlit.core.plugin's names: {bad}"


EXAMPLE = ROOT / "examples" / "medlit-example-plugin" / "medlit_example"


@pytest.mark.parametrize("path", sorted(EXAMPLE.glob("*.py")), ids=lambda p: p.name)
def test_the_third_party_example_imports_only_the_public_api(path: Path):
    """The example plugin (a provider and a workflow on ctx.host) is held to the built-ins' rule."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = [
        f"{n.module}.{a.name}" if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom) and not getattr(n, "level", 0)
        for a in n.names
    ]
    bad = [n for n in names if _violation(n, "-") or n.startswith("medlit.plugins")]
    assert not bad, f"{path.name} imports outside medlit.core.plugin's names: {bad}"


def test_the_checker_catches_every_spelling(tmp_path: Path):
    names = {
        "from medlit.core.errors import MedlitError": True,
        "from medlit.core import errors": True,
        "import medlit.core.http": True,
        "from medlit.core.resolution import run_chain": True,
        "from medlit.plugins.ncbi.citation_styles import x": True,  # another plugin's module
        "from medlit.plugins.review.dedup import x": False,  # its own (the test file stands in review/)
        "import pluggy": True,
        "from mcp.types import TextContent": True,
        "from medlit.core.plugin import hookimpl": False,
        "from medlit.core import plugin": False,
        "from medlit.core.plugin import identifiers": False,
        "from medlit.core.plugin.identifiers import normalize_pmid": True,  # inside a namespace
        "from medlit.core.plugin.kit import fence": True,  # the third edition's kit is gone
        "from medlit.core.plugin import kit": True,
        "from medlit.core import kit": True,
        "from lxml import etree": False,
    }
    for source, banned in names.items():
        tree = ast.parse(source)
        node = tree.body[0]
        assert isinstance(node, ast.Import | ast.ImportFrom)
        path = tmp_path / "m.py"
        path.write_text(source)
        found = [n for _, n in _imported(path) if _violation(n, "review")]
        assert bool(found) is banned, source


def test_ruff_bans_every_core_module_in_plugins():
    """plugins/ruff.toml names every module of core/ but plugin (ruff cannot allow-list one)."""
    config = tomllib.loads((PLUGINS / "ruff.toml").read_text())
    assert config["extend"] == "../pyproject.toml" and "TID251" in config["lint"]["extend-select"]
    banned = set(config["lint"]["flake8-tidy-imports"]["banned-api"])
    core = ROOT / "core"
    modules = {
        p.stem if p.is_file() else p.name
        for p in core.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())
    }
    expected = {f"medlit.core.{m}" for m in modules - {"plugin"}} | set(BANNED_ROOTS)
    assert banned == expected
