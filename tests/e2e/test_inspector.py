"""The MCP Inspector CLI (TypeScript SDK) lists tools and calls eutils_einfo without schema
complaints, on success and on error, and its ``--strict`` portability check reports 0 warnings
for every tool (every plugin on). Runs wherever ``npx`` is found (the first run fetches the
Inspector from the npm registry; skipped when that fails); MEDLIT_TEST_INSPECTOR=0 turns it off.
tests/unit/test_tool_definitions.py checks the same portability rule without Node."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
PINNED = "@modelcontextprotocol/inspector@2.12.0"


def _node_version() -> tuple[int, ...]:
    try:
        out = subprocess.run(["node", "-v"], capture_output=True, text=True, timeout=30).stdout
        return tuple(int(x) for x in out.strip().lstrip("v").split("."))
    except (OSError, ValueError, subprocess.SubprocessError):
        return ()


# The pinned Inspector needs Node 22.19+; on an older Node, npx runs it under the npm registry's
# `node@22` package (its own binary first on PATH), which works where the registry is reachable.
INSPECTOR = (
    ["npx", "-y", PINNED, "--cli"]
    if _node_version() >= (22, 19)
    else ["npx", "-y", "-p", "node@22", "-p", PINNED, "--", "mcp-inspector", "--cli"]
)

if os.environ.get("MEDLIT_TEST_INSPECTOR") == "0" or not shutil.which("npx"):
    pytest.skip(
        "the Inspector checks need npx (and the npm registry once); MEDLIT_TEST_INSPECTOR=0 skips them",
        allow_module_level=True,
    )
ALL_ON = {"UNPAYWALL_EMAIL": "test@example.org", "OPENURL_RESOLVER": "https://resolver.example.org/openurl"}


def inspector(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    flags = [x for k, v in env.items() for x in ("-e", f"{k}={v}")]
    cmd = [*INSPECTOR, *flags, sys.executable, "-m", "medlit", "serve", "-q", "--format", "json", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240)


async def test_inspector_list_and_calls(fake):
    env = fake.env(MEDLIT_MAX_RETRIES="0", MEDLIT_TOOLSETS="all", **ALL_ON)  # every tool listed
    names = {}
    for toolsets in ("all", "default"):  # the default list adds the toolset tools
        listed = await _run(
            inspector, {**env, "MEDLIT_TOOLSETS": toolsets}, "--method", "tools/list", "--strict"
        )
        if listed.returncode != 0 and "npm" in listed.stderr and "ERR" in listed.stderr:
            pytest.skip(f"npx could not fetch the Inspector: {listed.stderr[-300:]}")
        assert listed.returncode == 0, listed.stderr
        # The strict check prints each problem ("Warning: tool ..." / "Error: ...") and a summary
        # such as "0 errors, 434 warnings across 25 tools."; a clean list prints neither.
        assert "Warning: tool" not in listed.stderr and "Error: tool" not in listed.stderr, listed.stderr[
            -3000:
        ]
        summary = re.search(r"(\d+) errors?, (\d+) warnings? across", listed.stderr)
        assert summary is None or summary.group(1, 2) == ("0", "0"), summary
        envelope = json.loads(listed.stdout)
        assert "schemaFindings" not in envelope, envelope.get(
            "schemaFindings"
        )  # --strict puts findings there
        names[toolsets] = {t["name"] for t in envelope["result"]["tools"]}
    assert len(names["all"]) >= 28 and {"pubmed_verify_references", "review_search"} <= names["all"]
    assert {"medlit_toolsets", "medlit_call_tool", "pubmed_search_articles"} <= names["default"]
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
