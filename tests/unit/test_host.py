"""The plugin host: discovery, switches, broken plugins, duplicate names, third-party plugins."""

from __future__ import annotations

import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from pydantic import BaseModel

from medlit.core.host import HostError, load_host
from medlit.core.plugin import FulltextTier, PluginInfo, SettingSpec, TierResult, ToolSpec, hookimpl
from medlit.core.runtime import Runtime
from medlit.core.settings import SettingsError, load_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "medlit-example-plugin"


class Empty(BaseModel):
    pass


async def _noop(args, ctx):
    return Empty()


async def _tier(refs, ctx, options):
    return {r.key: TierResult("miss") for r in refs}


def make_plugin(name: str, tools=(), tiers=(), settings=()) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name=name, title=name, settings=tuple(settings))),
        medlit_tools=hookimpl(
            lambda: [
                ToolSpec(name=t, title=t, description=t, input_model=Empty, output_model=Empty, handler=_noop)
                for t in tools
            ]
        ),
        medlit_fulltext_tiers=hookimpl(
            lambda: [
                FulltextTier(name=t, order=i, accepts=frozenset({"pmcid"}), resolve=_tier)
                for i, t in enumerate(tiers)
            ]
        ),
    )


def host_with(*plugins, env=None, discover=False):
    return load_host(load_settings(env or {}), discover=discover, inline=list(plugins))


def test_builtin_discovered_through_entry_point():
    host = load_host(load_settings({}))
    ncbi = host.plugins["ncbi"]
    assert ncbi.source == "builtin" and ncbi.status == "active"
    assert "eutils_einfo" in host.tools and host.tools["eutils_einfo"].plugin == "ncbi"


def test_switch_off_blocks_plugin_and_names_variable():
    host = load_host(load_settings({"NCBI_ENABLED": "false"}))
    ncbi = host.plugins["ncbi"]
    assert ncbi.status == "disabled" and ncbi.waiting_on == "NCBI_ENABLED"
    assert "eutils_einfo" not in host.tools
    assert host.pm.is_blocked("ncbi")


def test_bad_boolean_is_a_startup_error():
    with pytest.raises(HostError, match="NCBI_ENABLED"):
        load_host(load_settings({"NCBI_ENABLED": "maybe"}))


def test_unconfigured_plugin_hidden_with_variable():
    p = make_plugin(
        "unpaywallish",
        tools=["uw_tool"],
        tiers=["uw"],
        settings=[SettingSpec("UW_EMAIL", "email", required=True)],
    )
    host = host_with(("unpaywallish", p))
    rec = host.plugins["unpaywallish"]
    assert rec.status == "unconfigured" and rec.waiting_on == "UW_EMAIL"
    assert "uw_tool" not in host.tools
    assert [(t.name, r.status) for t, r in host.tiers()] == [("uw", "unconfigured")]
    host = host_with(("unpaywallish", p), env={"UW_EMAIL": "a@b.org"})
    assert host.plugins["unpaywallish"].active and "uw_tool" in host.tools
    assert host.plugin_settings("unpaywallish") == {"UW_EMAIL": "a@b.org"}


def test_duplicate_tool_names_name_both_plugins():
    with pytest.raises(HostError, match=r"'alpha'.*'beta'"):
        host_with(
            ("alpha", make_plugin("alpha", tools=["same_tool"])),
            ("beta", make_plugin("beta", tools=["same_tool"])),
        )


def test_duplicate_tier_names_name_both_plugins():
    with pytest.raises(HostError, match="full-text tier name 'pmc'"):
        host_with(
            ("alpha", make_plugin("alpha", tiers=["pmc"])), ("beta", make_plugin("beta", tiers=["pmc"]))
        )


def test_broken_plugin_listed_as_error_not_fatal():
    def boom():
        raise RuntimeError("kaput")

    broken = types.SimpleNamespace(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name="broken", title="b")), medlit_tools=hookimpl(boom)
    )
    host = host_with(("broken", broken), ("ok", make_plugin("ok", tools=["ok_tool"])))
    assert host.plugins["broken"].status == "error" and "kaput" in host.plugins["broken"].detail
    assert "ok_tool" in host.tools


