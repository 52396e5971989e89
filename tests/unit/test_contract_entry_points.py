"""The third edition of the contract with pip-installed (entry-point) plugins on the path: pluggy
checks every plugin's hooks, a switch is decided before any hook runs, and a third-party JATS tier
reports its own source end to end over MCP."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from medlit.core.host import load_host
from medlit.core.settings import load_settings

from support.distributions import fake_dist
from support.plugin_pin import with_pin

MISSPELT = """
from medlit.core.plugin import PluginInfo, hookimpl

@hookimpl
def medlit_plugin_info():
    return PluginInfo(name="misspelt", title="Misspelt")

@hookimpl
def medlit_tool():  # the contract's hook is medlit_tools
    return []
"""

UNMARKED = """
from medlit.core.plugin import PluginInfo

def medlit_plugin_info():  # no @hookimpl: pluggy sees no hook
    return PluginInfo(name="unmarked", title="Unmarked")

def medlit_tools():
    return []
"""

RAISING = """
from medlit.core.plugin import PluginInfo, hookimpl

CALLS = []

@hookimpl
def medlit_plugin_info():
    CALLS.append("medlit_plugin_info")
    return PluginInfo(name="raising", title="Raising")

@hookimpl
def medlit_tools():
    CALLS.append("medlit_tools")
    raise RuntimeError("medlit_tools of a switched-off plugin must never run")
"""

WRONG_ARGUMENT = """
from medlit.core.plugin import PluginInfo, hookimpl

@hookimpl
def medlit_plugin_info():
    return PluginInfo(name="wrongarg", title="Wrong argument")

@hookimpl
def medlit_tools(host):  # the contract's hooks take no argument
    return []
