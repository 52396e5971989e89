"""The plugin host: discovery, switches, provenance and name conflicts.

Order of work (no I/O, nothing at import time):
1. every entry point of the ``medlit.plugins`` group is loaded (built-ins are entry points of
   this distribution, registered exactly like a third party's; a broken plugin is logged and
   listed as ``error``); a plugin left out of ``MEDLIT_LOAD_PLUGINS`` or switched off with
   ``<NAME>_ENABLED=false`` is not even imported (listed ``disabled``, naming the variable);
2. a switched-off plugin's name is blocked in the manager: none of its hooks is ever called;
3. pluggy registers the others and checks their hooks against the contract: a misspelt hook
   (``check_pending``) or a module with no marked hook makes that plugin ``error``, naming why;
4. each plugin's hooks are called through pluggy, that plugin alone (one plugin's failure never
   stops another's): its identity and settings first, then its declarations, each checked
   (records of the right type, async and sync callables where the record says) and stamped with
   its name;
5. duplicate tool, tier, service, resolver, provider, resource or prompt names are a startup
   error naming both plugins;
6. each active plugin's services are resolved (base URL override, rate, identification), and the
   catalog workflow plugins describe themselves from is built.
"""

from __future__ import annotations

import builtins
import collections.abc
import functools
import logging
import re
import sys
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from importlib.metadata import Distribution, EntryPoint, entry_points
from typing import Any, Literal, NamedTuple, Union, get_args, get_origin
from urllib.parse import urlsplit

import pluggy

from . import hookspecs
from .errors import register_kinds
from .lazy import Lazy, is_async, misfit
from .settings import (
    BASE_URL_PREFIX,
    TIER_ORDER_PREFIX,
    Settings,
    SettingsError,
    enabled_var,
    env_name,
    is_loopback_host,
    parse_bool,
    parse_number,
    require_extra,
    select_tool,
)
from .text import suggest
from .tool_schemas import SchemaStore
from .toolsets import Family, build_families, listed_up_front, unknown_toolsets
from .types import (
    AccessLinkProvider,
    Catalog,
    CitationIndex,
    CommandSpec,
    Declared,
    FulltextTier,
    IdResolver,
    MetadataProvider,
    NoticeProvider,
    OpenWebSpec,
    PluginConfig,
    PluginInfo,
    PluginState,
    PromptSpec,
    ReferenceMatcher,
    RelatedProvider,
    ResourceSpec,
    SearchSource,
    ServerTask,
    ServiceSpec,
    SettingSpec,
    ToolSpec,
    WebPage,
)
from .webpages import app_resource

log = logging.getLogger("medlit.host")

GROUP = "medlit.plugins"
DIST_NAME = "medlit-mcp"
Status = Literal["active", "disabled", "unconfigured", "error"]
Source = Literal["builtin", "entry point", "inline"]


class HostError(RuntimeError):
    """A configuration the server must not start with (e.g. two plugins claim one tool)."""


class PluginRefused(Exception):
    """What makes one plugin ``error`` (the others load): its message is the listing's detail."""


def _register(pm: pluggy.PluginManager, rec: PluginRecord, obj: Any) -> None:
    """pluggy checks the plugin's hooks against the contract: signatures at registration, names
    with ``check_pending`` (a misspelt hook would otherwise be a silent no-op)."""
    try:
        pm.register(obj, name=rec.name)
    except Exception as exc:  # pluggy.PluginValidationError: an argument the hook does not take
        raise PluginRefused(f"invalid hooks: {exc}") from None
    if not pm.get_hookcallers(obj):
        raise PluginRefused(
            "declares no hook: mark its hook functions with @hookimpl (from medlit.core.plugin)"
        )
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        unknown = sorted(
            impl.function.__name__
            for caller in pm.get_hookcallers(obj) or ()
            if caller.spec is None
            for impl in caller.get_hookimpls()
            if impl.plugin is obj
        )
        names = ", ".join(repr(n) for n in unknown) or str(exc)
        hint = _closest(unknown[0]) if unknown else ""
        raise PluginRefused(
            f"declares unknown hook {names}" + (f" (did you mean {hint!r}?)" if hint else "")
        ) from None


def _closest(name: str) -> str:
    import difflib

    match = difflib.get_close_matches(name, hookspecs.HOOK_NAMES, n=1)
    return match[0] if match else ""


def _failed(pm: pluggy.PluginManager, rec: PluginRecord, obj: Any, detail: str) -> None:
    rec.status, rec.detail = "error", detail
    for kind in _KINDS:  # nothing of a broken plugin is served
        setattr(rec, kind.attr, [])
    if pm.is_registered(obj):
        pm.unregister(obj)
    log.error("plugin %s refused: %s", rec.name, detail)


