"""The host's store: one SQL database for every plugin that keeps user data (``MEDLIT_STORE``:
SQLite by default, PostgreSQL for a fleet), handed out as ``await ctx.host.store()``.

One SQL text serves both backends: ``?`` placeholders (rewritten to ``$n`` for PostgreSQL) and
``{pk}`` in a migration's DDL for the auto-numbered primary key, the only dialect word. A plugin
names its tables after itself (``review_sets``) and brings its own versioned migrations
(``await db.migrate("review", MIGRATIONS)``), applied each in its own transaction and recorded in
``<owner>_migrations``; two replicas starting at once migrate once (PostgreSQL: an advisory lock).

Writes that must not interleave run in ``async with db.transaction() as tx``: this process's
callers queue on a lock and other processes on SQLite's own (``BEGIN IMMEDIATE`` with a busy
timeout); on PostgreSQL ``await tx.lock(table, id)`` takes the row (``SELECT ... FOR UPDATE``) so
writers to one parent row (a set) serialise. A kill mid-transaction leaves the last committed
state (SQLite's WAL, PostgreSQL's own). The drivers (aiosqlite, asyncpg) are imported at open.

A database that fails under a call (PostgreSQL shut down or unreachable, a SQLite file on a
read-only or full disk) raises ``store_unavailable``, retryable, naming the store's backend and
the driver's error class, never its address: an outage is transient and an operator's matter,
not a fault of the plugin that asked. Errors in the SQL itself stay the driver's (a plugin's bug).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import zlib
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from . import errors as E
from .errors import MedlitError

log = logging.getLogger("medlit.store")

Row = tuple[Any, ...]
Migration = tuple[int, str, Sequence[str]]
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")
_QMARK = re.compile(r"\?")
DEFAULT_FILE = "review.db"  # the name the first store had: an existing user's data stays where it is


class StoreError(Exception):
    """A store that cannot be opened or used (the message names the setting)."""


# SQLite's primary result codes that mean the file, not the statement, failed: PERM, BUSY, LOCKED,
# NOMEM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOTADB.
_SQLITE_OUTAGE = frozenset({3, 5, 6, 7, 8, 10, 11, 13, 14, 26})
# asyncpg's classes for a server that is gone, going or full (SQLSTATE classes 08, 57, 53)
_PG_OUTAGE = ("PostgresConnectionError", "OperatorInterventionError", "InsufficientResourcesError")


def _is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached or written, as opposed to a
    statement it refused."""
    if isinstance(exc, OSError | TimeoutError):  # refused, reset, unreachable; command_timeout
        return True
    import sqlite3

    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        return code is not None and code & 0xFF in _SQLITE_OUTAGE
    kinds = {c.__name__ for c in type(exc).__mro__ if c.__module__.startswith("asyncpg")}
    if kinds & set(_PG_OUTAGE):
        return True
    # asyncpg's own side of a lost server: "connection is closed", "pool is closing"
    return "InterfaceError" in kinds and ("clos" in str(exc) or "connection" in str(exc))


def unavailable(dialect: str, exc: BaseException) -> MedlitError:
    """The ``store_unavailable`` error for an outage of the ``dialect`` store (no address)."""
    return MedlitError(
        E.STORE_UNAVAILABLE,
        f"The host's store ({dialect}, MEDLIT_STORE) is unavailable: {type(exc).__name__}. "
        "Other tools are unaffected; this one works again once the database answers.",
        recovery="Retry in a moment; if it persists, an operator should check the database behind MEDLIT_STORE.",
        retryable=True,
    )


@contextlib.asynccontextmanager
async def _guarded(dialect: str) -> AsyncIterator[None]:
    """Turn a database outage inside the block into ``store_unavailable``."""
    try:
        yield
    except MedlitError:
        raise
    except Exception as exc:
        if not _is_outage(exc):
            raise
        log.warning("the %s store failed: %s: %s", dialect, type(exc).__name__, exc)
        raise unavailable(dialect, exc) from None


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _identifier(name: str, what: str) -> str:
    if not _NAME.match(name):
        raise StoreError(f"{what} {name!r} is not a lower-case SQL name (letters, digits, '_')")
    return name


def _pg(sql: str) -> str:
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return _QMARK.sub(number, sql)


