"""The type checker sees the installed package layout: mypy cannot follow the editable install's
import hook (medlit.core -> core/, ...), so typecheck/medlit/ holds symlinks laying the repo's
folders out as the package ([tool.mypy] mypy_path). This test keeps them in step with
[tool.setuptools] package-dir, so a new top-level folder is not silently left unchecked."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / "typecheck" / "medlit"


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_dir_is_linked_for_the_type_checker():
    package_dir = _config()["tool"]["setuptools"]["package-dir"]
    for name, folder in package_dir.items():
        parts = name.split(".")
        assert parts[0] == "medlit", name
        if len(parts) == 1:  # medlit itself: its modules are linked one by one
            for module in sorted((ROOT / folder).glob("*.py")):
                link = TREE / module.name
                assert link.is_symlink(), (
                    f"typecheck/medlit/{module.name} should link to {folder}/{module.name}"
                )
                assert link.resolve() == module.resolve()
            continue
        link = TREE.joinpath(*parts[1:])
        assert link.is_symlink(), f"typecheck/{'/'.join(parts)} should link to {folder}/ ({name})"
        assert link.resolve() == (ROOT / folder).resolve(), f"{link} points elsewhere than {folder}/"


def test_mypy_checks_the_linked_tree():
    mypy = _config()["tool"]["mypy"]
    assert mypy["mypy_path"] == "typecheck"
    assert mypy["packages"] == ["medlit"]
    assert "pydantic.mypy" in mypy["plugins"]
