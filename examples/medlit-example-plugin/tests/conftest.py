"""medlit-mcp's pytest plugin provides ``fake_upstream``, ``medlit_host`` and ``medlit_runtime``;
a plugin's own conftest only picks the async backend (the fake and the runtime run on asyncio)."""

import pytest


@pytest.fixture
def anyio_backend():
    return "asyncio"