class _Sql:
    """The statements both backends share: migrations, over ``execute``/``fetch``/``transaction``
    of the subclass."""

    dialect = ""
    pk = ""

    async def execute(self, sql: str, *args: object) -> None:
        raise NotImplementedError

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        raise NotImplementedError

    def transaction(self) -> contextlib.AbstractAsyncContextManager[_Tx]:
        raise NotImplementedError

    async def migrate(self, owner: str, migrations: Sequence[Migration]) -> int:
        """Apply the migrations of ``owner`` this store lacks, each in its own transaction;
        returns the owner's schema version."""
        table = _identifier(owner, "store owner") + "_migrations"
        key = zlib.crc32(owner.encode()) & 0x7FFFFFFF
        async with self.transaction() as tx:
            await tx.serialize(key)
            await tx.execute(
                f"CREATE TABLE IF NOT EXISTS {table} (version BIGINT PRIMARY KEY, name TEXT NOT NULL, "
                "applied_at TEXT NOT NULL)"
            )
        for version, name, statements in migrations:
            async with self.transaction() as tx:
                await tx.serialize(key)  # two replicas starting at once: one migrates
                if await tx.fetch(f"SELECT version FROM {table} WHERE version = ?", version):
                    continue
                for sql in statements:
                    await tx.execute(sql.format(pk=self.pk))
                await tx.execute(
                    f"INSERT INTO {table} (version, name, applied_at) VALUES (?, ?, ?)", version, name, _now()
                )
        return await self.version(owner)

    async def version(self, owner: str) -> int:
        """The owner's schema version (0: never migrated)."""
        table = _identifier(owner, "store owner") + "_migrations"
        try:
            rows = await self.fetch(f"SELECT MAX(version) FROM {table}")
        except Exception:  # no such table yet: the drivers raise their own classes
            return 0
        return int(rows[0][0] or 0)


class _Tx:
    """One transaction's statements (``async with db.transaction() as tx``)."""

    dialect = ""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def execute(self, sql: str, *args: object) -> None:
        raise NotImplementedError

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        raise NotImplementedError

    async def insert(self, sql: str, *args: object) -> int:
        raise NotImplementedError

    async def execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        raise NotImplementedError

    async def lock(self, table: str, row_id: int) -> None:
        """Hold ``table``'s row ``row_id`` until the transaction ends (writers to it queue)."""

    async def serialize(self, key: int) -> None:
        """Hold a process-wide lock on ``key`` until the transaction ends."""


class _SqliteTx(_Tx):
    dialect = "sqlite"

    # The whole database is this transaction's (BEGIN IMMEDIATE): a row lock or a key adds nothing.
    async def execute(self, sql: str, *args: object) -> None:
        async with _guarded(self.dialect):
            await self.conn.execute(sql, args)

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        async with _guarded(self.dialect), self.conn.execute(sql, args) as cur:
            return [tuple(r) for r in await cur.fetchall()]

    async def insert(self, sql: str, *args: object) -> int:
        async with _guarded(self.dialect), self.conn.execute(sql + " RETURNING id", args) as cur:
            row = await cur.fetchone()
        return int(row[0])

    async def execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        if rows:
            async with _guarded(self.dialect):
                await self.conn.executemany(sql, [tuple(r) for r in rows])


class _PgTx(_Tx):
    dialect = "postgresql"

    async def execute(self, sql: str, *args: object) -> None:
        async with _guarded(self.dialect):
            await self.conn.execute(_pg(sql), *args)

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        async with _guarded(self.dialect):
            return [tuple(r) for r in await self.conn.fetch(_pg(sql), *args)]

    async def insert(self, sql: str, *args: object) -> int:
        async with _guarded(self.dialect):
            return int(await self.conn.fetchval(_pg(sql + " RETURNING id"), *args))

    async def execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        if rows:
            async with _guarded(self.dialect):
                await self.conn.executemany(_pg(sql), [tuple(r) for r in rows])

    async def lock(self, table: str, row_id: int) -> None:
        await self.execute(f"SELECT id FROM {_identifier(table, 'table')} WHERE id = ? FOR UPDATE", row_id)

    async def serialize(self, key: int) -> None:
        await self.execute("SELECT pg_advisory_xact_lock(?)", key)