@dataclass
class PluginRecord:
    name: str
    source: Source
    status: Status = "active"
    detail: str = ""
    version: str | None = None
    info: PluginInfo | None = None
    services: list[ServiceSpec | OpenWebSpec] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    tiers: list[FulltextTier] = field(default_factory=list)
    resolvers: list[IdResolver] = field(default_factory=list)
    metadata: list[MetadataProvider] = field(default_factory=list)
    access_links: list[AccessLinkProvider] = field(default_factory=list)
    related: list[RelatedProvider] = field(default_factory=list)
    matchers: list[ReferenceMatcher] = field(default_factory=list)
    notices: list[NoticeProvider] = field(default_factory=list)
    sources: list[SearchSource] = field(default_factory=list)
    citation_indexes: list[CitationIndex] = field(default_factory=list)
    resources: list[ResourceSpec] = field(default_factory=list)
    prompts: list[PromptSpec] = field(default_factory=list)
    pages: list[WebPage] = field(default_factory=list)

    commands: list[CommandSpec] = field(default_factory=list)
    server_tasks: list[ServerTask] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # required settings that are unset
    origin: str = ""  # the plugin module's file: its tree fingerprints stored tool schemas
    waiting_on: str = ""  # the variable a non-active plugin waits on

    @property
    def active(self) -> bool:
        return self.status == "active"

    @property
    def state(self) -> PluginState:
        return PluginState(self.name, self.status, self.detail, self.waiting_on)

    def contributions(self) -> dict[str, list[str]]:
        """Every declaration by kind label, named (``{"tool": [...], "full-text tier": [...]}``)."""
        out: dict[str, list[str]] = {}
        for kind in _KINDS:
            names = [str(getattr(r, kind.key)) for r in getattr(self, kind.attr)]
            if names:
                out[kind.label] = names
        return out


@dataclass(frozen=True)
class ServiceRecord:
    """A declared service resolved against the environment: what a client is built from. An
    :class:`OpenWebSpec` has no base URL (``""``), no identification and no allowed hosts: it may
    fetch any public host."""

    spec: ServiceSpec | OpenWebSpec
    base_url: str
    overridden: bool
    rate: float
    identify: Mapping[str, str]
    headers: Mapping[str, str]
    allowed_hosts: frozenset[str]
    concurrency: int = 4


