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


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # params nested too deep for the parser: the id before them is read by a linear scan
        (
            '{"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": '
            + '{"a": ' * 10_000
            + "1"
            + "}" * 10_000
            + "}",
            41,
        ),
        # ... and after them, a string id
        (
            '{"jsonrpc": "2.0", "method": "ping", "params": '
            + "[" * 10_000
            + "]" * 10_000
            + ', "id": "q-9"}',
            "q-9",
        ),
        # an id cut off by the end of the line is not trusted
        ('{"jsonrpc": "2.0", "id": 12', None),
    ],
)
def test_a_parse_error_carries_the_readable_top_level_id(line, expected):
    replies, stderr = _exchange([json.dumps(INIT), line])
    (error,) = [r for r in replies if "error" in r]
    assert error["error"]["code"] == -32700 and error["id"] == expected
    assert f"id {expected!r}" in stderr


def test_top_level_id_reads_only_the_top_level():
    from medlit.core.server import top_level_id

    assert top_level_id('{"params": {"id": 5}, "id": 6, "x": [') == 6
    assert top_level_id('{"a": "}\\"{", "id": "x"}') == "x"
    assert top_level_id('{"id": true}') is None and top_level_id("[1]") is None
    assert top_level_id("not json") is None and top_level_id('{"id": 1') is None
