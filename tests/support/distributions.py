"""A plugin distribution "pip installed" into a folder, for the entry-point discovery tests."""

from __future__ import annotations

from pathlib import Path


def fake_dist(
    site: Path, dist: str, version: str, entry_points: dict[str, str], packages: dict[str, Path | str]
) -> Path:
    """A distribution "pip installed" into ``site`` (a dist-info with its entry points in the
    ``medlit.plugins`` group): put ``site`` on sys.path or PYTHONPATH and the host discovers it.
    ``packages`` maps a package name to a folder to copy or to the text of its ``__init__.py``."""
    import shutil

    site.mkdir(parents=True, exist_ok=True)
    for name, source in packages.items():
        if isinstance(source, Path):
            shutil.copytree(source, site / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (site / name).mkdir()
            (site / name / "__init__.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[medlit.plugins]\n{lines}")
    return site
