"""End to end over Streamable HTTP with authentication: bearer tokens from a token file and OAuth
access tokens (JWT) from an issuer whose metadata and JWKS a loopback server answers. Two
principals each see only their own review sets and exports (another's is answered as unknown);
no token, a wrong token, an expired or wrong-audience JWT get 401 with ``WWW-Authenticate``;
``/health`` stays open; a public bind serving the review tools without authentication is refused."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from support.environments import server_env
from support.http_serving import http_serving
from support.oauth_issuer import AUDIENCE, Issuer
from support.ports import free_port, wait_for_port
from support.review_routes import PUBMED_QUERY, Literature, install
from support.review_stores import create_database, drop_database, postgres_problem

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

ALICE, BOB = "alice-token-0123456789", "bob-token-9876543210"


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    it = Issuer()
    yield it
    it.server.shutdown()


def token_file(path: Path) -> Path:
    lines = ["# principal sha256(token)", ""]
    lines += [f"{p} {hashlib.sha256(t.encode()).hexdigest()}" for p, t in (("alice", ALICE), ("bob", BOB))]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
async def auth_server(fake, tmp_path, issuer):
    install(fake, Literature.build(pubmed=30, europepmc=0))
    env = server_env(
        fake,
        MEDLIT_STORE=f"sqlite:///{tmp_path / 'review.db'}",
        MEDLIT_EXPORT_DIR=str(tmp_path / "exports"),
        MEDLIT_AUTH_TOKENS=str(token_file(tmp_path / "tokens")),
        MEDLIT_AUTH_ISSUER=issuer.url,
        MEDLIT_AUTH_AUDIENCE=AUDIENCE,
    )
    async with http_serving(env) as base:
        yield base


def client(base: str, token: str, mode: str = "auto") -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    return Client(streamable_http_client(base + "/mcp", http_client=http), mode=mode)  # type: ignore[arg-type]


async def call(c: Client, name: str, args: dict) -> Any:
    result = await c.call_tool(name, args)
    return result


def reason(result: Any) -> str:
    assert result.is_error, result.content
    return result.meta["medlit/error"]["reason"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_each_principal_sees_only_its_own_sets(auth_server, mode):
    async with client(auth_server, ALICE, mode) as alice, client(auth_server, BOB, mode) as bob:
        made = await call(alice, "review_search", {"set": "alice set", "queries": {"pubmed": PUBMED_QUERY}})
        assert not made.is_error, made.content
        assert made.structured_content["total"] == 30
        exported = await call(alice, "review_export", {"set": "alice set", "format": "ris"})
        assert not exported.is_error, exported.content
        uri = exported.structured_content["uri"]
        assert (await alice.read_resource(uri)).contents[0].text.startswith("TY  -")
        key = (await call(alice, "review_records", {"set": "alice set"})).structured_content["records"][0][
            "key"
        ]
        screen = {
            "set": "alice set",
            "decisions": [{"id": key, "stage": "title_abstract", "decision": "include"}],
        }
        assert (await call(alice, "review_screen", screen)).structured_content["recorded"] == 1

        # Bob can neither screen Alice's set nor see its decisions, retrieval or flow.
        for tool, args in (
            ("review_screen", screen),
            ("review_retrieve", {"set": "alice set"}),
            ("review_prisma", {"set": "alice set"}),
            ("review_records", {"set": "alice set", "decision": "include"}),
        ):
            assert reason(await call(bob, tool, args)) == "unknown_set", tool

        listed = await call(bob, "review_sets", {"action": "list"})
        assert listed.structured_content.get("sets", []) == []  # empty: left out
        unknown = await call(bob, "review_records", {"set": "no such set"})
        foreign = await call(bob, "review_records", {"set": "alice set"})
        assert reason(unknown) == reason(foreign) == "unknown_set"
        assert foreign.content[0].text == unknown.content[0].text.replace("no such set", "alice set")
        assert (
            reason(await call(bob, "review_export", {"set": "alice set", "format": "ris"})) == "unknown_set"
        )
        deleted = await call(
            bob, "review_sets", {"action": "delete", "set": "alice set", "confirm": "alice set"}
        )
        assert reason(deleted) == "unknown_set"
        with pytest.raises(MCPError) as read:
            await bob.read_resource(uri)
        assert "No export file" in str(read.value)
        with pytest.raises(MCPError) as log_read:
            await bob.read_resource("review://sets/alice%20set/log")
        assert "unknown_set" in str(log_read.value)

        # Bob's own set of the same name is his, and Alice's is untouched by his delete.
        mine = await call(bob, "review_search", {"set": "alice set", "queries": {"pubmed": PUBMED_QUERY}})
        assert not mine.is_error, mine.content
        gone = await call(
            bob, "review_sets", {"action": "delete", "set": "alice set", "confirm": "alice set"}
        )
        assert not gone.is_error, gone.content
        still = await call(alice, "review_sets", {"action": "list"})
        assert [s["set"] for s in still.structured_content["sets"]] == ["alice set"]
        flow = await call(alice, "review_prisma", {"set": "alice set"})
        assert flow.structured_content["counts"]["sought"] == 1  # her decision survived Bob's set
        assert (await alice.read_resource(uri)).contents[0].text.startswith("TY  -")


async def test_a_valid_jwt_is_its_own_principal(auth_server, issuer):
    async with client(auth_server, issuer.token("carol")) as carol, client(auth_server, ALICE) as alice:
        made = await call(carol, "review_search", {"set": "c", "queries": {"pubmed": PUBMED_QUERY}})
        assert not made.is_error, made.content
        assert reason(await call(alice, "review_records", {"set": "c"})) == "unknown_set"
        page = await call(carol, "review_records", {"set": "c"})
        assert not page.is_error and page.structured_content["total"] == 30
    assert "/.well-known/oauth-authorization-server" in issuer.fetches and "/jwks.json" in issuer.fetches


async def test_missing_and_bad_tokens_get_401_with_www_authenticate(auth_server, issuer):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    now = int(time.time())
    bad = {
        "no token": None,
        "wrong token": "Bearer not-a-known-token",
        "not bearer": "Basic YWxpY2U6c2VjcmV0",
        "expired jwt": "Bearer " + issuer.token(iat=now - 7200, exp=now - 3600),
        "not yet valid jwt": "Bearer " + issuer.token(nbf=now + 3600),
        "wrong audience jwt": "Bearer " + issuer.token(aud="https://other.example.org/mcp"),
        "wrong issuer jwt": "Bearer " + issuer.token(iss="https://evil.example.org"),
    }
    async with httpx2.AsyncClient() as http:
        for what, value in bad.items():
            extra = {"Authorization": value} if value else {}
            resp = await http.post(auth_server + "/mcp", json=body, headers={**headers, **extra})
            assert resp.status_code == 401, what
            challenge = resp.headers["www-authenticate"]
            assert challenge.startswith("Bearer "), what
            assert 'resource_metadata="' in challenge and "/.well-known/oauth-protected-resource" in challenge
        metadata_url = challenge.split('resource_metadata="')[1].split('"')[0]
        meta = (await http.get(auth_server + "/.well-known/oauth-protected-resource/mcp")).json()
        assert metadata_url.endswith("/.well-known/oauth-protected-resource/mcp")
        assert meta["resource"] == AUDIENCE and meta["authorization_servers"] == [issuer.url]
        assert (await http.get(auth_server + "/.well-known/oauth-protected-resource")).json() == meta
        health = await http.get(auth_server + "/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        ok = await http.post(
            auth_server + "/mcp", json=body, headers={**headers, "Authorization": f"Bearer {ALICE}"}
        )
        assert ok.status_code != 401


async def test_token_file_only_challenge_names_no_metadata(fake, tmp_path):
    port = free_port()
    env = server_env(
        fake,
        MEDLIT_AUTH_TOKENS=str(token_file(tmp_path / "tokens")),
        MEDLIT_STORE=f"sqlite:///{tmp_path / 'review.db'}",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "medlit", "serve", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        await wait_for_port(port, proc)
        async with httpx2.AsyncClient() as http:
            resp = await http.post(
                f"http://127.0.0.1:{port}/mcp", json={}, headers={"Accept": "application/json"}
            )
            assert resp.status_code == 401
            assert resp.headers["www-authenticate"].startswith("Bearer ")
            assert "resource_metadata" not in resp.headers["www-authenticate"]
            assert (
                await http.get(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource")
            ).status_code == 404
        # A line added while serving is honoured at the next request (the file is re-read on change).
        with (tmp_path / "tokens").open("a") as fh:
            fh.write(f"carol {hashlib.sha256(b'carol-token').hexdigest()}\n")
        async with client(f"http://127.0.0.1:{port}", "carol-token") as carol:
            listed = await carol.call_tool("review_sets", {"action": "list"})
            assert not listed.is_error and listed.structured_content.get("sets", []) == []
    finally:
        proc.terminate()
        proc.wait(10)


def run_serve(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "medlit", "serve", "--transport", "http", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


async def test_public_bind_with_review_tools_and_no_auth_is_refused(fake):
    proc = run_serve(server_env(fake), "--host", "0.0.0.0", "--allow-host", "mcp.example.org", "--port", "1")
    assert proc.returncode == 2
    assert "MEDLIT_AUTH_TOKENS" in proc.stderr and "MEDLIT_AUTH_ISSUER" in proc.stderr
    assert "MEDLIT_TOOLS=-review_*" in proc.stderr and "review_sets" in proc.stderr


async def test_malformed_token_file_refuses_start_naming_the_line(fake, tmp_path):
    bad = tmp_path / "tokens"
    bad.write_text("# ok\nalice " + "a" * 64 + "\nbob not-a-digest\n")
    proc = run_serve(server_env(fake, MEDLIT_AUTH_TOKENS=str(bad)), "--port", "1")
    assert proc.returncode == 2
    assert "line 3" in proc.stderr and "SHA-256" in proc.stderr


@pytest.mark.skipif(bool(postgres_problem()), reason=postgres_problem() or "-")
async def test_a_fleet_of_two_replicas_on_one_postgresql_serves_a_principals_set_from_either(fake, tmp_path):
    install(fake, Literature.build(pubmed=25, europepmc=0))
    dsn = await create_database()
    env = server_env(
        fake,
        MEDLIT_STORE=dsn,
        MEDLIT_EXPORT_DIR=str(tmp_path / "exports"),
        MEDLIT_AUTH_TOKENS=str(token_file(tmp_path / "tokens")),
    )
    ports = [free_port(), free_port()]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "medlit", "serve", "--transport", "http", "--stateless", "--port", str(p)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for p in ports
    ]
    try:
        for port, proc in zip(ports, procs, strict=True):
            await wait_for_port(port, proc)
        one, two = (f"http://127.0.0.1:{p}" for p in ports)
        async with client(one, ALICE) as alice_one:
            made = await alice_one.call_tool(
                "review_search", {"set": "fleet", "queries": {"pubmed": PUBMED_QUERY}}
            )
            assert not made.is_error and made.structured_content["total"] == 25, made.content
        async with client(two, ALICE) as alice_two, client(two, BOB) as bob_two:
            page = await alice_two.call_tool("review_records", {"set": "fleet"})
            assert not page.is_error and page.structured_content["total"] == 25, page.content
            listed = await alice_two.call_tool("review_sets", {"action": "list"})
            assert [s["set"] for s in listed.structured_content["sets"]] == ["fleet"]
            assert reason(await bob_two.call_tool("review_records", {"set": "fleet"})) == "unknown_set"
            bobs = await bob_two.call_tool("review_sets", {"action": "list"})
            assert "sets" not in bobs.structured_content  # none: the empty list is left out
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        await drop_database(dsn)


SERVE = [sys.executable, "-m", "medlit", "serve", "--transport", "http"]


@pytest.mark.parametrize("fix", ["tokens", "no review tools"])
async def test_public_bind_starts_with_either_fix(fake, tmp_path, fix):
    extra = (
        {"MEDLIT_AUTH_TOKENS": str(token_file(tmp_path / "tokens"))}
        if fix == "tokens"
        else {"MEDLIT_TOOLS": "-review_*"}
    )
    port = free_port()
    proc = subprocess.Popen(
        [*SERVE, "--host", "0.0.0.0", "--allow-host", "mcp.example.org", "--port", str(port)],
        env=server_env(fake, MEDLIT_STORE=f"sqlite:///{tmp_path / 'review.db'}", **extra),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        await wait_for_port(port, proc)
        async with httpx2.AsyncClient() as http:
            resp = await http.post(
                f"http://127.0.0.1:{port}/mcp", json={}, headers={"Accept": "application/json"}
            )
        assert (resp.status_code == 401) is (fix == "tokens")
    finally:
        proc.terminate()
        proc.wait(10)
