"""The suite's hosts discover the built-in plugins and those a test installs itself, never a
third-party plugin installed in the environment the suite runs in (the docs' hello plugin,
``pip install``-ed to try it, made five project tests fail: tool counts, budgets, families).

A test asks for a plugin by installing it into its own temporary folder
(:func:`support.distributions.fake_dist` under ``tmp_path``): a distribution found under a pytest
temporary folder is kept. ``tests/conftest.py`` applies :func:`pin` to core's discovery for the
whole run, and :func:`pin_subprocesses` to every Python process the suite starts (a server over
stdio, ``medlit`` commands, ``python -c`` probes): ``PYTHONPATH`` names ``pinned_site/``, whose
``sitecustomize`` applies the same :func:`pinned` there. A test that sets its subprocess's own
``PYTHONPATH`` keeps the pin with :func:`with_pin`."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, EntryPoints
from pathlib import Path
from typing import Any

BUILTIN_DIST = "medlit-mcp"
SITE = Path(__file__).resolve().parent / "pinned_site"  # its sitecustomize applies the pin


def _location(ep: EntryPoint) -> Path | None:
    dist = ep.dist
    if dist is None:
        return None
    try:
        return Path(str(dist.locate_file(""))).resolve()
    except (OSError, NotImplementedError):
        return None


def kept(ep: EntryPoint) -> bool:
    """A built-in plugin, or one a test installed into a pytest temporary folder."""
    if ep.dist is not None and ep.dist.metadata["Name"] == BUILTIN_DIST:
        return True
    where = _location(ep)
    return where is not None and any(part.startswith("pytest-") for part in where.parts)


def pinned(discover: Callable[..., EntryPoints]) -> Callable[..., EntryPoints]:
    """``importlib.metadata.entry_points`` that leaves out the plugins :func:`kept` refuses."""

    def entry_points(**params: Any) -> EntryPoints:
        found = discover(**params)
        if params.get("group") != "medlit.plugins":
            return found
        return EntryPoints(ep for ep in found if kept(ep))

    return entry_points


def pin() -> None:
    """Apply :func:`pinned` to core's plugin discovery and the test kit's service listing."""
    import importlib.metadata

    import medlit.core.host
    import medlit.testing.hosts

    medlit.core.host.entry_points = pinned(importlib.metadata.entry_points)  # type: ignore[assignment]
    medlit.testing.hosts.entry_points = pinned(importlib.metadata.entry_points)  # type: ignore[attr-defined]


def with_pin(pythonpath: str | None) -> str:
    """``pythonpath`` with :data:`SITE` first (once)."""
    parts = [p for p in (pythonpath or "").split(os.pathsep) if p and p != str(SITE)]
    return os.pathsep.join([str(SITE), *parts])


def pinned_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a subprocess, its ``PYTHONPATH`` led by :data:`SITE`."""
    return {**env, "PYTHONPATH": with_pin(env.get("PYTHONPATH"))}


def pin_subprocesses() -> None:
    """Every subprocess that inherits this process's ``PYTHONPATH`` (``os.environ``, or
    ``support.environments.server_env``, which passes it through) discovers as the suite does."""
    os.environ["PYTHONPATH"] = with_pin(os.environ.get("PYTHONPATH"))
