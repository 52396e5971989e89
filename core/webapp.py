"""The plugins' pages over Streamable HTTP (``medlit serve --http``): each declared
:class:`~medlit.core.types.WebPage` at its path, for the principals the server authenticates.

Per page at ``/<path>``: ``/<path>/`` the entry, ``/<path>/<asset>`` its files, ``POST
/<path>/api/call`` a tool call (``{"tool", "arguments"}``: only the tools the page declares, run
by the same runtime and principal rules as an MCP call), ``GET /<path>/api/resource?uri=`` a
resource of the page's plugin as a download, and ``/<path>/signin`` / ``signout``.

Signing in: with authentication configured (``MEDLIT_AUTH_TOKENS``, OAuth), a person pastes the
same bearer token an MCP client sends; it is kept in an ``HttpOnly; SameSite=Strict`` cookie and
verified again at every request (a revoked token stops working at once). Without authentication
(loopback), every request is the local user's, as over MCP.

Defences: every response carries a Content-Security-Policy allowing only the page's own files
(no inline script, no framing); every POST needs the CSRF token the entry carries in ``<meta
name="medlit-csrf">`` (an HMAC of the session under a per-process key) in ``X-CSRF-Token`` and, when
the browser sends them, a same-origin ``Origin`` and ``Sec-Fetch-Site``. The entry is ``no-store``
(it carries the token); assets are cached an hour and revalidated by ETag.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import mimetypes
import os
import re
from collections.abc import Awaitable, Callable
from html import escape
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .auth import LOCAL_PRINCIPAL, AuthConfig, MedlitAccessToken
from .host import Host
from .runtime import Runtime
from .types import WebPage
from .webpages import PageFileError, asset_name_ok, page_file, with_meta

log = logging.getLogger("medlit.webapp")

COOKIE = "medlit_session"
CSRF_HEADER = "x-csrf-token"
MAX_BODY = 16 * 1024 * 1024  # bytes of a tool call's JSON (an imported file travels in it)
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on form posts
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")

Endpoint = Callable[[Request], Awaitable[Response]]


class _Session:
    """Who a browser request is for, and its CSRF token."""

    def __init__(self, principal: str, token: str, key: bytes) -> None:
        self.principal = principal
        self.csrf = hmac.new(key, ("session:" + token).encode(), hashlib.sha256).hexdigest()


class Pages:
    """The routes of every page: sessions, CSRF and the runtime the MCP server shares."""

    def __init__(self, host: Host, shared: dict[str, Any], auth: AuthConfig | None) -> None:
        self.host = host
        self.shared = shared
        self.auth = auth
        self.key = os.urandom(32)  # CSRF tokens last as long as the process

    async def session(self, request: Request) -> _Session | None:
        if self.auth is None:
            return _Session(LOCAL_PRINCIPAL, "", self.key)
        token = request.cookies.get(COOKIE, "")
        found = await self.auth.verify_token(token) if token else None
        if not isinstance(found, MedlitAccessToken):
            return None
        return _Session(found.principal, token, self.key)

    def runtime(self) -> Runtime | None:
        rt = self.shared.get("runtime")
        return rt if isinstance(rt, Runtime) else None

    def routes(self, page: WebPage) -> list[BaseRoute]:
        base = page.path.rstrip("/")

        async def to_entry(request: Request) -> Response:
            return _redirect(base + "/")

        return [
            Route(base, _secured(to_entry), methods=["GET"]),
            Route(base + "/", _secured(lambda r: self.entry(r, page)), methods=["GET"]),
            Route(base + "/signin", _secured(lambda r: self.sign_in(r, page)), methods=["POST"]),
            Route(base + "/signout", _secured(lambda r: self.sign_out(r, page)), methods=["POST"]),
            Route(base + "/api/call", _secured(lambda r: self.call(r, page)), methods=["POST"]),
            Route(base + "/api/resource", _secured(lambda r: self.resource(r, page)), methods=["GET"]),
            Route(base + "/{name}", _secured(lambda r: self.asset(r, page)), methods=["GET"]),
        ]

    async def entry(self, request: Request, page: WebPage) -> Response:
        session = await self.session(request)
        if session is None:
            return _sign_in_form(page)
        try:
            document = page_file(page.package, page.entry).body.decode("utf-8")
        except PageFileError as exc:
            log.error("page %s of plugin %s: %s", page.path, page.plugin, exc)
            return Response("This page's files are missing from the installation.", 500)
        values = {"medlit-csrf": session.csrf, "medlit-mode": "http", "medlit-api": page.path.rstrip("/")}
        if self.auth is not None:
            values["medlit-principal"] = session.principal
        return HTMLResponse(with_meta(document, values), headers={"Cache-Control": "no-store"})

    async def asset(self, request: Request, page: WebPage) -> Response:
        name = request.path_params["name"]
        if name not in page.assets or not asset_name_ok(name):
            return Response("Not found", 404)
        try:
            found = page_file(page.package, name)
        except PageFileError:
            return Response("Not found", 404)
        headers = {"ETag": found.etag, "Cache-Control": "public, max-age=3600"}
        if request.headers.get("if-none-match") == found.etag:
            return Response(status_code=304, headers=headers)
        return Response(found.body, media_type=found.content_type, headers=headers)

    async def sign_in(self, request: Request, page: WebPage) -> Response:
        base = page.path.rstrip("/") + "/"
        if not _same_origin(request):
            return Response("Cross-site sign-in refused.", 403)
        if self.auth is None:
            return _redirect(base)
        form = await request.form()
        token = str(form.get("token") or "").strip()
        found = await self.auth.verify_token(token) if token else None
        if not isinstance(found, MedlitAccessToken):
            return _sign_in_form(page, "That token is not accepted here.", 401)
        response = _redirect(base)
        response.set_cookie(
            COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https", path="/"
        )
        return response

    async def sign_out(self, request: Request, page: WebPage) -> Response:
        refused = await self._refuse_post(request)
        if refused is not None:
            return refused
        response = _redirect(page.path.rstrip("/") + "/")
        response.delete_cookie(COOKIE, path="/")
        return response

    async def _refuse_post(self, request: Request) -> Response | None:
        """A POST without a session, from another site or without the session's CSRF token."""
        session = await self.session(request)
        if session is None:
            return _problem(401, "signed_out", "Not signed in.", "Sign in again with your token.")
        if not _same_origin(request):
            return _problem(403, "cross_site", "Cross-site request refused.", "Use the page itself.")
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent.encode(), session.csrf.encode()):
            return _problem(403, "csrf", "The request has no valid CSRF token.", "Reload the page.")
        return None

    async def call(self, request: Request, page: WebPage) -> Response:
        refused = await self._refuse_post(request)
        if refused is not None:
            return refused
        session = await self.session(request)
        rt = self.runtime()
        if session is None or rt is None:
            return _problem(503, "starting", "The server is starting.", "Try again in a moment.")
        body = await request.body()
        if len(body) > MAX_BODY:
            return _problem(413, "too_large", "The request is too large.", "Send less at once.")
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if not isinstance(payload, dict) or not isinstance(payload.get("tool"), str):
            return _problem(400, "bad_request", "Send {tool, arguments}.", "Name a tool.")
        tool, arguments = payload["tool"], payload.get("arguments") or {}
        if tool not in page.tools or not isinstance(arguments, dict):
            return _problem(403, "tool_not_allowed", f"This page does not call {tool[:60]!r}.", "")
        outcome = await rt.call(tool, arguments, principal=session.principal)
        answer: dict[str, Any] = {"ok": outcome.error is None, "text": outcome.text, "data": outcome.data}
        if outcome.error is not None:
            answer["error"] = outcome.error.to_dict()
        return JSONResponse(answer, headers={"Cache-Control": "no-store"})

    async def resource(self, request: Request, page: WebPage) -> Response:
        session = await self.session(request)
        rt = self.runtime()
        if session is None:
            return _problem(401, "signed_out", "Not signed in.", "Sign in again with your token.")
        if rt is None:
            return _problem(503, "starting", "The server is starting.", "Try again in a moment.")
        uri = request.query_params.get("uri", "")[:2000]
        spec, _ = self.host.resource_for(uri)
        if spec is None or spec.plugin != page.plugin:
            return _problem(404, "not_found", "No such file here.", "")
        text, err = await rt.read_resource(uri, principal=session.principal)
        if err is not None or text is None:
            return _problem(404, "not_found", err.message if err else "No such file.", "")
        name = _FILENAME.sub("_", uri.rsplit("/", 1)[-1])[:120] or "download"
        kind = mimetypes.guess_type(name)[0] or "text/plain"
        return Response(
            text.encode("utf-8"),
            media_type=kind + "; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
        )


