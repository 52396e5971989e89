"""The ``medlit`` commands in-process: what a user sees for bad input (unknown cache service, a
tool that does not exist or is not served, malformed options) and what ``doctor`` never shows."""

from __future__ import annotations

import asyncio
import json
import logging
import os

import pytest

from medlit.core import cli
from medlit.core.cache import Entry, SqliteCache, cache_setting
from medlit.core.host import load_host
from medlit.core.plugin import PluginInfo, SettingSpec, ToolSpec, hookimpl, lazy
from medlit.core.settings import load_settings


@pytest.fixture
def env(monkeypatch):
    """A clean ``MEDLIT_*`` environment (the CLI reads ``os.environ``); root logging restored
    after the command replaced its handlers."""
    for name in list(os.environ):
        if name.startswith("MEDLIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MEDLIT_SCHEMA_CACHE", "off")
    monkeypatch.setenv("MEDLIT_CACHE", "off")
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield monkeypatch
    root.handlers[:] = handlers
    root.setLevel(level)


def run(*argv: str) -> int:
    return cli.main(list(argv))


# -- cache --------------------------------------------------------------------------------------
@pytest.fixture
def sqlite_cache(env, tmp_path):
    """A cache file holding one ncbi entry and one of a service no installed plugin declares."""
    env.setenv("MEDLIT_CACHE", f"sqlite:///{tmp_path / 'cache.sqlite3'}")

    async def seed() -> None:
        cache = SqliteCache(cache_setting(load_settings(dict(os.environ))))
        try:
            await cache.set_many(
                [Entry("ncbi:req:a", "ncbi", b"x", 600), Entry("gone_plugin:req:b", "gone_plugin", b"y", 600)]
            )
        finally:
            await cache.close()

    asyncio.run(seed())


def test_cache_off_says_how_to_turn_it_on(env, capsys):
    assert run("cache", "stats") == 0
    out = capsys.readouterr().out
    assert out.startswith("cache: off") and "MEDLIT_CACHE=sqlite:///" in out


def test_clearing_an_unknown_service_is_refused_and_removes_nothing(sqlite_cache, capsys):
    assert run("cache", "clear", "--service", "ncbii") == 2
    seen = capsys.readouterr()
    assert seen.out == ""
    assert "no service named 'ncbii'" in seen.err and "ncbi" in seen.err.split("services:", 1)[1]
    assert run("cache", "stats") == 0
    stats = capsys.readouterr().out
    assert "ncbi " in stats and "gone_plugin" in stats  # both entries are still there


def test_clearing_a_known_service_or_one_holding_entries_works(sqlite_cache, capsys):
    assert run("cache", "clear", "--service", "gone_plugin") == 0  # no plugin declares it any more
    assert capsys.readouterr().out.strip() == "cache: removed 1 entry of gone_plugin"
    assert run("cache", "clear", "--service", "europepmc") == 0  # declared, nothing cached
    assert capsys.readouterr().out.strip() == "cache: removed 0 entries of europepmc"
    assert run("cache", "clear") == 0
    assert capsys.readouterr().out.strip() == "cache: removed 1 entry"
    assert run("cache", "stats") == 0
    assert capsys.readouterr().out.splitlines()[-1] == "  empty"


def test_a_service_given_to_cache_stats_is_refused_not_ignored(sqlite_cache, capsys, monkeypatch):
    def no_host():
        raise AssertionError("the host was loaded for options that cannot be used")

    monkeypatch.setattr(cli, "_host", no_host)
    assert run("cache", "stats", "--service", "ncbi") == 2
    seen = capsys.readouterr()
    assert seen.out == ""
    assert seen.err.strip() == "medlit: --service applies to 'cache clear', not 'cache stats'"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["cache", "purge"], "invalid choice: 'purge'"),
        (["doctor", "--timeout", "soon"], "'soon' is not a number of seconds"),
        (["doctor", "--timeout", "601"], "outside 0..600 seconds"),
        (["serve", "--port", "0x50"], "'0x50' is not a port number"),
    ],
)
def test_malformed_options_stop_before_any_work(env, capsys, argv, says):
    with pytest.raises(SystemExit) as info:
        run(*argv)
    assert info.value.code == 2 and says in capsys.readouterr().err