@dataclass
class Host:
    """A typed facade over the plugin manager, built by :func:`load_host`."""

    settings: Settings
    pm: pluggy.PluginManager
    plugins: dict[str, PluginRecord]
    services: dict[str, ServiceRecord] = field(default_factory=dict)  # active plugins' services
    schema_store: SchemaStore = field(default_factory=lambda: SchemaStore(None))
    catalog: Catalog = field(default_factory=Catalog)
    families: dict[str, Family] = field(default_factory=dict)  # toolsets of the served tools
    listed_families: frozenset[str] = frozenset()  # those tools/list shows up front

    def tool_schemas(self, spec: ToolSpec) -> tuple[dict[str, Any], dict[str, Any]]:
        """A tool's input and output schemas, from the schema store when its models are lazy."""
        record = self.plugins.get(spec.plugin)
        return self.schema_store.schemas(
            spec, record.origin if record else "", record.version if record else None
        )

    @property
    def tools(self) -> dict[str, ToolSpec]:
        """The tools served: active plugins' tools that ``MEDLIT_TOOLS`` lets through."""
        patterns = self.settings.tool_patterns
        return {
            t.name: t
            for p in self.plugins.values()
            if p.active
            for t in p.tools
            if select_tool(t.name, patterns)[0]
        }

    def tool_states(self) -> list[tuple[ToolSpec, PluginRecord, bool, str]]:
        """Every declared tool with its plugin, whether it is served, and why not (or why)."""
        out = []
        for p in self.plugins.values():
            for t in p.tools:
                if not p.active:
                    out.append(
                        (
                            t,
                            p,
                            False,
                            f"plugin {p.name} is {p.status}" + (f" ({p.detail})" if p.detail else ""),
                        )
                    )
                    continue
                on, why = select_tool(t.name, self.settings.tool_patterns)
                out.append((t, p, on, why))
        return sorted(out, key=lambda x: (x[1].name, x[0].name))

    @property
    def commands(self) -> dict[str, CommandSpec]:
        """The active plugins' command-line subcommands, by name."""
        return {c.name: c for p in self.plugins.values() if p.active for c in p.commands}

    @property
    def server_tasks(self) -> list[ServerTask]:
        """The active plugins' server tasks (run while serving over HTTP)."""
        return [t for p in self.plugins.values() if p.active for t in p.server_tasks]

    @property
    def resources(self) -> dict[str, ResourceSpec]:
        """The active plugins' resources, with each page's MCP App resource (``ui://``)."""
        apps = {page.app_uri: app_resource(page) for page in self.pages.values() if page.app_uri}
        return {r.uri: r for p in self.plugins.values() if p.active for r in p.resources} | apps

    @property
    def pages(self) -> dict[str, WebPage]:
        """The active plugins' pages for people, by path."""
        return {page.path: page for p in self.plugins.values() if p.active for page in p.pages}

    def app_for_tool(self, tool: str) -> str | None:
        """The ``ui://`` resource a tool points at (``_meta.ui.resourceUri``), if a page links it."""
        for page in self.pages.values():
            if page.app_uri and tool in page.linked_tools:
                return page.app_uri
        return None

    def resource_for(self, uri: str) -> tuple[ResourceSpec | None, dict[str, str]]:
        """The resource serving ``uri``: an exact URI first, else the first template matching it
        (with its placeholder values)."""
        resources = self.resources
        exact = resources.get(uri)
        if exact is not None and not exact.is_template:
            return exact, {}
        for spec in resources.values():
            if spec.is_template and (params := spec.match(uri)) is not None:
                return spec, params
        return None, {}

    @property
    def prompts(self) -> dict[str, PromptSpec]:
        return {r.name: r for p in self.plugins.values() if p.active for r in p.prompts}

    def tier_order(self, tier: FulltextTier) -> int:
        raw = self.settings.get(f"{TIER_ORDER_PREFIX}{env_name(tier.name)}")
        return tier.order if raw is None else int(raw)  # validated by load_settings

    def build_catalog(self) -> Catalog:
        """What workflow plugins describe themselves from and run: every switched-on plugin's
        steps in order (those of a plugin waiting on a setting too: they report why they were not
        asked), the active providers, the served tools and the declared landing pages."""
        live = [p for p in self.plugins.values() if p.status in ("active", "unconfigured")]
        active = [p for p in live if p.active]

        def declared(attr: str) -> list[Declared[Any]]:
            return [Declared(r, p.state) for p in live for r in getattr(p, attr)]

        tiers = sorted(declared("tiers"), key=lambda d: (self.tier_order(d.record), d.record.name))
        resolvers = sorted(declared("resolvers"), key=lambda d: (d.record.order, d.record.name))
        related = sorted(declared("related"), key=lambda d: (d.record.order, d.record.name))
        matchers = sorted(declared("matchers"), key=lambda d: (d.record.order, d.record.name))
        notices = sorted(declared("notices"), key=lambda d: (d.record.order, d.record.name))
        sources = sorted(declared("sources"), key=lambda d: (d.record.order, d.record.name))
        indexes = sorted(declared("citation_indexes"), key=lambda d: (d.record.order, d.record.name))
        links: dict[str, str] = {}
        for p in active:
            for kind, template in (p.info.id_links if p.info else {}).items():
                links.setdefault(kind, template)
        catalog = Catalog(
            tiers=tuple(tiers),
            resolvers=tuple(resolvers),
            related=tuple(related),
            matchers=tuple(matchers),
            notices=tuple(notices),
            sources=tuple(sources),
            citation_indexes=tuple(indexes),
            metadata=tuple(sorted((m for p in active for m in p.metadata), key=lambda m: (m.order, m.name))),
            access_links=tuple(
                sorted((a for p in active for a in p.access_links), key=lambda a: (a.order, a.name))
            ),
            tools={name: t.capabilities for name, t in self.tools.items()},
            families={name: t.toolset or t.plugin for name, t in self.tools.items()},
            id_links=links,
            switched_off=tuple(
                p.state for p in self.plugins.values() if p.status == "disabled" and p.waiting_on
            ),
            tool_guides={name: t.guide or t.title for name, t in self.tools.items()},
            settings_set=_settings_set(live, self.settings),
        )
        declared_tools = frozenset(t.name for p in self.plugins.values() for t in p.tools)
        sections = tuple(Declared(_guide_section(p, catalog, declared_tools), p.state) for p in live)
        return replace(catalog, guides=sections)

    def plugin_settings(self, name: str) -> dict[str, str | None]:
        record = self.plugins.get(name)
        if record is None or record.info is None:
            return {}
        return _plugin_config(record.info, self.settings)

    def instructions(self) -> list[str]:
        """Each active plugin's line for the server instructions (``PluginInfo.instructions``),
        in load order; a plugin whose line fails to render is logged and left out."""
        out: list[str] = []
        for rec in self.plugins.values():
            info = rec.info
            if info is None or not rec.active or not info.instructions:
                continue
            try:
                line = info.instructions(self.catalog) if callable(info.instructions) else info.instructions
            except Exception:
                log.exception("plugin %s: its instructions could not be rendered", rec.name)
                continue
            if isinstance(line, str) and line.strip():
                out.append(line.strip())
        return out

    def plugin_services(self, name: str) -> list[str]:
        return [s for s, rec in self.services.items() if rec.spec.plugin == name]

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every value to keep out of logs and output: declared secret settings and values whose
        variable name looks secret."""
        out = set(self.settings.secrets)
        for p in self.plugins.values():
            for spec in p.info.settings if p.info else ():
                value = self.settings.get(spec.name)
                if spec.secret and value:
                    out.add(value)
        return tuple(sorted(out, key=len, reverse=True))

    def owner_of_tool(self, tool: str) -> PluginRecord | None:
        for p in self.plugins.values():
            if any(t.name == tool for t in p.tools):
                return p
        return None


def _plugin_config(info: PluginInfo, settings: Settings) -> dict[str, str | None]:
    return {s.name: settings.get(s.name) or s.default for s in info.settings}


def _settings_set(plugins: Iterable[PluginRecord], settings: Settings) -> dict[str, frozenset[str]]:
    """Per plugin, the names of its declared settings that have a value (never the values)."""
    return {
        p.name: frozenset(n for n, v in _plugin_config(p.info, settings).items() if v)
        for p in plugins
        if p.info
    }


def _call(pm: pluggy.PluginManager, obj: Any, hook: str) -> Any:
    """One plugin's answer to a hook, called through pluggy for that plugin alone: pluggy runs a
    hook's impls in one loop, where one plugin's exception would stop every other's."""
    others = [p for p in pm.get_plugins() if p is not obj]
    answers = pm.subset_hook_caller(hook, remove_plugins=others)()
    return answers[0] if answers else None


class _Kind(NamedTuple):
    """A record kind: the :class:`PluginRecord` list it fills, the hook declaring it, its type, its
    name in errors, the attribute unique across plugins, its async callables and its sync ones (a
    wrong one would only fail at its first call) and its model fields."""

    attr: str
    hook: str
    type: type[Any] | tuple[type[Any], ...]
    label: str
    key: str = "name"
    calls: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    syncs: tuple[str, ...] = ()