def test_plugin_without_info_is_error():
    host = host_with(("nameless", types.SimpleNamespace()))
    assert host.plugins["nameless"].status == "error"


def test_tier_order_is_data_and_env_overridable():
    p = make_plugin("multi", tiers=["first", "second"])
    assert [t.name for t, _ in host_with(("multi", p)).tiers()] == ["first", "second"]
    host = host_with(("multi", p), env={"MEDLIT_TIER_ORDER_FIRST": "99"})
    assert [t.name for t, _ in host.tiers()] == ["second", "first"]


def test_base_url_override_must_be_loopback():
    with pytest.raises(SettingsError, match="loopback"):
        load_settings({"MEDLIT_BASE_URL_NCBI": "https://example.org/eutils"})
    with pytest.raises(SettingsError, match="loopback"):  # any service, declared or not
        load_settings({"MEDLIT_BASE_URL_CROSSREF": "http://10.0.0.1/x"})
    assert load_settings({"MEDLIT_BASE_URL_NCBI": "http://127.0.0.5:9/x"}).base_url_override("ncbi") == (
        "http://127.0.0.5:9/x"
    )
    assert load_settings({"MEDLIT_BASE_URL_ICITE": "http://[::1]:9"}).base_url_override("icite") == "http://[::1]:9"


def test_rate_above_limit_only_with_ncbi_override():
    def ncbi_rate(env):
        return load_host(load_settings(env)).services["ncbi"].rate

    with pytest.raises(HostError, match="exceeds"):
        ncbi_rate({"MEDLIT_NCBI_RATE": "20"})
    with pytest.raises(HostError):
        ncbi_rate({"MEDLIT_NCBI_RATE": "20", "NCBI_API_KEY": "k"})
    assert ncbi_rate({"NCBI_API_KEY": "k"}) == 10
    assert ncbi_rate({}) == 3
    assert ncbi_rate({"MEDLIT_NCBI_RATE": "2"}) == 2
    fakes = {"MEDLIT_BASE_URL_NCBI": "http://localhost:1", "MEDLIT_BASE_URL_IDCONV": "http://localhost:1"}
    assert ncbi_rate({"MEDLIT_NCBI_RATE": "50", **fakes}) == 50
    # The ID converter shares NCBI's budget: a real one must not be paced past NCBI's limit.
    with pytest.raises(HostError, match="MEDLIT_BASE_URL_IDCONV"):
        ncbi_rate({"MEDLIT_NCBI_RATE": "50", "MEDLIT_BASE_URL_NCBI": "http://localhost:1"})


def test_settings_are_frozen():
    s = load_settings({"NCBI_EMAIL": "x@y.org"})
    with pytest.raises(AttributeError):
        s.log_level = "DEBUG"  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.env["NCBI_EMAIL"] = "other"  # type: ignore[index]


@pytest.fixture
def installed_example(tmp_path, monkeypatch):
    """The example plugin 'pip installed' as a fake dist-info on the path."""
    site = tmp_path / "site"
    site.mkdir()
    shutil.copytree(EXAMPLE / "medlit_example", site / "medlit_example")
    dist = site / "medlit_example_plugin-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: medlit-example-plugin\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[medlit.plugins]\nexample = medlit_example\n")
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("medlit_example", None)


def test_third_party_plugin_discovered_listed_and_switchable(installed_example):
    host = load_host(load_settings({}))
    rec = host.plugins["example"]
    assert rec.source == "entry point" and rec.version == "0.1.0" and rec.status == "active"
    assert host.tools["example_doi_link"].plugin == "example"
    off = load_host(load_settings({"EXAMPLE_ENABLED": "false"}))
    assert off.plugins["example"].status == "disabled" and "example_doi_link" not in off.tools


