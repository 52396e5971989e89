import sys
from pathlib import Path

import pytest

# tests/ helpers (corpus.py, fake_upstream.py) import as top-level modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from medlit.core.host import load_host
from medlit.core.runtime import Runtime
from medlit.core.settings import load_settings

from fake_upstream import FakeUpstream

# Fast but honest: the fake enforces this rate for NCBI, the client paces at it.
TEST_NCBI_RATE = "40"


@pytest.fixture
def anyio_backend():
    return "asyncio"  # aiohttp is asyncio-only


@pytest.fixture
async def fake():
    async with FakeUpstream(ncbi_limit=float(TEST_NCBI_RATE)) as f:
        yield f


def fake_env(fake: FakeUpstream, **extra: str) -> dict[str, str]:
    env = fake.env(MEDLIT_NCBI_RATE=TEST_NCBI_RATE, MEDLIT_BACKOFF_BASE="0.01", MEDLIT_REQUEST_TIMEOUT="5")
    env.update(extra)
    return env


@pytest.fixture
def make_runtime(fake):
    """Build a Runtime against the fake: ``async with make_runtime(**env) as rt``."""

    def factory(**extra: str) -> Runtime:
        settings = load_settings(fake_env(fake, **extra))
        return Runtime(load_host(settings))

    return factory


@pytest.fixture
async def rt(make_runtime):
    async with make_runtime() as runtime:
        yield runtime
