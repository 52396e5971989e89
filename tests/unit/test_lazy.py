"""Lazy references and the tool-schema store: what lets a launch import declarations only.

A plugin names its models and callables by ``"module:attribute"``; ``tools/list`` reads the tool
schemas from a store keyed by the plugin's and core's source, so a warm launch imports no tool
module, and any edit makes the stored schema unusable rather than stale."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from medlit.core.lazy import Lazy, LazyError, lazy, on_access
from medlit.core.plugin import PluginInfo, ServiceSpec, ToolSpec, hookimpl
from medlit.core.server import tool_definitions
from medlit.core.tool_schemas import SchemaStore, build_schemas
from medlit.testing import make_host, make_runtime

ALL_PLUGINS = {"UNPAYWALL_EMAIL": "t@example.org", "OPENURL_RESOLVER": "https://r.example.org/openurl"}


def test_malformed_and_relative_references_are_refused_at_once():
    for bad in ("", "module", "module:", ":attr", "a b:c", "mod:attr-x", "mod:1x"):
        with pytest.raises(LazyError):
            lazy(bad)
    with pytest.raises(LazyError, match="needs the package"):
        lazy(".tool:run")
    assert lazy(".tool:run", "medlit.plugins.x").ref == "medlit.plugins.x.tool:run"
    assert lazy("..b:c.d", "pkg.a").ref == "pkg.b:c.d"


def test_a_reference_imports_on_first_use_and_checks_its_slot():
    ref = lazy("json:dumps")
    assert isinstance(ref, Lazy) and not ref.loaded
    assert ref({"a": 1}) == '{"a": 1}' and ref.loaded
    missing = lazy("json:no_such_thing")
    missing.owner = "medlit_tools(): ToolSpec 'x' handler"
    with pytest.raises(LazyError, match=r"ToolSpec 'x' handler: 'json:no_such_thing' cannot be loaded"):
        missing()
    model = lazy("json:dumps")
    model.expect = "model"
    with pytest.raises(LazyError, match="not a pydantic model"):
        model.resolve()


class BadPlugin:
    """A tool whose handler reference names a sync function and one whose model does not exist."""

    @staticmethod
    @hookimpl
    def medlit_plugin_info():
        return PluginInfo(name="badlazy", title="Bad lazy")

    @staticmethod
    @hookimpl
    def medlit_tools():
        common = {"title": "t", "description": "d", "render": None}
        return [
            ToolSpec(
                name="bad_sync",
                input_model=lazy("medlit.core.plugin:ToolInput"),
                output_model=lazy("medlit.core.plugin:ToolOutput"),
                handler=lazy("json:dumps"),
                **common,
            ),
            ToolSpec(
                name="bad_model",
                input_model=lazy("medlit.core.plugin:NoSuchModel"),
                output_model=lazy("medlit.core.plugin:ToolOutput"),
                handler=lazy("asyncio:sleep"),
                **common,
            ),
        ]


def test_a_broken_reference_fails_its_own_call_naming_the_plugin_and_is_not_listed():
    host = make_host(BadPlugin)  # loading imports nothing, so it cannot fail here
    listed = {t.name for t in tool_definitions(host)}
    assert "bad_model" not in listed and "bad_sync" in listed

    async def go():
        async with make_runtime(BadPlugin) as rt:
            return await rt.call("bad_sync", {}), await rt.call("bad_model", {})

    sync, model = asyncio.run(go())
    assert sync.error is not None and sync.error.reason == "plugin_error" and "badlazy" in sync.error.message
    assert (
        model.error is not None and model.error.reason == "plugin_error" and "badlazy" in model.error.message
    )


def test_a_family_described_whole_names_the_tool_it_cannot_describe():
    # medlit_toolsets describe with a family: the readable tools described, the broken one named
    # in the notice (not failing the others, not left out silently); asked alone, its fault
    from medlit.core.errors import MedlitError
    from medlit.core.toolset_tools import describe, render

    host = make_host(BadPlugin)
    family = describe(host, "", "badlazy")
    assert [d["tool"] for d in family["definitions"]] == ["bad_sync"]
    assert "bad_model" in family["notice"] and "fail to load" in family["notice"]
    text = render(family)
    assert text.startswith("Not described") and "## bad_sync\n" in text and "## bad_model" not in text
    with pytest.raises(MedlitError) as alone:
        describe(host, "bad_model")
    assert alone.value.reason == "plugin_error" and "badlazy" in alone.value.message


def test_every_builtin_reference_resolves_and_fits_its_slot():
    host = make_host(discover=True, env=ALL_PLUGINS)
    seen = 0
    for plugin in host.plugins.values():
        records = [
            *plugin.services,
            *(r for s in plugin.services if isinstance(s, ServiceSpec) for r in (*s.cache, *s.records)),
            *plugin.tools,
            *plugin.tiers,
            *plugin.resolvers,
            *plugin.metadata,
            *plugin.access_links,
            *plugin.related,
            *plugin.matchers,
            *plugin.notices,
            *plugin.sources,
            *plugin.resources,
            *plugin.prompts,
        ]
        for record in records:
            for name, value in vars(record).items() if hasattr(record, "__dict__") else ():
                if isinstance(value, Lazy):  # resolving checks async-ness and arity against the slot
                    assert value.expect == "model" or value.arity is not None, f"{record!r}.{name}"
                    assert value.resolve() is not None, f"{plugin.name}: {record!r}.{name}"
                    seen += 1
    assert seen >= 60  # every built-in tool (4 references each) and the tiers and providers


def test_stored_schemas_are_the_schemas_the_models_build(tmp_path):
    env = {**ALL_PLUGINS, "MEDLIT_SCHEMA_CACHE": str(tmp_path / "s.json")}
    first = make_host(discover=True, env=env)
    built = {t.name: (t.input_schema, t.output_schema) for t in tool_definitions(first)}
    assert first.schema_store.misses >= 20 and (tmp_path / "s.json").exists()
    second = make_host(discover=True, env=env)
    stored = {t.name: (t.input_schema, t.output_schema) for t in tool_definitions(second)}
    assert second.schema_store.misses == 0 and second.schema_store.hits == first.schema_store.misses
    assert stored == built
    for spec in second.tools.values():
        assert built[spec.name] == build_schemas(spec)


PLUGIN_INIT = """
from medlit.core.plugin import PluginInfo, ToolSpec, hookimpl, lazy

