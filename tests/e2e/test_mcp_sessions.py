"""End to end: a real MCP client session over stdio and Streamable HTTP against the fake upstream."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from medlit.testing import check_structured

from support.environments import server_env
from support.http_serving import http_serving

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def check_contract(client: Client, name: str, args: dict) -> dict:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    tool = tools[name]
    assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is True
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content
    check_structured(result.structured_content, tool.output_schema)
    assert any(isinstance(b, TextContent) and b.text for b in result.content)
    return result.structured_content


async def check_fault(client: Client) -> None:
    result = await client.call_tool("eutils_einfo", {"db": "pubmed"})
    assert result.is_error
    err = result.meta["medlit/error"]
    assert err["reason"] == "ncbi_server_error" and err["retryable"] is True and err["recovery"]
    assert "ncbi_server_error" in result.content[0].text
    assert result.structured_content is None  # never a payload that fails outputSchema


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_stdio_session(fake, mode):
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake)
    )
    async with Client(params, mode=mode) as client:
        assert client.instructions and "pubmed" in client.instructions.lower()
        data = await check_contract(client, "eutils_einfo", {"db": "pubmed"})
        assert data["database"]["name"] == "pubmed"
        fake.fault("503", "ncbi", "einfo.fcgi", times=20)
        await check_fault(client)


@pytest.fixture
async def http_server(fake):
    async with http_serving(server_env(fake)) as base:
        yield base + "/mcp"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_http_session(fake, http_server, mode):
    async with Client(http_server, mode=mode) as client:
        data = await check_contract(client, "eutils_einfo", {})
        assert "pubmed" in data["databases"]
        fake.fault("503", "ncbi", "einfo.fcgi", times=20)
        await check_fault(client)


async def test_http_rejects_foreign_host_and_origin(http_server):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx2.AsyncClient() as http:
        bad_host = await http.post(http_server, json=body, headers={**headers, "Host": "evil.example.org"})
        assert bad_host.status_code == 421
        bad_origin = await http.post(
            http_server, json=body, headers={**headers, "Origin": "http://evil.example.org"}
        )
        assert bad_origin.status_code == 403


def test_http_refuses_public_bind_without_allowlist():
    proc = subprocess.run(
        [sys.executable, "-m", "medlit", "serve", "--transport", "http", "--host", "0.0.0.0", "--port", "1"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "--allow-host" in proc.stderr


def test_refuses_non_loopback_base_url():
    env = {**os.environ, "MEDLIT_BASE_URL_NCBI": "https://eutils.example.org/entrez"}
    proc = subprocess.run(
        [sys.executable, "-m", "medlit", "tools"], capture_output=True, text=True, env=env, timeout=30
    )
    assert proc.returncode == 2
    assert "loopback" in proc.stderr
