"""Paced, retrying, size-capped HTTP clients, one per upstream service.

One ``aiohttp`` session lives for the server's lifetime (built by
:func:`~medlit.core.net.session.new_session`); every :class:`UpstreamClient` shares it. Services
of one pacing group share one :class:`~medlit.core.net.pacing.Pacer`. Each call has a single
deadline that covers queue wait, every attempt and every backoff. What the persistent cache may
answer is decided by :class:`~medlit.core.cache.CachedCalls`, which sends through the client.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Unpack
from urllib.parse import urljoin, urlsplit

from .. import errors as E
from .. import xml as _xml
from ..cache import Cache, CachedCalls, matching
from ..errors import MedlitError, upstream_error
from ..redact import Redactor
from ..settings import Settings
from ..xml import XMLRefused, scan_prolog
from .batching import Batch, Batching
from .pacing import Pacing, Slots
from .request import Call, Repeated, ServiceConfig, pairs, prepare
from .wire import (
    CALL_PROGRESS,
    REDIRECT_STATUSES,
    Expect,
    RequestOptions,
    Response,
    call_deadline,
    rate_limit_wait,
    read_capped,
)

if TYPE_CHECKING:  # aiohttp costs ~0.1 s to import; `medlit tools` and `plugins` never send
    import aiohttp

log = logging.getLogger("medlit.http")

# What a DNS failure or a refused connection means here: the machine's network, not the service.
OFFLINE_HINT = (
    "Check this machine's network connection, DNS and proxy settings (HTTPS_PROXY / HTTP_PROXY): "
    "the service's host could not be reached from here."
)


class _Retry(Exception):
    """An attempt failed in a way worth another try."""

    def __init__(self, error: MedlitError, retry_after: float | None = None) -> None:
        self.error, self.retry_after = error, retry_after


def looks_html(body: bytes, content_type: str) -> bool:
    head = body[:1024].lstrip().lower()
    return (
        content_type == "text/html"
        or head.startswith((b"<!doctype html", b"<html"))
        or b"<html" in head[:300]
    )


def xml_stops_after_prolog(body: bytes) -> bool:
    """True for an XML body with a declaration/DOCTYPE but no root element (a reset upstream)."""
    return scan_prolog(body)[0] is None


class UpstreamClient:
    """A paced, retrying client for one service. Use :meth:`get` / :meth:`post`."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        config: ServiceConfig,
        settings: Settings,
        pacer: Pacing | None = None,
        redactor: Redactor | None = None,
        cache: Cache | None = None,
    ) -> None:
        from .session import is_paced_session  # aiohttp is loaded by now: the session exists

        # The session tells the pacer when a request's headers go out and keeps aiohttp from
        # re-sending a request past the pacer on its own (see core/net/session.py). (A unit test
        # of what never sends may pass None.)
        if session is not None and not is_paced_session(session):
            raise ValueError("UpstreamClient needs a session from medlit.core.net.session.new_session()")
        self.session = session
        self.config = config
        self.settings = settings
        self.pacer = pacer
        self.cache = cache
        self.redact = redactor or Redactor(settings.secrets)
        self.slots = Slots(config.concurrency, config.max_queue, config.name, config.label)
        self._inflight: dict[tuple[Any, ...], list[Any]] = {}  # identical requests in flight: [task, waiters]
        self.requests_sent = 0  # attempts that reached the wire (for tests and benchmarks)
        self.shared_hits = 0  # callers served by another caller's identical request in flight
        # Record requests for different ids waiting at once ride in one request (RecordRule.batch_size).
        self.batching = Batching(self)
        self._batched = tuple(r for r in config.record_rules if r.batch_size > 0)
        self._cached: CachedCalls | None = None
        if cache is not None:
            self._cached = CachedCalls(cache, config, self._route, self.redact, self._fail)

    @property
    def cache_hits(self) -> int:
        """Answers (or records) served from the persistent cache."""
        return self._cached.hits if self._cached is not None else 0

    # -- public API -----------------------------------------------------------------------
    async def get(
        self, path: str = "", params: Mapping[str, Any] | None = None, **kw: Unpack[RequestOptions]
    ) -> Response:
        return await self.request("GET", path, params=params, **kw)

    async def post(
        self, path: str = "", data: Mapping[str, Any] | None = None, **kw: Unpack[RequestOptions]
    ) -> Response:
        return await self.request("POST", path, data=data, **kw)

    async def request(
        self,
        method: str,
        path: str = "",
        *,
        params: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
        expect: Expect = "xml",
        deadline: float | None = None,
        ok_statuses: frozenset[int] | set[int] = frozenset(),
        headers: Mapping[str, str] | None = None,
        identify: bool = True,
        parse: Callable[[Response], Any] | None = None,
        share: bool = True,
        cached: bool = True,
    ) -> Response:
        """Send a request and return a response whose body matches ``expect``.

        ``deadline`` is a ``time.monotonic()`` instant; the tool call's own deadline (set by the
        runtime) caps it, and without either the request gets ``MEDLIT_CALL_DEADLINE`` seconds
        in total. Statuses in ``ok_statuses`` are returned instead of raised (e.g. Unpaywall's
        404 for an unknown DOI). ``parse(response)`` reads the body inside the retry loop: a
        body that fails to parse (a garbled or truncated 200) is retried like any transient
        fault, and the parsed value is kept on ``response.parsed``. Identical requests in
        flight at once share one upstream call, and record requests for different ids waiting at
        once ride in one batched request where the service declares it (``RecordRule.batch_size``;
        each caller gets its own records): ``share=False`` opts out of both. ``cached=False``
        leaves the persistent cache out entirely (neither read, written nor counted): a probe
        measures the upstream itself (``medlit doctor``).
        """
        deadline = call_deadline(self.settings.call_deadline, deadline)
        call = prepare(
            self.config,
            method,
            self._url(path),
            params,
            data,
            expect,
            deadline,
            ok_statuses,
            headers,
            identify,
            parse,
        )
        if cached and self._cached is not None and (hit := await self._cached.answer(path, call)) is not None:
            return hit
        return await (self._route(call, path) if share else self._with_retries(call))

    async def _route(self, call: Call, path: str | None = None) -> Response:
        """Send ``call`` through a batch when a batching rule covers it, else shared as usual."""
        if self._batched:
            if path is None:
                path = self._path_of(call.url)
            rule = matching(self._batched, path, call.sent)
            if rule is not None and isinstance(call.sent.get(rule.id_param), str):
                # Identical requests still share one caller's place in the batch (and one parse).
                return await self._shared(call.share_key(), lambda: self.batching.send(rule, call))
        return await self._send_shared(call)

    def _path_of(self, url: str) -> str:
        base = self.config.base_url
        return url[len(base) :].removeprefix("/") if url.startswith(base) else url

    async def _send_shared(self, call: Call) -> Response:
        return await self._shared(call.share_key(), lambda: self._with_retries(call))

    async def _shared(self, key: tuple[Any, ...], run: Callable[[], Awaitable[Response]]) -> Response:
        """One upstream call for identical concurrent requests. The call is cancelled only when
        every caller waiting on it has gone (a cancelled tool call still stops its own work)."""
        entry = self._inflight.get(key)
        if entry is None:
            task = asyncio.ensure_future(run())
            entry = self._inflight[key] = [task, 0]

            def forget(
                _: asyncio.Future[Response], key: tuple[Any, ...] = key, entry: list[Any] = entry
            ) -> None:
                if self._inflight.get(key) is entry:
                    del self._inflight[key]

            task.add_done_callback(forget)
        else:
            self.shared_hits += 1
        task = entry[0]
        entry[1] += 1
        try:
            return await asyncio.shield(task)
        finally:
            entry[1] -= 1
            if entry[1] == 0 and not task.done():
                task.cancel()

    async def _with_retries(self, call: Call, batch: Batch | None = None) -> Response:
        """``call`` with its retries; for a ``batch``, the request it is sealed into when it leaves."""
        cfg, deadline = self.config, call.deadline
        started = time.monotonic()
        retries = self.settings.max_retries if cfg.max_retries is None else cfg.max_retries
        last: MedlitError | None = None
        attempts = 0
        out_of_time = False
        for attempt in range(retries + 1):
            attempts += 1
            try:
                try:
                    resp = await self._attempt(call, batch)
                except MedlitError as err:
                    if last is None or err.reason != E.QUEUE_FULL:
                        raise
                    attempts -= 1  # a retry that could not start before the deadline: report the fault
                    out_of_time = True
                    break
                if batch is not None and batch.sealed is not None:
                    call, deadline = batch.sealed, batch.sealed.deadline
                if call.parse is not None and resp.status < 300:
                    resp.parsed = self._parsed(resp, call.parse)
                return resp
            except _Retry as retry:
                last = retry.error
                if batch is not None and batch.sealed is not None:
                    call, deadline = batch.sealed, batch.sealed.deadline
                if attempt == retries:
                    break
                wait = self._backoff(attempt, retry.retry_after)
                if time.monotonic() + wait >= deadline:
                    break
                log.info("%s: retrying after %s (%.2fs)", cfg.name, retry.error.reason, wait)
                await _progress(f"{cfg.label}: {retry.error.message}; retrying in {wait:.1f} s")
                await asyncio.sleep(wait)
        assert last is not None
        if (out_of_time or time.monotonic() >= deadline - 0.05) and last.kind != E.RATE_LIMITED:
            raise upstream_error(
                cfg.error_prefix,
                E.DEADLINE_EXCEEDED,
                f"{cfg.label} did not answer in time: {attempts} attempt(s) in {time.monotonic() - started:.0f} s, "
                f"the last one: {last.message}",
                recovery="Nothing was returned for this request. Retry the call; if it keeps timing out, "
                "ask for fewer records per call or try again later.",
                attempts=attempts,
            )
        raise last

    def _parsed(self, resp: Response, parse: Callable[[Response], Any]) -> Any:
        try:
            return parse(resp)
        except XMLRefused as exc:  # hostile (entities, DTD): not a transient fault
            raise self._fail(
                E.INVALID_RESPONSE, f"{self.config.label} sent XML that was refused ({exc})"
            ) from None
        except (_xml.XMLSyntaxError, ValueError, UnicodeDecodeError) as exc:
            raise _Retry(
                self._fail(
                    E.INVALID_RESPONSE,
                    f"{self.config.label} sent an answer that could not be read ({type(exc).__name__})",
                )
            ) from None

    # -- internals --------------------------------------------------------------------------
    def _url(self, path: str) -> str:
        base = self.config.base_url
        if not path:
            return base + "/"  # the ID converter is documented as .../articles/?ids=...
        return base + (path if path.startswith("/") else "/" + path)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.settings.retry_after_cap)
        base = min(8.0, self.settings.backoff_base * (2.0**attempt))
        return base * (0.5 + random.random() / 2)  # jitter keeps parallel callers apart

    def _fail(self, kind: str, message: str, **details: Any) -> MedlitError:
        details = {k: self.redact(v) if isinstance(v, str) else v for k, v in details.items()}
        return upstream_error(self.config.error_prefix, kind, self.redact(message), **details)

    async def _attempt(self, call: Call, batch: Batch | None = None) -> Response:
        cfg, deadline = self.config, call.deadline
        method, url, query, form = call.method, call.url, call.query, call.form
        for hop in range(4):  # the request plus at most 3 redirects
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._fail(E.DEADLINE_EXCEEDED, f"{cfg.label} call ran out of time")
            await self.slots.acquire(deadline)
            sent: Callable[[], None] | None = None
            try:
                if self.pacer is not None:
                    sent = await self.pacer.acquire(deadline, cfg.name, cfg.lane, hold=True)
                if batch is not None and hop == 0:  # leaving now: who rides in it is settled
                    call = batch.seal()
                    method, url, query, form = call.method, call.url, call.query, call.form
                    deadline = call.deadline
                resp = await self._send(method, url, query, form, deadline, call.headers, sent)
            finally:
                if sent is not None:
                    sent()  # no-op when the headers went out (the trace below already called it)
                self.slots.release()
            if resp.status in REDIRECT_STATUSES:
                url = self._follow(url, resp)
                if resp.status == 303:
                    method, form = "GET", None
                # The Location is the whole target: re-sending our query would repeat each parameter.
                if resp.status == 303 or urlsplit(url).query:
                    query = {}
                continue
            return self._classify(resp, call.expect, call.ok_statuses)
        raise self._fail(E.REDIRECT_REFUSED, f"{cfg.label} redirected more than 3 times")

    def _follow(self, url: str, resp: Response) -> str:
        name = self.config.label
        location = resp.headers.get("Location", "").strip()
        if not location:  # urljoin would make it the same URL again: a loop, not a redirect
            raise self._fail(E.INVALID_RESPONSE, f"{name} answered HTTP {resp.status} without a Location")
        target = urljoin(url, location)
        parts = urlsplit(target)
        host = (parts.hostname or "").lower()
        if host not in self.config.allowed_hosts:
            raise self._fail(
                E.REDIRECT_REFUSED,
                f"{name} redirected to {host or 'an empty location'}, outside its allowed hosts",
                host=host,
            )
        # The request carries the API key and email: never onto plain HTTP once it was HTTPS.
        if parts.scheme not in ("http", "https") or (urlsplit(url).scheme, parts.scheme) == ("https", "http"):
            raise self._fail(
                E.REDIRECT_REFUSED,
                f"{name} redirected from {urlsplit(url).scheme} to {parts.scheme or 'no'} scheme; refused",
                host=host,
            )
        return target

    async def _send(
        self,
        method: str,
        url: str,
        query: dict[str, str | Repeated],
        form: dict[str, str | Repeated] | None,
        deadline: float,
        headers: Mapping[str, str] | None,
        sent: Callable[[], None] | None = None,
    ) -> Response:
        import aiohttp  # already loaded by the session's owner; see the TYPE_CHECKING import

        from .session import ResendRefused

        cfg, cap = self.config, self.settings.max_body_bytes
        timeout = aiohttp.ClientTimeout(
            total=max(0.01, min(self.settings.request_timeout, deadline - time.monotonic()))
        )
        self.requests_sent += 1
        try:
            async with self.session.request(
                method,
                url,
                params=pairs(query) or None,
                data=pairs(form),
                allow_redirects=False,
                timeout=timeout,
                headers=headers,
                trace_request_ctx=sent,  # called by the trace when the headers go out
            ) as r:
                body = await read_capped(
                    r, cap, cfg.label, lambda message: self._fail(E.RESPONSE_TOO_LARGE, message)
                )
                return Response(r.status, self.redact(url), dict(r.headers), body)
        except MedlitError:
            raise
        except (
            TimeoutError
        ):  # connected (or connecting), then no answer in time: a timeout, not "unreachable"
            raise _Retry(
                self._fail(E.TIMED_OUT, f"{cfg.label} did not answer within {timeout.total or 0:.3g} s")
            ) from None
        except (aiohttp.ClientPayloadError, aiohttp.ClientResponseError) as exc:
            raise _Retry(
                self._fail(
                    E.INVALID_RESPONSE, f"{cfg.label} sent an incomplete answer ({type(exc).__name__})"
                )
            ) from None
        except aiohttp.ClientConnectorDNSError:  # a name that does not resolve will not in a second either
            raise self._fail(
                E.UNREACHABLE, f"{cfg.label} could not be reached: its host name does not resolve"
            ).but(recovery=OFFLINE_HINT) from None
        except aiohttp.ClientConnectorError as exc:  # no route, refused, reset: the network's side
            if isinstance(exc, aiohttp.ClientSSLError):  # a certificate problem is the service's side
                raise _Retry(
                    self._fail(E.UNREACHABLE, f"{cfg.label} could not be reached ({type(exc).__name__})")
                ) from None
            raise _Retry(
                self._fail(
                    E.UNREACHABLE, f"{cfg.label} could not be reached ({type(exc).__name__}: {exc.os_error})"
                ).but(recovery=OFFLINE_HINT)
            ) from None
        except aiohttp.ClientError as exc:
            failed = exc.original if isinstance(exc, ResendRefused) else exc  # name aiohttp's own error
            raise _Retry(
                self._fail(E.UNREACHABLE, f"{cfg.label} could not be reached ({type(failed).__name__})")
            ) from None

    def _follow_pace(self, resp: Response) -> None:
        """Pace the service at the rate its answer announces (ServiceSpec.pace_from), bounded."""
        cfg = self.config
        if cfg.pace_from is None or self.pacer is None or cfg.pace_ceiling <= 0:
            return
        try:
            rate = cfg.pace_from(resp.headers)
        except Exception:  # a malformed header must never fail the request it came with
            return
        if rate is None or not rate > 0:
            return
        rate = min(float(rate), cfg.pace_ceiling)
        if rate != getattr(self.pacer, "rate", None):
            self.pacer.set_rate(rate)

    def _classify(self, resp: Response, expect: Expect, ok_statuses: frozenset[int]) -> Response:
        """The answer, or the error it amounts to (a ``_Retry`` when asking again may help): its
        status first (a status the caller accepts is returned as it is), then whether the body is
        what was asked for, then the service's own check (``ServiceSpec.inspect``)."""
        self._follow_pace(resp)
        if resp.status == 429:
            wait = rate_limit_wait(resp.headers, self.settings.retry_after_cap)
            if self.pacer is not None:
                self.pacer.cooldown(wait)
            raise _Retry(
                self._fail(E.RATE_LIMITED, f"{self.config.label} is rate limiting requests (HTTP 429)"),
                retry_after=wait,
            )
        if resp.status in ok_statuses:
            return resp
        self._check_status(resp)
        self._check_body(resp, expect)
        self._inspect(resp)
        return resp

    def _check_status(self, resp: Response) -> None:
        """Any status but 2xx as its error: 5xx and 408 are retried, 4xx are the request's fault."""
        cfg, status = self.config, resp.status
        if status >= 500:
            raise _Retry(self._fail(E.SERVER_ERROR, f"{cfg.label} answered HTTP {status} (a server error)"))
        if status == 408:
            raise _Retry(self._fail(E.TIMED_OUT, f"{cfg.label} timed out (HTTP 408)"))
        if status in (404, 410):
            raise self._fail(
                E.RESOURCE_NOT_FOUND, f"{cfg.label} has no such resource (HTTP {status})", status=status
            )
        if status == 414:
            raise self._fail(
                E.BAD_REQUEST, f"{cfg.label} refused an over-long request (HTTP 414)", status=status
            )
        if 400 <= status < 500:
            raise self._fail(
                E.BAD_REQUEST,
                f"{cfg.label} rejected the request (HTTP {status}){_brief(resp, cfg.error_keys)}",
                status=status,
            )
        if status >= 300:
            raise self._fail(E.INVALID_RESPONSE, f"{cfg.label} answered HTTP {status}")

    def _check_body(self, resp: Response, expect: Expect) -> None:
        """A 2xx body that is not the XML or JSON asked for (an HTML error page, an empty or
        malformed document) is retried like a transient fault."""
        cfg = self.config
        if expect in ("xml", "json") and looks_html(resp.body, resp.content_type):
            raise _Retry(
                self._fail(
                    E.INVALID_RESPONSE, f"{cfg.label} sent an HTML error page instead of {expect.upper()}"
                )
            )
        markup = resp.body.lstrip()[:1] == b"<"
        if (expect == "xml" or (expect == "json" and markup)) and xml_stops_after_prolog(resp.body):
            raise _Retry(self._fail(E.INVALID_RESPONSE, f"{cfg.label} sent an XML body with no content"))
        if expect != "json":
            return
        if markup:
            # NCBI may answer a JSON request with XML (its <ERROR> documents): well-formed XML is
            # left to `inspect` and the caller's parser; anything else is no answer at all.
            try:
                resp.xml()
            except XMLRefused as exc:
                raise self._fail(
                    E.INVALID_RESPONSE, f"{cfg.label} sent XML that was refused ({exc})"
                ) from None
            except _xml.XMLSyntaxError:
                raise _Retry(self._fail(E.INVALID_RESPONSE, f"{cfg.label} sent malformed XML")) from None
        else:
            try:
                resp.json()
            except ValueError:
                raise _Retry(self._fail(E.INVALID_RESPONSE, f"{cfg.label} sent malformed JSON")) from None

    def _inspect(self, resp: Response) -> None:
        """The service's own check of a good answer; a retryable error it finds is retried (a
        rate limit in the body cools the pacer down first)."""
        inspect = self.config.inspect
        if inspect is None:
            return
        try:
            inspect(resp)
        except MedlitError as err:
            if err.retryable:
                if err.kind == E.RATE_LIMITED and self.pacer is not None:
                    self.pacer.cooldown(1.0)
                raise _Retry(err) from None
            raise


async def _progress(message: str) -> None:
    notify = CALL_PROGRESS.get()
    if notify is not None:
        try:
            await notify(message)
        except Exception:  # progress is best effort
            log.debug("progress notification failed", exc_info=True)


def _brief(resp: Response, keys: tuple[str, ...]) -> str:
    """A short, safe excerpt of an error body (the service's JSON error fields only)."""
    try:
        data = resp.json()
    except ValueError:
        return ""
    if isinstance(data, dict):
        for key in keys:
            if isinstance(value := data.get(key), str):
                return f": {value[:200]}"
    return ""
