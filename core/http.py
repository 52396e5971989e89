"""Paced, retrying, size-capped HTTP clients, one per upstream service.

One ``aiohttp`` session lives for the server's lifetime; every :class:`UpstreamClient` shares
it. NCBI's E-utilities and ID converter share one :class:`Pacer` (NCBI counts requests per
IP, not per endpoint). Each call has a single deadline that covers queue wait, every attempt
and every backoff.
"""

from __future__ import annotations

import asyncio
import contextvars
import email.utils
import fnmatch
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict, Unpack
from urllib.parse import urlencode, urljoin, urlsplit

from . import errors as E
from . import xml as _xml
from .cache import Cache, Entry, history_bound, pack, record_key, request_key, unpack
from .errors import MedlitError, queue_full, upstream_error
from .redact import Redactor
from .settings import Settings
from .xml import XMLRefused, parse_xml, scan_prolog

if TYPE_CHECKING:  # aiohttp costs ~0.1 s to import; `medlit tools` and `plugins` never send
    import aiohttp

    from .types import CacheRule, RecordRule

log = logging.getLogger("medlit.http")

Expect = Literal["xml", "json", "text", "bytes"]
# Query strings longer than this go as a POST form body (NCBI answers 414 past ~8 KB; peers
# switch around 2,000 characters).
POST_THRESHOLD = 1800
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def _sent_trace() -> Any:
    """An aiohttp trace that tells the pacer when a request has left. On a kept-alive connection
    that is when its headers go out; on a new one (whose handshakes and path latency we cannot
    see from here) it is when the answer starts coming back, so a slow first request can never
    arrive bunched with the next one."""
    import aiohttp

    def release(context: Any) -> None:
        sent = getattr(context, "trace_request_ctx", None)
        if callable(sent):
            sent()

    async def on_new_connection(session: Any, context: Any, params: Any) -> None:
        context.medlit_new_connection = True

    async def on_headers_sent(session: Any, context: Any, params: Any) -> None:
        if not getattr(context, "medlit_new_connection", False):
            release(context)

    async def on_end(session: Any, context: Any, params: Any) -> None:
        release(context)

    trace = aiohttp.TraceConfig()
    trace.on_connection_create_end.append(on_new_connection)
    trace.on_request_headers_sent.append(on_headers_sent)
    trace.on_request_end.append(on_end)
    trace.on_request_exception.append(on_end)
    trace.freeze()
    trace.medlit_sent = True  # type: ignore[attr-defined]
    return trace


class Slots:
    """A limit on requests in flight with a bounded queue in front of it: a caller is refused at
    once (``queue_full``) when the queue is full, and when no slot frees up before its deadline."""

    def __init__(self, concurrency: int, max_queue: int, service: str, label: str) -> None:
        self.sem = asyncio.Semaphore(max(1, concurrency))
        self.max_queue, self.service, self.label = max_queue, service, label
        self.queued = 0

    async def acquire(self, deadline: float) -> None:
        if self.sem.locked() and self.queued >= self.max_queue:
            raise queue_full(self.service, f"{self.queued} requests are already queued for {self.label}")
        self.queued += 1
        try:
            async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                await self.sem.acquire()
        except TimeoutError:
            raise queue_full(
                self.service, f"no {self.label} request slot freed up before the deadline"
            ) from None
        finally:
            self.queued -= 1

    def release(self) -> None:
        self.sem.release()


class Pacing(Protocol):
    """What a client needs of its pacer: :class:`Pacer` in process, or
    :class:`~medlit.core.shared_pacer.RedisPacer` across replicas."""

    async def acquire(
        self, deadline: float, service: str, lane: float | None = None, *, hold: bool = False
    ) -> Callable[[], None]: ...

    def cooldown(self, seconds: float) -> None: ...

    def set_rate(self, rate: float) -> None: ...


