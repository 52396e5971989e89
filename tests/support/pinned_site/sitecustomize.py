"""Run by Python at the start of every process the suite starts (``PYTHONPATH`` names this
folder: :func:`support.plugin_pin.pin_subprocesses`): the process's plugin discovery keeps what
the suite's own process keeps (:func:`support.plugin_pin.kept`), so a server started as a
subprocess lists the built-in plugins and those a test installed, never a third-party plugin
installed in the environment. Standard library only until a plugin is looked up: the server's
launch imports are measured (tests/unit/test_launch_imports.py)."""

import importlib.metadata
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "_suite_plugin_pin", Path(__file__).resolve().parents[1] / "plugin_pin.py"
)
if _spec is not None and _spec.loader is not None:
    _pin = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_pin)
    # before medlit.core.host and medlit.testing.hosts import it by name
    importlib.metadata.entry_points = _pin.pinned(importlib.metadata.entry_points)