class SqliteStore(_Sql):
    dialect = "sqlite"
    pk = "INTEGER PRIMARY KEY"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn: Any = None
        self.lock = asyncio.Lock()
        # Reads outside a transaction go through a connection of their own: in WAL mode they see
        # the last commit and never wait behind a long write (an import placing a batch).
        self.reader: Any = None
        self.read_lock = asyncio.Lock()

    async def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = await self._connect()
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "busy_timeout=60000", "synchronous=NORMAL"):
            await self._pragma(self.conn, pragma)
        self.reader = await self._connect()
        for pragma in ("busy_timeout=60000", "query_only=ON"):
            await self._pragma(self.reader, pragma)

    async def _connect(self) -> Any:
        import aiosqlite

        pending = aiosqlite.connect(str(self.path), timeout=60.0, isolation_level=None)
        with contextlib.suppress(AttributeError):  # a forgotten close must not hold the process open
            pending._thread.daemon = True
        return await pending

    async def _pragma(self, conn: Any, pragma: str) -> None:
        # Switching to WAL needs the file to itself: a process opening it while another starts up
        # gets "database is locked" at once (no busy handler covers it). Tried again for a while.
        import sqlite3

        for attempt in range(200):
            try:
                await conn.execute(f"PRAGMA {pragma}")
                return
            except sqlite3.OperationalError:
                if attempt == 199:
                    raise
                await asyncio.sleep(0.05)

    async def close(self) -> None:
        if self.reader is not None:
            await self.reader.close()
            self.reader = None
        if self.conn is not None:
            await self.conn.close()
            self.conn = None

    # One connection writes for the process: a statement outside a transaction waits for the lock,
    # so it never runs inside (and never sees, or is rolled back with) another caller's transaction.
    async def execute(self, sql: str, *args: object) -> None:
        async with self.lock:
            await _SqliteTx(self.conn).execute(sql, *args)

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        async with self.read_lock:
            return await _SqliteTx(self.reader).fetch(sql, *args)

    async def insert(self, sql: str, *args: object) -> int:
        async with self.lock:
            return await _SqliteTx(self.conn).insert(sql, *args)

    async def execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        async with self.transaction() as tx:
            await tx.execute_many(sql, rows)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[_Tx]:
        async with self.lock, _guarded(self.dialect):
            await self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTx(self.conn)
            except BaseException:
                with contextlib.suppress(Exception):  # a failed BEGIN/statement may have ended it
                    await self.conn.execute("ROLLBACK")
                raise
            await self.conn.execute("COMMIT")

    async def size(self, prefix: str) -> int:
        """Bytes on disk (the whole file: SQLite keeps every table in it)."""
        return sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())


class PostgresStore(_Sql):
    dialect = "postgresql"
    pk = "BIGSERIAL PRIMARY KEY"

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.pool: Any = None

    async def open(self) -> None:
        try:
            import asyncpg  # type: ignore[import-untyped]
        except ImportError:
            raise StoreError(
                "MEDLIT_STORE names PostgreSQL, but the asyncpg driver is not installed "
                "(pip install 'medlit-mcp[postgres]')"
            ) from None
        self.pool = await asyncpg.create_pool(self.dsn, min_size=1, max_size=4, command_timeout=60)

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            self.pool = None

    async def execute(self, sql: str, *args: object) -> None:
        async with _guarded(self.dialect), self.pool.acquire() as conn:
            await _PgTx(conn).execute(sql, *args)

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        async with _guarded(self.dialect), self.pool.acquire() as conn:
            return await _PgTx(conn).fetch(sql, *args)

    async def insert(self, sql: str, *args: object) -> int:
        async with _guarded(self.dialect), self.pool.acquire() as conn:
            return await _PgTx(conn).insert(sql, *args)

    async def execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        async with self.transaction() as tx:
            await tx.execute_many(sql, rows)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[_Tx]:
        async with _guarded(self.dialect), self.pool.acquire() as conn, conn.transaction():
            yield _PgTx(conn)

    async def size(self, prefix: str) -> int:
        """Bytes of the tables named ``<prefix>...`` (with their indexes)."""
        rows = await self.fetch(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "WHERE c.relname LIKE ? AND c.relkind = 'r'",
            _identifier(prefix, "table prefix") + "%",
        )
        return int(rows[0][0])


SqlStore = SqliteStore | PostgresStore


def store_for(url: str) -> SqlStore:
    """``sqlite:///absolute/path.db`` (``sqlite:///~/x.db`` expands the home) or
    ``postgresql://user:pass@host/db``; not opened yet."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":  # sqlite:///abs/path (or sqlite:////abs/path), as MEDLIT_CACHE reads it
        raw = unquote(url[len("sqlite://") :])
        if raw.startswith("//"):
            raw = raw[1:]
        if raw.startswith("/~"):
            raw = raw[1:]
        if not raw or raw == "/":
            raise StoreError("MEDLIT_STORE=sqlite:/// needs a file path (sqlite:////var/lib/medlit/store.db)")
        return SqliteStore(Path(raw).expanduser())
    if parts.scheme in ("postgresql", "postgres"):
        return PostgresStore(url)
    raise StoreError(
        "MEDLIT_STORE must be sqlite:///path or postgresql://..., not " + (parts.scheme or "a bare path")
    )


def default_store_url() -> str:
    import platformdirs

    return "sqlite:///" + str(Path(platformdirs.user_data_dir("medlit")) / DEFAULT_FILE)


async def open_store(url: str) -> SqlStore:
    """The store at ``url``, opened (its plugins migrate their own tables)."""
    store = store_for(url)
    await store.open()
    return store