@pytest.mark.anyio
async def test_third_party_tool_runs(installed_example):
    async with Runtime(load_host(load_settings({}))) as rt:
        out = await rt.call("example_doi_link", {"doi": "https://doi.org/10.1038/NATURE12373"})
        assert out.data == {"doi": "10.1038/nature12373", "url": "https://doi.org/10.1038/nature12373"}
        bad = await rt.call("example_doi_link", {"doi": "nature"})
        assert bad.error.reason == "invalid_argument"


def test_third_party_plugin_cannot_take_a_builtin_name(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "evil_ncbi").mkdir(parents=True)
    (site / "evil_ncbi" / "__init__.py").write_text("")
    dist = site / "evil_ncbi-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-ncbi\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[medlit.plugins]\nncbi = evil_ncbi\n")
    monkeypatch.syspath_prepend(str(site))
    host = load_host(load_settings({}))
    assert host.plugins["ncbi"].source == "builtin" and host.plugins["ncbi"].active
    assert host.plugins["ncbi@evil-ncbi"].status == "error"


def test_broken_third_party_entry_point_does_not_stop_cli(tmp_path):
    site = tmp_path / "site"
    (site / "broken_plugin").mkdir(parents=True)
    (site / "broken_plugin" / "__init__.py").write_text("raise ImportError('missing dependency xyz')\n")
    dist = site / "broken_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[medlit.plugins]\nbroken = broken_plugin\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-m", "medlit", "plugins"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0
    assert "broken" in proc.stdout and "error" in proc.stdout and "missing dependency xyz" in proc.stdout
    assert "ncbi" in proc.stdout and "active" in proc.stdout
    assert "missing dependency xyz" in proc.stderr  # logged to stderr too


def test_a_record_of_the_wrong_type_makes_the_plugin_an_error():
    tier_as_tool = make_plugin("mixed", tiers=["t"])
    tier_as_tool.medlit_tools = tier_as_tool.medlit_fulltext_tiers  # a FulltextTier is no ToolSpec
    host = host_with(("mixed", tier_as_tool), ("ok", make_plugin("ok", tools=["ok_tool"])))
    assert host.plugins["mixed"].status == "error"
    assert "medlit_tools() returned a FulltextTier, not a ToolSpec" in host.plugins["mixed"].detail
    assert list(host.tools) == ["ok_tool"]


def test_switch_variable_of_a_dotted_or_dashed_name_is_settable():
    plugin = make_plugin("acme.full-text", tools=["acme_tool"], tiers=["acme.tier"])
    host = host_with(("acme.full-text", plugin), env={"ACME_FULL_TEXT_ENABLED": "false"})
    record = host.plugins["acme.full-text"]
    assert record.status == "disabled" and record.waiting_on == "ACME_FULL_TEXT_ENABLED"
    host = host_with(("acme.full-text", plugin), env={"MEDLIT_TIER_ORDER_ACME_TIER": "99"})
    assert host.tier_order(record.tiers[0]) == 99


@pytest.mark.anyio
async def test_secrets_in_a_plugin_errors_details_and_hint_are_redacted():
    from medlit.core.errors import upstream_error

    async def leaky(args, ctx):
        raise upstream_error(
            "acme", "bad_request", "rejected", recovery="retry with sekret-key-1", url="/x?key=sekret-key-1"
        )

    plugin = make_plugin("acme", tools=["acme_tool"])
    plugin.medlit_tools = hookimpl(
        lambda: [ToolSpec("acme_tool", "t", "d", input_model=Empty, output_model=Empty, handler=leaky)]
    )
    host = host_with(("acme", plugin), env={"ACME_API_KEY": "sekret-key-1"})
    async with Runtime(host) as rt:
        outcome = await rt.call("acme_tool", {})
    assert outcome.is_error and "sekret-key-1" not in str(outcome.error.to_dict()) + outcome.text
    assert outcome.error.details["url"] == "/x?key=***"
