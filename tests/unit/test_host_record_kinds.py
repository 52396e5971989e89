"""The host's one table of record kinds: every kind is checked for duplicates by its own key, for
sync callables, and has its lazy references told what they must resolve to."""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

import pytest

from medlit.core.host import GROUP, HostError, loads
from medlit.core.plugin import IdResolver, PluginInfo, PromptSpec, ResourceSpec, ToolSpec, hookimpl, lazy
from medlit.testing import make_host


async def _read(ctx):
    return "{}"


def _sync_read(ctx):
    return "{}"


def _render(args, catalog):
    return [("user", "hi")]


def plugin(name: str, **hooks):
    """A plugin object named ``name`` whose hooks return the given records."""
    attrs = {"medlit_plugin_info": staticmethod(hookimpl(lambda: PluginInfo(name=name, title=name)))}
    for hook, records in hooks.items():
        attrs[hook] = staticmethod(hookimpl(lambda records=records: list(records)))
    return type(name, (), attrs)


def test_resources_collide_by_uri_not_by_name():
    a = plugin("a", medlit_resources=[ResourceSpec("medlit://guide", "guide", "G", "d", _read)])
    b = plugin("b", medlit_resources=[ResourceSpec("medlit://guide", "other", "G", "d", _read)])
    with pytest.raises(
        HostError, match="resource name 'medlit://guide' is declared by both plugin 'a' and plugin 'b'"
    ):
        make_host(a, b)
    c = plugin("c", medlit_resources=[ResourceSpec("medlit://c", "guide", "G", "d", _read)])
    assert set(make_host(a, c).resources) == {"medlit://guide", "medlit://c"}


def test_a_prompt_declared_twice_by_one_plugin_names_it():
    twice = [PromptSpec("ask", "Ask", "d", (), _render)] * 2
    with pytest.raises(HostError, match="prompt name 'ask' is declared twice by plugin 'a'"):
        make_host(plugin("a", medlit_prompts=twice))


def test_a_sync_resource_reader_is_refused_naming_the_record():
    host = make_host(plugin("a", medlit_resources=[ResourceSpec("medlit://r", "r", "R", "d", _sync_read)]))
    record = host.plugins["a"]
    assert record.status == "error" and not host.resources
    assert "medlit_resources(): ResourceSpec 'r' has a read that is not an async function" in record.detail


def test_lazy_references_learn_their_slot_and_owner():
    tool = ToolSpec(
        "a_tool",
        "t",
        "d",
        input_model=lazy("medlit.core.plugin:ToolInput"),
        output_model=lazy("medlit.core.plugin:ToolOutput"),
        handler=lazy("asyncio:sleep"),
    )
    resolver = IdResolver("a_ids", 10, frozenset({"pmid"}), frozenset({"doi"}), resolve=lazy("asyncio:sleep"))
    prompt = PromptSpec("a_prompt", "P", "d", (), lazy("json:dumps"))
    host = make_host(
        plugin("a", medlit_tools=[tool], medlit_id_resolvers=[resolver], medlit_prompts=[prompt])
    )
    record = host.plugins["a"]
    assert record.active
    [t], [r], [p] = record.tools, record.resolvers, record.prompts
    assert (t.input_model.expect, t.output_model.expect, t.handler.expect) == ("model", "model", "async")
    assert r.resolve.expect == "async" and p.render.expect == "sync"
    # and how many positional arguments each slot passes, read from the record's annotations
    assert (t.handler.arity, r.resolve.arity, p.render.arity, t.input_model.arity) == (2, 2, 2, None)
    assert t.handler.owner == "medlit_tools(): ToolSpec 'a_tool' handler"
    assert r.resolve.owner == "medlit_id_resolvers(): IdResolver 'a_ids' resolve"


def test_load_plugins_lets_no_plugin_through_unlisted():
    """Built-in workflows are selected by name like any plugin: no list privileges one."""
    builtin = {ep.name: ep for ep in entry_points(group=GROUP)}
    allow = frozenset({"ncbi"})
    assert loads(builtin["ncbi"], allow) and not loads(builtin["fulltext"], allow)
    assert not loads(builtin["europepmc"], allow) and not loads(builtin["review"], allow)
    assert loads(builtin["review"], frozenset({"review"})) and loads(builtin["review"], None)
    impostor = EntryPoint("fulltext", "someone_else:plugin", GROUP)  # a third party's, same name
    assert not loads(impostor, allow) and loads(impostor, None)
