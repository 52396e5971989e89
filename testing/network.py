"""Keep tests off the real network: outbound connections limited to loopback (and Unix sockets).

A test that would reach a real upstream then fails loudly with ``OSError`` instead of depending
on, and adding load to, a service it does not own.
"""

from __future__ import annotations

import socket
from typing import Any

from medlit.core.settings import is_loopback_host

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def check_address(address: Any) -> None:
    """Raise ``OSError`` unless ``address`` is loopback or a Unix socket path."""
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and not (is_loopback_host(host) or host.startswith("/")):
        raise OSError(f"tests may only connect to loopback, not {host!r}")


def _connect(self: socket.socket, address: Any) -> None:
    check_address(address)
    return _real_connect(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    check_address(address)
    return _real_connect_ex(self, address)


def loopback_only(monkeypatch: Any) -> None:
    """Limit connections to loopback until ``monkeypatch`` (pytest's fixture) is undone."""
    monkeypatch.setattr(socket.socket, "connect", _connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _connect_ex)