_KINDS = (
    _Kind(
        "services", "medlit_services", (ServiceSpec, OpenWebSpec), "service", syncs=("inspect", "pace_from")
    ),
    _Kind(
        "tools",
        "medlit_tools",
        ToolSpec,
        "tool",
        calls=("handler",),
        models=("input_model", "output_model"),
        syncs=("render", "describe"),
    ),
    _Kind("tiers", "medlit_fulltext_tiers", FulltextTier, "full-text tier", calls=("resolve",)),
    _Kind("resolvers", "medlit_id_resolvers", IdResolver, "ID resolver", calls=("resolve",)),
    _Kind("metadata", "medlit_metadata_providers", MetadataProvider, "metadata provider", calls=("lookup",)),
    _Kind(
        "access_links", "medlit_access_links", AccessLinkProvider, "access-link provider", calls=("build",)
    ),
    _Kind("related", "medlit_related_providers", RelatedProvider, "related provider", calls=("resolve",)),
    _Kind("matchers", "medlit_reference_matchers", ReferenceMatcher, "reference matcher", calls=("resolve",)),
    _Kind("notices", "medlit_notice_providers", NoticeProvider, "notice provider", calls=("lookup",)),
    _Kind("sources", "medlit_search_sources", SearchSource, "search source", calls=("run",)),
    _Kind("citation_indexes", "medlit_citation_indexes", CitationIndex, "citation index", calls=("chase",)),
    _Kind("resources", "medlit_resources", ResourceSpec, "resource", key="uri", calls=("read",)),
    _Kind("prompts", "medlit_prompts", PromptSpec, "prompt", syncs=("render",)),
    _Kind("pages", "medlit_web_pages", WebPage, "web page", key="path"),
    _Kind("commands", "medlit_commands", CommandSpec, "command", calls=("run",), syncs=("arguments",)),
    _Kind("server_tasks", "medlit_server_tasks", ServerTask, "server task", calls=("run",)),
)
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def _stamped(pm: pluggy.PluginManager, obj: Any, kind: _Kind, plugin: str) -> list[Any]:
    """A hook's records, each checked for its type (a wrong one would only fail later, at a call)
    and stamped with the plugin that declared it."""
    out = []
    for item in _call(pm, obj, kind.hook) or ():
        if not isinstance(item, kind.type):
            wanted = (
                " or ".join(t.__name__ for t in kind.type)
                if isinstance(kind.type, tuple)
                else kind.type.__name__
            )
            raise HostError(f"{kind.hook}() returned a {type(item).__name__}, not a {wanted}")
        _check_record(item, kind)
        out.append(replace(item, plugin=plugin))
    return out


def _check_record(item: Any, kind: _Kind) -> None:
    label = f"{kind.hook}(): {type(item).__name__} {getattr(item, 'name', getattr(item, 'uri', '?'))!r}"
    for f in fields(item):
        ref = getattr(item, f.name)
        if isinstance(ref, Lazy):  # checked when first resolved; the error will name its owner
            ref.owner = f"{label} {f.name}"
            ref.expect = (
                "model"
                if f.name in kind.models
                else "async"
                if f.name in kind.calls
                else "sync"
                if f.name in kind.syncs
                else "callable"
            )
    for attr in kind.calls:
        fn = getattr(item, attr)
        if isinstance(fn, Lazy):
            continue
        if not callable(fn) or not is_async(fn):
            raise HostError(
                f"{label} has a {attr} that is not an async function (declare it with `async def`)"
            )
    for attr in kind.syncs:
        if hasattr(item, attr):
            _check_sync(label, attr, getattr(item, attr))
    _check_arities(label, item)  # after async-ness: "not async" is the clearer message for both
    for rule in item.records if isinstance(item, ServiceSpec) else ():
        _check_arities(f"{label} record rule {rule.scope!r}", rule)
    if isinstance(item, ServiceSpec | OpenWebSpec) and not _NAME.match(item.name):
        raise HostError(f"service name {item.name!r} must be lower-case letters, digits and _")
    if isinstance(item, ServiceSpec | OpenWebSpec):
        for attr in ("rate", "identify", "headers", "concurrency"):  # a value, or a sync function of settings
            if callable(getattr(item, attr, None)):
                _check_sync(label, attr, getattr(item, attr))
    if isinstance(item, ServiceSpec):
        for rule in item.records:
            for attr in ("split", "join", "normalize"):
                _check_sync(f"{label} record rule {rule.scope!r}", attr, getattr(rule, attr))
        if urlsplit(item.base_url).scheme not in ("http", "https"):
            raise HostError(f"service {item.name!r} has base_url {item.base_url!r}, not an http(s) URL")


def _check_arities(label: str, record: Any) -> None:
    """Each callable of ``record`` must take the positional arguments its slot passes: a plain
    function is checked now, a lazy reference when it is imported (nothing is imported here)."""
    record_type: type[object] = type(record)
    for f in fields(record):
        fn = getattr(record, f.name)
        arity = slot_arity(record_type, f.name)
        if arity is None or fn is None or isinstance(fn, type) or not callable(fn):
            continue
        if isinstance(fn, Lazy):
            fn.arity = arity
            fn.owner = fn.owner or f"{label} {f.name}"
        elif wrong := misfit(fn, arity):
            raise HostError(f"{label} has a {f.name} that {wrong}")


