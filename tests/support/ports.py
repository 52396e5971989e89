"""A free loopback port for a server subprocess, and waiting until it listens."""

from __future__ import annotations

import socket
import subprocess
import time

import anyio


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 20.0) -> None:
    """Return once ``proc`` accepts connections on ``port``; raise with its stderr if it exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            await anyio.sleep(0.1)
    raise TimeoutError("server did not open its port")
