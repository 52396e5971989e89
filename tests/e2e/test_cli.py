"""The medlit command line against the fake upstream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from support.distributions import fake_dist
from support.environments import fake_env

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "medlit-example-plugin"
ACME = """
from medlit.core.plugin import PluginInfo, SettingSpec, hookimpl


@hookimpl
def medlit_plugin_info():
    return PluginInfo(name="acme", title="Acme", settings=(
        SettingSpec("ACME_RETRIES", "retries", kind="int"),
        SettingSpec("ACME_STRICT", "strict", kind="bool"),
        SettingSpec("ACME_CONTACT", "contact", kind="email", secret=True),
    ))
"""


async def medlit(
    env: dict[str, str], *args: str, site: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``medlit`` with exactly ``env`` (plus PATH/HOME); ``site``: a folder of fake installed
    distributions put on PYTHONPATH."""
    full = {**{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")}, **env}
    if site is not None:
        full["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), full.get("PYTHONPATH")) if p)

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
    einfo = next(t for t in json.loads(tools.stdout) if t["name"] == "eutils_einfo")
    assert einfo["plugin"] == "ncbi" and einfo["title"] == "Describe Entrez databases (EInfo)"
    plugins = await medlit(fake_env(fake, NCBI_ENABLED="false"), "plugins", "--json")
    ncbi = next(p for p in json.loads(plugins.stdout) if p["name"] == "ncbi")
    # switched off: none of its hooks ran, so nothing of it is listed but the plugin and its switch
    assert ncbi["status"] == "disabled" and ncbi["source"] == "builtin" and ncbi["tools"] == []
    assert ncbi["contributes"] == {} and "NCBI_ENABLED=false" in ncbi["detail"]
    on = next(
        p
        for p in json.loads((await medlit(fake_env(fake), "plugins", "--json")).stdout)
        if p["name"] == "ncbi"
    )
    assert "eutils_einfo" in on["contributes"]["tool"] and "pmc" in on["contributes"]["full-text tier"]
    off = await medlit(fake_env(fake, NCBI_ENABLED="false"), "tools")
    assert not any(line.startswith("eutils_einfo ") for line in off.stdout.splitlines())


async def test_doctor_redacts_and_probes(fake):
    # NCBI's services only: other plugins' probes are their own tests' business.
    env = fake_env(
        fake, NCBI_API_KEY="doctor-secret-key", NCBI_EMAIL="doc@example.org", MEDLIT_LOAD_PLUGINS="ncbi"
    )
    fake.respond("idconv", "", {"status": "ok", "records": []})
    out = await medlit(env, "doctor")
    assert "doctor-secret-key" not in out.stdout + out.stderr
    assert "NCBI_API_KEY: set (***)" in out.stdout
    assert "NCBI_EMAIL: doc@example.org" in out.stdout  # a contact email is no secret
    assert "ncbi: ok" in out.stdout and "idconv: ok" in out.stdout
    assert out.returncode == 0
    fake.fault("503", "ncbi", "einfo.fcgi", times=50)
    failing = await medlit({**env, "MEDLIT_MAX_RETRIES": "0"}, "doctor")
    # 503s: the reason's kind is the client's business (unreachable or server error).
    assert failing.returncode == 1 and "ncbi: FAILED ncbi_" in failing.stdout


async def test_doctor_probes_are_no_cache_misses(fake, tmp_path):
    env = fake_env(fake, MEDLIT_LOAD_PLUGINS="ncbi", MEDLIT_CACHE=f"sqlite:///{tmp_path / 'c.sqlite3'}")
    fake.respond("idconv", "", {"status": "ok", "records": []})
    for _ in range(2):
        assert (await medlit(env, "doctor")).returncode == 0
    probes = len(fake.requests)
    assert probes >= 4  # each run asked the upstreams itself (no cached answer)
    stats = await medlit(env, "cache", "stats")
    assert stats.returncode == 0 and "miss" not in stats.stdout.split("cache:", 1)[-1].split("\n", 1)[-1]


@pytest.fixture
def plugin_site(tmp_path):
    """The example plugin and a plugin with typed settings, "pip installed" for a subprocess."""
    site = tmp_path / "site"
    fake_dist(
        site,
        "medlit-example-plugin",
        "0.2.0",
        {"example": "medlit_example"},
        {"medlit_example": EXAMPLE / "medlit_example"},
    )
    fake_dist(site, "medlit-acme", "1.0", {"acme": "medlit_acme"}, {"medlit_acme": ACME})
    return site


async def test_doctor_probes_a_third_party_service(fake, plugin_site):
    fake.respond("example_works", "heartbeat", {"status": "ok"})
    env = fake_env(
        fake,
        MEDLIT_BASE_URL_EXAMPLE_WORKS=fake.url("example_works"),
        EXAMPLE_EMAIL="doc@example.org",
        MEDLIT_LOAD_PLUGINS="example",
    )
    out = await medlit(env, "doctor", site=plugin_site)
    assert out.returncode == 0, out.stdout + out.stderr
    line = next(x for x in out.stdout.splitlines() if x.strip().startswith("example_works:"))
    assert "example_works: ok, HTTP 200" in line and f"{fake.url('example_works')} (override)" in line
    assert "5 req/s" in line and "EXAMPLE_EMAIL: set (***)" in out.stdout
    [probe] = fake.of("example_works", "heartbeat")
    assert probe.params["mailto"] == "doc@example.org"  # sent like any of its requests
    assert "doc@example.org" not in out.stdout + out.stderr
    fake.fault("503", "example_works", "heartbeat", times=10)
    failing = await medlit({**env, "MEDLIT_MAX_RETRIES": "0"}, "doctor", site=plugin_site)
    assert failing.returncode == 1 and "example_works: FAILED example_works_" in failing.stdout


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MEDLIT_TIER_ORDER_PMC": "abc"}, "MEDLIT_TIER_ORDER_PMC='abc' is not an integer"),
        ({"MEDLIT_LOG_LEVEL": "loud"}, "MEDLIT_LOG_LEVEL='loud' is not one of"),
        ({"MEDLIT_LOAD_PLUGINS": "ncbi;acme"}, "MEDLIT_LOAD_PLUGINS"),
        ({"ACME_RETRIES": "three"}, "ACME_RETRIES='three' is not an integer"),
        ({"ACME_STRICT": "sometimes"}, "ACME_STRICT='sometimes' is not a boolean"),
        ({"ACME_CONTACT": "nobody"}, "ACME_CONTACT=*** is not an email address"),
        ({"ACME_ENABLED": "maybe"}, "ACME_ENABLED='maybe' is not a boolean"),
        ({"EXAMPLE_EMAIL": "at-nowhere"}, "EXAMPLE_EMAIL=*** is not an email address"),
        ({"NCBI_EMAIL": "me-at-home"}, "NCBI_EMAIL='me-at-home' is not an email address: it has no @"),
    ],
)
async def test_a_malformed_setting_stops_start_up_with_exit_code_2(plugin_site, env, message):
    out = await medlit(env, "tools", site=plugin_site)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert out.stdout == ""
    assert "nobody" not in out.stderr or "ACME_CONTACT" not in env  # secrets are never quoted


async def test_call_json_is_structured_content_as_sent_and_text_has_no_model_fences(fake):
    """--json prints what an MCP client receives (null and empty optional fields left out); the
    text a person reads carries no untrusted-data fences (a model's, not a terminal's)."""
    env = fake_env(fake)
    js = await medlit(env, "call", "eutils_einfo", '{"db": "pubmed"}', "--json")
    payload = json.loads(js.stdout)

    def has_empty(value) -> bool:
        if isinstance(value, dict):
            return any(v is None or v == [] or has_empty(v) for v in value.values())
        if isinstance(value, list):
            return any(has_empty(v) for v in value)
        return False

    assert payload["database"]["name"] == "pubmed" and not has_empty(payload)
    text = await medlit(env, "call", "eutils_einfo", '{"db": "pubmed"}')
    assert "untrusted-data" not in text.stdout and "Search fields" in text.stdout


async def test_misspelt_tool_names_get_the_closest_everywhere(fake):
    env = fake_env(fake)
    called = await medlit(env, "call", "pubmed_serch_articles", '{"query": "asthma"}', "--json")
    assert "did you mean 'pubmed_search_articles'?" in json.loads(called.stdout)["error"]["message"]
    explained = await medlit(env, "tools", "pubmed_serch")
    assert explained.returncode == 2 and "did you mean 'pubmed_search_articles'?" in explained.stderr
    toolset = await medlit({**env, "MEDLIT_TOOLS": "pubmed_serch*"}, "tools")
    assert toolset.returncode == 2 and "did you mean 'pubmed_search*'?" in toolset.stderr


async def test_cache_stats_says_why_it_is_off(fake):
    env = {k: v for k, v in fake_env(fake).items() if k != "MEDLIT_CACHE"}
    out = await medlit(env, "cache", "stats")
    assert "off, because MEDLIT_BASE_URL_*" in out.stdout and "MEDLIT_CACHE=sqlite" in out.stdout
    off = await medlit({**fake_env(fake), "MEDLIT_CACHE": "off"}, "cache", "stats")
    assert "MEDLIT_CACHE=off" in off.stdout
