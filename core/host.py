"""The plugin host: discovery, switches, provenance and name conflicts.

Order of work (no I/O, nothing at import time):
1. every entry point of the ``medlit.plugins`` group is loaded (built-ins are entry points of
   this distribution; a broken third-party plugin is logged and listed as ``error``);
2. ``<NAME>_ENABLED=false`` blocks a plugin in the manager before it registers;
3. each plugin's declarations are collected and stamped with its name;
4. duplicate tool or tier names are a startup error naming both plugins.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Literal, TypeVar

import pluggy

from . import hookspecs
from .settings import Settings, SettingsError, enabled_var, env_name
from .types import FulltextTier, PluginInfo, PromptSpec, RelatedProvider, ResourceSpec, ToolSpec

log = logging.getLogger("medlit.host")

GROUP = "medlit.plugins"
DIST_NAME = "medlit-mcp"
Status = Literal["active", "disabled", "unconfigured", "error"]
Source = Literal["builtin", "entry point", "inline"]


class HostError(RuntimeError):
    """A configuration the server must not start with (e.g. two plugins claim one tool)."""


@dataclass
class PluginRecord:
    name: str
    source: Source
    status: Status = "active"
    detail: str = ""
    version: str | None = None
    info: PluginInfo | None = None
    tools: list[ToolSpec] = field(default_factory=list)
    tiers: list[FulltextTier] = field(default_factory=list)
    related: list[RelatedProvider] = field(default_factory=list)
    resources: list[ResourceSpec] = field(default_factory=list)
    prompts: list[PromptSpec] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # required settings that are unset
    waiting_on: str = ""  # the variable a non-active plugin waits on

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass
class Host:
    """A typed facade over the plugin manager, built by :func:`load_host`."""

    settings: Settings
    pm: pluggy.PluginManager
    plugins: dict[str, PluginRecord]

    @property
    def tools(self) -> dict[str, ToolSpec]:
        return {t.name: t for p in self.plugins.values() if p.active for t in p.tools}

    @property
    def resources(self) -> dict[str, ResourceSpec]:
        return {r.uri: r for p in self.plugins.values() if p.active for r in p.resources}

    @property
    def prompts(self) -> dict[str, PromptSpec]:
        return {r.name: r for p in self.plugins.values() if p.active for r in p.prompts}

    def tiers(self) -> list[tuple[FulltextTier, PluginRecord]]:
        """Every declared tier with its plugin (inactive ones too: they report ``not-attempted``),
        ordered by ``order`` after environment overrides."""
        out = [(t, p) for p in self.plugins.values() if p.status != "error" for t in p.tiers]
        return sorted(out, key=lambda tp: (self.tier_order(tp[0]), tp[0].name))

    def tier_order(self, tier: FulltextTier) -> int:
        var = f"MEDLIT_TIER_ORDER_{env_name(tier.name)}"
        raw = self.settings.get(var)
        if raw is None:
            return tier.order
        try:
            return int(raw)
        except ValueError:
            raise HostError(f"{var}={raw!r} is not an integer") from None

    def related_providers(self) -> list[tuple[RelatedProvider, PluginRecord]]:
        out = [(r, p) for p in self.plugins.values() if p.status != "error" for r in p.related]
        return sorted(out, key=lambda rp: (rp[0].order, rp[0].name))

    def plugin_settings(self, name: str) -> dict[str, str | None]:
        record = self.plugins.get(name)
        if record is None or record.info is None:
            return {}
        return {s.name: self.settings.get(s.name) or s.default for s in record.info.settings}

    def owner_of_tool(self, tool: str) -> PluginRecord | None:
        for p in self.plugins.values():
            if any(t.name == tool for t in p.tools):
                return p
        return None

    def services(self) -> list[str]:
        out: list[str] = []
        for p in self.plugins.values():
            if p.active and p.info:
                out.extend(s for s in p.info.services if s not in out)
        return out


def _declared(obj: Any, hook: str) -> Any:
    """Call a plugin's hook function directly: one plugin's failure must not stop the others,
    which pluggy's hook calls would do (they run every impl in one loop)."""
    fn = getattr(obj, hook, None)
    if fn is None or not callable(fn):
        return None
    return fn()


R = TypeVar("R", ToolSpec, FulltextTier, RelatedProvider, ResourceSpec, PromptSpec)


def _stamped(obj: Any, hook: str, kind: type[R], plugin: str) -> list[R]:
    """A hook's records, each checked for its type (a wrong one would only fail later, at a call)
    and stamped with the plugin that declared it."""
    out = []
    for item in _declared(obj, hook) or ():
        if not isinstance(item, kind):
            raise HostError(f"{hook}() returned a {type(item).__name__}, not a {kind.__name__}")
        out.append(replace(item, plugin=plugin))
    return out