class _Names(dict[str, object]):
    """A module's names for evaluating its annotations, where one it imports for type checking
    only (``ToolContext``) stands for a class of that name: counting a ``Callable``'s parameters
    needs no more of it. (Lookups try these locals first, so builtins are answered here too.)"""

    def __missing__(self, key: str) -> object:
        return getattr(builtins, key, None) or type(key, (), {})


_ARITIES: dict[tuple[type[object], str], int | None] = {}


def slot_arity(record: type[object], name: str) -> int | None:
    """How many positional arguments the host passes to a record's callable field: read from its
    annotation (``Callable[[A, B], R]``: 2), so the contract's types are the one statement of
    each slot, for mypy and for this check alike. ``None`` for a field that takes no callable."""
    if (record, name) not in _ARITIES:
        _ARITIES[record, name] = _arity(record, name)
    return _ARITIES[record, name]


def _arity(record: type[object], name: str) -> int | None:
    annotation = next((f.type for f in fields(record) if f.name == name), None)  # type: ignore[arg-type]
    if isinstance(annotation, str):  # ``from __future__ import annotations``: ours, evaluated once
        annotation = eval(annotation, {}, _Names(vars(sys.modules[record.__module__])))
    members = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)
    for member in members:
        if get_origin(member) is collections.abc.Callable:
            params = get_args(member)[0]
            return len(params) if isinstance(params, list) else None
    return None


def _check_sync(label: str, attr: str, fn: Any) -> None:
    """A sync slot (called inline by the host) must not hold an ``async def``: its coroutine would
    never run."""
    if fn is None or isinstance(fn, Lazy):
        return
    if not callable(fn) or is_async(fn):
        raise HostError(f"{label} has a {attr} that must be a plain (sync) function, not async or a value")


def _identify(pm: pluggy.PluginManager, record: PluginRecord, obj: Any) -> None:
    info = _call(pm, obj, "medlit_plugin_info")
    if not isinstance(info, PluginInfo):
        raise HostError(f"plugin {record.name!r} has no medlit_plugin_info() returning PluginInfo")
    if info.name != record.name:
        raise HostError(f"plugin registered as {record.name!r} calls itself {info.name!r}")
    _check_sync(f"plugin {record.name!r} PluginInfo", "check_settings", info.check_settings)
    _check_arities(f"plugin {record.name!r} PluginInfo", info)
    record.info = info
    record.version = record.version or info.version
    record.origin = str(getattr(obj, "__file__", None) or "")


def _collect(pm: pluggy.PluginManager, record: PluginRecord, obj: Any) -> None:
    for kind in _KINDS:
        setattr(record, kind.attr, _stamped(pm, obj, kind, record.name))


def _check_duplicates(records: Iterable[PluginRecord]) -> None:
    for kind in _KINDS:
        seen: dict[str, str] = {}
        for p in records:
            if p.status == "error":
                continue
            for n in (getattr(r, kind.key) for r in getattr(p, kind.attr)):
                if n in seen and seen[n] != p.name:
                    raise HostError(
                        f"{kind.label} name {n!r} is declared by both plugin {seen[n]!r} and plugin {p.name!r}"
                    )
                if n in seen:
                    raise HostError(f"{kind.label} name {n!r} is declared twice by plugin {p.name!r}")
                seen[n] = p.name


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def email_problem(value: str) -> str:
    """Which part of a would-be email address is wrong, in words ('it has no @')."""
    if not value:
        return "it is empty"
    if any(c.isspace() for c in value):
        return "it holds a space"
    if "@" not in value:
        return "it has no @ (expected name@domain, e.g. you@example.org)"
    if value.count("@") > 1:
        return "it has more than one @"
    local, domain = value.split("@")
    if not local:
        return "nothing comes before the @"
    if not domain:
        return "nothing comes after the @"
    if "." not in domain:
        return f"its domain {domain!r} has no dot (e.g. example.org)"
    if domain.startswith(".") or domain.endswith("."):
        return f"its domain {domain!r} starts or ends with a dot"
    return "it is not of the form name@domain"


def _check_setting(spec: SettingSpec, value: str) -> None:
    """Refuse a malformed value at start-up (the message never quotes a secret)."""
    shown = "***" if spec.secret else repr(value)
    problem = ""
    if spec.kind == "int" and not re.fullmatch(r"[+-]?\d+", value.strip()):
        problem = "is not an integer"
    elif spec.kind == "number":
        try:
            float(value)
        except ValueError:
            problem = "is not a number"
    elif spec.kind == "bool":
        try:
            parse_bool(value, True, spec.name)
        except SettingsError:
            problem = "is not a boolean; use true or false"
    elif spec.kind == "email" and not _EMAIL.match(value.strip()):
        problem = f"is not an email address: {email_problem(value.strip())}"
    elif spec.kind == "url" and urlsplit(value).scheme not in ("http", "https"):
        problem = "is not an http(s) URL"
    if problem:
        raise HostError(f"{spec.name}={shown} {problem}")


def _switched_off(record: PluginRecord, settings: Settings) -> bool:
    """``<NAME>_ENABLED=false``: decided before any of the plugin's hooks runs."""
    var = enabled_var(record.name)
    try:
        enabled = settings.enabled_flag(record.name)
    except SettingsError as exc:  # a malformed switch stops start-up
        raise HostError(str(exc)) from None
    if not enabled:
        record.status, record.waiting_on = "disabled", var
        record.detail = f"switched off by {var}=false"
    return not enabled


