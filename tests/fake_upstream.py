"""A fake of the six upstream services on loopback, with fault injection.

Tests point the server at it with ``MEDLIT_BASE_URL_<SERVICE>`` (see :meth:`FakeUpstream.env`).
It records every request, enforces NCBI's per-second limit across E-utilities and the ID
converter (429 with NCBI's JSON body when exceeded) and answers from routes that tests
register, from the repo's own small fixtures, or from the shared corpus where present.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from corpus import corpus_root

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SERVICES = ("ncbi", "idconv", "europepmc", "icite", "unpaywall", "openalex")
NCBI_FAMILY = ("ncbi", "idconv")

Handler = Callable[["Req"], Awaitable[web.StreamResponse] | web.StreamResponse]


@dataclass
class Req:
    """One request as the fake saw it (query and form merged into ``params``)."""

    service: str
    method: str
    path: str
    params: dict[str, str]
    at: float
    request: web.Request | None = field(default=None, repr=False)
    pairs: list[tuple[str, str]] = field(default_factory=list, repr=False)  # as sent, repeats kept

    def repeated(self, name: str) -> list[str]:
        """Every value of a parameter as sent, one per occurrence (``id=1&id=2`` -> ['1', '2'])."""
        return [v for k, v in self.pairs if k == name]

    def ids(self) -> list[str]:
        raw = self.params.get("id", "")
        return [i for i in raw.split(",") if i]


@dataclass
class Fault:
    kind: str
    service: str
    path: str | None
    times: int
    options: dict[str, Any]


BOMB = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
    b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n'
    b"<eInfoResult><DbList><DbName>&lol3;</DbName></DbList></eInfoResult>"
)
HTML_ERROR = (
    b"<!DOCTYPE html><html><head><title>Service unavailable</title></head>"
    b"<body><h1>NCBI is temporarily unavailable</h1></body></html>"
)


def xml_response(body: bytes | str, status: int = 200) -> web.Response:
    data = body.encode() if isinstance(body, str) else body
    return web.Response(body=data, status=status, content_type="text/xml", charset="utf-8")


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.Response(text=json.dumps(data), status=status, content_type="application/json")


def fixture_or_corpus(fixture: str, corpus_rel: str | None = None) -> bytes:
    """Prefer the real recorded response when the corpus is present, else our own fixture."""
    root = corpus_root()
    if corpus_rel and root is not None and (root / corpus_rel).exists():
        return (root / corpus_rel).read_bytes()
    return (FIXTURES / fixture).read_bytes()


class FakeUpstream:
    def __init__(self, *, ncbi_limit: float | None = 3.0, ncbi_keyed_limit: float = 10.0) -> None:
        self.ncbi_limit = ncbi_limit
        self.ncbi_keyed_limit = ncbi_keyed_limit
        self.requests: list[Req] = []
        self.rate_limited: list[Req] = []  # requests the fake answered 429 for exceeding the limit
        self.routes: dict[tuple[str, str], Handler] = {}
        self.faults: list[Fault] = []
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._install_defaults()

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self) -> FakeUpstream:
        app = web.Application(client_max_size=50_000_000)
        app.router.add_route("*", "/{service}/{path:.*}", self._dispatch)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> FakeUpstream:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.port}/{service}"

    def env(self, **extra: str) -> dict[str, str]:
        """Environment that points every service at the fake."""
        env = {f"MEDLIT_BASE_URL_{s.upper()}": self.url(s) for s in SERVICES}
        env.update(extra)
        return env

    # -- configuration ----------------------------------------------------------------------
    def route(self, service: str, path: str, handler: Handler) -> None:
        self.routes[(service, path)] = handler

    def respond(
        self,
        service: str,
        path: str,
        body: bytes | str | dict | list,
        status: int = 200,
        content_type: str | None = None,
    ) -> None:
        def handler(req: Req) -> web.Response:
            if isinstance(body, (dict, list)):
                return json_response(body, status)
            data = body.encode() if isinstance(body, str) else body
            ctype = content_type or (
                "application/json" if data.lstrip().startswith((b"{", b"[")) else "text/xml"
            )
            return web.Response(body=data, status=status, content_type=ctype)

        self.route(service, path, handler)

    def fault(
        self, kind: str, service: str = "ncbi", path: str | None = None, times: int = 1, **options: Any
    ) -> None:
        """Inject a fault for the next ``times`` matching requests. Kinds: 429, 500, 502, 503,
        slow (delay=s), timeout, truncated, oversized (size=n, declared=bool), invalid_xml,
        entity_bomb, redirect_foreign, redirect_loop, redirect_local (to=path), ncbi_error_200
        (message=...), json_error_200, html_error, prolog_only, reset."""
        self.faults.append(Fault(kind, service, path, times, options))

    def of(self, service: str, path: str | None = None) -> list[Req]:
        return [r for r in self.requests if r.service == service and (path is None or r.path == path)]

    # -- dispatch ---------------------------------------------------------------------------
    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        service = request.match_info["service"]
        path = request.match_info["path"]
        pairs = list(request.query.items())
        if request.method == "POST" and request.content_type == "application/x-www-form-urlencoded":
            pairs += [(k, str(v)) for k, v in (await request.post()).items()]
        params: dict[str, str] = {}
        for k, v in pairs:  # a repeated parameter (id=1&id=2) reads as one comma list
            params[k] = f"{params[k]},{v}" if k in params else str(v)
        req = Req(service, request.method, path, params, time.monotonic(), request, pairs)
        self.requests.append(req)
        if service in NCBI_FAMILY and self._over_ncbi_limit(req):
            self.rate_limited.append(req)
            limit = self._limit_for(req)
            return json_response(
                {"error": "API rate limit exceeded", "count": str(int(limit) + 1), "limit": str(int(limit))},
                429,
            )
        fault = self._take_fault(service, path)
        if fault is not None:
            return await self._apply_fault(fault, request, req)
        handler = self.routes.get((service, path))
        if handler is None:
            return web.Response(status=404, text=f"fake upstream: no route for {service}/{path}")
        result = handler(req)
        if asyncio.iscoroutine(result):
            result = await result
        return result  # type: ignore[return-value]

    def _limit_for(self, req: Req) -> float:
        return self.ncbi_keyed_limit if req.params.get("api_key") else (self.ncbi_limit or 0)

    def _over_ncbi_limit(self, req: Req) -> bool:
        if self.ncbi_limit is None:
            return False
        window = [
            r
            for r in self.requests
            if r.service in NCBI_FAMILY and req.at - r.at < 1.0 and r not in self.rate_limited
        ]
        return len(window) > self._limit_for(req)

    def _take_fault(self, service: str, path: str) -> Fault | None:
        for f in self.faults:
            if f.service == service and (f.path is None or f.path == path) and f.times > 0:
                f.times -= 1
                return f
        return None

    async def _apply_fault(self, fault: Fault, request: web.Request, req: Req) -> web.StreamResponse:
        k, o = fault.kind, fault.options
        if k == "429":
            headers = {"Retry-After": str(o["retry_after"])} if "retry_after" in o else {}
            return web.Response(
                status=429,
                text=json.dumps({"error": "API rate limit exceeded"}),
                headers=headers,
                content_type="application/json",
            )
        if k in ("500", "502", "503"):
            return web.Response(status=int(k), text="upstream failure")
        if k == "slow":
            await asyncio.sleep(o.get("delay", 1.0))
            return await self._dispatch_without_fault(req)
        if k == "timeout":
            await asyncio.sleep(o.get("delay", 30.0))
            return web.Response(status=504)
        if k == "truncated":
            body = o.get(
                "body", b"<?xml version='1.0'?><eInfoResult><DbList>" + b"<DbName>pubmed</DbName>" * 200
            )
            resp = web.StreamResponse(status=200, headers={"Content-Type": "text/xml"})
            resp.content_length = len(body) + 5000
            await resp.prepare(request)
            await resp.write(body[: len(body) // 2])
            request.transport.close()  # type: ignore[union-attr]
            return resp
        if k == "oversized":
            size = o.get("size", 6_000_000)
            if o.get("declared", True):
                return web.Response(body=b"<a>" + b"x" * size + b"</a>", content_type="text/xml")
            resp = web.StreamResponse(status=200, headers={"Content-Type": "text/xml"})
            resp.enable_chunked_encoding()
            await resp.prepare(request)
            for _ in range(size // 65536 + 1):
                await resp.write(b"y" * 65536)
            await resp.write_eof()
            return resp
        if k == "invalid_xml":
            return xml_response(b"<?xml version='1.0'?><eInfoResult><DbList><DbName>pubmed</DbList>")
        if k == "entity_bomb":
            return xml_response(BOMB)
        if k == "redirect_foreign":
            raise web.HTTPFound(o.get("to", "https://evil.example.org/steal"))
        if k == "redirect_loop":
            raise web.HTTPFound(f"/{req.service}/{req.path}?loop={len(self.requests)}")
        if k == "redirect_local":
            raise web.HTTPFound(f"/{req.service}/{o['to']}")
        if k == "ncbi_error_200":
            root = o.get("root", "eSearchResult")
            return xml_response(
                f"<?xml version='1.0'?><{root}><ERROR>{o.get('message', 'Invalid db name specified: nosuchdb')}</ERROR></{root}>"
            )
        if k == "json_error_200":
            return json_response({"error": o.get("message", "API rate limit exceeded")})
        if k == "html_error":
            return web.Response(body=HTML_ERROR, content_type="text/html")
        if k == "prolog_only":
            return xml_response(
                b'<?xml version="1.0" encoding="UTF-8" ?>\n<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">\n'
            )
        if k == "reset":
            request.transport.close()  # type: ignore[union-attr]
            return web.Response(status=500)
        raise ValueError(f"unknown fault kind {k}")

    async def _dispatch_without_fault(self, req: Req) -> web.StreamResponse:
        handler = self.routes.get((req.service, req.path))
        if handler is None:
            return web.Response(status=404)
        result = handler(req)
        if asyncio.iscoroutine(result):
            result = await result
        return result  # type: ignore[return-value]

    # -- defaults ---------------------------------------------------------------------------
    def _install_defaults(self) -> None:
        def einfo(req: Req) -> web.Response:
            db = req.params.get("db")
            if not db:
                return xml_response(fixture_or_corpus("ncbi/einfo_dblist.xml", "ncbi/einfo/einfo_dblist.xml"))
            if db == "pubmed":
                return xml_response(fixture_or_corpus("ncbi/einfo_pubmed.xml", "ncbi/einfo/einfo_pubmed.xml"))
            if db == "protein":
                return xml_response(
                    fixture_or_corpus("ncbi/einfo_pubmed.xml", "ncbi/einfo/einfo_protein_version2.xml")
                )
            return xml_response(
                f'<?xml version="1.0"?>\n<eInfoResult><ERROR>Can not retrieve DbInfo for db={db}</ERROR></eInfoResult>'
            )

        self.route("ncbi", "einfo.fcgi", einfo)


def main() -> None:
    """Run the fake standalone (for the MCP Inspector or manual checks):
    ``python tests/fake_upstream.py --port 8765`` prints the MEDLIT_BASE_URL_* settings."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fault", action="append", default=[], help="kind:service:path:times")
    args = parser.parse_args()

    async def run() -> None:
        fake = FakeUpstream(ncbi_limit=None)
        app = web.Application()
        app.router.add_route("*", "/{service}/{path:.*}", fake._dispatch)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", args.port)
        await site.start()
        fake.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        for spec in args.fault:
            kind, service, path, times = [*spec.split(":"), "", "", "", "1"][:4]
            fake.fault(kind, service or "ncbi", path or None, int(times or 1))
        for k, v in fake.env().items():
            print(f"{k}={v}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(run())


if __name__ == "__main__":
    main()