# -- call ---------------------------------------------------------------------------------------
def test_bad_arguments_are_reported_before_the_host_loads(env, capsys, monkeypatch):
    def no_host():
        raise AssertionError("the host was loaded for arguments that cannot be used")

    monkeypatch.setattr(cli, "_host", no_host)
    assert run("call", "eutils_einfo", '{"db": ') == 2
    assert "the arguments are not valid JSON" in capsys.readouterr().err
    assert run("call", "eutils_einfo", '["pubmed"]') == 2
    assert "must be a JSON object" in capsys.readouterr().err


def test_an_unknown_tool_exits_1_naming_the_tools_there_are(env, capsys):
    assert run("call", "pubmed_serch_articles", "{}", "--json") == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["reason"] == "invalid_argument" and "pubmed_serch_articles" in error["message"]
    assert "pubmed_search_articles" in error["recovery"]
    assert run("call", "pubmed_serch_articles") == 1
    assert "Unknown tool 'pubmed_serch_articles'" in capsys.readouterr().out


def test_a_tool_left_out_by_medlit_tools_exits_1_saying_how_to_get_it(env, capsys):
    env.setenv("MEDLIT_TOOLS", "pubmed_*")
    assert run("call", "eutils_einfo", '{"db": "pubmed"}') == 1
    out = capsys.readouterr().out
    assert "not served here" in out and "Change MEDLIT_TOOLS to include it" in out


def test_a_malformed_setting_fails_the_call_with_exit_2(env, capsys):
    env.setenv("MEDLIT_TOOLS", "pubmed_*;rm")
    assert run("call", "eutils_einfo", "{}") == 2
    seen = capsys.readouterr()
    assert seen.out == "" and seen.err.startswith("medlit: MEDLIT_TOOLS has 'pubmed_*;rm'")


@pytest.mark.parametrize(
    ("patterns", "named", "guess"),
    [
        ("pubmed_serch*", "'pubmed_serch*'", "'pubmed_search*'"),
        ("[[", "'[['", None),
        ("pubmed_*,-pubmed_spel_check", "'-pubmed_spel_check'", "'pubmed_spell_check'"),
    ],
)
def test_a_medlit_tools_pattern_matching_nothing_stops_start_up_naming_it(
    env, capsys, patterns, named, guess
):
    env.setenv("MEDLIT_TOOLS", patterns)
    assert run("tools") == 2
    seen = capsys.readouterr()
    assert seen.out == "" and f"MEDLIT_TOOLS pattern {named} matches no tool" in seen.err
    assert (f"did you mean {guess}?" in seen.err) if guess else "did you mean" not in seen.err


def test_a_pattern_for_a_switched_off_plugin_is_only_logged(env, capsys):
    env.setenv("MEDLIT_TOOLS", "pubtator_*,pubmed_*")
    env.setenv("PUBTATOR_ENABLED", "false")
    assert run("tools") == 0
    seen = capsys.readouterr()
    assert "pubmed_search_articles" in seen.out and "pubtator_search" not in seen.out


# -- tools --------------------------------------------------------------------------------------
class Misnamed:
    """A plugin whose tool names a model that does not exist (found only when it is loaded)."""

    @staticmethod
    @hookimpl
    def medlit_plugin_info():
        return PluginInfo(name="misnamed", title="Misnamed")

    @staticmethod
    @hookimpl
    def medlit_tools():
        return [
            ToolSpec(
                name="misnamed_lookup",
                title="Look up",
                description="d",
                input_model=lazy("medlit.core.plugin:NoSuchModel"),
                output_model=lazy("medlit.core.plugin:ToolOutput"),
                handler=lazy("asyncio:sleep"),
            )
        ]


