"""Fixtures of our own suite, built on the test kit (:mod:`medlit.testing`).

The kit's pytest plugin adds ``fake_upstream``, ``medlit_host`` and ``medlit_runtime`` (generic,
no service pre-declared); the fixtures here add our providers' defaults: ``fake`` is the kit's
fake with NCBI's rate group and EInfo route (tests/support/fake_upstream.py), ``make_runtime``/``rt``
discover the installed plugins, and every test is limited to loopback connections. Helpers that
are not fixtures live in tests/support/ (``support.environments.fake_env``, ...).
"""

import sys
from pathlib import Path

import pytest

# tests/support (the suite's helpers) imports as the top-level package `support`.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from medlit.testing import Runtime, loopback_only
from medlit.testing import make_runtime as kit_runtime

from support.environments import TEST_NCBI_RATE, fake_env
from support.fake_upstream import FakeUpstream
from support.plugin_pin import pin, pin_subprocesses

# Before any test module builds a host at import: only the built-in plugins and those a test
# installs itself are discovered, whatever else the environment has installed; the servers and
# probes the suite starts as subprocesses too.
pin()
pin_subprocesses()

# `store_url` (each review test once per store backend) lives beside the backends it names;
# `corpus_use` names the tests that reach the shared corpus when CI asks (MEDLIT_CORPUS_USERS).
pytest_plugins = ["support.review_stores", "support.redis_server", "support.corpus_use"]


@pytest.fixture
def anyio_backend():
    return "asyncio"  # aiohttp is asyncio-only


@pytest.fixture
async def fake():
    async with FakeUpstream(ncbi_limit=float(TEST_NCBI_RATE)) as f:
        yield f


@pytest.fixture
def make_runtime(fake):
    """Build a Runtime against the fake: ``async with make_runtime(**env) as rt``."""

    def factory(**extra: str) -> Runtime:
        return kit_runtime(env=fake_env(fake, **extra), discover=True)

    return factory


@pytest.fixture
async def rt(make_runtime):
    async with make_runtime() as runtime:
        yield runtime


@pytest.fixture(autouse=True)
def own_data_dir(monkeypatch, tmp_path):
    """A test's runtimes and servers keep their default store under the test's own directory, never
    in the user's data folder (platformdirs reads XDG_DATA_HOME): no test sees another's sets."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Every test runs with outbound connections limited to loopback: a test that would reach a
    real upstream fails loudly instead (fixture files mention NCBI's DTD URLs only as data)."""
    loopback_only(monkeypatch)
