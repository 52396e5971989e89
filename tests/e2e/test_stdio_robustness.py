"""The stdio transport answers what it cannot parse instead of leaving the caller waiting."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def _exchange(lines: list[str]) -> tuple[list[dict], str]:
    """Send each line and read one reply to it (every line here gets exactly one)."""
    env = {**os.environ, "MEDLIT_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "medlit", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    try:
        for line in lines:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 20)
            assert ready, f"no reply within 20 s to {line[:40]!r}"
            replies.append(json.loads(proc.stdout.readline()))
    finally:
        _, stderr = proc.communicate(timeout=30)  # closes stdin: the server ends on EOF
    return replies, stderr


@pytest.mark.parametrize("garbage", ["this is not json", "[" * 200 + "]" * 200, '{"jsonrpc": "2.0", "id": 7'])
def test_unparseable_line_gets_a_parse_error_and_the_session_goes_on(garbage):
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    replies, stderr = _exchange([json.dumps(INIT), garbage, json.dumps(ping)])
    errors = [r for r in replies if "error" in r]
    assert errors and errors[0]["error"]["code"] == -32700 and errors[0]["id"] is None
    assert any(r.get("id") == 2 and "result" in r for r in replies)  # still serving afterwards
    assert "-32700" in stderr  # and logged
