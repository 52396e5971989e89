"""A throwaway redis-server on a free loopback port (the Debian package), for tests."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def redis_binary() -> str | None:
    return shutil.which("redis-server")


class RedisProcess:
    """A redis-server on one loopback port that a test can stop (an outage) and start again."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        binary = redis_binary()
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.binary, self.workdir = binary, workdir
        if port is None:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def pause(self) -> None:
        """SIGSTOP: the port still accepts connections, nothing is ever answered (a hung Redis)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)  # a paused process still dies, but wake it anyway
            self.proc.kill()  # an outage, not a clean shutdown
            self.proc.wait(timeout=10)
            self.proc = None


@contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    """Start redis-server with no persistence; yields its URL; stops it afterwards."""
    server = RedisProcess(workdir)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def redis_process(tmp_path: Path) -> Iterator[RedisProcess]:
    """A running redis-server the test may pause, stop and start (skipped without the binary)."""
    if redis_binary() is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server); .ci/run installs it")
    server = RedisProcess(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()
