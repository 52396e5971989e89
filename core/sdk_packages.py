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

``import_server_side()`` is how ``medlit serve`` imports the SDK (issue 50, stop 59), with two
more savings, each measured beside the Node peer (docs/benchmarks.md):

- **The SDK's pydantic models are built at first use.** The SDK defines ~500 models (the
  version-free ``mcp_types`` and one package per protocol era) and builds each one's validator
  and serializer as it is defined; a session uses a few dozen. While the SDK is imported,
  pydantic's ``defer_build`` is on in ``BaseModel``'s configuration, which every model defined
  then inherits; a model's schema is then built the first time it validates, serializes or is
  asked for its JSON schema, and the same answers come out. The setting is put back at once:
  medlit's models, and anything defined later, build as they are defined, as before. The SDK's
  module-level adapters over its unions (``TypeAdapter``: the JSON-RPC message, the requests and
  results of each side) are deferred the same way while it imports (~35 ms of a launch), and
  pydantic builds each at its first use as it does for an adapter configured with ``defer_build``. A
  model's first-use build is not thread-safe in pydantic; the SDK's models are used on the
  event loop's thread only (the plugins never see them, the warm-up thread imports medlit's
  modules), so no two builds of one model meet. What the first ``tools/call`` would build
  (its request at the session's protocol era, the result and its adapter: ~20 ms) is built by
  ``rehearse_tool_call`` on that thread as the warm-up starts, so the first call does not pay it.
- **Over stdio, without uvicorn.** ``sse_starlette`` (imported by the SDK's HTTP transports)
  patches uvicorn's ``Server.handle_exit`` at import, if uvicorn imports, so that open event
  streams end when uvicorn shuts down; it imports uvicorn's CLI for that (click,
  multiprocessing...). A stdio server never runs uvicorn, so that import is refused while the
  SDK imports (``sse_starlette`` takes the ``ImportError`` as "no uvicorn"); uvicorn imports as
  usual afterwards. Over HTTP nothing is refused: the patch is what lets streams drain.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
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


# Modules the SDK imports only to adjust them, refused while it imports for a stdio server (above).
STDIO_REFUSED = ("uvicorn",)


def import_server_side(*, stdio: bool) -> None:
    """Import the modules of the SDK a server runs on (``core/server.py`` then finds them
    imported): without the front doors, its models built at first use, and, for a ``stdio``
    server, without uvicorn."""
    defer_front_doors()
    with models_built_at_first_use(), refused(STDIO_REFUSED if stdio else ()):
        # import statements, not importlib.import_module: ``-X importtime`` (the launch's guard
        # test, the benchmarks) sees only those
        import mcp.server.lowlevel
        import mcp.server.stdio  # noqa: F401  # the server and its stdio transport


@contextmanager
def models_built_at_first_use() -> Iterator[None]:
    """Every pydantic model and ``TypeAdapter`` made inside builds its schema when first used
    (``defer_build``; an adapter's setting is read as it is made, so putting it back after is safe)."""
    from pydantic import BaseModel, TypeAdapter

    config = BaseModel.model_config
    if "defer_build" in config:  # someone chose already: theirs stands
        yield
        return
    config["defer_build"] = True
    chosen = TypeAdapter.__dict__["_defer_build"]
    TypeAdapter._defer_build = property(lambda self: True)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        del config["defer_build"]
        TypeAdapter._defer_build = chosen  # type: ignore[method-assign]


@contextmanager
def refused(names: tuple[str, ...]) -> Iterator[None]:
    """``import`` of each of ``names`` (not yet imported) raises ``ImportError`` inside."""
    blocked = [name for name in names if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # the import system's "refuse this"
    try:
        yield
    finally:
        for name in blocked:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]


@functools.cache
def rehearse_tool_call(version: str) -> None:
    """Build what the SDK's first ``tools/call`` at protocol ``version`` builds, by the SDK's own
    steps on an empty call (validate the request, make and dump a result, fit it to the era);
    nothing is sent. Call it on the event loop's thread, as the SDK's calls run (above)."""
    import mcp_types
    from mcp_types import methods
    from pydantic import ValidationError

    with contextlib.suppress(ValidationError):  # refused for want of _meta: its validator is built
        methods.validate_client_request("tools/call", version, {"name": "rehearsal", "arguments": {}})
    result = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="")])
    methods.serialize_server_result(
        "tools/call", version, result.model_dump(by_alias=True, mode="json", exclude_none=True)
    )