class Pacer:
    """Paces the moments requests are actually sent, shared by every caller of a pacing group.

    Consecutive sends are at least ``1/(rate * headroom)`` apart, measured when each request
    leaves (not when a slot was reserved: a caller that wakes late must not shorten the gap to
    the next one), so no sliding one-second window ever holds more than ``rate`` sends. Callers
    pass one at a time in arrival order. A 429 opens a cooldown that holds back every waiting
    caller, not just the one that drew it.
    """

    def __init__(self, rate: float, headroom: float = 0.85, max_queue: int = 64) -> None:
        self.rate = rate
        self.headroom = headroom
        self.interval = 1.0 / (rate * headroom)
        self.max_queue = max_queue
        self._last = float("-inf")
        self._cooldown_until = 0.0
        self._lock: asyncio.Lock | None = None
        self.waiting = 0
        self.sends: list[float] = []  # recent send moments (the last second), for tests and stats

    def cooldown(self, seconds: float) -> None:
        self._cooldown_until = max(self._cooldown_until, time.monotonic() + seconds)

    def set_rate(self, rate: float) -> None:
        """Pace at ``rate`` from now on (a service announced its limit: see ServiceSpec.pace_from)."""
        if rate > 0:
            self.rate = rate
            self.interval = 1.0 / (rate * self.headroom)

    def earliest(self, now: float, lane: float | None = None) -> float:
        """The first moment the next request may leave. A request of a ``lane`` slower than the
        group (a service without the key that raises the group's limit, e.g. NCBI's ID converter)
        also waits until the whole group sent fewer than ``lane`` requests in the trailing window:
        the service judges an unkeyed request against everything the address sent."""
        at = max(now, self._last + self.interval, self._cooldown_until)
        if lane is not None and lane < self.rate:
            window = 1.0 / self.headroom
            limit = max(1, int(lane))
            recent = [t for t in self.sends if t > at - window]
            if len(recent) >= limit:
                at = max(at, recent[-limit] + window)
        return at

    async def acquire(
        self, deadline: float, service: str, lane: float | None = None, *, hold: bool = False
    ) -> Callable[[], None]:
        """Wait until this caller may send. Raises ``queue_full`` when the queue is full or the
        caller could not send before ``deadline``.

        Returns ``sent()``. Without ``hold`` the send is recorded at once. With ``hold`` the
        pacer stays closed to the next caller until ``sent()`` is called, when the request's
        headers actually go out: a slow new connection (a TLS handshake far from the service)
        then delays the next request instead of shortening the gap between the two on the wire.
        ``sent()`` may be called more than once; the first call counts."""
        if self.waiting >= self.max_queue:
            raise queue_full(service, f"{self.waiting} requests are already queued for {service}")
        if self._lock is None:
            self._lock = asyncio.Lock()
        lock = self._lock
        self.waiting += 1
        try:
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    await lock.acquire()
            except TimeoutError:
                raise queue_full(
                    service, f"the {service} request queue cannot start this call before its deadline"
                ) from None
            try:
                while True:  # re-checked after every sleep: a 429 may have opened a cooldown meanwhile
                    now = time.monotonic()
                    at = self.earliest(now, lane)
                    if at > deadline:
                        raise queue_full(
                            service, f"the {service} request queue cannot start this call before its deadline"
                        )
                    if at <= now:
                        break
                    await asyncio.sleep(at - now)
            except BaseException:
                lock.release()
                raise
        finally:
            self.waiting -= 1
        done = False

        def sent() -> None:
            nonlocal done
            if done:
                return
            done = True
            self._last = time.monotonic()
            self.sends = [t for t in self.sends if self._last - t < 2.0] + [self._last]
            lock.release()

        if not hold:
            sent()
        else:
            # An answer that never comes must not close the pacer for the whole request timeout:
            # after two intervals the request has surely left, whatever the connection did.
            asyncio.get_running_loop().call_later(2 * self.interval, sent)
        return sent


# The deadline and progress of the tool call in flight (set by the runtime for each call): every
# request of the call shares one deadline, and waiting on a retry is reported as progress.
CALL_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "medlit_call_deadline", default=None
)
CALL_PROGRESS: contextvars.ContextVar[Callable[[str], Awaitable[None]] | None] = contextvars.ContextVar(
    "medlit_call_progress", default=None
)


def call_deadline(default: float, deadline: float | None = None) -> float:
    """The ``time.monotonic()`` instant a request must be answered by: ``deadline``, or
    ``default`` seconds from now, never past the deadline of the tool call in flight (set by the
    runtime)."""
    limit = time.monotonic() + default if deadline is None else deadline
    current = CALL_DEADLINE.get()
    return min(limit, current) if current is not None else limit


