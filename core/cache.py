"""The persistent response cache under the upstream clients: SQLite by default, Redis for a fleet.

Plugins declare what may be cached on their :class:`~medlit.core.types.ServiceSpec` (``cache``
rules: request-level with a time to live per endpoint class; ``records`` rules: record-level
for record-addressed endpoints, stored raw and parsed per call); each client applies them
through :class:`CachedCalls`, so no plugin code reads or writes the cache. Errors are never
stored; nor are requests carrying one of the service's ``uncacheable_params`` or answers
carrying one of its ``uncacheable_markers`` (a session-bound handle such as a search history).

``MEDLIT_CACHE`` chooses the backend: ``sqlite:///path/to/file`` (the default, in the user
cache directory), ``redis://host:port/db`` or ``off``. While any service points at a loopback
fake (``MEDLIT_BASE_URL_*``) the default is ``off``, so test answers never reach a user's cache.

Why these libraries: ``aiosqlite`` runs SQLite's blocking calls on a worker thread without us
writing that plumbing; ``redis`` (its asyncio client) is the maintained client for Redis;
``platformdirs`` knows each platform's user cache directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import functools
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from . import errors as E
from .cache_setting import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
from .cache_setting import CacheSetting as CacheSetting
from .cache_setting import cache_setting as cache_setting
from .cache_setting import default_path as default_path
from .errors import MedlitError
from .net.redis_breaker import CALL_BUDGET, RedisBreaker, RedisUnavailable, breaker_for
from .net.wire import Response

if TYPE_CHECKING:
    from .net.request import Call, ServiceConfig
    from .types import CacheRule, RecordRule

log = logging.getLogger("medlit.cache")

CLAIM_LEASE = 15.0  # seconds another process may take to fetch records it claimed
MARKER_SPAN = 4096  # how much of an answer is searched for the service's uncacheable markers


def request_key(
    service: str, base_url: str, path: str, params: Iterable[tuple[str, str]], skip: Iterable[str]
) -> str:
    """A request's cache key: service, endpoint and normalised parameters, without identification
    parameters (tool, email, api_key: secrets never enter a key)."""
    drop = {s.lower() for s in skip}
    norm = sorted((k, v) for k, v in params if k.lower() not in drop)
    digest = hashlib.sha256(repr((base_url, path, norm)).encode()).hexdigest()[:32]
    return f"{service}:req:{digest}"


def record_key(service: str, base_url: str, scope: str, ident: str) -> str:
    digest = hashlib.sha256(f"{base_url}|{scope}|{ident}".encode()).hexdigest()[:24]
    return f"{service}:rec:{scope}:{digest}"


@dataclass
class ServiceStats:
    service: str
    entries: int = 0
    bytes: int = 0
    hits: int = 0
    misses: int = 0

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


@dataclass
class Entry:
    key: str
    service: str
    value: bytes
    ttl: float


class Cache(Protocol):
    setting: CacheSetting

    async def get_many(self, keys: Sequence[str], service: str) -> dict[str, bytes]: ...
    async def set_many(self, entries: Sequence[Entry]) -> None: ...
    async def stats(self) -> list[ServiceStats]: ...
    async def clear(self, service: str | None = None) -> int: ...
    async def close(self) -> None: ...
    async def claim(self, keys: Sequence[str], lease: float) -> set[str]: ...
    async def release(self, keys: Sequence[str]) -> None: ...


# -- SQLite -------------------------------------------------------------------------------------
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY, service TEXT NOT NULL, value BLOB NOT NULL,
    size INTEGER NOT NULL, created REAL NOT NULL, expires REAL NOT NULL);
CREATE INDEX IF NOT EXISTS entries_expires ON entries (expires);
CREATE INDEX IF NOT EXISTS entries_service ON entries (service);
CREATE TABLE IF NOT EXISTS stats (service TEXT PRIMARY KEY, hits INTEGER NOT NULL, misses INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, until REAL NOT NULL);
"""


_Method = TypeVar("_Method", bound=Callable[..., Awaitable[Any]])