@hookimpl
def medlit_plugin_info():
    return PluginInfo(name="{name}", title="Lazy test plugin")

@hookimpl
def medlit_tools():
    return [ToolSpec(name="{name}_echo", title="Echo", description="Echo a word.",
                     input_model=lazy(".work:EchoIn", __name__), output_model=lazy(".work:EchoOut", __name__),
                     handler=lazy(".work:echo", __name__))]
"""
PLUGIN_WORK = """
from pydantic import Field
from medlit.core.plugin import ToolInput, ToolOutput

class EchoIn(ToolInput):
    word: str = Field(max_length=20, description="A word. Example: 'aspirin'.")
{extra}
class EchoOut(ToolOutput):
    word: str

async def echo(args, ctx):
    return EchoOut(word=args.word)
"""


def _probe(tmp_path: Path, name: str, store: Path) -> dict:
    """A fresh interpreter: load the plugin, list its tool, say what was imported."""
    code = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(tmp_path)!r})
        import {name}
        from medlit.testing import make_host
        from medlit.core.server import tool_definitions
        host = make_host({name}, env={{"MEDLIT_SCHEMA_CACHE": {str(store)!r}}})
        [tool] = tool_definitions(host)
        print(json.dumps({{"schema": tool.input_schema, "hits": host.schema_store.hits,
                          "imported": "{name}.work" in sys.modules}}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_warm_launch_imports_no_tool_module_and_an_edit_is_never_served_stale(tmp_path):
    name = "lazyprobe_plugin"
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text(PLUGIN_INIT.format(name=name))
    (pkg / "work.py").write_text(PLUGIN_WORK.format(extra=""))
    store = tmp_path / "store.json"

    cold = _probe(tmp_path, name, store)
    assert cold["imported"] and cold["hits"] == 0
    warm = _probe(tmp_path, name, store)
    assert not warm["imported"] and warm["hits"] == 1 and warm["schema"] == cold["schema"]

    extra = '    times: int = Field(1, ge=1, le=5, description="How often. Example: 2.")\n'
    (pkg / "work.py").write_text(PLUGIN_WORK.format(extra=extra))
    edited = _probe(tmp_path, name, store)
    assert edited["imported"] and edited["hits"] == 0 and "times" in edited["schema"]["properties"]

    store.write_text("{not json")  # a damaged store is rebuilt, never trusted
    assert _probe(tmp_path, name, store)["hits"] == 0
    assert _probe(tmp_path, name, store)["hits"] == 1


def test_store_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    host = make_host(discover=True, env={"MEDLIT_SCHEMA_CACHE": "off"})
    assert host.schema_store.path is None
    assert tool_definitions(host) and not list(tmp_path.rglob("*.json"))
    assert SchemaStore.from_env({"MEDLIT_SCHEMA_CACHE": str(tmp_path / "x.json")}).path == tmp_path / "x.json"


LAUNCH_PROBE = """
import json, sys
from medlit.core.cli import _host
from medlit.core.server import build_server
host = _host()
build_server(host)
print(json.dumps({"tools": len(host.tools), "misses": host.schema_store.misses,
                  "modules": sorted(m for m in sys.modules if m.startswith(("medlit", "pypdf", "trafilatura", "lxml",
                                                                            "aiohttp", "selectolax")))}))
"""
# Modules a launch must not import: the work behind tools, tiers and providers.
HEAVY_SUFFIXES = (
    ".models",
    ".tool",
    "_tool",
    ".tier",
    ".parse",
    ".client",
    ".jats.reader",
    ".jats.models",
    ".chain",
)


def test_a_warm_launch_of_the_server_imports_declarations_only(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDLIT_")}
    env.update(ALL_PLUGINS, MEDLIT_SCHEMA_CACHE=str(tmp_path / "s.json"), MEDLIT_CACHE="off")
    run = [sys.executable, "-c", LAUNCH_PROBE]
    cold = json.loads(subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout)
    warm = json.loads(subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout)
    assert cold["misses"] == warm["tools"] >= 20 and warm["misses"] == 0
    heavy = [
        m
        for m in warm["modules"]
        if (m.endswith(HEAVY_SUFFIXES) or ".tools." in m or ".parse." in m or not m.startswith("medlit"))
        and m != "medlit.core.models"  # the ToolInput/ToolOutput bases the contract exports
    ]
    assert heavy == [], heavy


def test_exports_on_access_import_once_and_refuse_unknown_names():
    namespace = {"__name__": "medlit.core.fake_exports", "__package__": "medlit.core"}
    getattr_ = on_access(namespace, {"lazy": ".lazy", "dumps": "json"})
    assert getattr_("lazy") is lazy and getattr_("dumps") is json.dumps
    assert namespace["lazy"] is lazy and namespace["dumps"] is json.dumps  # kept: asked once
    with pytest.raises(AttributeError) as info:
        getattr_("nope")
    assert str(info.value) == "module 'medlit.core.fake_exports' has no attribute 'nope'"
