"""Lazy declarations checked against their slots: by mypy (a ``lazy_module`` attribute is typed as
the real object) and, for what mypy never saw, when a reference is imported (its arity, read from
the slot's annotation) or, for a plain callable, when the host loads the plugin."""

from __future__ import annotations

import asyncio
import re
import sys
import textwrap
from collections import OrderedDict
from dataclasses import fields
from pathlib import Path

import pytest

from medlit.core import types
from medlit.core.errors import MedlitError
from medlit.core.host import slot_arity
from medlit.core.lazy import Lazy, LazyError, LazyModule, lazy_module
from medlit.core.loaded import load_tool
from medlit.core.plugin import FulltextTier, PluginInfo, ToolContext, ToolSpec, hookimpl, lazy
from medlit.testing import make_host, make_runtime

ROOT = Path(__file__).resolve().parents[2]

WORK = """
from collections.abc import Mapping, Sequence

from medlit.core.plugin import ArticleRef, TierOptions, TierResult, ToolContext, ToolInput, ToolOutput


class EchoIn(ToolInput):
    word: str


class EchoOut(ToolOutput):
    word: str


class OtherIn(ToolInput):
    other: int


async def echo(args: EchoIn, ctx: ToolContext) -> EchoOut:
    return EchoOut(word=args.word)


async def ctx_only(ctx: ToolContext) -> EchoOut:
    return EchoOut(word="")


async def other_input(args: OtherIn, ctx: ToolContext) -> EchoOut:
    return EchoOut(word=str(args.other))


def render(result: EchoOut, args: EchoIn) -> str:
    return result.word


def render_swapped(args: EchoIn, result: EchoOut) -> str:
    return result.word


async def resolve_without_options(refs: Sequence[ArticleRef], ctx: ToolContext) -> Mapping[str, TierResult]:
    return {}
"""