def _one_at_a_time(method: _Method) -> _Method:
    """Run a method of a :class:`SqliteCache` alone: its one connection is not safe for
    interleaved statements and commits of concurrent callers (merged requests store records from
    many coroutines at once), nor is opening it twice."""

    @functools.wraps(method)
    async def run(self: SqliteCache, *args: Any, **kw: Any) -> Any:
        async with self._lock:
            return await method(self, *args, **kw)

    return run  # type: ignore[return-value]


@dataclass
class SqliteCache:
    """One file shared by every process on the machine: WAL journal, a busy timeout, a size cap
    enforced by evicting expired entries first, then the oldest."""

    setting: CacheSetting
    _db: Any = None
    _since_check: int = 0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def _conn(self) -> Any:
        if self._db is None:
            import aiosqlite

            path = Path(self.setting.target)
            path.parent.mkdir(parents=True, exist_ok=True)
            db = await aiosqlite.connect(str(path), timeout=10)
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=NORMAL")
            await db.executescript(_SCHEMA)
            await db.commit()
            self._db = db
        return self._db

    @_one_at_a_time
    async def get_many(self, keys: Sequence[str], service: str) -> dict[str, bytes]:
        if not keys:
            return {}
        db = await self._conn()
        out: dict[str, bytes] = {}
        now = time.time()
        for start in range(0, len(keys), 500):  # SQLite's bound-parameter limit
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            async with db.execute(
                f"SELECT key, value FROM entries WHERE key IN ({marks}) AND expires > ?", (*chunk, now)
            ) as cur:
                async for key, value in cur:
                    out[key] = bytes(value)
        await self._count(db, service, len(out), len(keys) - len(out))
        return out

    async def _count(self, db: Any, service: str, hits: int, misses: int) -> None:
        await db.execute(
            "INSERT INTO stats (service, hits, misses) VALUES (?, ?, ?) "
            "ON CONFLICT(service) DO UPDATE SET hits = hits + excluded.hits, misses = misses + excluded.misses",
            (service, hits, misses),
        )
        await db.commit()

    @_one_at_a_time
    async def set_many(self, entries: Sequence[Entry]) -> None:
        if not entries:
            return
        db = await self._conn()
        now = time.time()
        await db.executemany(
            "INSERT OR REPLACE INTO entries (key, service, value, size, created, expires) VALUES (?, ?, ?, ?, ?, ?)",
            [(e.key, e.service, e.value, len(e.value) + len(e.key), now, now + e.ttl) for e in entries],
        )
        await db.commit()
        self._since_check += len(entries)
        if self._since_check >= 200:
            self._since_check = 0
            await self._evict()

    @_one_at_a_time
    async def evict(self) -> int:
        """Drop expired entries, then the oldest until the file holds at most 90% of the cap."""
        return await self._evict()

    async def _evict(self) -> int:
        db = await self._conn()
        cur = await db.execute("DELETE FROM entries WHERE expires <= ?", (time.time(),))
        dropped = cur.rowcount or 0
        async with db.execute("SELECT COALESCE(SUM(size), 0) FROM entries") as c:
            (total,) = await c.fetchone()
        cap = self.setting.max_bytes
        if total > cap:
            target = int(cap * 0.9)
            async with db.execute("SELECT key, size FROM entries ORDER BY created") as c:
                doomed: list[str] = []
                async for key, size in c:
                    if total <= target:
                        break
                    doomed.append(key)
                    total -= size
            for start in range(0, len(doomed), 500):
                chunk = doomed[start : start + 500]
                await db.execute(f"DELETE FROM entries WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            dropped += len(doomed)
        await db.commit()
        return dropped

    @_one_at_a_time
    async def stats(self) -> list[ServiceStats]:
        db = await self._conn()
        out: dict[str, ServiceStats] = {}
        async with db.execute(
            "SELECT service, COUNT(*), COALESCE(SUM(size), 0) FROM entries WHERE expires > ? GROUP BY service",
            (time.time(),),
        ) as cur:
            async for service, n, size in cur:
                out[service] = ServiceStats(service, n, size)
        async with db.execute("SELECT service, hits, misses FROM stats") as cur:
            async for service, hits, misses in cur:
                st = out.setdefault(service, ServiceStats(service))
                st.hits, st.misses = hits, misses
        return sorted(out.values(), key=lambda s: s.service)

    @_one_at_a_time
    async def clear(self, service: str | None = None) -> int:
        db = await self._conn()
        if service is None:
            cur = await db.execute("DELETE FROM entries")
            await db.execute("DELETE FROM stats")
        else:
            cur = await db.execute("DELETE FROM entries WHERE service = ?", (service,))
            await db.execute("DELETE FROM stats WHERE service = ?", (service,))
        await db.commit()
        return cur.rowcount or 0

    @_one_at_a_time
    async def claim(self, keys: Sequence[str], lease: float) -> set[str]:
        """The keys this process may fetch: those no other process is fetching right now."""
        db = await self._conn()
        now = time.time()
        await db.execute("DELETE FROM claims WHERE until <= ?", (now,))
        won: set[str] = set()
        for key in keys:
            cur = await db.execute(
                "INSERT OR IGNORE INTO claims (key, until) VALUES (?, ?)", (key, now + lease)
            )
            if cur.rowcount:
                won.add(key)
        await db.commit()
        return won

    @_one_at_a_time
    async def release(self, keys: Sequence[str]) -> None:
        if not keys:
            return
        db = await self._conn()
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            await db.execute(f"DELETE FROM claims WHERE key IN ({','.join('?' * len(chunk))})", chunk)
        await db.commit()

    @_one_at_a_time
    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None


# -- Redis --------------------------------------------------------------------------------------
PREFIX = "medlit:c:"
CLAIM = "medlit:claim:"
STATS = "medlit:stats:"


@dataclass
class RedisCache:
    """Entries as keys with a TTL (Redis evicts by its own ``maxmemory`` policy); hit counters per
    service in a hash. Every per-call operation runs through the process's breaker for this Redis
    (shared with the pacer): bounded well under a second, and not attempted while Redis is known
    to be away, so a hung Redis costs a call at most one budget, not one per operation."""

    setting: CacheSetting
    _redis: Any = None
    _breaker: RedisBreaker | None = None

    @property
    def breaker(self) -> RedisBreaker:
        if self._breaker is None:
            self._breaker = breaker_for(self.setting.target)
        return self._breaker

    def client(self) -> Any:
        if self._redis is None:
            self._redis = self.breaker.client()
        return self._redis

    async def get_many(self, keys: Sequence[str], service: str) -> dict[str, bytes]:
        if not keys:
            return {}

        async def read() -> dict[str, bytes]:
            r = self.client()
            values = await r.mget([PREFIX + k for k in keys])
            out = {k: v for k, v in zip(keys, values, strict=True) if v is not None}
            pipe = r.pipeline(transaction=False)
            pipe.hincrby(STATS + service, "hits", len(out))
            pipe.hincrby(STATS + service, "misses", len(keys) - len(out))
            await pipe.execute()
            return out

        return await self.breaker.call(read)

    async def set_many(self, entries: Sequence[Entry]) -> None:
        if not entries:
            return

        async def write() -> None:
            pipe = self.client().pipeline(transaction=False)
            for e in entries:
                pipe.set(PREFIX + e.key, e.value, px=max(1, int(e.ttl * 1000)))
            await pipe.execute()

        await self.breaker.call(write)

    async def stats(self) -> list[ServiceStats]:
        # `medlit cache` only: a scan of the whole cache, each command bounded by the socket timeout
        r = self.client()
        out: dict[str, ServiceStats] = {}
        async for key in r.scan_iter(match=PREFIX + "*", count=1000):
            service = key.decode()[len(PREFIX) :].split(":", 1)[0]
            st = out.setdefault(service, ServiceStats(service))
            st.entries += 1
            st.bytes += int(await r.memory_usage(key) or 0)
        async for key in r.scan_iter(match=STATS + "*", count=100):
            service = key.decode()[len(STATS) :]
            data = await r.hgetall(key)
            st = out.setdefault(service, ServiceStats(service))
            st.hits, st.misses = int(data.get(b"hits", 0)), int(data.get(b"misses", 0))
        return sorted(out.values(), key=lambda s: s.service)

    async def clear(self, service: str | None = None) -> int:
        r = self.client()
        pattern = PREFIX + (f"{service}:*" if service else "*")
        n = 0
        async for key in r.scan_iter(match=pattern, count=1000):
            n += await r.delete(key)
        if service:
            await r.delete(STATS + service)
        else:
            async for key in r.scan_iter(match=STATS + "*", count=100):
                await r.delete(key)
        return n

    async def claim(self, keys: Sequence[str], lease: float) -> set[str]:
        async def take() -> set[str]:
            pipe = self.client().pipeline(transaction=False)
            for key in keys:
                pipe.set(CLAIM + key, b"1", nx=True, px=max(1, int(lease * 1000)))
            won = await pipe.execute()
            return {k for k, ok in zip(keys, won, strict=True) if ok}

        return await self.breaker.call(take)

    async def release(self, keys: Sequence[str]) -> None:
        if keys:
            await self.breaker.call(lambda: self.client().delete(*(CLAIM + k for k in keys)))

    async def close(self) -> None:
        if self._redis is not None:
            with contextlib.suppress(Exception):  # a hung Redis must not hold the shutdown
                async with asyncio.timeout(CALL_BUDGET):
                    await self._redis.aclose()
            self._redis = None
        if self._breaker is not None:
            self._breaker.detach()
            self._breaker = None


def open_cache(setting: CacheSetting) -> Cache | None:
    if setting.kind == "sqlite":
        return SqliteCache(setting)
    if setting.kind == "redis":
        return RedisCache(setting)
    return None


# -- stored values ------------------------------------------------------------------------------
def pack(status: int, content_type: str, body: bytes) -> bytes:
    return b"MC1 %d %s\n" % (status, content_type.encode("latin-1", "replace")) + body


def unpack(value: bytes) -> tuple[int, str, bytes] | None:
    head, _, body = value.partition(b"\n")
    parts = head.split(b" ")
    if len(parts) != 3 or parts[0] != b"MC1" or not parts[1].isdigit():
        return None
    return int(parts[1]), parts[2].decode("latin-1"), body


def uncacheable(params: Iterable[str], names: Iterable[str]) -> bool:
    """Whether a request with these parameter names carries one of ``names`` (any case)."""
    lowered = {n.lower() for n in names}
    return bool(lowered) and any(k.lower() in lowered for k in params)


Rule = TypeVar("Rule", "CacheRule", "RecordRule")


def matching(rules: Sequence[Rule], path: str, params: Mapping[str, Any]) -> Rule | None:
    """The first rule whose ``path`` pattern (``fnmatch``: ``*/fullTextXML``) matches and whose
    ``when`` pairs all hold (values compared as sent)."""
    for rule in rules:
        if rule.path != path and not fnmatch.fnmatchcase(path, rule.path):
            continue
        if all(str(params.get(k, "")) == v for k, v in rule.when.items()):
            return rule
    return None


# -- the cache under one client -----------------------------------------------------------------
@dataclass
class _RecordBatch:
    """One record-level request in progress: what was asked and what has been gathered."""

    rule: RecordRule
    call: Call  # the request as asked (all its ids), answers judged without `parse`
    keys: Mapping[str, str]
    pieces: dict[str, bytes]
    extra: list[bytes] = field(default_factory=list)  # records that name no id we can key them by
    url: str = ""


def _response(status: int, url: str, content_type: str, body: bytes) -> Response:
    return Response(status, url, {"Content-Type": content_type}, body)


class CachedCalls:
    """The persistent cache under one :class:`~medlit.core.net.http.UpstreamClient`: answers what
    the service's :class:`CacheRule` / :class:`RecordRule` declarations allow from the cache, and
    sends the rest upstream with ``send`` (the client's shared, retrying, paced send), storing
    clean answers. ``fail(kind, message)`` builds the client's error for a stored answer that no
    longer parses. A broken cache never breaks a call: it is then asked around."""

    def __init__(
        self,
        cache: Cache,
        config: ServiceConfig,
        send: Callable[[Call], Awaitable[Response]],
        redact: Callable[[str], str],
        fail: Callable[[str, str], MedlitError],
    ) -> None:
        self.cache, self.config, self.send, self.redact, self.fail = cache, config, send, redact, fail
        self.hits = 0  # answers (or records) served from the persistent cache

    async def answer(self, path: str, call: Call) -> Response | None:
        """The answer to ``call`` through the cache, or ``None`` when no rule lets it be cached
        (the client then sends it as usual)."""
        cfg, sent = self.config, call.sent
        if uncacheable(sent, cfg.uncacheable_params):
            return None
        record_rule = matching([r for r in cfg.record_rules if r.cached], path, sent)
        if record_rule is not None and isinstance(sent.get(record_rule.id_param), str):
            return await self._records(record_rule, call)
        rule = matching(cfg.cache_rules, path, sent)
        if rule is not None:
            return await self._cached(rule, path, call)
        return None

    def _keepable(self, body: bytes) -> bool:
        head = body[:MARKER_SPAN]
        return not any(marker in head for marker in self.config.uncacheable_markers)

    async def _cached(self, rule: CacheRule, path: str, call: Call) -> Response:
        """A request-level cached answer, or the upstream's (stored when it is a clean one)."""
        cfg = self.config
        key = request_key(cfg.name, cfg.base_url, path, call.sent_pairs(), cfg.identify)
        found = (await self._read({key: key})).get(key)
        stored = unpack(found) if found is not None else None
        if stored is not None and (stored[0] < 300 or stored[0] in call.ok_statuses):
            self.hits += 1
            resp = _response(stored[0], self.redact(call.url), stored[1], stored[2])
            resp.from_cache = True
            if call.parse is not None and resp.status < 300:
                resp.parsed = self._parsed_cached(resp, call.parse)
            return resp
        fresh = await self.send(call)
        ttl = rule.ttl if fresh.status < 300 else (rule.negative_ttl if fresh.status in rule.negative else 0)
        if ttl > 0 and self._keepable(fresh.body):
            await self._store([Entry(key, cfg.name, pack(fresh.status, fresh.content_type, fresh.body), ttl)])
        return fresh

    async def _records(self, rule: RecordRule, call: Call) -> Response:
        """Ask upstream only for the records not cached; answer with all of them joined, in the
        order asked. Records another process (a replica on the same Redis or SQLite file) is
        fetching right now are left to it and read from the cache afterwards."""
        cfg, parse = self.config, call.parse
        ids = [rule.normalize(i) for i in str(call.sent[rule.id_param]).split(",") if i.strip()]
        ids = list(dict.fromkeys(ids))
        keys = {i: record_key(cfg.name, cfg.base_url, rule.scope, i) for i in ids}
        pieces = dict(await self._read({i: keys[i] for i in ids}))
        self.hits += len(pieces)
        missing = [i for i in ids if i not in pieces]
        batch = _RecordBatch(rule, replace(call, parse=None), keys, pieces)
        unsplit = await self._fill(batch, missing, call.deadline) if missing else None
        if unsplit is not None:  # not a record set (or an error status): handed over as it came
            if parse is not None and unsplit.status < 300:
                unsplit.parsed = self._parsed_cached(unsplit, parse)
            return unsplit
        ordered = list(dict.fromkeys(pieces[i] for i in ids if pieces.get(i)))  # one record asked twice: once
        body = rule.join(ordered + batch.extra)
        resp = _response(200, self.redact(batch.url or call.url), rule.content_type, body)
        resp.from_cache = not missing
        if parse is not None:
            resp.parsed = self._parsed_cached(resp, parse)
        return resp

    async def _fill(self, batch: _RecordBatch, missing: list[str], deadline: float) -> Response | None:
        """The missing records into the batch: those this process claims are fetched here, those
        another process claimed first are awaited from the cache (and fetched here after all when
        it gives up or fails). Returns an answer that could not be split, as ``_fetch_records``."""
        keys = batch.keys
        won = await self._claim([keys[i] for i in missing])
        mine = [i for i in missing if keys[i] in won]
        theirs = [i for i in missing if keys[i] not in won]
        try:
            unsplit = await self._fetch_records(batch, mine)
        finally:
            await self._release([keys[i] for i in mine])
        if unsplit is None and theirs:
            found = await self._await_records({i: keys[i] for i in theirs}, deadline)
            batch.pieces.update(found)
            late = [i for i in theirs if i not in found]  # the other process gave up or failed
            unsplit = await self._fetch_records(batch, late)
        return unsplit

    async def _fetch_records(self, batch: _RecordBatch, ids: list[str]) -> Response | None:
        """Fetch ``ids``, store each record, add them to the batch. Returns the answer itself when
        it cannot be split into records (an error status, an unreadable body), else None."""
        if not ids:
            return None
        cfg, rule, call = self.config, batch.rule, batch.call
        asked = {**call.sent, rule.id_param: ",".join(ids)}  # the same request for these ids only
        sub = replace(call, form=asked) if call.form is not None else replace(call, query=asked)
        fresh = await self.send(sub)
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
        return await self._try_read(keys) or {}

    async def _try_read(self, keys: Mapping[str, str]) -> dict[str, bytes] | None:
        """As :meth:`_read`, but ``None`` when the cache could not be read."""
        try:
            found = await self.cache.get_many(list(keys.values()), self.config.name)
        except Exception as exc:  # a broken cache must never break a call
            _cache_failed("read", exc, f"asking {self.config.label}")
            return None
        return {i: found[k] for i, k in keys.items() if k in found}

    async def _claim(self, keys: list[str]) -> set[str]:
        try:
            return await self.cache.claim(keys, CLAIM_LEASE)
        except Exception as exc:
            _cache_failed("claim", exc, "fetching without it")
            return set(keys)

    async def _release(self, keys: list[str]) -> None:
        if keys:
            try:
                await self.cache.release(keys)
            except Exception as exc:
                _cache_failed("release", exc, "the claims expire on their own")

    async def _await_records(self, keys: Mapping[str, str], deadline: float | None) -> dict[str, bytes]:
        """Wait (briefly, polling) for records another process is fetching to reach the cache;
        not at all once the cache cannot be read (the caller then fetches them itself)."""
        give_up = time.monotonic() + CLAIM_LEASE
        if deadline is not None:
            give_up = min(give_up, deadline - 1.0)
        found: dict[str, bytes] = {}
        while True:
            more = await self._try_read({i: k for i, k in keys.items() if i not in found})
            if more is None:
                return found
            found.update(more)
            if len(found) == len(keys) or time.monotonic() >= give_up:
                return found
            await asyncio.sleep(0.1)

    def _parsed_cached(self, resp: Response, parse: Callable[[Response], Any]) -> Any:
        try:
            return parse(resp)
        except Exception as exc:  # a stored answer that no longer parses: say so, do not retry it
            raise self.fail(
                E.INVALID_RESPONSE, f"a cached {self.config.label} answer could not be read ({exc})"
            ) from None

    async def _store(self, entries: list[Entry]) -> None:
        if not entries:
            return
        try:
            await self.cache.set_many(entries)
        except Exception as exc:
            _cache_failed("write", exc, "the answer is returned uncached")


def _cache_failed(what: str, exc: Exception, instead: str) -> None:
    # While the breaker is open every call skips Redis: the breaker said so once, not each call.
    level = logging.DEBUG if isinstance(exc, RedisUnavailable) else logging.WARNING
    log.log(level, "cache %s failed (%s); %s", what, exc, instead)
