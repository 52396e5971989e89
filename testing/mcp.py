"""The server as an MCP client sees it: the listed tool definitions, and a client session over
memory with the real server (no subprocess, no port), for tests that go end to end through the
protocol. The MCP SDK is imported here on first use, so a test file that only builds hosts never
pays for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp import Client, types

    from medlit.core.host import Host
    from medlit.core.runtime import Runtime


def tool_definitions(host: Host) -> list[types.Tool]:
    """Every tool as ``tools/list`` would send it (input and output schema, description), by name;
    a tool whose models cannot be loaded is left out, as the server leaves it out."""
    from medlit.core.server import tool_definitions as listed

    return listed(host)


def tool_definition(host: Host, name: str) -> types.Tool:
    """One tool's definition as ``tools/list`` sends it: ``tool_definition(rt.host, "x").output_schema``."""
    found = {t.name: t for t in tool_definitions(host)}
    if name not in found:
        raise KeyError(f"{name} is not listed; the host lists {', '.join(sorted(found)) or 'no tool'}")
    return found[name]


def mcp_server(host: Host, *, runtime: Runtime | None = None) -> Any:
    """The MCP server ``medlit serve`` runs over ``host`` (``runtime``: one the test already
    holds, so that its fake and clients serve the calls)."""
    from medlit.core.server import build_server

    return build_server(host, runtime=runtime)


def mcp_client(host: Host, *, runtime: Runtime | None = None) -> Client:
    """An MCP client session with :func:`mcp_server` over memory:
    ``async with mcp_client(host) as client: await client.call_tool(name, arguments)``."""
    from mcp import Client

    return Client(mcp_server(host, runtime=runtime))