def test_explaining_a_tool_whose_models_do_not_load_names_the_plugin_in_one_line(env, capsys, monkeypatch):
    monkeypatch.setattr(
        cli,
        "load_host",
        lambda settings: load_host(settings, discover=False, inline=[("misnamed", Misnamed)]),
    )
    assert run("tools", "misnamed_lookup") == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("medlit: tool misnamed_lookup (plugin misnamed) cannot be explained: ")
    assert "'medlit.core.plugin:NoSuchModel' cannot be loaded" in err


# -- serve --------------------------------------------------------------------------------------
@pytest.mark.parametrize("bind", ["0.0.0.0", "192.0.2.7", "::"])
def test_serving_http_on_a_public_address_without_allow_host_is_refused_before_loading(
    env, capsys, monkeypatch, bind
):
    def no_host():
        raise AssertionError("the host was loaded for a bind that is refused")

    handlers: list[object] = []
    monkeypatch.setattr(cli, "_host", no_host)
    monkeypatch.setattr(cli.signal, "signal", lambda *a: handlers.append(a))
    assert run("serve", "--transport", "http", "--host", bind) == 2
    seen = capsys.readouterr()
    assert seen.out == "" and seen.err.count("\n") == 1
    assert seen.err.startswith(f"medlit: refusing to bind {bind} without --allow-host")
    assert "--allow-host mcp.example.org" in seen.err
    assert handlers == []  # refused before the process changed how it answers signals


# -- doctor -------------------------------------------------------------------------------------
class Acme:
    """Settings named like secrets but not declared ``secret``, next to a plain one."""

    @staticmethod
    @hookimpl
    def medlit_plugin_info():
        return PluginInfo(
            name="acme",
            title="Acme",
            settings=(
                SettingSpec("ACME_TOKEN", "an access token"),
                SettingSpec("ACME_API_KEY", "a key"),
                SettingSpec("ACME_REGION", "where", default="eu"),
                SettingSpec("ACME_CONTACT", "who", secret=True),
            ),
        )


def test_doctor_never_prints_a_value_the_logs_would_redact(env, capsys, monkeypatch):
    monkeypatch.setattr(
        cli, "load_host", lambda settings: load_host(settings, discover=False, inline=[("acme", Acme)])
    )
    env.setenv("ACME_TOKEN", "tok-1234567")
    env.setenv("ACME_API_KEY", "key-7654321")
    env.setenv("ACME_CONTACT", "someone")
    assert run("doctor") == 0
    out = capsys.readouterr().out
    assert "tok-1234567" not in out and "key-7654321" not in out and "someone" not in out
    assert "ACME_TOKEN: set (***)" in out and "ACME_API_KEY: set (***)" in out
    assert "ACME_CONTACT: set (***)" in out and "ACME_REGION: not set (default eu)" in out
    env.setenv("ACME_REGION", "us")
    assert run("doctor") == 0
    assert "ACME_REGION: us" in capsys.readouterr().out  # a plain setting is shown


# -- options ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["serve", "--port", "99999"], "medlit serve: argument --port: 99999 is outside 1..65535"),
        (["serve", "--port", "http"], "medlit serve: argument --port:"),
        (["serve", "--transport", "sse"], "medlit serve: argument --transport: invalid choice: 'sse'"),
        (["doctor", "--timeout", "0"], "medlit doctor: argument --timeout: 0 is outside 0..600 seconds"),
        (["frob"], "medlit: argument COMMAND: invalid choice: 'frob'"),
    ],
)
def test_bad_options_are_refused_in_one_line(env, capsys, argv, said):
    with pytest.raises(SystemExit) as exit_:
        run(*argv)
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(said), err
    assert "--help" in err and "Traceback" not in err
