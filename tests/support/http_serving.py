"""``medlit serve --transport http`` as a subprocess on a free loopback port, for as long as a test
needs it: the base URL while the block runs, the server stopped after it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from support.ports import free_port, wait_for_port


@asynccontextmanager
async def http_serving(env: Mapping[str, str], *options: str) -> AsyncIterator[str]:
    """``http://127.0.0.1:<port>`` of a server started with ``env`` (and ``options``, e.g.
    ``--stateless``), once it accepts connections; terminated when the block ends."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "medlit", "serve", "--transport", "http", "--port", str(port), *options],
        env=dict(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        await wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)
