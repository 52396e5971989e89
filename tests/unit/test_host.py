"""The plugin host: discovery, selection, switches, broken plugins, duplicate names, third-party
plugins and what the contract promises them (their own settings, clients and failures)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from medlit.core.errors import MedlitError
from medlit.core.host import DIST_NAME, HostError, load_host
from medlit.core.plugin import (
    FulltextTier,
    IdResolver,
    MetadataProvider,
    PluginInfo,
    Probe,
    ServiceSpec,
    SettingSpec,
    TierResult,
    ToolContext,
    ToolSpec,
    hookimpl,
)
from medlit.core.runtime import Runtime
from medlit.core.settings import SettingsError, load_settings
from medlit.testing import FakeUpstream, InlinePlugin, json_response, make_host, make_runtime

from support.distributions import fake_dist
from support.plugin_pin import with_pin

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "medlit-example-plugin"


class Empty(BaseModel):
    pass


async def _noop(args, ctx):
    return Empty()


async def _tier(refs, ctx, options):
    return {r.key: TierResult("miss") for r in refs}


def make_plugin(name: str, tools=(), tiers=(), settings=(), services=()) -> InlinePlugin:
    return InlinePlugin(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name=name, title=name, settings=tuple(settings))),
        medlit_services=hookimpl(lambda: list(services)),
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


def with_tool(plugin: InlinePlugin, name: str, handler, input_model=Empty) -> InlinePlugin:
    plugin.medlit_tools = hookimpl(
        lambda: [ToolSpec(name, name, name, input_model=input_model, output_model=Empty, handler=handler)]
    )
    return plugin


def host_with(*plugins, env=None, discover=False):
    return make_host(*plugins, env=env, discover=discover)


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
    assert [(t.name, r.status) for t, r in host.catalog.tiers] == [("uw", "unconfigured")]
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

    broken = InlinePlugin(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name="broken", title="b")), medlit_tools=hookimpl(boom)
    )
    host = host_with(("broken", broken), ("ok", make_plugin("ok", tools=["ok_tool"])))
    assert host.plugins["broken"].status == "error" and "kaput" in host.plugins["broken"].detail
    assert "ok_tool" in host.tools


def test_plugin_without_info_is_error():
    host = host_with(("nameless", InlinePlugin()))
    assert host.plugins["nameless"].status == "error"


def test_tier_order_is_data_and_env_overridable():
    p = make_plugin("multi", tiers=["first", "second"])
    assert [t.name for t, _ in host_with(("multi", p)).catalog.tiers] == ["first", "second"]
    host = host_with(("multi", p), env={"MEDLIT_TIER_ORDER_FIRST": "99"})
    assert [t.name for t, _ in host.catalog.tiers] == ["second", "first"]


def test_base_url_override_must_be_loopback():
    with pytest.raises(SettingsError, match="loopback"):
        load_settings({"MEDLIT_BASE_URL_NCBI": "https://example.org/eutils"})
    with pytest.raises(SettingsError, match="loopback"):  # any service, declared or not
        load_settings({"MEDLIT_BASE_URL_CROSSREF": "http://10.0.0.1/x"})
    assert load_settings({"MEDLIT_BASE_URL_NCBI": "http://127.0.0.5:9/x"}).base_url_override("ncbi") == (
        "http://127.0.0.5:9/x"
    )
    assert (
        load_settings({"MEDLIT_BASE_URL_ICITE": "http://[::1]:9"}).base_url_override("icite")
        == "http://[::1]:9"
    )


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


def install_example(site: Path) -> Path:
    """The example plugin "pip installed" as a fake dist-info in ``site``."""
    return fake_dist(
        site,
        "medlit-example-plugin",
        "0.2.0",
        {"example": "medlit_example"},
        {"medlit_example": EXAMPLE / "medlit_example"},
    )


@pytest.fixture
def installed_example(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(install_example(tmp_path / "site")))
    yield tmp_path / "site"
    for name in [m for m in sys.modules if m == "medlit_example" or m.startswith("medlit_example.")]:
        sys.modules.pop(name)


def test_third_party_plugin_discovered_listed_and_switchable(installed_example):
    host = load_host(load_settings({}))
    rec = host.plugins["example"]
    assert rec.source == "entry point" and rec.version == "0.2.0" and rec.status == "active"
    assert host.tools["example_doi_link"].plugin == "example"
    off = load_host(load_settings({"EXAMPLE_ENABLED": "false"}))
    assert off.plugins["example"].status == "disabled" and "example_doi_link" not in off.tools


@pytest.mark.anyio
async def test_third_party_tool_runs(installed_example):
    async with make_runtime(discover=True) as rt:
        out = await rt.call("example_doi_link", {"doi": "https://doi.org/10.1038/NATURE12373"})
        assert out.data == {"doi": "10.1038/nature12373", "url": "https://doi.org/10.1038/nature12373"}
        bad = await rt.call("example_doi_link", {"doi": "nature"})
        assert bad.error.reason == "invalid_argument"


def test_third_party_plugin_cannot_take_a_builtin_name(tmp_path, monkeypatch):
    site = fake_dist(tmp_path / "site", "evil-ncbi", "1.0", {"ncbi": "evil_ncbi"}, {"evil_ncbi": ""})
    monkeypatch.syspath_prepend(str(site))
    host = load_host(load_settings({}))
    assert host.plugins["ncbi"].source == "builtin" and host.plugins["ncbi"].active
    assert host.plugins["ncbi@evil-ncbi"].status == "error"


def test_broken_third_party_entry_point_does_not_stop_cli(tmp_path):
    site = fake_dist(
        tmp_path / "site",
        "broken-plugin",
        "1.0",
        {"broken": "broken_plugin"},
        {"broken_plugin": "raise ImportError('missing dependency xyz')\n"},
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": with_pin(str(site))}
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
    assert host.tier_order(host.plugins["acme.full-text"].tiers[0]) == 99


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


# -- plugin selection: MEDLIT_LOAD_PLUGINS ----------------------------------------------------
def _builtins_installed() -> set[str]:
    return {
        ep.name
        for ep in entry_points(group="medlit.plugins")
        if ep.dist is not None and ep.dist.name == DIST_NAME
    }


def test_load_plugins_is_an_allowlist_and_skips_the_import(installed_example):
    host = load_host(load_settings({"MEDLIT_LOAD_PLUGINS": "ncbi"}))
    assert host.plugins["ncbi"].active and "eutils_einfo" in host.tools
    example = host.plugins["example"]
    assert example.status == "disabled" and example.detail == "not listed in MEDLIT_LOAD_PLUGINS"
    assert "example_doi_link" not in host.tools and "example_works" not in host.services
    assert "medlit_example" not in sys.modules  # left out: never imported
    only_example = load_host(load_settings({"MEDLIT_LOAD_PLUGINS": " example , "}))
    assert only_example.plugins["example"].active and only_example.plugins["ncbi"].status == "disabled"
    assert "eutils_einfo" not in only_example.tools and set(only_example.services) == {"example_works"}


def test_empty_load_plugins_loads_none_and_no_builtin_is_privileged():
    """No name list privileges a plugin: the workflows (full text, review sets, the reference
    audit...) are selected and switched off exactly like the providers."""
    host = load_host(load_settings({"MEDLIT_LOAD_PLUGINS": ""}))
    assert {"review", "references", "fulltext"} <= _builtins_installed()
    assert not any(p.active for p in host.plugins.values())
    assert host.services == {} and host.tools == {}
    only = load_host(load_settings({"MEDLIT_LOAD_PLUGINS": "review,ncbi"}))
    assert {n for n, p in only.plugins.items() if p.active} == {"review", "ncbi"}
    assert all(t.plugin in ("review", "ncbi") for t in only.tools.values())


BROKEN_AT_IMPORT = """
import pathlib, os
pathlib.Path(os.environ["MEDLIT_TEST_MARKER"]).write_text("imported")
raise RuntimeError("this plugin fails at import")
"""


def test_a_switched_off_plugin_is_never_imported(tmp_path, monkeypatch):
    """A plugin switched off by its variable is listed disabled, naming the variable, and its
    module never runs (a plugin that raises or has side effects at import included)."""
    marker = tmp_path / "marker"
    monkeypatch.setenv("MEDLIT_TEST_MARKER", str(marker))
    site = fake_dist(
        tmp_path / "site",
        "medlit-broken",
        "1.0",
        {"broken": "medlit_broken"},
        {"medlit_broken": BROKEN_AT_IMPORT},
    )
    monkeypatch.syspath_prepend(str(site))
    try:
        off = load_host(load_settings({"BROKEN_ENABLED": "false"}))
        rec = off.plugins["broken"]
        assert rec.status == "disabled" and rec.waiting_on == "BROKEN_ENABLED"
        assert "BROKEN_ENABLED=false" in rec.detail
        assert not marker.exists() and "medlit_broken" not in sys.modules
        on = load_host(load_settings({}))  # the same plugin switched on: it runs, fails, is listed
        assert on.plugins["broken"].status == "error" and "fails at import" in on.plugins["broken"].detail
        assert marker.exists()
    finally:
        sys.modules.pop("medlit_broken", None)


def test_load_plugins_naming_nothing_installed_is_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="medlit.host"):
        host = load_host(load_settings({"MEDLIT_LOAD_PLUGINS": "ncbi,crossreff"}))
    assert host.plugins["ncbi"].active and "crossreff" in caplog.text
    with pytest.raises(SettingsError, match="MEDLIT_LOAD_PLUGINS"):
        load_settings({"MEDLIT_LOAD_PLUGINS": "ncbi,rm -rf"})


# -- settings checked at start-up -------------------------------------------------------------
KINDS = (
    SettingSpec("ACME_RETRIES", "an int", kind="int"),
    SettingSpec("ACME_STRICT", "a bool", kind="bool"),
    SettingSpec("ACME_EMAIL", "an email", kind="email", secret=True),
    SettingSpec("ACME_RATE", "a number", kind="number"),
    SettingSpec("ACME_URL", "a url", kind="url"),
)


@pytest.mark.parametrize(
    ("var", "value", "problem"),
    [
        ("ACME_RETRIES", "three", "is not an integer"),
        ("ACME_STRICT", "sometimes", "is not a boolean"),
        ("ACME_EMAIL", "nobody-at-example.org", "is not an email address"),
        ("ACME_RATE", "fast", "is not a number"),
        ("ACME_URL", "ftp://example.org", "is not an http(s) URL"),
    ],
)
def test_a_malformed_setting_stops_the_host(var, value, problem):
    plugin = make_plugin("acme", settings=KINDS)
    with pytest.raises(HostError, match=re.escape(problem)) as info:
        host_with(("acme", plugin), env={var: value})
    assert var in str(info.value)
    if var == "ACME_EMAIL":  # a secret's value is never quoted
        assert value not in str(info.value)


def test_well_formed_settings_of_every_kind_pass():
    env = {
        "ACME_RETRIES": "3",
        "ACME_STRICT": "yes",
        "ACME_EMAIL": "a@example.org",
        "ACME_RATE": "2.5",
        "ACME_URL": "https://example.org/x",
    }
    host = host_with(("acme", make_plugin("acme", settings=KINDS)), env=env)
    assert host.plugins["acme"].active and host.plugin_settings("acme") == env


def test_a_switched_off_plugin_is_never_asked_anything():
    """Switched off means no hook of the plugin runs, not even its identity: a broken plugin can be
    switched off, and its settings are not read (so a bad value of an off plugin's setting is not
    an error), while it stays listed as disabled with the variable that switches it back on."""
    calls: list[str] = []

    def raising(name):
        def hook():
            calls.append(name)
            raise RuntimeError(f"{name} must not run")

        return hookimpl(hook)

    plugin = InlinePlugin(
        **{h: raising(h) for h in ("medlit_plugin_info", "medlit_tools", "medlit_services")}
    )
    host = host_with(("acme", plugin), env={"ACME_ENABLED": "false", "ACME_RETRIES": "x"})
    record = host.plugins["acme"]
    assert (record.status, record.waiting_on, calls) == ("disabled", "ACME_ENABLED", [])
    assert record.contributions() == {} and host.pm.is_blocked("acme")


@pytest.mark.parametrize(
    ("env", "match"),
    [
        ({"MEDLIT_TIER_ORDER_PMC": "abc"}, "MEDLIT_TIER_ORDER_PMC"),
        ({"MEDLIT_LOG_LEVEL": "loud"}, "MEDLIT_LOG_LEVEL"),
    ],
)
def test_malformed_core_settings_are_refused(env, match):
    with pytest.raises(SettingsError, match=match):
        load_settings(env)


# -- callables checked at load ----------------------------------------------------------------
def _sync_handler(args, ctx):
    return Empty()


def _sync_resolve(refs, ctx):
    return {}


def _sync_lookup(kind, ids, ctx):
    return {}


@pytest.mark.parametrize(
    ("hook", "record", "attr"),
    [
        (
            "medlit_tools",
            ToolSpec("acme_tool", "t", "d", input_model=Empty, output_model=Empty, handler=_sync_handler),
            "handler",
        ),
        (
            "medlit_id_resolvers",
            IdResolver("acme_ids", 10, frozenset({"pmid"}), frozenset({"doi"}), resolve=_sync_resolve),
            "resolve",
        ),
        (
            "medlit_metadata_providers",
            MetadataProvider("acme_meta", 10, frozenset({"doi"}), _sync_lookup),
            "lookup",
        ),
        (
            "medlit_fulltext_tiers",
            FulltextTier("acme_tier", 10, frozenset({"doi"}), _sync_resolve),
            "resolve",
        ),
    ],
)
def test_a_sync_callable_is_refused_at_load_naming_the_plugin(hook, record, attr, caplog):
    plugin = make_plugin("acme")
    setattr(plugin, hook, hookimpl(lambda: [record]))
    with caplog.at_level(logging.ERROR, logger="medlit.host"):
        host = host_with(("acme", plugin), ("ok", make_plugin("ok", tools=["ok_tool"])))
    acme = host.plugins["acme"]
    assert acme.status == "error" and f"{attr} that is not an async function" in acme.detail
    assert "async def" in acme.detail and "plugin acme" in caplog.text
    assert "ok_tool" in host.tools and not any(t.plugin == "acme" for t in host.tools.values())


# -- failures named after the plugin ----------------------------------------------------------
@pytest.mark.anyio
async def test_a_crashing_handler_is_reported_as_the_plugins_fault():
    async def crash(args, ctx):
        raise KeyError("missing-field")

    host = host_with(("crossref", with_tool(make_plugin("crossref"), "crossref_lookup", crash)))
    async with Runtime(host) as rt:
        out = await rt.call("crossref_lookup", {})
    assert out.error.reason == "plugin_error" and out.error.message.startswith("plugin crossref: ")
    assert "crossref_lookup failed unexpectedly: KeyError" in out.error.message
    assert out.error.details["plugin"] == "crossref" and not out.error.retryable
    assert "bug in the server" not in out.text.lower() and "crossref plugin" in out.error.recovery


@pytest.mark.anyio
async def test_a_crashing_metadata_provider_is_named_to_its_caller():
    async def broken(kind, ids, ctx):
        raise ValueError("cannot parse")

    seen = {}

    async def uses_metadata(args, ctx):
        try:
            await ctx.lookup_metadata("doi", ["10.1/x"])
        except Exception as err:
            seen["error"] = err
        return Empty()

    meta = make_plugin("metaco")
    meta.medlit_metadata_providers = hookimpl(
        lambda: [MetadataProvider("metaco", 10, frozenset({"doi"}), broken)]
    )
    caller = with_tool(make_plugin("caller"), "caller_tool", uses_metadata)
    async with Runtime(host_with(("metaco", meta), ("caller", caller))) as rt:
        out = await rt.call("caller_tool", {})
    assert out.error is None
    assert seen["error"].reason == "plugin_error" and "plugin metaco: " in seen["error"].message


@pytest.mark.anyio
async def test_unknown_fields_are_refused_even_when_the_model_allows_extras():
    class Lenient(BaseModel):
        model_config = ConfigDict(extra="allow")
        query: str = ""

    got = []

    async def record(args, ctx):
        got.append(args)
        return Empty()

    host = host_with(("lax", with_tool(make_plugin("lax"), "lax_search", record, input_model=Lenient)))
    async with Runtime(host) as rt:
        out = await rt.call("lax_search", {"query": "x", "retmax": 5})
        fine = await rt.call("lax_search", {"query": "x"})
    assert out.error.reason == "invalid_argument" and "retmax: unknown field" in out.error.message
    assert "accepted fields are query" in out.error.message and got and len(got) == 1
    assert fine.error is None


# -- a plugin's context holds its own settings and services only --------------------------------
@pytest.mark.anyio
async def test_context_holds_only_the_plugins_own_settings_and_clients():
    seen: dict[str, ToolContext] = {}

    async def capture(args, ctx):
        seen["ctx"] = ctx
        return Empty()

    acme = make_plugin(
        "acme",
        settings=[
            SettingSpec("ACME_TOKEN", "token", secret=True),
            SettingSpec("ACME_MODE", "mode", default="fast"),
        ],
        services=[ServiceSpec("acme", "Acme", "https://api.acme.example.org")],
    )
    env = {
        "ACME_TOKEN": "t0k",
        "NCBI_API_KEY": "ncbi-secret",
        "NCBI_EMAIL": "me@example.org",
        "HOME": "/root",
    }
    async with make_runtime(("acme", with_tool(acme, "acme_tool", capture)), env=env, discover=True) as rt:
        await rt.call("acme_tool", {})
        ncbi_ctx = rt.context("ncbi")
    ctx = seen["ctx"]
    assert dict(ctx.settings) == {"ACME_TOKEN": "t0k", "ACME_MODE": "fast"}
    assert ctx.setting("NCBI_API_KEY") is None and ctx.setting("ACME_MODE") == "fast"
    assert (
        set(ctx.clients) == {"acme"} and ctx.host is None
    )  # the host's services are asked for (PluginInfo.host_services)
    with pytest.raises(MedlitError) as refused:  # asking without declaring is the plugin's bug, named
        ctx.services()
    assert refused.value.reason == "plugin_error" and "host_services=True" in refused.value.message
    assert "ACME_TOKEN" not in ncbi_ctx.settings and "acme" not in ncbi_ctx.clients
    assert ncbi_ctx.settings["NCBI_API_KEY"] == "ncbi-secret"


@pytest.mark.anyio
async def test_a_client_of_an_undeclared_service_is_the_plugins_fault():
    async def reach(args, ctx):
        await ctx.client("ncbi").get("einfo.fcgi")
        return Empty()

    plugin = make_plugin("acme", services=[ServiceSpec("acme", "Acme", "https://api.acme.example.org")])
    async with make_runtime(("acme", with_tool(plugin, "acme_tool", reach)), discover=True) as rt:
        out = await rt.call("acme_tool", {})
    assert out.error.reason == "plugin_error"
    assert (
        "plugin acme: asked for service 'ncbi', which it does not declare (declared: acme)"
        in out.error.message
    )


# -- third-party services ---------------------------------------------------------------------
def test_duplicate_service_names_are_refused():
    svc = ServiceSpec("shared", "Shared", "https://shared.example.org")
    with pytest.raises(
        HostError, match="service name 'shared' is declared by both plugin 'a' and plugin 'b'"
    ):
        host_with(("a", make_plugin("a", services=[svc])), ("b", make_plugin("b", services=[svc])))
    with pytest.raises(HostError, match="service name 'ncbi'"):  # a built-in's service is taken too
        host_with(
            ("a", make_plugin("a", services=[ServiceSpec("ncbi", "x", "https://x.example.org")])),
            discover=True,
        )


def test_a_malformed_service_makes_its_plugin_an_error():
    bad = make_plugin("bad", services=[ServiceSpec("Bad Name", "x", "https://x.example.org")])
    ftp = make_plugin("ftp", services=[ServiceSpec("ftp", "x", "ftp://x.example.org")])
    host = host_with(("bad", bad), ("ftp", ftp))
    assert host.plugins["bad"].status == "error" and "lower-case" in host.plugins["bad"].detail
    assert host.plugins["ftp"].status == "error" and "not an http(s) URL" in host.plugins["ftp"].detail
    assert host.services == {}


def _counting_plugin(name: str, services: list[ServiceSpec]) -> InlinePlugin:
    calls = itertools.count()

    async def ping(args, ctx):  # every request distinct: identical ones in flight may be shared
        n = next(calls)
        await asyncio.gather(*(ctx.client(s.name).get("ping", {"n": n}, expect="json") for s in services))
        return Empty()

    return with_tool(make_plugin(name, services=services), f"{name}_ping", ping)


@pytest.mark.anyio
async def test_a_third_party_service_points_at_the_fake_and_is_paced():
    spec = ServiceSpec(
        "crossref", "Crossref", "https://api.crossref.example.org", rate=4.0, probe=Probe("ping")
    )
    async with FakeUpstream(limits={"crossref": 4.0}) as fake:
        fake.respond("crossref", "ping", {"ok": True})
        async with make_runtime(_counting_plugin("crossref", [spec]), fake=fake) as rt:
            record = rt.host.services["crossref"]
            outcomes = await asyncio.gather(*(rt.call("crossref_ping", {}) for _ in range(7)))
    assert record.overridden and record.base_url == fake.url("crossref") and record.rate == 4.0
    assert all(o.error is None for o in outcomes)
    assert len(fake.of("crossref", "ping")) == 7 and fake.rate_limited == []
    assert fake.busiest_second("crossref") <= 4


@pytest.mark.anyio
async def test_services_of_one_pacing_group_share_the_lowest_rate():
    specs = [
        ServiceSpec("alpha", "Alpha", "https://alpha.example.org", rate=6.0, pacing_group="ab"),
        ServiceSpec("beta", "Beta", "https://beta.example.org", rate=3.0, pacing_group="ab"),
    ]
    async with FakeUpstream(limits={"ab": 3.0}, groups={"ab": ("alpha", "beta")}) as fake:
        for s in specs:
            fake.route(s.name, "ping", lambda req: json_response({"ok": True}))
        async with make_runtime(_counting_plugin("ab", specs), fake=fake) as rt:
            outcomes = await asyncio.gather(*(rt.call("ab_ping", {}) for _ in range(3)))
    assert all(o.error is None for o in outcomes) and len(fake.requests) == 6
    assert fake.rate_limited == [] and fake.busiest_second("alpha", "beta") <= 3


def test_a_rate_setting_above_the_declared_rate_needs_the_fake():
    spec = ServiceSpec("acme", "Acme", "https://api.acme.example.org", rate=2.0, rate_setting="ACME_RATE")
    plugin = (
        "acme",
        make_plugin("acme", services=[spec], settings=[SettingSpec("ACME_RATE", "r", kind="number")]),
    )
    with pytest.raises(
        HostError, match=r"ACME_RATE=50 exceeds Acme's limit of 2 requests/s.*MEDLIT_BASE_URL_ACME"
    ):
        host_with(plugin, env={"ACME_RATE": "50"})
    assert host_with(plugin, env={"ACME_RATE": "1"}).services["acme"].rate == 1
    fast = host_with(plugin, env={"ACME_RATE": "50", "MEDLIT_BASE_URL_ACME": "http://127.0.0.1:9/acme"})
    assert fast.services["acme"].rate == 50 and fast.services["acme"].base_url == "http://127.0.0.1:9/acme"


def test_config_env_comes_from_the_switched_on_plugins_settings():
    from medlit.core.cli import config_env

    plugin = make_plugin(
        "acme",
        settings=[
            SettingSpec(
                "ACME_EMAIL", "Contact email", required=True, kind="email", example="me@acme.example"
            ),
            SettingSpec("ACME_KEY", "API key (optional)", secret=True, recommended=True),
            SettingSpec("ACME_DEBUG", "noise", kind="bool"),
        ],
    )
    env = config_env(host_with(("acme", plugin)))
    assert env == {"ACME_EMAIL": "me@acme.example", "ACME_KEY": "<api key>"}  # not ACME_DEBUG
    set_here = config_env(
        host_with(("acme", plugin), env={"ACME_EMAIL": "ops@acme.example", "ACME_KEY": "s3cr3t"})
    )
    assert set_here == {"ACME_EMAIL": "ops@acme.example", "ACME_KEY": "<api key>"}  # a secret is never shown
    assert config_env(host_with(("acme", plugin), env={"ACME_ENABLED": "false"})) == {}
    builtin = config_env(load_host(load_settings({})))
    assert builtin["NCBI_EMAIL"] == "you@example.org" and "UNPAYWALL_EMAIL" in builtin
    assert "NCBI_EMAIL" not in config_env(load_host(load_settings({"NCBI_ENABLED": "false"})))


@pytest.mark.anyio
async def test_resources_and_prompts_run_isolated_like_tools():
    """A resource that raises, leaks a secret or runs past the deadline, and a prompt that raises or
    answers the wrong shape, each come back as an error naming the plugin, never a crash."""
    from medlit.core.plugin import PromptArgument, PromptSpec, ResourceSpec

    async def crash(ctx):
        raise RuntimeError("disk on fire")

    async def leak(ctx):
        return f"key={ctx.setting('ACME_KEY')}"

    async def hang(ctx):
        await asyncio.sleep(30)
        return "never"

    def bad_prompt(args, catalog):
        raise KeyError("topic")

    def odd_prompt(args, catalog):
        return ["not a pair"]

    def good_prompt(args, catalog):
        return [("user", f"Review {args['topic']} with key s3cr3t")]

    resources = [
        ResourceSpec(f"acme://{n}", n, n, n, fn)
        for n, fn in (("crash", crash), ("leak", leak), ("hang", hang))
    ]
    arg = (PromptArgument("topic", "what"),)
    prompts = [
        PromptSpec(n, n, n, arg, fn)
        for n, fn in (("bad", bad_prompt), ("odd", odd_prompt), ("good", good_prompt))
    ]
    plugin = InlinePlugin(
        medlit_plugin_info=hookimpl(
            lambda: PluginInfo(
                name="acme", title="acme", settings=(SettingSpec("ACME_KEY", "k", secret=True),)
            )
        ),
        medlit_resources=hookimpl(lambda: resources),
        medlit_prompts=hookimpl(lambda: prompts),
    )
    host = host_with(("acme", plugin), env={"ACME_KEY": "s3cr3t", "MEDLIT_CALL_DEADLINE": "1"})
    async with Runtime(host) as rt:
        text, err = await rt.read_resource("acme://crash")
        assert text is None and err.reason == "plugin_error" and "disk on fire" in err.message
        assert "acme" in err.message
        text, err = await rt.read_resource("acme://leak")
        assert err is None and "s3cr3t" not in text
        text, err = await rt.read_resource("acme://hang")
        assert err.reason == "call_deadline_exceeded" and err.retryable
        text, err = await rt.read_resource("acme://nothing")
        assert err.reason == "invalid_argument" and "acme://crash" in err.recovery
        messages, err = await rt.render_prompt("bad", {"topic": "x"})
        assert messages is None and err.reason == "plugin_error"
        messages, err = await rt.render_prompt("odd", {"topic": "x"})
        assert err.reason == "plugin_error" and "role, text" in err.message
        messages, err = await rt.render_prompt("good", {})
        assert err.reason == "invalid_argument" and "topic" in err.message
        messages, err = await rt.render_prompt("good", {"topic": "anvils"})
        assert err is None and messages == [("user", "Review anvils with key ***")]


@pytest.mark.parametrize(
    ("record", "slot"),
    [
        ("render", "render"),
        ("describe", "describe"),
        ("inspect", "inspect"),
        ("check_settings", "check_settings"),
    ],
)
def test_an_async_function_in_a_sync_slot_makes_the_plugin_an_error(record, slot):
    """Sync slots are called inline: an ``async def`` there would hand the host a coroutine that never
    runs, so it is refused at load, naming the slot."""

    async def coroutine_function(*args):
        return ""

    info = PluginInfo(name="acme", title="acme")
    tools, services = [], []
    if record in ("render", "describe"):
        tools = [
            ToolSpec(
                name="acme_tool",
                title="t",
                description="d",
                input_model=Empty,
                output_model=Empty,
                handler=_noop,
                **{slot: coroutine_function},
            )
        ]
    elif record == "inspect":
        services = [
            ServiceSpec(
                name="acme", title="Acme", base_url="https://acme.example", inspect=coroutine_function
            )
        ]
    else:
        info = PluginInfo(name="acme", title="acme", check_settings=coroutine_function)
    plugin = InlinePlugin(
        medlit_plugin_info=hookimpl(lambda: info),
        medlit_tools=hookimpl(lambda: tools),
        medlit_services=hookimpl(lambda: services),
    )
    host = host_with(("acme", plugin), ("ok", make_plugin("ok", tools=["ok_tool"])))
    record_ = host.plugins["acme"]
    assert record_.status == "error" and slot in record_.detail and "sync" in record_.detail
    assert list(host.tools) == ["ok_tool"]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("notanemail", "it has no @"),
        ("me@localhost", "its domain 'localhost' has no dot"),
        ("@example.org", "nothing comes before the @"),
        ("me @example.org", "it holds a space"),
        ("me@@example.org", "it has more than one @"),
    ],
)
def test_a_malformed_email_says_which_part_and_quotes_it_since_it_is_no_secret(value, says):
    with pytest.raises(HostError) as caught:
        load_host(load_settings({"NCBI_EMAIL": value}))
    assert f"NCBI_EMAIL={value!r} is not an email address: {says}" in str(caught.value)


def test_keys_stay_masked_in_the_same_message():
    with pytest.raises(HostError) as caught:
        load_host(load_settings({"MEDLIT_NCBI_RATE": "fast"}))
    assert "MEDLIT_NCBI_RATE='fast' is not a number" in str(caught.value)
    host = load_host(load_settings({"NCBI_API_KEY": "k-123456", "NCBI_EMAIL": "me@example.org"}))
    assert "k-123456" in host.secrets and "me@example.org" not in host.secrets