async def read_capped(r: Any, cap: int, sender: str, too_large: Callable[[str], MedlitError]) -> bytes:
    """The body of the aiohttp response ``r``; ``too_large(message)`` is raised as soon as its
    declared length or the bytes read so far pass ``cap`` (the message names ``sender``)."""
    length = r.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > cap:
        raise too_large(f"{sender} declared {int(length):,} bytes, over the {cap:,}-byte cap")
    chunks: list[bytes] = []
    size = 0
    async for chunk in r.content.iter_chunked(65536):
        size += len(chunk)
        if size > cap:
            raise too_large(f"{sender} sent more than the {cap:,}-byte cap")
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass(frozen=True)
class ServiceConfig:
    """How to talk to one upstream service."""

    name: str
    base_url: str
    error_prefix: str
    allowed_hosts: frozenset[str]
    identify: Mapping[str, str] = field(default_factory=dict)  # params added to every request
    concurrency: int = 4
    max_queue: int = 64
    # Classifies errors hidden in a 2xx body; raises MedlitError or returns None.
    inspect: Callable[[Response], None] | None = None
    title: str = ""  # how messages name the service ("NCBI E-utilities")
    headers: Mapping[str, str] = field(default_factory=dict)  # sent with every request
    max_retries: int | None = None  # None: MEDLIT_MAX_RETRIES
    lane: float | None = None  # this service's own limit when below its pacing group's
    cache_rules: tuple[CacheRule, ...] = ()  # what the persistent cache may keep, per endpoint
    record_rules: tuple[RecordRule, ...] = ()
    get_only: bool = False  # a long GET query stays in the URL (the service documents GET only)
    # Reads the rate (requests/s) a service announces in its answers' headers; None: says nothing.
    pace_from: Callable[[Mapping[str, str]], float | None] | None = None
    pace_ceiling: float = 0.0  # the highest rate pace_from may set (0: no adjusting)

    @property
    def label(self) -> str:
        return self.title or self.name


@dataclass
class Response:
    status: int
    url: str  # redacted, no query string
    headers: Mapping[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "").split(";")[0].strip().lower()

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    parsed: Any = None  # what the request's `parse` callable made of the body
    from_cache: bool = False  # served from the persistent cache (no upstream request)

    def json(self) -> Any:
        if not hasattr(self, "_json"):  # parsed once: classification and the caller share it
            self._json = json.loads(_strip_json_noise(self.body))
        return self._json

    def xml(self) -> Any:  # -> lxml element, parsed once
        if not hasattr(self, "_xml"):
            self._xml = parse_xml(self.body)
        return self._xml


CLAIM_LEASE = 15.0  # seconds another process may take to fetch records it claimed


@dataclass(frozen=True)
class _Call:
    """One prepared request: what goes on the wire (identification added, a long GET turned into
    a POST, the service's headers merged) and how its answer is judged."""

    method: str
    url: str
    query: dict[str, str | Repeated]
    form: dict[str, str | Repeated] | None
    expect: Expect
    deadline: float
    ok_statuses: frozenset[int]
    headers: Mapping[str, str] | None
    parse: Callable[[Response], Any] | None

    @property
    def sent(self) -> dict[str, str | Repeated]:
        return self.form if self.form is not None else self.query

    def share_key(self) -> tuple[Any, ...]:
        """Identical requests in flight at once share one upstream call."""
        return (
            self.method,
            self.url,
            tuple(_pairs(self.query) or ()),
            tuple(_pairs(self.form) or ()) if self.form is not None else None,
            self.expect,
            tuple(sorted(self.ok_statuses)),
            tuple(sorted((self.headers or {}).items())),
            self.parse,
        )


@dataclass
class _RecordBatch:
    """One record-level request in progress: what was asked and what has been gathered."""

    rule: RecordRule
    call: _Call  # the request as asked (all its ids), answers judged without `parse`
    keys: Mapping[str, str]
    pieces: dict[str, bytes]
    extra: list[bytes] = field(default_factory=list)  # records that name no id we can key them by
    url: str = ""


class _Retry(Exception):
    """An attempt failed in a way worth another try."""

    def __init__(self, error: MedlitError, retry_after: float | None = None) -> None:
        self.error, self.retry_after = error, retry_after


def _strip_json_noise(body: bytes) -> bytes:
    # Hand-kept samples (and some proxies) prepend blank lines or a `//` comment line.
    text = body.lstrip()
    while text.startswith(b"//"):
        text = text.split(b"\n", 1)[1].lstrip() if b"\n" in text else b""
    return text


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