def _status(record: PluginRecord, settings: Settings) -> None:
    assert record.info is not None
    for spec in record.info.settings:
        value = settings.get(spec.name)
        if value is not None:
            _check_setting(spec, value)
    record.missing = [s.name for s in record.info.settings if s.required and not settings.get(s.name)]
    if record.missing:
        record.status, record.waiting_on = "unconfigured", record.missing[0]
        record.detail = "needs " + ", ".join(record.missing)
        return
    if record.info.check_settings is not None:
        try:
            wanted = record.info.check_settings(_plugin_config(record.info, settings))
        except ValueError as exc:
            raise HostError(f"plugin {record.name}: {exc}") from None
        if wanted:
            record.status, record.waiting_on, record.detail = "unconfigured", wanted, f"needs {wanted}"


def _resolve(value: Any, config: PluginConfig) -> Any:
    return value(config) if callable(value) else value


def _hosts_for(base_url: str, extra: Iterable[str]) -> frozenset[str]:
    host = (urlsplit(base_url).hostname or "").lower()
    hosts = {host, *(h.lower() for h in extra)}
    if is_loopback_host(host):
        hosts |= {"127.0.0.1", "localhost", "::1"}
    return frozenset(hosts)


def _services(records: Iterable[PluginRecord], settings: Settings) -> dict[str, ServiceRecord]:
    """Resolve every active plugin's services: the loopback override, the rate, identification and
    headers from the plugin's own settings. A ``rate_setting`` may lower a rate, and raise it past
    the service's own limit only while every service of its pacing group points at loopback; a
    service slower than its group (a lane) never goes past its own limit."""
    declared_specs = [(p, spec) for p in records if p.active and p.info is not None for spec in p.services]
    configs = {p.name: _plugin_config(p.info, settings) for p, _ in declared_specs if p.info is not None}
    out: dict[str, ServiceRecord] = {}
    for p, web in declared_specs:
        if isinstance(web, OpenWebSpec):  # any public host: no base URL, override or group
            headers = dict(_resolve(web.headers, configs[p.name]))
            out[web.name] = ServiceRecord(web, "", False, float(web.rate), {}, headers, frozenset())
    active = [(p, spec) for p, spec in declared_specs if isinstance(spec, ServiceSpec)]
    declared = {spec.name: float(_resolve(spec.rate, configs[p.name])) for p, spec in active}
    group_max: dict[str, float] = {}
    group_fake: dict[str, bool] = {}
    for _, spec in active:
        group_max[spec.group] = max(group_max.get(spec.group, 0.0), declared[spec.name])
        fake = settings.base_url_override(spec.name) is not None
        group_fake[spec.group] = group_fake.get(spec.group, True) and fake
    for p, spec in active:
        config = configs[p.name]
        override = settings.base_url_override(spec.name)
        base = (override or spec.base_url).rstrip("/")
        rate = declared[spec.name]
        if spec.rate_setting and settings.get(spec.rate_setting):
            try:
                asked = parse_number(settings.env, spec.rate_setting, rate, 0.01, 1000.0)
            except SettingsError as exc:
                raise HostError(str(exc)) from None
            if group_fake[spec.group]:
                rate = asked
            elif asked > group_max[spec.group]:
                fakes = ", ".join(settings_var_for(s.name) for _, s in active if s.group == spec.group)
                raise HostError(
                    f"{spec.rate_setting}={asked:g} exceeds {spec.title}'s limit of {group_max[spec.group]:g} "
                    f"requests/s; only allowed with {fakes} pointing at a loopback fake"
                )
            else:
                rate = min(asked, rate)
        out[spec.name] = ServiceRecord(
            spec=spec,
            base_url=base,
            overridden=override is not None,
            rate=rate,
            identify=dict(_resolve(spec.identify, config)),
            headers=dict(_resolve(spec.headers, config)),
            allowed_hosts=_hosts_for(base, (urlsplit(spec.base_url).hostname or "", *spec.hosts)),
            concurrency=max(1, int(_resolve(spec.concurrency, config))),
        )
    return {spec.name: out[spec.name] for _, spec in declared_specs}  # in declaration order


def settings_var_for(service: str) -> str:
    """The variable that points a service at a loopback fake."""
    return f"{BASE_URL_PREFIX}{env_name(service)}"


def _describe(records: Iterable[PluginRecord], catalog: Catalog) -> None:
    """Tools whose description depends on what is installed get it now, once."""
    for p in records:
        if p.status == "error":
            continue
        for i, tool in enumerate(p.tools):
            if tool.describe is not None:
                try:
                    text = tool.describe(catalog)
                except Exception as exc:
                    raise HostError(
                        f"plugin {p.name}: tool {tool.name} could not describe itself: {exc}"
                    ) from exc
                p.tools[i] = replace(tool, description=text)


