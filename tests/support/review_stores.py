"""The review store backends the store tests run on: SQLite always, PostgreSQL when a server is
reachable at ``MEDLIT_TEST_POSTGRES`` (default: the local server's socket, as ``.ci/run`` starts
it), each test in a database of its own, dropped afterwards. Without a server the PostgreSQL
cases skip, saying why."""

from __future__ import annotations

import asyncio
import getpass
import os
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

DEFAULT_DSN = f"postgresql://{getpass.getuser()}@/postgres?host=/var/run/postgresql"


def admin_dsn() -> str:
    return os.environ.get("MEDLIT_TEST_POSTGRES", DEFAULT_DSN)


def _with_db(dsn: str, name: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path="/" + name))


_REACHABLE: str | None = None


def postgres_problem() -> str:
    """'' when a PostgreSQL server answers at the admin DSN, else why not."""
    global _REACHABLE
    if _REACHABLE is not None:
        return _REACHABLE

    async def probe() -> None:
        import asyncpg

        conn = await asyncio.wait_for(asyncpg.connect(admin_dsn()), 5)
        await conn.close()

    try:
        asyncio.run(probe())
        _REACHABLE = ""
    except Exception as exc:  # no server, no driver, no role: the reason is the skip message
        _REACHABLE = f"no PostgreSQL server at MEDLIT_TEST_POSTGRES ({type(exc).__name__}: {exc})"[:300]
    return _REACHABLE


async def create_database() -> str:
    import asyncpg

    name = "medlit_test_" + uuid.uuid4().hex[:12]
    conn = await asyncpg.connect(admin_dsn())
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return _with_db(admin_dsn(), name)


async def drop_database(dsn: str) -> None:
    import asyncpg

    name = urlsplit(dsn).path.lstrip("/")
    conn = await asyncpg.connect(admin_dsn())
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def sqlite_url(tmp: Path) -> str:
    return f"sqlite:///{tmp / 'review.db'}"


def store_params() -> list:
    problem = postgres_problem()
    return [
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.skipif(bool(problem), reason=problem)),
    ]


# Loaded by tests/conftest.py as a pytest plugin, so every review test that names `store_url`
# runs once per backend without defining the fixture again.
@pytest.fixture(params=store_params())
async def store_url(request, tmp_path):
    """The store URL of one backend: a SQLite file in the test's directory, or a PostgreSQL
    database of the test's own, dropped afterwards."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    dsn = await create_database()
    try:
        yield dsn
    finally:
        await drop_database(dsn)


# For a test whose calls must answer when the work is done, not when a clock says: each call waits
# for its import (or ranking) as long as the work takes (MEDLIT_REVIEW_WAIT, under the call
# deadline), so a loaded machine makes the test slower, never wrong.
WAIT_FOR_THE_WORK = {"MEDLIT_CALL_DEADLINE": "3600", "MEDLIT_REVIEW_WAIT": "3590"}

# pytest's time-out (pyproject: 120 s) is a hang guard; a test that needs tens of seconds of CPU
# (a 10,000-record search, the corpus's 49 exports) takes minutes beside busy neighbours, so it
# gets a guard sized for a loaded machine instead.
LONG_WORK = pytest.mark.timeout(900)


@pytest.fixture
def review_runtime(fake, tmp_path, store_url):
    """``review_runtime(**env)``: a runtime of the installed plugins against the fake, its review
    store on ``store_url``'s backend and its exports under the test's directory, ``env`` on top
    (the one home of what each review test file used to build for itself)."""
    from medlit.testing import make_runtime

    from support.environments import fake_env

    def factory(**extra: str):
        env = fake_env(fake, MEDLIT_STORE=store_url, MEDLIT_EXPORT_DIR=str(tmp_path / "exports"), **extra)
        return make_runtime(env=env, discover=True)

    return factory
