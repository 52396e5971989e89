"""The reviewer's desk over HTTP, without a browser: the sign-in, the page's headers (CSP,
caching), CSRF, the page's tool allowlist, one principal refused another's set, and the MCP App
path as a host sees it (the tool's ``_meta.ui.resourceUri``, the ``ui://`` resource and its type)."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from support.desk import TOKENS, DeskSession, desk_server, hostile_ris

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
async def desk(fake, tmp_path):
    async with desk_server(fake, tmp_path) as base:
        yield base


async def test_sign_in_headers_csrf_and_principals(desk):
    alice, bob = DeskSession(desk), DeskSession(desk)
    try:
        first = await alice.http.get("/desk/")
        assert "Sign in" in first.text and "medlit-csrf" not in first.text  # signed out: the form only
        assert first.headers["content-security-policy"].startswith("default-src 'none'; script-src 'self';")
        wrong = await alice.http.post("/desk/signin", data={"token": "nope"}, headers={"Origin": desk})
        assert wrong.status_code == 401 and "not accepted" in wrong.text
        cross = await alice.http.post(
            "/desk/signin", data={"token": TOKENS["alice"]}, headers={"Origin": "https://evil.example"}
        )
        assert cross.status_code == 403

        signed = await alice.sign_in("alice")
        assert signed.status_code == 303
        cookie = signed.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        page = await alice.http.get("/desk/")
        assert page.headers["cache-control"] == "no-store" and alice.csrf
        assert '<script src="desk.js" defer></script>' in page.text and "<script>" not in page.text
        assert TOKENS["alice"] not in page.text  # the token never reaches the page

        asset = await alice.http.get("/desk/desk.js")
        assert asset.headers["cache-control"] == "public, max-age=3600" and asset.headers["etag"]
        again = await alice.http.get("/desk/desk.js", headers={"If-None-Match": asset.headers["etag"]})
        assert again.status_code == 304
        assert (await alice.http.get("/desk/__init__.py")).status_code == 404  # only declared assets

        made = await alice.call(
            "review_import", {"set": "alice set", "database": "Embase", "content": hostile_ris()}
        )
        assert made.json()["ok"], made.text
        # no CSRF token, a wrong one, a cross-site origin, a tool the page does not call: refused
        assert (await alice.call("review_sets", {"action": "list"}, csrf=False)).status_code == 403
        alice.csrf, token = "0" * 64, alice.csrf
        assert (await alice.call("review_sets", {"action": "list"})).json()["error"]["reason"] == "csrf"
        alice.csrf = token
        foreign = await alice.http.post(
            "/desk/api/call",
            json={"tool": "review_sets", "arguments": {"action": "list"}},
            headers={"X-CSRF-Token": token, "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        )
        assert foreign.status_code == 403
        other = await alice.call("pubmed_search", {"query": "asthma"})
        assert other.status_code == 403 and other.json()["error"]["reason"] == "tool_not_allowed"

        # Bob, signed in as himself, is refused Alice's set as if it did not exist
        await bob.sign_in("bob")
        assert bob.csrf != token
        refused = (await bob.call("review_records", {"set": "alice set"})).json()
        assert not refused["ok"] and refused["error"]["reason"] == "unknown_set"
        assert (await bob.call("review_sets", {"action": "list"})).json()["data"].get("sets", []) == []
        # Bob cannot replay Alice's CSRF token with his own session
        bob.csrf = token
        assert (await bob.call("review_sets", {"action": "list"})).status_code == 403

        # Alice's export downloads through the page; Bob's session cannot read it
        exported = (await alice.call("review_export", {"set": "alice set", "format": "ris"})).json()["data"]
        got = await alice.http.get("/desk/api/resource", params={"uri": exported["uri"]})
        assert got.status_code == 200 and got.text.startswith("TY  -")
        assert "attachment" in got.headers["content-disposition"]
        assert (await bob.http.get("/desk/api/resource", params={"uri": exported["uri"]})).status_code == 404

        out = await alice.http.post("/desk/signout", headers={"X-CSRF-Token": token})
        assert out.status_code == 303
        assert "Sign in" in (await alice.http.get("/desk/")).text
    finally:
        await alice.aclose()
        await bob.aclose()


async def test_the_desk_as_an_mcp_app(desk):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKENS['alice']}"}, timeout=60)
    async with Client(streamable_http_client(desk + "/mcp", http_client=http)) as host:  # type: ignore[arg-type]
        tools = {t.name: t for t in (await host.list_tools()).tools}
        assert tools["review_screen"].meta == {"ui": {"resourceUri": "ui://review/desk"}}
        assert tools["review_sets"].meta is None  # only the linked tools open the desk
        listed = {str(r.uri): r for r in (await host.list_resources()).resources}
        app = listed["ui://review/desk"]
        assert app.mime_type == "text/html;profile=mcp-app" and app.title == "Reviewer's desk"
        content = (await host.read_resource("ui://review/desk")).contents[0]
        assert content.mime_type == "text/html;profile=mcp-app"
        html = content.text
        # one self-contained document: the script and stylesheet inlined, the app mode marked
        assert 'src="desk.js"' not in html and 'href="desk.css"' not in html
        assert '<meta name="medlit-mode" content="app">' in html and "tools/call" in html
        assert '<meta name="medlit-csrf"' not in html  # no session token in the app
