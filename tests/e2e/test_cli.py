"""The medlit command line against the fake upstream."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import anyio
import pytest

from conftest import fake_env

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def medlit(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")}, **env}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "medlit", *args], capture_output=True, text=True, env=full, timeout=60
        )

    return await anyio.to_thread.run_sync(run)


async def test_call_prints_text_and_json(fake):
    env = fake_env(fake)
    text = await medlit(env, "call", "eutils_einfo", '{"db": "pubmed"}')
    assert text.returncode == 0 and "Search fields" in text.stdout
    js = await medlit(env, "call", "eutils_einfo", '{"db": "pubmed"}', "--json")
    assert json.loads(js.stdout)["database"]["name"] == "pubmed"


async def test_call_error_exit_code_and_payload(fake):
    bad = await medlit(fake_env(fake), "call", "eutils_einfo", '{"db": "no such"}', "--json")
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["error"]["reason"] == "invalid_argument"
    broken = await medlit(fake_env(fake), "call", "eutils_einfo", "{not json")
    assert broken.returncode == 2 and "not valid JSON" in broken.stderr


async def test_tools_and_plugins_listings(fake):
    tools = await medlit(fake_env(fake), "tools", "--json")
    assert {
        "name": "eutils_einfo",
        "plugin": "ncbi",
        "title": "Describe Entrez databases (EInfo)",
    } in json.loads(tools.stdout)
    plugins = await medlit(fake_env(fake, NCBI_ENABLED="false"), "plugins", "--json")
    ncbi = next(p for p in json.loads(plugins.stdout) if p["name"] == "ncbi")
    assert ncbi["status"] == "disabled" and ncbi["source"] == "builtin" and "eutils_einfo" in ncbi["tools"]
    off = await medlit(fake_env(fake, NCBI_ENABLED="false"), "tools")
    assert "eutils_einfo  " not in off.stdout and "not served: disabled" in off.stdout


async def test_doctor_redacts_and_probes(fake):
    env = fake_env(fake, NCBI_API_KEY="doctor-secret-key", NCBI_EMAIL="doc@example.org")
    fake.respond("idconv", "", {"status": "ok", "records": []})
    out = await medlit(env, "doctor")
    assert (
        "doctor-secret-key" not in out.stdout + out.stderr
        and "doc@example.org" not in out.stdout + out.stderr
    )
    assert "NCBI_API_KEY: set (***)" in out.stdout
    assert "ncbi: ok" in out.stdout and "idconv: ok" in out.stdout
    assert out.returncode == 0
    fake.fault("503", "ncbi", "einfo.fcgi", times=50)
    failing = await medlit({**env, "MEDLIT_MAX_RETRIES": "0"}, "doctor")
    assert failing.returncode == 1 and "ncbi: FAILED ncbi_unreachable" in failing.stdout