def _guide_section(record: PluginRecord, catalog: Catalog, declared: frozenset[str]) -> str:
    """An active plugin's guide section under its title, without the lines (with their indented
    continuation) that name, in backquotes, a declared tool that is not served; "" when it has
    none (or is not active)."""
    info = record.info
    if info is None or not record.active or not info.guide:
        return ""
    try:
        text = info.guide(catalog) if callable(info.guide) else info.guide
    except Exception as exc:
        raise HostError(f"plugin {record.name}: its guide could not be rendered: {exc}") from exc
    if not isinstance(text, str):
        raise HostError(f"plugin {record.name}: its guide is a {type(text).__name__}, not text")
    unserved = [f"`{name}`" for name in declared if not catalog.serves(name)]
    items: list[list[str]] = []  # a line and the indented lines continuing it
    for line in text.strip().splitlines():
        if items and line[:1].isspace() and line.strip():
            items[-1].append(line)
        else:
            items.append([line])
    kept = [ln for item in items if not any(n in ln for ln in item for n in unserved) for ln in item]
    body = "\n".join(kept).strip()
    return f"## {info.title}\n{body}" if body else ""


def _check_tool_patterns(records: Iterable[PluginRecord], settings: Settings) -> None:
    """A ``MEDLIT_TOOLS`` pattern that matches no declared tool (a typo such as ``pubmed_serch*``,
    ``[[`` or ``-pubmed_spel_check``) stops start-up naming it: hosts hide stderr, so a server
    silently serving fewer (or no) tools looks broken. While plugins are switched off or not
    loaded their tools are unknown, so such a pattern is only logged."""
    import difflib
    import fnmatch

    records = list(records)
    names = sorted({t.name for p in records for t in p.tools})
    for pattern in settings.tool_patterns:
        bare = pattern.lstrip("-")
        if any(fnmatch.fnmatchcase(n, bare) for n in names):
            continue
        stem = re.sub(r"[*?\[\]].*", "", bare)  # what a wildcard pattern's matches start with
        wild = stem != bare
        hint = ""
        if wild and stem:
            # a wildcard's stem is compared with the tool names cut to as many words (and a
            # trailing '_' kept): `pubmed_serch*` -> `pubmed_search*`, not `pubmed_searc*`
            words = stem.rstrip("_").count("_") + 1
            tail = "_" if stem.endswith("_") else ""
            heads = {"_".join(n.split("_")[:words]) + tail: n for n in reversed(names)}
            close = difflib.get_close_matches(stem, list(heads), n=1, cutoff=0.6)
            if close:
                hint = f" (did you mean {close[0] + bare[len(stem) :]!r}?)"
        elif stem:
            guess = suggest(stem, names)
            if guess:
                hint = f" (did you mean {guess!r}?)"
        unknown = [p.name for p in records if p.status == "disabled"]
        message = f"MEDLIT_TOOLS pattern {pattern!r} matches no tool{hint}"
        if unknown:
            log.warning("%s of the plugins loaded (not loaded: %s)", message, ", ".join(unknown))
            continue
        raise HostError(f"{message}; `MEDLIT_TOOLS= medlit tools` lists the tool names")


def _entry_points() -> list[EntryPoint]:
    return sorted(entry_points(group=GROUP), key=lambda ep: (not _is_builtin(ep), ep.name))


def _is_builtin(ep: EntryPoint) -> bool:
    return ep.dist is not None and _dist_facts(ep.dist)[0] == DIST_NAME


@functools.cache
def _dist_facts(dist: Distribution) -> tuple[str, str]:
    """A distribution's name and version, its metadata parsed once. ``Distribution.name`` and
    ``.version`` parse the whole METADATA file (README included) at every access, ~0.7 ms each;
    a launch asked 39 times for 13 entry points of one distribution, a third of medlit's own
    launch cost. The entry points of one ``entry_points()`` call share their ``dist`` object."""
    meta = dist.metadata
    return meta["Name"], meta["Version"]


def loads(ep: EntryPoint, allow: frozenset[str] | None) -> bool:
    """Whether ``MEDLIT_LOAD_PLUGINS`` (``allow``) lets an entry point be imported: every plugin,
    built-in or not, is listed by name."""
    return allow is None or ep.name in allow