def page_routes(host: Host, shared: dict[str, Any], auth: AuthConfig | None) -> list[BaseRoute]:
    """The routes of every page the active plugins declare."""
    pages = Pages(host, shared, auth)
    return [route for page in host.pages.values() for route in pages.routes(page)]


def _secured(endpoint: Endpoint) -> Endpoint:
    """``endpoint`` with the security headers on every answer."""

    async def run(request: Request) -> Response:
        response = await endpoint(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    return run


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def _same_origin(request: Request) -> bool:
    """No cross-site POST: ``Sec-Fetch-Site`` (when sent) same-origin, ``Origin`` (when sent) this host."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


def _problem(status: int, reason: str, message: str, recovery: str) -> JSONResponse:
    return JSONResponse(
        {
            "ok": False,
            "error": {"reason": reason, "message": message, "recovery": recovery, "retryable": False},
        },
        status_code=status,
        headers={"Cache-Control": "no-store"},
    )


def _sign_in_form(page: WebPage, note: str = "", status: int = 200) -> HTMLResponse:
    """The sign-in form: plain HTML, no script, posting the bearer token once."""
    base = escape(page.path.rstrip("/"))
    said = f'<p role="alert">{escape(note)}</p>' if note else ""
    return HTMLResponse(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in: {escape(page.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>{escape(page.title)}</h1>{said}
<form method="post" action="{base}/signin"><label for="token">Your access token (the bearer token your MCP client uses)</label><br>
<input id="token" name="token" type="password" autocomplete="current-password" required size="50">
<button type="submit">Sign in</button></form></main></body></html>""",
        status_code=status,
        headers={"Cache-Control": "no-store"},
    )
