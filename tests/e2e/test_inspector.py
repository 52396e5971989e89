"""The MCP Inspector CLI (TypeScript SDK) lists tools and calls eutils_einfo without schema
complaints, on success and on error. Opt-in (it runs npx): MEDLIT_TEST_INSPECTOR=1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
INSPECTOR = ["npx", "-y", "@modelcontextprotocol/inspector@2.12.0", "--cli"]

if not (os.environ.get("MEDLIT_TEST_INSPECTOR") == "1" and shutil.which("npx")):
    pytest.skip(
        "set MEDLIT_TEST_INSPECTOR=1 (needs npx and the npm registry) to run the Inspector checks",
        allow_module_level=True,
    )


def inspector(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    flags = [x for k, v in env.items() for x in ("-e", f"{k}={v}")]
    cmd = [*INSPECTOR, *flags, sys.executable, "-m", "medlit", "serve", "-q", "--format", "json", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240)


async def test_inspector_list_and_calls(fake):
    env = fake.env(MEDLIT_MAX_RETRIES="0")
    listed = await _run(inspector, env, "--method", "tools/list", "--strict")
    assert listed.returncode == 0, listed.stderr
    assert any(t["name"] == "eutils_einfo" for t in json.loads(listed.stdout)["result"]["tools"])
    ok = await _run(
        inspector,
        env,
        "--method",
        "tools/call",
        "--tool-name",
        "eutils_einfo",
        "--tool-args-json",
        '{"db":"pubmed"}',
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["result"]["structuredContent"]["database"]["name"] == "pubmed"
    fake.fault("503", "ncbi", "einfo.fcgi", times=50)
    bad = await _run(
        inspector,
        env,
        "--method",
        "tools/call",
        "--tool-name",
        "eutils_einfo",
        "--tool-args-json",
        '{"db":"pubmed"}',
    )
    assert bad.returncode == 5  # isError: true, and nothing else (a schema complaint exits 1)
    assert json.loads(bad.stdout)["result"]["_meta"]["medlit/error"]["reason"] == "ncbi_server_error"


async def _run(fn, *args):
    import anyio

    return await anyio.to_thread.run_sync(lambda: fn(*args))