def rate_limit_wait(headers: Mapping[str, str], cap: float) -> float:
    """Seconds a 429 answer asks for: its ``Retry-After`` (1 s when absent or unreadable), at
    most ``cap`` (``MEDLIT_RETRY_AFTER_CAP``)."""
    asked = parse_retry_after(headers.get("Retry-After"))
    return min(asked if asked is not None else 1.0, cap)


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class RequestOptions(TypedDict, total=False):
    """The keyword options of :meth:`UpstreamClient.get` and ``post`` (see ``request``)."""

    expect: Expect
    deadline: float | None
    ok_statuses: frozenset[int] | set[int]
    headers: Mapping[str, str] | None
    identify: bool
    parse: Callable[[Response], Any] | None
    share: bool


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
        self.session = session
        self.config = config
        self.settings = settings
        self.pacer = pacer
        self.cache = cache
        self.cache_hits = 0  # answers (or records) served from the persistent cache
        self.redact = redactor or Redactor(settings.secrets)
        self.slots = Slots(config.concurrency, config.max_queue, config.name, config.label)
        self._inflight: dict[tuple[Any, ...], list[Any]] = {}  # identical requests in flight: [task, waiters]
        self.requests_sent = 0  # attempts that reached the wire (for tests and benchmarks)
        self.shared_hits = 0  # callers served by another caller's identical request in flight
        # aiohttp re-sends an idempotent request on its own when a kept-alive connection was reset,
        # milliseconds later and past the pacer; our retry loop resends through the pacer instead.
        if hasattr(session, "_retry_connection"):
            session._retry_connection = False
        # The pacer records a send when its headers actually go out (see Pacer.acquire's hold).
        traces = getattr(session, "_trace_configs", None)
        if isinstance(traces, list) and not any(getattr(t, "medlit_sent", False) for t in traces):
            traces.append(_sent_trace())

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
    ) -> Response:
        """Send a request and return a response whose body matches ``expect``.

        ``deadline`` is a ``time.monotonic()`` instant; the tool call's own deadline (set by the
        runtime) caps it, and without either the request gets ``MEDLIT_CALL_DEADLINE`` seconds
        in total. Statuses in ``ok_statuses`` are returned instead of raised (e.g. Unpaywall's
        404 for an unknown DOI). ``parse(response)`` reads the body inside the retry loop: a
        body that fails to parse (a garbled or truncated 200) is retried like any transient
        fault, and the parsed value is kept on ``response.parsed``. Identical requests in
        flight at once share one upstream call (``share=False`` opts out).
        """
        cfg = self.config
        deadline = call_deadline(self.settings.call_deadline, deadline)
        query = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        form = {k: _param(v) for k, v in (data or {}).items() if v is not None} if data is not None else None
        if identify:
            target = form if form is not None else query
            for k, v in cfg.identify.items():
                target.setdefault(k, v)
        if method == "GET" and not cfg.get_only and len(urlencode(_pairs(query) or [])) > POST_THRESHOLD:
            method, form, query = "POST", query, {}
        if cfg.headers:
            headers = {**cfg.headers, **(headers or {})}
        call = _Call(
            method, self._url(path), query, form, expect, deadline, frozenset(ok_statuses), headers, parse
        )
        sent = call.sent
        if self.cache is not None and not history_bound(sent):
            record_rule = _matching(cfg.record_rules, path, sent)
            if record_rule is not None and isinstance(sent.get(record_rule.id_param), str):
                return await self._records(record_rule, call)
            rule = _matching(cfg.cache_rules, path, sent)
            if rule is not None:
                return await self._cached(rule, path, call)
        return await (self._send_shared(call) if share else self._with_retries(call))

    # -- the persistent cache ---------------------------------------------------------------
    async def _cached(self, rule: CacheRule, path: str, call: _Call) -> Response:
        """A request-level cached answer, or the upstream's (stored when it is a clean one)."""
        assert self.cache is not None
        cfg = self.config
        key = request_key(cfg.name, cfg.base_url, path, _pairs(call.sent) or [], cfg.identify)
        found = (await self._read({key: key})).get(key)
        stored = unpack(found) if found is not None else None
        if stored is not None and (stored[0] < 300 or stored[0] in call.ok_statuses):
            self.cache_hits += 1
            resp = Response(stored[0], self.redact(call.url), {"Content-Type": stored[1]}, stored[2])
            resp.from_cache = True
            if call.parse is not None and resp.status < 300:
                resp.parsed = self._parsed_cached(resp, call.parse)
            return resp
        fresh = await self._send_shared(call)
        ttl = rule.ttl if fresh.status < 300 else (rule.negative_ttl if fresh.status in rule.negative else 0)
        if ttl > 0 and b"WebEnv" not in fresh.body[:4096]:
            await self._store([Entry(key, cfg.name, pack(fresh.status, fresh.content_type, fresh.body), ttl)])
        return fresh

    async def _records(self, rule: RecordRule, call: _Call) -> Response:
        """Ask upstream only for the records not cached; answer with all of them joined, in the
        order asked. Records another process (a replica on the same Redis or SQLite file) is
        fetching right now are left to it and read from the cache afterwards."""
        assert self.cache is not None
        cfg, parse = self.config, call.parse
        ids = [rule.normalize(i) for i in str(call.sent[rule.id_param]).split(",") if i.strip()]
        ids = list(dict.fromkeys(ids))
        keys = {i: record_key(cfg.name, cfg.base_url, rule.scope, i) for i in ids}
        pieces = dict(await self._read({i: keys[i] for i in ids}))
        self.cache_hits += len(pieces)
        missing = [i for i in ids if i not in pieces]
        won = await self._claim([keys[i] for i in missing]) if missing else set()
        mine = [i for i in missing if keys[i] in won]
        theirs = [i for i in missing if keys[i] not in won]
        batch = _RecordBatch(rule, replace(call, parse=None), keys, pieces)
        try:
            unsplit = await self._fetch_records(batch, mine)
        finally:
            await self._release([keys[i] for i in mine])
        if unsplit is None and theirs:
            found = await self._await_records({i: keys[i] for i in theirs}, call.deadline)
            pieces.update(found)
            late = [i for i in theirs if i not in found]  # the other process gave up or failed
            unsplit = await self._fetch_records(batch, late)
        if unsplit is not None:  # not a record set (or an error status): handed over as it came
            if parse is not None and unsplit.status < 300:
                unsplit.parsed = self._parsed_cached(unsplit, parse)
            return unsplit
        ordered = list(dict.fromkeys(pieces[i] for i in ids if pieces.get(i)))  # one record asked twice: once
        body = rule.join(ordered + batch.extra)
        resp = Response(200, self.redact(batch.url or call.url), {"Content-Type": rule.content_type}, body)
        resp.from_cache = not missing
        if parse is not None:
            resp.parsed = self._parsed_cached(resp, parse)
        return resp

    async def _fetch_records(self, batch: _RecordBatch, ids: list[str]) -> Response | None:
        """Fetch ``ids``, store each record, add them to the batch. Returns the answer itself when
        it cannot be split into records (an error status, an unreadable body), else None."""
        if not ids:
            return None
        cfg, rule, call = self.config, batch.rule, batch.call
        asked = {**call.sent, rule.id_param: ",".join(ids)}  # the same request for these ids only
        sub = replace(call, form=asked) if call.form is not None else replace(call, query=asked)
        fresh = await self._send_shared(sub)
        if fresh.status >= 300:
            return fresh
        try:
            split = rule.split(fresh.body)
        except Exception as exc:
            log.info("%s: answer not split into records (%s); not cached", cfg.label, exc)
            return fresh
        entries = []
        for ident, raw in split:
            names = [ident] if isinstance(ident, str) else list(ident or ())
            matched = [n for n in (rule.normalize(x) for x in names) if n in batch.keys]
            if not matched:
                batch.extra.append(raw)
            for name in dict.fromkeys(matched):
                batch.pieces[name] = raw
                entries.append(Entry(batch.keys[name], cfg.name, raw, rule.ttl))
        if rule.missing_ttl > 0:  # asked but absent: remembered briefly as known-unknown
            entries += [
                Entry(batch.keys[i], cfg.name, b"", rule.missing_ttl) for i in ids if i not in batch.pieces
            ]
        await self._store(entries)
        batch.url = fresh.url
        return None

    async def _read(self, keys: Mapping[str, str]) -> dict[str, bytes]:
        """Cached records by id (an empty record marks an id known to be unknown)."""
        assert self.cache is not None
        try:
            found = await self.cache.get_many(list(keys.values()), self.config.name)
        except Exception as exc:  # a broken cache must never break a call
            log.warning("cache read failed (%s); asking %s", exc, self.config.label)
            return {}
        return {i: found[k] for i, k in keys.items() if k in found}

    async def _claim(self, keys: list[str]) -> set[str]:
        assert self.cache is not None
        try:
            return await self.cache.claim(keys, CLAIM_LEASE)
        except Exception as exc:
            log.warning("cache claim failed (%s); fetching without it", exc)
            return set(keys)

    async def _release(self, keys: list[str]) -> None:
        if keys and self.cache is not None:
            try:
                await self.cache.release(keys)
            except Exception as exc:
                log.warning("cache release failed (%s); the claims expire on their own", exc)

    async def _await_records(self, keys: Mapping[str, str], deadline: float | None) -> dict[str, bytes]:
        """Wait (briefly, polling) for records another process is fetching to reach the cache."""
        give_up = time.monotonic() + CLAIM_LEASE
        if deadline is not None:
            give_up = min(give_up, deadline - 1.0)
        found: dict[str, bytes] = {}
        while True:
            found.update(await self._read({i: k for i, k in keys.items() if i not in found}))
            if len(found) == len(keys) or time.monotonic() >= give_up:
                return found
            await asyncio.sleep(0.1)

    def _parsed_cached(self, resp: Response, parse: Callable[[Response], Any]) -> Any:
        try:
            return parse(resp)
        except Exception as exc:  # a stored answer that no longer parses: say so, do not retry it
            raise self._fail(
                E.INVALID_RESPONSE, f"a cached {self.config.label} answer could not be read ({exc})"
            ) from None

    async def _store(self, entries: list[Entry]) -> None:
        if not entries or self.cache is None:
            return
        try:
            await self.cache.set_many(entries)
        except Exception as exc:
            log.warning("cache write failed (%s); the answer is returned uncached", exc)

    async def _send_shared(self, call: _Call) -> Response:
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

    async def _with_retries(self, call: _Call) -> Response:
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
                    resp = await self._attempt(call)
                except MedlitError as err:
                    if last is None or err.reason != E.QUEUE_FULL:
                        raise
                    attempts -= 1  # a retry that could not start before the deadline: report the fault
                    out_of_time = True
                    break
                if call.parse is not None and resp.status < 300:
                    resp.parsed = self._parsed(resp, call.parse)
                return resp
            except _Retry as retry:
                last = retry.error
                if attempt == retries:
                    break
                wait = self._backoff(attempt, retry.retry_after)
                if time.monotonic() + wait >= deadline:
                    break
                log.info("%s: retrying after %s (%.2fs)", cfg.name, retry.error.reason, wait)
                await _progress(f"{cfg.label}: {retry.error.message}; retrying in {wait:.1f} s")
                await asyncio.sleep(wait)
        assert last is not None
        if (out_of_time or time.monotonic() >= deadline - 0.05) and E.error_kind(last) != E.RATE_LIMITED:
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

    async def _attempt(self, call: _Call) -> Response:
        cfg, deadline = self.config, call.deadline
        method, url, query, form = call.method, call.url, call.query, call.form
        for _hop in range(4):  # the request plus at most 3 redirects
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._fail(E.DEADLINE_EXCEEDED, f"{cfg.label} call ran out of time")
            await self.slots.acquire(deadline)
            sent: Callable[[], None] | None = None
            try:
                if self.pacer is not None:
                    sent = await self.pacer.acquire(deadline, cfg.name, cfg.lane, hold=True)
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

        cfg, cap = self.config, self.settings.max_body_bytes
        timeout = aiohttp.ClientTimeout(
            total=max(0.01, min(self.settings.request_timeout, deadline - time.monotonic()))
        )
        self.requests_sent += 1
        try:
            async with self.session.request(
                method,
                url,
                params=_pairs(query) or None,
                data=_pairs(form),
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
        except TimeoutError:
            raise _Retry(self._fail(E.UNREACHABLE, f"{cfg.label} timed out")) from None
        except (aiohttp.ClientPayloadError, aiohttp.ClientResponseError) as exc:
            raise _Retry(
                self._fail(
                    E.INVALID_RESPONSE, f"{cfg.label} sent an incomplete answer ({type(exc).__name__})"
                )
            ) from None
        except aiohttp.ClientConnectorDNSError:  # a name that does not resolve will not in a second either
            raise self._fail(
                E.UNREACHABLE, f"{cfg.label} could not be reached: its host name does not resolve"
            ) from None
        except aiohttp.ClientError as exc:
            raise _Retry(
                self._fail(E.UNREACHABLE, f"{cfg.label} could not be reached ({type(exc).__name__})")
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
        cfg, status = self.config, resp.status
        self._follow_pace(resp)
        if status == 429:
            wait = rate_limit_wait(resp.headers, self.settings.retry_after_cap)
            if self.pacer is not None:
                self.pacer.cooldown(wait)
            raise _Retry(
                self._fail(E.RATE_LIMITED, f"{cfg.label} is rate limiting requests (HTTP 429)"),
                retry_after=wait,
            )
        if status in ok_statuses:
            return resp
        if status >= 500:
            raise _Retry(self._fail(E.SERVER_ERROR, f"{cfg.label} answered HTTP {status} (a server error)"))
        if status == 408:
            raise _Retry(self._fail(E.UNREACHABLE, f"{cfg.label} timed out (HTTP 408)"))
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
                f"{cfg.label} rejected the request (HTTP {status}){_brief(resp)}",
                status=status,
            )
        if status >= 300:
            raise self._fail(E.INVALID_RESPONSE, f"{cfg.label} answered HTTP {status}")
        if expect in ("xml", "json") and looks_html(resp.body, resp.content_type):
            raise _Retry(
                self._fail(
                    E.INVALID_RESPONSE, f"{cfg.label} sent an HTML error page instead of {expect.upper()}"
                )
            )
        markup = resp.body.lstrip()[:1] == b"<"
        if (expect == "xml" or (expect == "json" and markup)) and xml_stops_after_prolog(resp.body):
            raise _Retry(self._fail(E.INVALID_RESPONSE, f"{cfg.label} sent an XML body with no content"))
        if expect == "json" and markup:
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
        elif expect == "json":
            try:
                resp.json()
            except ValueError:
                raise _Retry(self._fail(E.INVALID_RESPONSE, f"{cfg.label} sent malformed JSON")) from None
        if cfg.inspect is not None:
            try:
                cfg.inspect(resp)
            except MedlitError as err:
                if err.retryable:
                    if E.error_kind(err) == E.RATE_LIMITED and self.pacer is not None:
                        self.pacer.cooldown(1.0)
                    raise _Retry(err) from None
                raise
        return resp


async def _progress(message: str) -> None:
    notify = CALL_PROGRESS.get()
    if notify is not None:
        try:
            await notify(message)
        except Exception:  # progress is best effort
            log.debug("progress notification failed", exc_info=True)


def _matching(rules: Sequence[Any], path: str, params: Mapping[str, Any]) -> Any:
    """The first rule whose ``path`` pattern (``fnmatch``: ``*/fullTextXML``) matches and whose
    ``when`` pairs all hold (values compared as sent)."""
    for rule in rules:
        if rule.path != path and not fnmatch.fnmatchcase(path, rule.path):
            continue
        if all(str(params.get(k, "")) == v for k, v in rule.when.items()):
            return rule
    return None


def _brief(resp: Response) -> str:
    """A short, safe excerpt of an error body (JSON `error`/`message` fields only)."""
    try:
        data = resp.json()
    except ValueError:
        return ""
    if isinstance(data, dict):
        for key in ("error", "message", "errMsg", "detail"):
            if isinstance(data.get(key), str):
                return f": {data[key][:200]}"
    return ""


@dataclass(frozen=True)
class Repeated:
    """A parameter sent once per value (``id=1&id=2``). E-utilities read that differently from
    ``id=1,2``: ELink then answers one link set per id instead of merging them."""

    values: tuple[str, ...]


def _pairs(values: Mapping[str, str | Repeated] | None) -> list[tuple[str, str]] | None:
    if values is None:
        return None
    out: list[tuple[str, str]] = []
    for k, v in values.items():
        out.extend((k, x) for x in v.values) if isinstance(v, Repeated) else out.append((k, v))
    return out


def _param(value: Any) -> str | Repeated:
    if isinstance(value, Repeated):
        return value
    if isinstance(value, bool):
        return "y" if value else "n"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)
