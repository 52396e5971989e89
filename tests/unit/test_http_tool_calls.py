"""A tool call over Streamable HTTP does not list the tools: the SDK checks a call's
``Mcp-Param-*`` headers against the tool's input schema, from the server's lookup when it has one,
else by running the whole ``tools/list`` handler for every call (at 100,000 records, most of a
later priority page's CPU: docs/benchmarks.md, issue 50)."""

from __future__ import annotations

import asyncio

import pytest
import uvicorn
from mcp import Client

from medlit.core.host import load_host
from medlit.core.server import _Tools, build_server, http_app
from medlit.core.settings import load_settings

from support.ports import free_port

pytestmark = pytest.mark.anyio


async def test_the_lookup_answers_each_listed_tool_s_schema_and_nothing_else():
    for env in ({}, {"MEDLIT_TOOLSETS": "all"}):  # the default list (with its meta tools), every tool
        server = build_server(load_host(load_settings(env)))
        lookup = server.get_tool_input_schema
        assert lookup is not None
        async with Client(server) as client:
            listed = (await client.list_tools()).tools
        assert listed and all(lookup(t.name) == t.input_schema for t in listed)
        assert lookup("no_such_tool") is None


async def test_a_call_over_http_runs_no_tools_list(monkeypatch, tmp_path):
    listings: list[str] = []
    listing = _Tools.list_tools

    async def counted(self, ctx, params):
        listings.append("tools/list")
        return await listing(self, ctx, params)

    monkeypatch.setattr(_Tools, "list_tools", counted)
    h = load_host(load_settings({"MEDLIT_TOOLSETS": "all", "MEDLIT_STORE": f"sqlite:///{tmp_path / 'r.db'}"}))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(http_app(h), port=port, log_level="warning", lifespan="on"))
    serving = asyncio.ensure_future(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            await client.list_tools()
            before = len(listings)
            for name in ("review_sets", "review_sets", "review_sets"):
                out = await client.call_tool(name, {"responseFormat": "json"})
                assert not out.is_error, out.content
            assert len(listings) == before  # (the SDK's own lookup would have listed 3 times)
    finally:
        server.should_exit = True
        await serving
