"""The MCP SDK's server side, imported without the SDK's package front doors (issue 50: launch).

``import mcp.server.lowlevel`` first runs ``mcp/__init__.py`` and ``mcp/server/__init__.py``,
and both re-export the whole SDK: the client (``mcp.client``: its sessions and its stdio, SSE and
HTTP transports) and the high-level ``MCPServer`` with its tool, resource and prompt managers.
A server built on the low-level ``Server`` uses none of that, yet importing it was about a fifth
of the SDK's import time at every launch (~120 modules, their pydantic models built as they are
defined).

``defer_front_doors()`` puts a stand-in for each of those two packages in ``sys.modules`` before
anything imports them: a package object with the real ``__path__`` and ``__spec__`` whose own
``__init__`` has not run, so ``import mcp.server.stdio`` and ``from mcp import types`` (a
submodule) import just what they name. The first time anyone asks such a package for a name that
is not a submodule (``from mcp import Client``, ``mcp.server.MCPServer``), the stand-in runs the
real ``__init__`` in place and answers from it: code that uses the SDK's front doors later in
the process gets exactly what it would have, only later. medlit's own modules import the SDK by
submodule (``mcp.server.lowlevel``, ``mcp.server.context``), never through a front door.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

FRONT_DOORS = ("mcp", "mcp.server")  # parents first: a child's stand-in needs its parent's
_opening = threading.RLock()  # the warm-up thread may ask at the same time; one door opens another


class _Unopened(types.ModuleType):
    """A package whose ``__init__`` runs when a name that is not a submodule is first asked for."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # dunders probed by tools (``__wrapped__``, ...): not the SDK's
            raise AttributeError(name)
        child = f"{self.__name__}.{name}"
        if importlib.util.find_spec(child) is not None:
            return importlib.import_module(child)
        self.open()
        return getattr(self, name)  # an ordinary module from here on: AttributeError if absent

    def open(self) -> None:
        """Run the package's real ``__init__`` in this module object (once)."""
        with _opening:
            if type(self) is not _Unopened:
                return
            self.__class__ = types.ModuleType  # type: ignore[assignment]  # an ordinary module now
            loader = self.__spec__.loader if self.__spec__ else None
            assert loader is not None
            loader.exec_module(self)


def defer_front_doors() -> None:
    """Install the stand-ins, unless the SDK is already imported (then nothing changes)."""
    for name in FRONT_DOORS:
        if name in sys.modules:
            return
        spec = importlib.util.find_spec(name)
        if spec is None or spec.submodule_search_locations is None:
            return  # not installed as a package: the ordinary import reports it
        module = _Unopened(name)
        module.__spec__ = spec
        module.__loader__ = spec.loader
        module.__file__ = spec.origin
        module.__path__ = list(spec.submodule_search_locations)
        module.__package__ = name
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