def _collect(record: PluginRecord, obj: Any) -> None:
    info = _declared(obj, "medlit_plugin_info")
    if not isinstance(info, PluginInfo):
        raise HostError(f"plugin {record.name!r} has no medlit_plugin_info() returning PluginInfo")
    if info.name != record.name:
        raise HostError(f"plugin registered as {record.name!r} calls itself {info.name!r}")
    record.info = info
    record.version = record.version or info.version
    name = record.name
    record.tools = _stamped(obj, "medlit_tools", ToolSpec, name)
    record.tiers = _stamped(obj, "medlit_fulltext_tiers", FulltextTier, name)
    record.related = _stamped(obj, "medlit_related_providers", RelatedProvider, name)
    record.resources = _stamped(obj, "medlit_resources", ResourceSpec, name)
    record.prompts = _stamped(obj, "medlit_prompts", PromptSpec, name)


def _check_duplicates(records: Iterable[PluginRecord]) -> None:
    kinds = {
        "tool": lambda p: [t.name for t in p.tools],
        "full-text tier": lambda p: [t.name for t in p.tiers],
        "related provider": lambda p: [r.name for r in p.related],
        "resource": lambda p: [r.uri for r in p.resources],
        "prompt": lambda p: [r.name for r in p.prompts],
    }
    for kind, names_of in kinds.items():
        seen: dict[str, str] = {}
        for p in records:
            if p.status == "error":
                continue
            for n in names_of(p):
                if n in seen and seen[n] != p.name:
                    raise HostError(
                        f"{kind} name {n!r} is declared by both plugin {seen[n]!r} and plugin {p.name!r}"
                    )
                if n in seen:
                    raise HostError(f"{kind} name {n!r} is declared twice by plugin {p.name!r}")
                seen[n] = p.name


def _status(record: PluginRecord, settings: Settings) -> None:
    var = enabled_var(record.name)
    try:
        enabled = settings.enabled_flag(record.name)
    except SettingsError as exc:
        raise HostError(str(exc)) from None
    if not enabled:
        record.status, record.waiting_on = "disabled", var
        record.detail = f"switched off by {var}=false"
        return
    assert record.info is not None
    record.missing = [s.name for s in record.info.settings if s.required and not settings.get(s.name)]
    if record.missing:
        record.status, record.waiting_on = "unconfigured", record.missing[0]
        record.detail = "needs " + ", ".join(record.missing)


def _entry_points() -> list[EntryPoint]:
    return sorted(
        entry_points(group=GROUP), key=lambda ep: (ep.dist.name != DIST_NAME if ep.dist else True, ep.name)
    )


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
    builtin_names: set[str] = set()

    candidates: list[tuple[PluginRecord, Any]] = []
    if discover:
        for ep in _entry_points():
            is_builtin = ep.dist is not None and ep.dist.name == DIST_NAME
            rec = PluginRecord(ep.name, "builtin" if is_builtin else "entry point")
            rec.version = ep.dist.version if ep.dist else None
            if ep.name in records:
                other = records[ep.name]
                reason = "reserved by a built-in plugin" if ep.name in builtin_names else "already taken"
                rec.status, rec.detail = "error", f"plugin name {ep.name!r} is {reason} ({other.source})"
                log.error(
                    "plugin %s from %s refused: %s", ep.name, ep.dist.name if ep.dist else "?", rec.detail
                )
                records[f"{ep.name}@{ep.dist.name if ep.dist else '?'}"] = rec
                continue
            records[ep.name] = rec
            if is_builtin:
                builtin_names.add(ep.name)
            try:
                candidates.append((rec, ep.load()))
            except Exception as exc:  # a broken third-party plugin must never stop the server
                rec.status, rec.detail = "error", f"failed to load: {type(exc).__name__}: {exc}"
                log.error("plugin %s failed to load: %s", ep.name, rec.detail)
    for name, obj in inline:
        if name in records:
            raise HostError(f"plugin name {name!r} is already registered")
        rec = PluginRecord(name, "inline")
        records[name] = rec
        candidates.append((rec, obj))

    for rec, obj in candidates:
        try:
            _collect(rec, obj)
        except Exception as exc:  # a plugin whose declarations fail is listed, not fatal
            rec.status, rec.detail = "error", f"failed to initialise: {type(exc).__name__}: {exc}"
            log.error("plugin %s failed: %s", rec.name, rec.detail)
            continue
        _status(rec, settings)  # a malformed <NAME>_ENABLED value is a startup error
        if rec.status == "disabled":
            pm.set_blocked(rec.name)
            continue
        try:
            pm.register(obj, name=rec.name)  # validates hook names and signatures
        except Exception as exc:
            rec.status, rec.detail = "error", f"invalid hooks: {exc}"
            log.error("plugin %s refused: %s", rec.name, rec.detail)
    _check_duplicates(records.values())
    return Host(settings=settings, pm=pm, plugins=records)
