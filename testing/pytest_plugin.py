"""pytest fixtures for medlit plugins, registered through the ``pytest11`` entry point.

- ``fake_upstream``: a started :class:`~medlit.testing.FakeUpstream`; while it runs, outbound
  connections are limited to loopback, so a request that missed the fake fails loudly.
- ``medlit_host(*plugins, env=None, discover=False)``: a host whose plugins' services all point
  at ``fake_upstream``.
- ``medlit_runtime(*plugins, env=None, discover=False)``: the same as a runtime
  (``async with medlit_runtime(my_plugin) as rt``).

The fake and the runtime run on asyncio (aiohttp): mark async tests ``@pytest.mark.anyio`` and
define ``anyio_backend`` as ``"asyncio"`` in your conftest; under another anyio backend these
fixtures skip the test, saying why. Nothing here is autouse: installing medlit-mcp changes no
other project's tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from medlit.core.host import Host
    from medlit.core.runtime import Runtime

    from .fake_upstream import FakeUpstream


@pytest.fixture
def medlit_asyncio_only(anyio_backend: Any) -> None:
    """Skip (with the reason) a test run on an anyio backend other than asyncio."""
    name = anyio_backend if isinstance(anyio_backend, str) else anyio_backend[0]
    if name != "asyncio":
        pytest.skip(f"medlit's fake upstream and runtime need asyncio (aiohttp), not {name}")


@pytest.fixture
async def fake_upstream(
    medlit_asyncio_only: None, anyio_backend: Any, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[FakeUpstream]:
    from .fake_upstream import FakeUpstream
    from .network import loopback_only

    loopback_only(monkeypatch)
    async with FakeUpstream() as fake:
        yield fake


@pytest.fixture
def medlit_host(fake_upstream: FakeUpstream) -> Callable[..., Host]:
    from .hosts import make_host

    def factory(*plugins: Any, env: dict[str, str] | None = None, discover: bool = False) -> Host:
        return make_host(*plugins, env=env, discover=discover, fake=fake_upstream)

    return factory


@pytest.fixture
def medlit_runtime(fake_upstream: FakeUpstream) -> Callable[..., Runtime]:
    from .hosts import make_runtime

    def factory(*plugins: Any, env: dict[str, str] | None = None, discover: bool = False) -> Runtime:
        return make_runtime(*plugins, env=env, discover=discover, fake=fake_upstream)

    return factory
