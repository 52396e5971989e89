"""A store outage mid-operation (issue 32): the host's store turns a database that cannot be
reached or written into ``store_unavailable``, retryable, naming the store and never its address
nor "a fault in the review plugin"; the tools that need no store keep working, and the review
tools work again once the database answers.

PostgreSQL is reached through a Unix-socket relay the test cuts and restores (the shared server
itself is never stopped); skipped without a server. SQLite refuses writes as on a read-only mount (the tests run as root: no file mode stops root)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pytest

from support.environments import fake_env
from support.review_routes import PUBMED_QUERY, Literature, install
from support.review_stores import create_database, drop_database, postgres_problem, sqlite_url

pytestmark = pytest.mark.anyio


class Relay:
    """A Unix socket in front of PostgreSQL's: ``cut()`` is the database gone (every connection
    dropped, new ones refused), ``restore()`` brings it back. ``target``: the server's own Unix
    socket, or ``(host, port)`` for one reached over TCP."""

    def __init__(self, path: Path, target: str | tuple[str, int]) -> None:
        self.path = path
        self.target = target
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def restore(self) -> None:
        self.server = await asyncio.start_unix_server(self._client, path=str(self.path))

    async def cut(self) -> None:
        assert self.server is not None
        self.server.close()
        for w in list(self.writers):
            w.transport.abort()
        self.writers.clear()
        await self.server.wait_closed()
        self.path.unlink(missing_ok=True)
        self.server = None

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if isinstance(self.target, tuple):
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        else:
            up_reader, up_writer = await asyncio.open_unix_connection(self.target)
        self.writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


def via(dsn: str, directory: Path) -> tuple[str, Path, str | tuple[str, int]]:
    """``dsn`` rewritten to connect through a relay in ``directory``, the relay's socket, and the
    server it relays to: the DSN's own host and port (any port, a Unix socket directory or a TCP
    host), not PostgreSQL's default."""
    parts = urlsplit(dsn)
    query = parse_qs(parts.query)
    port = int(query.get("port", [None])[0] or parts.port or 5432)
    host = query.get("host", [None])[0] or parts.hostname or "/var/run/postgresql"
    target: str | tuple[str, int] = f"{host}/.s.PGSQL.{port}" if host.startswith("/") else (host, port)
    user = parts.netloc.rpartition("@")[0]
    netloc = f"{user}@" if user else ""
    rewritten = urlunsplit(parts._replace(netloc=netloc, query=f"host={directory}&port={port}"))
    return rewritten, directory / f".s.PGSQL.{port}", target


def test_the_relay_follows_the_configured_port_and_host():
    d = Path("/tmp/relay")
    url, socket, target = via("postgresql://root@/postgres?host=/run/pg&port=5433", d)
    assert (socket, target) == (d / ".s.PGSQL.5433", "/run/pg/.s.PGSQL.5433")
    assert url == "postgresql://root@/postgres?host=/tmp/relay&port=5433"
    url, socket, target = via("postgresql://u:pw@db.local:6543/postgres", d)
    assert (socket, target) == (d / ".s.PGSQL.6543", ("db.local", 6543))
    assert url == "postgresql://u:pw@/postgres?host=/tmp/relay&port=6543"
    assert via("postgresql://root@/postgres?host=/var/run/postgresql", d)[1:] == (
        d / ".s.PGSQL.5432",
        "/var/run/postgresql/.s.PGSQL.5432",
    )


def runtime_for(fake, tmp_path, store_url):
    from medlit.testing import make_runtime

    install(fake, Literature.build(pubmed=4, europepmc=0))
    env = fake_env(fake, MEDLIT_STORE=store_url, MEDLIT_EXPORT_DIR=str(tmp_path / "exports"))
    return make_runtime(env=env, discover=True)


def assert_store_unavailable(out, *hidden: str) -> None:
    assert out.is_error, out.text
    err = out.error
    assert err.kind == "store_unavailable" and err.retryable, err.to_dict()
    assert "fault in the review plugin" not in out.text and "will probably fail" not in out.text
    assert "store" in err.message
    for word in hidden:
        assert word not in out.text, word


@pytest.mark.skipif(bool(postgres_problem()), reason=postgres_problem() or "PostgreSQL reachable")
async def test_postgresql_gone_mid_run_is_store_unavailable_and_other_tools_go_on(fake, tmp_path):
    dsn = await create_database()
    relay_dir = tmp_path / "pg"
    relay_dir.mkdir()
    url, socket, target = via(dsn, relay_dir)
    relay = Relay(socket, target)
    port = socket.name.rpartition(".")[2]
    await relay.restore()
    try:
        async with runtime_for(fake, tmp_path, url) as rt:
            first = await rt.call("review_search", {"set": "s", "queries": {"pubmed": PUBMED_QUERY}})
            assert not first.is_error, first.text
            await relay.cut()
            for tool, args in (
                ("review_sets", {"action": "list"}),
                ("review_records", {"set": "s"}),
                ("review_export", {"set": "s", "format": "ris"}),
            ):
                assert_store_unavailable(await rt.call(tool, args), str(relay_dir), port, "PGSQL")
            other = await rt.call("pubmed_europepmc_search", {"query": "otters", "pageSize": 3})
            assert not other.is_error, other.text  # a tool without the store is unaffected
            await relay.restore()
            back = await rt.call("review_sets", {"action": "list"})
            assert not back.is_error and [s["set"] for s in back.data["sets"]] == ["s"], back.text
    finally:
        with contextlib.suppress(Exception):
            await relay.cut()
        await drop_database(dsn)


async def test_sqlite_that_cannot_write_is_store_unavailable(fake, tmp_path):
    async with runtime_for(fake, tmp_path, sqlite_url(tmp_path)) as rt:
        first = await rt.call("review_search", {"set": "s", "queries": {"pubmed": PUBMED_QUERY}})
        assert not first.is_error, first.text
        db = await rt.store()
        await db.execute("PRAGMA query_only = ON")  # every write refused, as on a read-only mount
        out = await rt.call("review_search", {"set": "t", "queries": {"pubmed": PUBMED_QUERY}})
        assert_store_unavailable(out, str(tmp_path))
        listed = await rt.call("review_sets", {"action": "list"})  # reading still works
        assert not listed.is_error and [s["set"] for s in listed.data["sets"]] == ["s"], listed.text


async def test_sqlite_on_a_path_that_cannot_exist_is_store_unavailable(fake, tmp_path):
    async with runtime_for(fake, tmp_path, "sqlite:////proc/medlit-none/review.db") as rt:
        out = await rt.call("review_sets", {"action": "list"})
        assert_store_unavailable(out, "/proc/medlit-none")
        other = await rt.call("pubmed_europepmc_search", {"query": "otters", "pageSize": 3})
        assert not other.is_error, other.text
