"""Streamable HTTP ready for replicas: a stateless mode (no session ids) and a health endpoint."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client

from support.environments import server_env
from support.http_serving import http_serving

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
async def stateless_server(fake):
    async with http_serving(server_env(fake), "--stateless") as base:
        yield base


async def test_health_endpoint_reports_plugins(stateless_server):
    async with httpx2.AsyncClient() as http:
        resp = await http.get(stateless_server + "/health")
    assert resp.status_code == 200
    data = resp.json()
    assert data["status"] == "ok" and data["stateless"] is True and data["tools"] > 0
    assert data["plugins"]["ncbi"] == "active"


async def test_stateless_mode_issues_no_session_and_serves_every_request(stateless_server, fake):
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx2.AsyncClient() as http:
        resp = await http.post(stateless_server + "/mcp", json=body, headers=headers)
    assert resp.status_code == 200 and "mcp-session-id" not in {k.lower() for k in resp.headers}
    for mode in ("auto", "legacy"):
        async with Client(stateless_server + "/mcp", mode=mode) as client:
            result = await client.call_tool("eutils_einfo", {})
            assert not result.is_error and "pubmed" in result.structured_content["databases"]