# Each declaration on one line, named by what is wrong with it; "good" is right.
DECLARATIONS = """
from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import FulltextTier, ToolSpec, lazy_module

if TYPE_CHECKING:
    from . import work as _work
else:
    _work = lazy_module(".work", __name__)

good = ToolSpec(name="good", title="t", description="d", input_model=_work.EchoIn, output_model=_work.EchoOut, handler=_work.echo, render=_work.render)
ctx_only = ToolSpec(name="ctx_only", title="t", description="d", input_model=_work.EchoIn, output_model=_work.EchoOut, handler=_work.ctx_only)
other_input = ToolSpec(name="other_input", title="t", description="d", input_model=_work.EchoIn, output_model=_work.EchoOut, handler=_work.other_input)
render_swapped = ToolSpec(name="render_swapped", title="t", description="d", input_model=_work.EchoIn, output_model=_work.EchoOut, handler=_work.echo, render=_work.render_swapped)
tier_no_options = FulltextTier(name="t", order=1, accepts=frozenset({"doi"}), resolve=_work.resolve_without_options)
"""


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for this module's runs: the second reuses what the first found of
    medlit.core and the standard library (mypy checks every file's fingerprint before it trusts
    the cache), instead of checking them again from nothing (~20 s a run on CI's machine)."""
    return tmp_path_factory.mktemp("mypy-cache")


def test_mypy_checks_each_lazy_declaration_against_its_slot(tmp_path, mypy_cache):
    from mypy import api

    pkg = tmp_path / "typedplug"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(DECLARATIONS)
    (pkg / "work.py").write_text(WORK)
    # the repo's own configuration (mypy_path is relative to the root), on just that package
    stdout, stderr, status = api.run(
        [str(pkg), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(mypy_cache)],
    )
    assert status == 1, stdout + stderr
    lines = DECLARATIONS.splitlines()
    errors: dict[str, str] = {}
    for m in re.finditer(r"__init__\.py:(\d+): error: (.*)", stdout):
        errors[lines[int(m.group(1)) - 1].split(" = ")[0]] = m.group(2)
    assert set(errors) == {"ctx_only", "other_input", "render_swapped", "tier_no_options"}, stdout
    assert errors["ctx_only"].startswith('Argument "handler" to "ToolSpec"')
    assert errors["other_input"].startswith('Argument "handler" to "ToolSpec"')
    assert "OtherIn" in errors["other_input"] and "EchoIn" in errors["other_input"]
    assert errors["render_swapped"].startswith('Argument "render" to "ToolSpec"')
    assert errors["tier_no_options"].startswith('Argument "resolve" to "FulltextTier"')


def test_a_lazy_module_names_its_attributes_and_imports_nothing():
    name = "medlit.plugins.icite.tool"
    was_loaded = name in sys.modules
    module = lazy_module(".tool", "medlit.plugins.icite")
    ref = module.fetch_metrics
    assert isinstance(module, LazyModule) and isinstance(ref, Lazy)
    assert ref.ref == "medlit.plugins.icite.tool:fetch_metrics" and not ref.loaded
    assert module.fetch_metrics is not ref  # one reference per slot: the host stamps each with its own
    assert (name in sys.modules) == was_loaded
    with pytest.raises(AttributeError):
        module.__wrapped__  # noqa: B018  (probes by copy, inspect and pytest are not declarations)
    for bad in ("", "a b", "mod:attr", ".x-y"):
        with pytest.raises(LazyError):
            lazy_module(bad, "pkg")
    with pytest.raises(LazyError, match="needs the package"):
        lazy_module(".tool")


def test_every_callable_slot_of_the_contract_states_its_arity():
    records = [
        types.ToolSpec,
        types.FulltextTier,
        types.IdResolver,
        types.RelatedProvider,
        types.MetadataProvider,
        types.AccessLinkProvider,
        types.ReferenceMatcher,
        types.NoticeProvider,
        types.SearchSource,
        types.ResourceSpec,
        types.PromptSpec,
        types.RecordRule,
        types.ServiceSpec,
        types.OpenWebSpec,
        types.PluginInfo,
    ]
    arities = {(r.__name__, f.name): slot_arity(r, f.name) for r in records for f in fields(r)}
    assert {k: v for k, v in arities.items() if v is not None} == {
        ("ToolSpec", "handler"): 2,
        ("ToolSpec", "render"): 2,
        ("ToolSpec", "describe"): 1,
        ("FulltextTier", "resolve"): 3,
        ("IdResolver", "resolve"): 2,
        ("RelatedProvider", "resolve"): 2,
        ("MetadataProvider", "lookup"): 3,
        ("AccessLinkProvider", "build"): 2,
        ("ReferenceMatcher", "resolve"): 3,
        ("NoticeProvider", "lookup"): 3,
        ("SearchSource", "run"): 2,
        ("ResourceSpec", "read"): 1,
        ("PromptSpec", "render"): 2,
        ("RecordRule", "split"): 1,
        ("RecordRule", "join"): 1,
        ("RecordRule", "normalize"): 1,
        ("ServiceSpec", "rate"): 1,
        ("ServiceSpec", "identify"): 1,
        ("ServiceSpec", "headers"): 1,
        ("ServiceSpec", "inspect"): 1,
        ("ServiceSpec", "pace_from"): 1,
        ("ServiceSpec", "concurrency"): 1,
        ("OpenWebSpec", "headers"): 1,
        ("PluginInfo", "check_settings"): 1,
        ("PluginInfo", "guide"): 1,
        ("PluginInfo", "instructions"): 1,
    }


def test_a_lazy_reference_of_the_wrong_arity_is_refused_when_imported():
    ref = lazy("json:dumps")  # (obj, *, ...): one positional argument
    ref.arity, ref.owner = 2, "medlit_tools(): ToolSpec 'x' render"
    with pytest.raises(LazyError, match=r"ToolSpec 'x' render: 'json:dumps' takes \(obj, \*.*slot passes 2"):
        ref.resolve()
    fits = lazy("json:dumps")
    fits.arity = 1
    assert fits.resolve() is not None


@pytest.fixture
def wrong_arity_plugin(tmp_path, monkeypatch):
    """An installed-like plugin whose handler (declared with a string, unseen by mypy) takes the
    context only."""
    pkg = tmp_path / "arityplug"
    pkg.mkdir()
    (pkg / "work.py").write_text(WORK)
    (pkg / "__init__.py").write_text(
        textwrap.dedent("""
        from medlit.core.plugin import PluginInfo, ToolSpec, hookimpl, lazy

        @hookimpl
        def medlit_plugin_info():
            return PluginInfo(name="arityplug", title="Arity")

        @hookimpl
        def medlit_tools():
            return [ToolSpec(name="arity_echo", title="t", description="d",
                             input_model=lazy(".work:EchoIn", __name__), output_model=lazy(".work:EchoOut", __name__),
                             handler=lazy(".work:ctx_only", __name__))]
        """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import arityplug

    yield arityplug
    for name in [m for m in sys.modules if m.startswith("arityplug")]:
        del sys.modules[name]


def test_a_string_reference_of_the_wrong_arity_fails_its_call_naming_the_slot(wrong_arity_plugin):
    host = make_host(wrong_arity_plugin)  # loading imports nothing, so it cannot know yet
    assert host.plugins["arityplug"].active
    [spec] = host.tools.values()
    assert isinstance(spec.handler, Lazy) and spec.handler.arity == 2

    async def go():
        async with make_runtime(wrong_arity_plugin) as rt:
            return await rt.call("arity_echo", {"word": "x"})

    out = asyncio.run(go())
    assert out.error is not None and out.error.reason == "plugin_error"
    assert "arityplug" in out.error.message and "slot passes 2 positional argument(s)" in out.error.message


async def _resolve_without_options(refs, ctx):
    return {}


class PlainWrongArity:
    @staticmethod
    @hookimpl
    def medlit_plugin_info():
        return PluginInfo(name="plainarity", title="Plain arity", check_settings=lambda: None)

    @staticmethod
    @hookimpl
    def medlit_fulltext_tiers():
        return [FulltextTier("plain_tier", 10, frozenset({"doi"}), _resolve_without_options)]


def test_a_plain_callable_of_the_wrong_arity_is_refused_at_load():
    record = make_host(PlainWrongArity).plugins["plainarity"]
    assert record.status == "error"
    assert "PluginInfo has a check_settings that takes ()" in record.detail
    assert "slot passes 1 positional argument(s)" in record.detail

    class TierOnly(PlainWrongArity):
        @staticmethod
        @hookimpl
        def medlit_plugin_info():
            return PluginInfo(name="plainarity", title="Plain arity")

    record = make_host(TierOnly).plugins["plainarity"]
    assert record.status == "error"
    assert "FulltextTier 'plain_tier' has a resolve that takes (refs, ctx)" in record.detail
    assert "slot passes 3 positional argument(s)" in record.detail


def test_keep_makes_once_types_by_its_factory_and_refuses_another_kind():
    ctx = ToolContext(plugin="p")
    seen = ctx.keep("seen", OrderedDict[str, int])
    seen["a"] = 1
    assert ctx.keep("seen", OrderedDict[str, int]) is seen and ctx.cache["seen"] == {"a": 1}
    made = []
    assert ctx.keep("n", lambda: made.append(1) or 7) == 7 and ctx.keep("n", lambda: made.append(1) or 8) == 7
    assert made == [1]
    with pytest.raises(MedlitError, match=r"ctx.keep\('seen'\) holds a OrderedDict, not a set"):
        ctx.keep("seen", set)


def test_toolspec_models_and_callables_load_as_themselves():
    spec = ToolSpec(
        name="x",
        title="t",
        description="d",
        input_model=lazy("medlit.core.plugin:ToolInput"),
        output_model=lazy("medlit.core.plugin:ToolOutput"),
        handler=lazy("asyncio:sleep"),
    )
    loaded = load_tool(spec)
    assert loaded.handler is asyncio.sleep and loaded.input_model.__name__ == "ToolInput"


def test_the_example_plugin_declarations_type_check(mypy_cache):
    # A third party's plugin, outside the package mypy checks by default: its lazy declarations
    # (lazy_module under TYPE_CHECKING) fit their slots.
    from mypy import api

    example = ROOT / "examples" / "medlit-example-plugin" / "medlit_example"
    stdout, stderr, status = api.run(
        [str(example), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(mypy_cache)],
    )
    assert status == 0, stdout + stderr
