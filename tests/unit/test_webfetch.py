"""The open-web client: address vetting, redirects, caps and errors against a loopback host."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from aiohttp import web

from medlit.core.errors import MedlitError
from medlit.core.net import webfetch
from medlit.core.net.webfetch import WebClient, WebConfig, refusal
from medlit.core.settings import load_settings

pytestmark = pytest.mark.anyio

UA = "medlit-mcp/test (mailto:ops@example.org)"


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("100.100.100.200", "metadata"),
        ("169.254.10.1", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.251", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "non-public"),
        ("fc00::5", "private"),
        ("::ffff:10.0.0.1", "private"),  # IPv4-mapped
        ("::ffff:127.0.0.1", "loopback"),
        ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
        ("2002:a00:1::", "private"),  # 6to4 of 10.0.0.1
    ],
)
def test_non_public_addresses_are_refused(address, why):
    assert why in (refusal(ipaddress.ip_address(address)) or "")


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address):
    assert refusal(ipaddress.ip_address(address)) is None


def test_loopback_only_with_the_flag():
    assert refusal(ipaddress.ip_address("127.0.0.1"), allow_loopback=True) is None
    assert refusal(ipaddress.ip_address("::1"), allow_loopback=True) is None
    # The flag opens loopback, nothing else.
    assert "private" in (refusal(ipaddress.ip_address("10.0.0.1"), allow_loopback=True) or "")
    assert "metadata" in (refusal(ipaddress.ip_address("169.254.169.254"), allow_loopback=True) or "")


def client(loopback: bool = True, **env: str) -> WebClient:
    values = {"MEDLIT_REQUEST_TIMEOUT": "5", **env}
    if loopback:
        values["MEDLIT_ALLOW_LOOPBACK_CONTENT"] = "1"
    config = WebConfig("web", "content hosts", "oa_host", rate=100.0, headers={"User-Agent": UA})
    return WebClient(config, load_settings(values))


def serve(fake, path: str, body: bytes = b"hello", content_type: str = "text/plain", **headers: str) -> str:
    fake.route(
        "content",
        path,
        lambda req: web.Response(body=body, headers={"Content-Type": content_type, **headers}),
    )
    return f"{fake.url('content')}/{path}"


def redirect(fake, path: str, to: str, status: int = 302) -> str:
    fake.route("content", path, lambda req: web.Response(status=status, headers={"Location": to}))
    return f"{fake.url('content')}/{path}"


async def refused(c: WebClient, url: str) -> MedlitError:
    with pytest.raises(MedlitError) as info:
        await c.fetch(url)
    await c.aclose()
    return info.value


def map_names(monkeypatch, table: dict[str, list[str]]) -> list[str]:
    """Answer DNS for the names in ``table`` (others fail); returns the names looked up."""
    asked: list[str] = []

    async def fake_getaddrinfo(host: str, port: int, family: int = 0):
        asked.append(host)
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, a) for a in table[host]]

    monkeypatch.setattr(webfetch, "getaddrinfo", fake_getaddrinfo)
    return asked


async def test_fetches_a_loopback_page_with_the_flag(fake):
    url = serve(fake, "a.txt", b"body bytes", "text/plain; charset=latin-1")
    c = client()
    resp = await c.fetch(url, accept="text/plain")
    await c.aclose()
    assert (resp.status, resp.body, resp.content_type, resp.charset) == (
        200,
        b"body bytes",
        "text/plain",
        "latin-1",
    )
    assert resp.url == url and resp.redirects == ()
    sent = fake.of("content", "a.txt")[0].request.headers
    assert sent["User-Agent"] == UA and sent["Accept"] == "text/plain"


async def test_loopback_literal_refused_without_the_flag(fake):
    url = serve(fake, "a.txt")
    err = await refused(client(loopback=False), url)
    assert err.reason == "oa_host_address_refused" and "loopback" in err.message
    assert not fake.of("content")  # refused before any connection


async def test_dns_name_resolving_to_loopback_refused_without_the_flag(fake):
    serve(fake, "a.txt")
    err = await refused(client(loopback=False), f"http://localhost:{fake.port}/content/a.txt")
    assert err.reason == "oa_host_address_refused"
    assert "localhost resolves to" in err.message and "loopback" in err.message
    assert not fake.of("content")


async def test_a_mapped_name_connects_to_the_vetted_address(fake, monkeypatch):
    asked = map_names(monkeypatch, {"journal.test": ["127.0.0.1"]})
    serve(fake, "paper.html", b"<html></html>", "text/html")
    c = client()
    resp = await c.fetch(f"http://journal.test:{fake.port}/content/paper.html")
    await c.aclose()
    assert resp.body == b"<html></html>" and asked == ["journal.test"]
    assert fake.of("content", "paper.html")[0].request.headers["Host"] == f"journal.test:{fake.port}"


async def test_name_resolving_to_a_private_address_refused(monkeypatch):
    map_names(monkeypatch, {"intranet.test": ["10.1.2.3"]})
    err = await refused(client(), "http://intranet.test/report.pdf")
    assert err.reason == "oa_host_address_refused"
    assert "intranet.test resolves to 10.1.2.3, a private address" in err.message


async def test_name_with_any_refused_address_is_refused_whole(monkeypatch):
    # A rebinding-style answer: one public address first, a private one after it.
    map_names(monkeypatch, {"mixed.test": ["93.184.216.34", "192.168.0.7"]})
    err = await refused(client(), "http://mixed.test/x")
    assert err.reason == "oa_host_address_refused" and "192.168.0.7" in err.message


async def test_unresolvable_name_is_unreachable(monkeypatch):
    map_names(monkeypatch, {})
    err = await refused(client(), "http://nowhere.test/x")
    assert err.reason == "oa_host_unreachable"


@pytest.mark.parametrize(
    "target",
    [
        "http://10.0.0.1/secret",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://[::ffff:192.168.0.1]/",
        "http://127.1/",
    ],
)
async def test_redirect_to_a_private_address_refused(fake, target):
    url = redirect(fake, "go", target)
    err = await refused(client(), url)
    assert err.reason == "oa_host_address_refused"
    assert len(fake.of("content")) == 1  # the first hop only


async def test_redirect_to_a_name_resolving_to_a_private_address_refused(fake, monkeypatch):
    map_names(monkeypatch, {"internal.test": ["192.168.10.20"]})
    url = redirect(fake, "go", "http://internal.test/admin")
    err = await refused(client(), url)
    assert err.reason == "oa_host_address_refused" and "internal.test" in err.message


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://example.org/x", "gopher://example.org/"])
async def test_redirect_to_another_scheme_refused(fake, target):
    err = await refused(client(), redirect(fake, "go", target))
    assert err.reason == "oa_host_address_refused" and "only http(s)" in err.message


async def test_credentials_in_url_refused(fake):
    err = await refused(client(), f"http://user:pw@127.0.0.1:{fake.port}/content/a")
    assert err.reason == "oa_host_address_refused" and not fake.of("content")


async def test_follows_three_redirects_not_four(fake):
    final = serve(fake, "end", b"arrived")
    hop3 = redirect(fake, "r3", final)
    hop2 = redirect(fake, "r2", hop3, 301)
    hop1 = redirect(fake, "r1", "/content/r2", 307)  # relative Location
    c = client()
    resp = await c.fetch(hop1)
    assert resp.body == b"arrived" and resp.url == final and resp.redirects == (hop2, hop3, final)
    too_far = redirect(fake, "r0", hop1)
    err = await refused(c, too_far)
    assert err.reason == "oa_host_redirect_refused"


async def test_cookies_carried_along_one_fetchs_redirects(fake):
    def first(req):
        resp = web.Response(status=302, headers={"Location": "/content/second"})
        resp.set_cookie("session", "abc")
        return resp

    fake.route("content", "first", first)
    fake.route("content", "second", lambda req: web.Response(text=req.request.cookies.get("session", "none")))
    c = client()
    resp = await c.fetch(f"{fake.url('content')}/first")
    again = await c.fetch(f"{fake.url('content')}/second")
    await c.aclose()
    assert resp.body == b"abc" and again.body == b"none"  # nothing kept between fetches


async def test_declared_oversized_body_refused(fake):
    url = serve(fake, "big.pdf", b"%PDF-1.4 " + b"x" * 50_000, "application/pdf")
    c = client()
    with pytest.raises(MedlitError) as info:
        await c.fetch(url, max_bytes=10_000)
    await c.aclose()
    assert info.value.reason == "oa_host_response_too_large" and "declared" in info.value.message


async def test_streamed_oversized_body_refused(fake):
    async def stream(req):
        resp = web.StreamResponse(headers={"Content-Type": "application/pdf"})
        resp.enable_chunked_encoding()
        await resp.prepare(req.request)
        for _ in range(40):
            await resp.write(b"y" * 16384)
        await resp.write_eof()
        return resp

    fake.route("content", "stream.pdf", stream)
    c = client(MEDLIT_MAX_BODY_BYTES="100000")
    with pytest.raises(MedlitError) as info:
        await c.fetch(f"{fake.url('content')}/stream.pdf")  # default cap: MEDLIT_MAX_BODY_BYTES
    await c.aclose()
    assert info.value.reason == "oa_host_response_too_large" and "100,000" in info.value.message


async def test_slow_host_times_out_at_the_deadline(fake):
    import asyncio
    import time

    async def slow(req):
        await asyncio.sleep(3)
        return web.Response(text="late")

    fake.route("content", "slow", slow)
    c = client()
    with pytest.raises(MedlitError) as info:
        await c.fetch(f"{fake.url('content')}/slow", deadline=time.monotonic() + 0.3)
    await c.aclose()
    assert info.value.reason == "oa_host_deadline_exceeded" and info.value.retryable


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        (403, "oa_host_access_denied"),
        (404, "oa_host_resource_not_found"),
        (410, "oa_host_resource_not_found"),
        (429, "oa_host_rate_limited"),
        (503, "oa_host_server_error"),
        (400, "oa_host_bad_request"),
    ],
)
async def test_statuses_map_to_errors(fake, status, reason):
    fake.route("content", "s", lambda req: web.Response(status=status, text="no"))
    err = await refused(client(), f"{fake.url('content')}/s")
    assert err.reason == reason and str(status) in err.message


async def test_open_web_service_is_built_as_a_web_client(make_runtime):
    async with make_runtime(UNPAYWALL_EMAIL="ops@example.org") as rt:
        ctx = rt.context("unpaywall")
        web_client = ctx.web("oa_web")
        assert isinstance(web_client, WebClient)
        assert "mailto:ops@example.org" in web_client.config.headers["User-Agent"]
        with pytest.raises(MedlitError) as info:
            ctx.web("unpaywall")  # a paced API client, not an open-web one
        assert "OpenWebSpec" in info.value.message


def test_malformed_loopback_flag_is_refused():
    from medlit.core.settings import SettingsError

    with pytest.raises(SettingsError):
        client(loopback=False, MEDLIT_ALLOW_LOOPBACK_CONTENT="perhaps")


async def test_a_redirect_without_a_location_is_an_invalid_response(fake):
    fake.route("content", "nowhere", lambda req: web.Response(status=302))
    err = await refused(client(), f"{fake.url('content')}/nowhere")
    assert err.reason == "oa_host_invalid_response"
    assert "answered HTTP 302 without a Location" in err.message and len(fake.of("content")) == 1


async def test_a_429_holds_back_the_next_fetch_from_that_host(fake):
    import time

    fake.route("content", "busy", lambda req: web.Response(status=429, headers={"Retry-After": "1"}))
    url = serve(fake, "page")
    c = client()
    with pytest.raises(MedlitError) as info:
        await c.fetch(f"{fake.url('content')}/busy")
    assert info.value.reason == "oa_host_rate_limited" and "HTTP 429" in info.value.message
    with pytest.raises(MedlitError) as info:  # the host asked for a second: not before then
        await c.fetch(url, deadline=time.monotonic() + 0.3)
    assert info.value.reason == "queue_full" and info.value.retryable
    started = time.monotonic()
    resp = await c.fetch(url)
    await c.aclose()
    assert resp.body == b"hello" and time.monotonic() - started >= 0.5
    assert len(fake.of("content", "page")) == 1  # the refused fetch never reached the host


async def test_access_denied_and_refused_addresses_say_to_try_another_source(fake):
    fake.route("content", "paywall", lambda req: web.Response(status=403))
    denied = await refused(client(), f"{fake.url('content')}/paywall")
    assert denied.recovery == "The host refused access to this copy; try another source."
    private = await refused(client(), "http://10.1.2.3/paper.pdf")
    assert private.reason == "oa_host_address_refused" and "a private address" in private.message
    assert private.recovery == "The copy is on a host this server may not reach; try another source."