def load_host(
    settings: Settings,
    *,
    discover: bool = True,
    inline: Sequence[tuple[str, Any]] = (),
) -> Host:
    """Build the host: entry points (when ``discover``), then ``inline`` plugins (tests)."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    records: dict[str, PluginRecord] = {}
    candidates = _discovered(pm, records, settings) if discover else []
    for name, obj in inline:
        if name in records:
            raise HostError(f"plugin name {name!r} is already registered")
        rec = PluginRecord(name, "inline")
        records[name] = rec
        candidates.append((rec, obj))
    for rec, obj in candidates:
        _activate(pm, rec, obj, settings)
    _check_duplicates(records.values())
    _check_tool_patterns(records.values(), settings)
    _check_host_settings(records, settings)
    host = Host(settings=settings, pm=pm, plugins=records, schema_store=SchemaStore.from_env(settings.env))
    host.services = _services(records.values(), settings)
    host.catalog = host.build_catalog()
    _describe(records.values(), host.catalog)
    _families(host)
    return host


def _discovered(
    pm: pluggy.PluginManager, records: dict[str, PluginRecord], settings: Settings
) -> list[tuple[PluginRecord, Any]]:
    """The installed plugins' records (built-ins first) and the modules of those to register. A
    plugin left out by ``MEDLIT_LOAD_PLUGINS`` or switched off is never imported; a name taken
    twice or a module that fails to import is listed as an error, never fatal."""
    candidates: list[tuple[PluginRecord, Any]] = []
    builtin_names: set[str] = set()
    for ep in _entry_points():
        is_builtin = _is_builtin(ep)
        rec = PluginRecord(ep.name, "builtin" if is_builtin else "entry point")
        rec.version = _dist_facts(ep.dist)[1] if ep.dist else None
        if not loads(ep, settings.load_plugins):
            rec.status, rec.detail, rec.waiting_on = "disabled", "not listed in MEDLIT_LOAD_PLUGINS", ""
            records.setdefault(ep.name, rec)
            continue
        if ep.name in records:
            _refuse_taken(ep, rec, records, builtin_names)
            continue
        records[ep.name] = rec
        if is_builtin:
            builtin_names.add(ep.name)
        if _switched_off(rec, settings):  # decided before import: its module never runs
            pm.set_blocked(rec.name)
            continue
        try:
            candidates.append((rec, ep.load()))
        except Exception as exc:  # a broken third-party plugin must never stop the server
            rec.status, rec.detail = "error", f"failed to load: {type(exc).__name__}: {exc}"
            log.error("plugin %s failed to load: %s", ep.name, rec.detail)
    return candidates


def _refuse_taken(
    ep: EntryPoint, rec: PluginRecord, records: dict[str, PluginRecord], builtin_names: set[str]
) -> None:
    """A second plugin under a name already taken: listed as an error under ``name@dist``."""
    other = records[ep.name]
    reason = "reserved by a built-in plugin" if ep.name in builtin_names else "already taken"
    rec.status, rec.detail = "error", f"plugin name {ep.name!r} is {reason} ({other.source})"
    log.error("plugin %s from %s refused: %s", ep.name, ep.dist.name if ep.dist else "?", rec.detail)
    records[f"{ep.name}@{ep.dist.name if ep.dist else '?'}"] = rec


def _activate(pm: pluggy.PluginManager, rec: PluginRecord, obj: Any, settings: Settings) -> None:
    """Register one plugin and collect its declarations. A plugin that fails is listed, never
    fatal; only a malformed setting value stops start-up (HostError from ``_status``)."""
    if rec.source == "inline" and _switched_off(rec, settings):
        pm.set_blocked(rec.name)  # never registered: none of its hooks runs
        return
    try:
        _register(pm, rec, obj)
        _identify(pm, rec, obj)
    except PluginRefused as exc:
        _failed(pm, rec, obj, str(exc))
        return
    except Exception as exc:  # a broken plugin is listed, never fatal
        _failed(pm, rec, obj, f"failed to initialise: {type(exc).__name__}: {exc}")
        return
    _status(rec, settings)  # a malformed setting value stops start-up (HostError)
    try:
        _collect(pm, rec, obj)
        if rec.info is not None:
            register_kinds(rec.info.error_kinds, f"plugin {rec.name}")
    except Exception as exc:  # a plugin whose declarations fail is listed, not fatal
        _failed(pm, rec, obj, f"failed to initialise: {type(exc).__name__}: {exc}")


def _check_host_settings(records: dict[str, PluginRecord], settings: Settings) -> None:
    """The host's own settings read now, so a malformed one stops start-up rather than the first
    call: unknown names in ``MEDLIT_LOAD_PLUGINS`` (logged), ``MEDLIT_CACHE`` and, when a plugin
    on uses the host's services, ``MEDLIT_STORE``."""
    allow = settings.load_plugins
    if allow is not None:
        unknown = sorted(allow - set(records))
        if unknown:
            log.warning("MEDLIT_LOAD_PLUGINS names no installed plugin %s", ", ".join(unknown))
    try:
        from .cache_setting import cache_setting

        cache_setting(settings)  # a malformed MEDLIT_CACHE stops start-up, not the first call
    except SettingsError as exc:
        raise HostError(str(exc)) from None
    store = settings.get("MEDLIT_STORE")
    # the store serves plugins that ask for the host's services: with none of them on, it is never opened
    if store and any(r.active and r.info is not None and r.info.host_services for r in records.values()):
        from .store import StoreError, store_for

        try:
            backend = store_for(store)  # a malformed MEDLIT_STORE stops start-up too (nothing is opened)
            if backend.dialect == "postgresql":  # its driver is an extra: refuse now, not at first use
                require_extra("postgres", "MEDLIT_STORE names PostgreSQL")
        except (StoreError, SettingsError) as exc:
            raise HostError(str(exc)) from None


def _families(host: Host) -> None:
    """The served tools' families and those listed up front (``MEDLIT_TOOLSETS``). A name that is
    no family stops start-up, as a ``MEDLIT_TOOLS`` typo does; while plugins are off their
    families are unknown, so it is only logged then."""
    served = host.tools
    active = [p for p in host.plugins.values() if p.active]
    host.families = build_families((t, p.name, p.info) for p in active for t in p.tools if t.name in served)
    unknown = unknown_toolsets(host.settings.toolsets, host.families)
    if unknown:
        guess = suggest(unknown[0], list(host.families))
        message = f"MEDLIT_TOOLSETS names {unknown[0]!r}, which is no toolset" + (
            f" (did you mean {guess!r}?)" if guess else ""
        )
        if any(p.status != "active" for p in host.plugins.values()):
            log.warning("%s of the plugins on (toolsets: %s)", message, ", ".join(host.families))
        else:
            raise HostError(f"{message}; the toolsets are: all, default, {', '.join(host.families)}")
    host.listed_families = listed_up_front(host.settings.toolsets, host.families)