"""

# A JATS tier of a third party: its articles must carry its own source label and record ids.
JATS_TIER = '''
from medlit.core.plugin import FulltextTier, PluginInfo, StructuredArticle, TierResult, hookimpl, markup

JATS = b"""<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
<article-id pub-id-type="pmid">37100001</article-id><article-id pub-id-type="doi">10.5555/acme.1</article-id>
<title-group><article-title>Anvils in the wild</article-title></title-group></article-meta></front>
<body><sec><title>Methods</title><p>We dropped anvils.</p></sec></body></article>"""


async def resolve(refs, ctx, options):
    (article,) = markup.read_jats(JATS)
    return {r.key: TierResult("hit", "", StructuredArticle(article, record_ids={"acmeId": "A-1", "x": "y"}))
            for r in refs}


@hookimpl
def medlit_plugin_info():
    return PluginInfo(name="acmejats", title="Acme JATS")


@hookimpl
def medlit_fulltext_tiers():
    return [FulltextTier("acme", 5, frozenset({"pmid"}), resolve, "Acme's JATS by PMID",
                         source="acme-press", record_ids=("acmeId",))]
'''


def _install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str) -> Path:
    site = fake_dist(
        tmp_path / "site", f"medlit-{name}", "1.0", {name: f"medlit_{name}"}, {f"medlit_{name}": source}
    )
    monkeypatch.syspath_prepend(str(site))
    return site


@pytest.fixture(autouse=True)
def _forget_modules():
    yield
    for name in [
        m for m in sys.modules if m.startswith(("medlit_misspelt", "medlit_unmarked", "medlit_raising"))
    ]:
        sys.modules.pop(name)


def test_a_misspelt_hook_makes_the_plugin_an_error_naming_it(tmp_path, monkeypatch):
    _install(tmp_path, monkeypatch, "misspelt", MISSPELT)
    host = load_host(load_settings({}))
    record = host.plugins["misspelt"]
    assert record.status == "error"
    assert "unknown hook 'medlit_tool'" in record.detail and "did you mean 'medlit_tools'" in record.detail
    assert host.plugins["ncbi"].active  # the others load
    assert not host.pm.is_registered(sys.modules["medlit_misspelt"])


def test_a_module_without_marked_hooks_is_an_error(tmp_path, monkeypatch):
    _install(tmp_path, monkeypatch, "unmarked", UNMARKED)
    record = load_host(load_settings({})).plugins["unmarked"]
    assert record.status == "error" and "declares no hook" in record.detail and "@hookimpl" in record.detail


def test_a_hook_with_an_argument_the_contract_lacks_is_an_error(tmp_path, monkeypatch):
    _install(tmp_path, monkeypatch, "wrongarg", WRONG_ARGUMENT)
    record = load_host(load_settings({})).plugins["wrongarg"]
    assert record.status == "error" and "invalid hooks" in record.detail and "host" in record.detail


def test_a_switched_off_plugin_whose_hook_raises_is_disabled_and_never_called(tmp_path, monkeypatch):
    _install(tmp_path, monkeypatch, "raising", RAISING)
    host = load_host(load_settings({"RAISING_ENABLED": "false"}))
    record = host.plugins["raising"]
    assert (record.status, record.waiting_on) == ("disabled", "RAISING_ENABLED")
    assert "medlit_raising" not in sys.modules  # not even imported, so none of its hooks ran
    assert host.pm.is_blocked("raising")
    # switched on, the same plugin's raising hook makes it an error, not a crash
    on = load_host(load_settings({})).plugins["raising"]
    assert on.status == "error" and "must never run" in on.detail


def test_medlit_plugins_lists_every_contribution(tmp_path):
    site = fake_dist(tmp_path / "site", "medlit-misspelt", "1.0", {"misspelt": "medlit_misspelt"},
                     {"medlit_misspelt": MISSPELT})  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": with_pin(str(site)), "MEDLIT_SCHEMA_CACHE": "off"}
    proc = subprocess.run(
        [sys.executable, "-m", "medlit", "plugins", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["misspelt"]["status"] == "error" and "medlit_tool" in rows["misspelt"]["detail"]
    ncbi = rows["ncbi"]["contributes"]
    assert {
        "service",
        "tool",
        "full-text tier",
        "ID resolver",
        "metadata provider",
        "related provider",
    } <= set(ncbi)
    assert "resource" in ncbi and "pmc" in ncbi["full-text tier"]
    assert {"resource", "prompt"} <= set(rows["guide"]["contributes"])  # core's guide plugin
    assert "access-link provider" in rows["openurl"]["contributes"]


@pytest.mark.e2e
def test_a_third_party_jats_tier_reports_its_own_source_over_mcp(tmp_path):
    """Installed as a user would, served over stdio to a real MCP client: the article the
    third-party tier serves is labelled with its source and its declared record id only."""
    site = fake_dist(tmp_path / "site", "medlit-acmejats", "1.0", {"acmejats": "medlit_acmejats"},
                     {"medlit_acmejats": JATS_TIER})  # fmt: skip
    script = textwrap.dedent(
        """
        import asyncio, json, os, sys
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        async def main():
            params = StdioServerParameters(command=sys.executable, args=["-m", "medlit"], env=dict(os.environ))
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    result = await session.call_tool("pubmed_fetch_fulltext", {"pmids": ["37100001"]})
                    print(json.dumps(result.structured_content))

        asyncio.run(main())
        """
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": with_pin(str(site)),
        "MEDLIT_LOAD_PLUGINS": "acmejats,fulltext",
        "MEDLIT_SCHEMA_CACHE": "off",
        "MEDLIT_CACHE": "off",
        "HOME": str(tmp_path),
    }
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=90)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    (article,) = data["articles"]
    assert (article["kind"], article["source"], article["viaSource"]) == ("structured", "acme-press", "acme")
    assert article["sourceIds"] == {"acmeId": "A-1"} and article["title"] == "Anvils in the wild"
    assert [(t["tier"], t["outcome"]) for t in article["triedTiers"]] == [("acme", "hit")]
