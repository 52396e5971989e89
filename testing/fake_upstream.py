"""A loopback fake of any upstream service: routes per service, a request log, rate limits per
pacing group and fault injection.

Every service is served under its own path prefix, ``http://127.0.0.1:<port>/<service>/<path>``;
:meth:`FakeUpstream.env` gives the ``MEDLIT_BASE_URL_<SERVICE>`` variables that point the
server's clients there. The fake knows no real service: tests register what each one answers.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from medlit.core.host import settings_var_for as base_url_var

Handler = Callable[["Req"], Awaitable[web.StreamResponse] | web.StreamResponse]
Limit = float | Callable[["Req"], float] | None
"""Requests per second a pacing group accepts: a number, a function of the request (a key in
the query raising the limit), or ``None`` for no limit."""

FAULT_KINDS = (
    "429",
    "<status>",
    "slow",
    "timeout",
    "truncated",
    "oversized",
    "invalid_xml",
    "entity_bomb",
    "redirect_foreign",
    "redirect_loop",
    "redirect_local",
    "xml_error_200",
    "json_error_200",
    "html_error",
    "prolog_only",
    "reset",
)


@dataclass
class Req:
    """One request as the fake saw it (query and form merged into ``params``)."""

    service: str
    method: str
    path: str
    params: dict[str, str]
    at: float  # time.monotonic() on arrival
    request: web.Request | None = field(default=None, repr=False)
    pairs: list[tuple[str, str]] = field(default_factory=list, repr=False)  # as sent, repeats kept

    def repeated(self, name: str) -> list[str]:
        """Every value of a parameter as sent, one per occurrence (``id=1&id=2`` -> ['1', '2'])."""
        return [v for k, v in self.pairs if k == name]

    def ids(self, name: str = "id") -> list[str]:
        """A comma-separated parameter as a list (``id=1,2`` or ``id=1&id=2`` -> ['1', '2'])."""
        return [i for i in self.params.get(name, "").split(",") if i]

    @property
    def headers(self) -> Mapping[str, str]:
        return self.request.headers if self.request is not None else {}


@dataclass
class Fault:
    kind: str
    service: str
    path: str | None
    times: int
    options: dict[str, Any]


def xml_response(body: bytes | str, status: int = 200) -> web.Response:
    data = body.encode() if isinstance(body, str) else body
    return web.Response(body=data, status=status, content_type="text/xml", charset="utf-8")


def json_response(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(
        text=json.dumps(data), status=status, content_type="application/json", headers=headers
    )


def text_response(text: str, status: int = 200, content_type: str = "text/plain") -> web.Response:
    return web.Response(text=text, status=status, content_type=content_type)


class FakeUpstream:
    """``async with FakeUpstream(services=("crossref",), limits={"crossref": 5}) as fake: ...``

    ``services`` are the names :meth:`env` points at the fake by default. ``limits`` maps a pacing
    group to its :data:`Limit`; ``groups`` maps a group to the services that share its budget (a
    service in no group is a group of its own). A request over its group's limit in any
    one-second window is answered 429 and listed in :attr:`rate_limited`.
    """

    # Bodies of the faults that send a broken document; subclasses give them a service's flavour.
    truncated_body = b"<?xml version='1.0'?><result><items>" + b"<item>x</item>" * 200
    invalid_xml_body = b"<?xml version='1.0'?><result><items><item>x</items>"
    prolog_only_body = b'<?xml version="1.0" encoding="UTF-8" ?>\n<!DOCTYPE result SYSTEM "result.dtd">\n'
    entity_bomb_body = (
        b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
        b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n'
        b"<result><item>&lol3;</item></result>"
    )
    html_error_body = (
        b"<!DOCTYPE html><html><head><title>Service unavailable</title></head>"
        b"<body><h1>The service is temporarily unavailable</h1></body></html>"
    )

    def __init__(
        self,
        *,
        services: Iterable[str] = (),
        limits: Mapping[str, Limit] | None = None,
        groups: Mapping[str, Iterable[str]] | None = None,
        port: int = 0,
    ) -> None:
        self.services: list[str] = list(dict.fromkeys(services))
        self.limits: dict[str, Limit] = dict(limits or {})
        self.groups: dict[str, tuple[str, ...]] = {g: tuple(s) for g, s in (groups or {}).items()}
        self.requests: list[Req] = []
        self.rate_limited: list[Req] = []  # requests answered 429 for exceeding their group's limit
        # The window a group's limit is counted over, in seconds (the upstreams' own: one second).
        # A fake in the client's own process stamps arrivals when its thread gets the interpreter
        # back, which a busy client can delay by a few hundred ms; a test may narrow the window to
        # judge pacing without judging that delay.
        self.window = 1.0
        self.routes: dict[tuple[str, str], Handler] = {}
        self.faults: list[Fault] = []
        self.port = port
        self._runner: web.AppRunner | None = None

    # -- lifecycle ------------------------------------------------------------------------
    def app(self) -> web.Application:
        app = web.Application(client_max_size=50_000_000)
        app.router.add_route("*", "/{service}/{path:.*}", self._dispatch)
        return app

    async def start(self) -> FakeUpstream:
        # Handlers that stall on purpose (timeouts, never-answering hosts) are cut at shutdown
        # instead of being waited for: a test's teardown would otherwise wait out the stall.
        self._runner = web.AppRunner(self.app(), access_log=None, shutdown_timeout=0.25)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeUpstream:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- where ------------------------------------------------------------------------------
    def url(self, service: str) -> str:
        """The base URL that serves ``service`` (what ``MEDLIT_BASE_URL_<SERVICE>`` is set to)."""
        return f"http://127.0.0.1:{self.port}/{service}"

    def env(self, *services: str, **extra: str) -> dict[str, str]:
        """``MEDLIT_BASE_URL_<SERVICE>`` for each service named (default: ``self.services``),
        plus ``extra`` variables."""
        names = services or tuple(self.services)
        env = {base_url_var(s): self.url(s) for s in names}
        env.update(extra)
        return env

    # -- configuration ----------------------------------------------------------------------
    def route(self, service: str, path: str, handler: Handler) -> None:
        """Answer ``/<service>/<path>`` (exact path, no leading slash) with ``handler(req)``,
        a function or coroutine returning an ``aiohttp.web`` response."""
        self.routes[(service, path.lstrip("/"))] = handler
        if service not in self.services:
            self.services.append(service)

    def respond(
        self,
        service: str,
        path: str,
        body: bytes | str | dict[str, Any] | list[Any],
        status: int = 200,
        content_type: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Answer ``/<service>/<path>`` with a fixed body: a dict or list as JSON, else bytes or
        text (JSON or XML by its first character unless ``content_type`` says)."""

        def handler(req: Req) -> web.Response:
            if isinstance(body, (dict, list)):
                return json_response(body, status, headers)
            data = body.encode() if isinstance(body, str) else body
            ctype = content_type or (
                "application/json" if data.lstrip().startswith((b"{", b"[")) else "text/xml"
            )
            return web.Response(body=data, status=status, content_type=ctype, headers=headers)

        self.route(service, path, handler)

    def fault(self, kind: str, service: str, path: str | None = None, times: int = 1, **options: Any) -> None:
        """Answer the next ``times`` requests to ``service`` (and ``path``, when given) with a fault.

        Kinds: ``429`` (retry_after=s), any other HTTP status as digits (``"503"``), ``slow``
        (delay=s, then the route answers), ``timeout`` (delay=s, then 504), ``truncated`` (a body
        cut short of its Content-Length), ``oversized`` (size=n, declared=bool), ``invalid_xml``,
        ``entity_bomb``, ``redirect_foreign`` (to=url), ``redirect_loop``, ``redirect_local``
        (to=path), ``xml_error_200`` (root=, element=, message=), ``json_error_200`` (key=,
        message=), ``html_error``, ``prolog_only`` and ``reset`` (the connection closed)."""
        if not (kind.isdigit() or kind in FAULT_KINDS):
            raise ValueError(f"unknown fault kind {kind!r}; one of {', '.join(FAULT_KINDS)}")
        self.faults.append(Fault(kind, service, path, times, options))

    # -- the log ----------------------------------------------------------------------------
    def of(self, service: str, path: str | None = None) -> list[Req]:
        """Requests to ``service`` (and ``path``), in arrival order, 429s included."""
        return [r for r in self.requests if r.service == service and (path is None or r.path == path)]

    def group_of(self, service: str) -> str:
        for group, members in self.groups.items():
            if service in members:
                return group
        return service

    def busiest_second(self, *services: str) -> int:
        """The most requests to ``services`` (default: all) that started within one second of
        each other: what a pacing test compares with the declared rate."""
        times = sorted(r.at for r in self.requests if not services or r.service in services)
        best = 0
        for i, t in enumerate(times):
            best = max(best, sum(1 for u in times[i:] if u - t < 1.0))
        return best

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
        limit = self._limit_for(req)
        if limit is not None and self._over_limit(req, limit):
            self.rate_limited.append(req)
            return self.rate_limited_response(req, limit)
        fault = self._take_fault(service, path)
        if fault is not None:
            return await self._apply_fault(fault, request, req)
        return await self._answer(req)

    async def _answer(self, req: Req) -> web.StreamResponse:
        handler = self.routes.get((req.service, req.path))
        if handler is None:
            return web.Response(status=404, text=f"fake upstream: no route for {req.service}/{req.path}")
        result = handler(req)
        if isinstance(result, web.StreamResponse):
            return result
        return await result

    def rate_limited_response(self, req: Req, limit: float) -> web.StreamResponse:
        """The answer to a request over its group's limit (override for a service's own body)."""
        return json_response(
            {"error": "API rate limit exceeded", "count": str(int(limit) + 1), "limit": str(int(limit))}, 429
        )

    def _limit_for(self, req: Req) -> float | None:
        limit = self.limits.get(self.group_of(req.service))
        return limit(req) if callable(limit) else limit

    def _over_limit(self, req: Req, limit: float) -> bool:
        group = self.group_of(req.service)
        limited = {id(r) for r in self.rate_limited}  # by identity: Req compares field by field
        count = 0
        for r in reversed(self.requests):  # in arrival order: only the last second's are counted
            if req.at - r.at >= self.window:
                break
            if id(r) not in limited and self.group_of(r.service) == group:
                count += 1
        return count > limit

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
            return json_response({"error": "API rate limit exceeded"}, 429, headers)
        if k.isdigit():
            return web.Response(status=int(k), text=o.get("text", "upstream failure"))
        if k == "slow":
            await asyncio.sleep(o.get("delay", 1.0))
            return await self._answer(req)
        if k == "timeout":
            await asyncio.sleep(o.get("delay", 30.0))
            return web.Response(status=504)
        if k == "truncated":
            body = o.get("body", self.truncated_body)
            resp = web.StreamResponse(status=200, headers={"Content-Type": o.get("content_type", "text/xml")})
            resp.content_length = len(body) + 5000
            await resp.prepare(request)
            await resp.write(body[: len(body) // 2])
            if request.transport is not None:
                request.transport.close()
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
            return xml_response(o.get("body", self.invalid_xml_body))
        if k == "entity_bomb":
            return xml_response(self.entity_bomb_body)
        if k == "redirect_foreign":
            raise web.HTTPFound(o.get("to", "https://evil.example.org/steal"))
        if k == "redirect_loop":
            raise web.HTTPFound(f"/{req.service}/{req.path}?loop={len(self.requests)}")
        if k == "redirect_local":
            raise web.HTTPFound(f"/{req.service}/{o['to']}")
        if k == "xml_error_200":
            root, element = o.get("root", "result"), o.get("element", "ERROR")
            message = _xml_text(o.get("message", "unspecified error"))
            return xml_response(f"<?xml version='1.0'?><{root}><{element}>{message}</{element}></{root}>")
        if k == "json_error_200":
            return json_response({o.get("key", "error"): o.get("message", "API rate limit exceeded")})
        if k == "html_error":
            return web.Response(body=self.html_error_body, content_type="text/html")
        if k == "prolog_only":
            return xml_response(self.prolog_only_body)
        if k == "reset":
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=500)
        raise ValueError(f"unknown fault kind {k}")


def _xml_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")
