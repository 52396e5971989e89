import socket
import sys
from pathlib import Path

import pytest

# tests/ helpers (corpus.py, fake_upstream.py) import as top-level modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from medlit.core.host import load_host
from medlit.core.runtime import Runtime
from medlit.core.settings import is_loopback_host, load_settings

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


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _loopback_only(address) -> None:
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and not (is_loopback_host(host) or host.startswith("/")):
        raise OSError(f"tests may only connect to loopback, not {host!r}")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Every test runs with outbound connections limited to loopback: a test that would reach a
    real upstream fails loudly instead (fixture files mention NCBI's DTD URLs only as data)."""

    def connect(self, address):
        _loopback_only(address)
        return _real_connect(self, address)

    def connect_ex(self, address):
        _loopback_only(address)
        return _real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
