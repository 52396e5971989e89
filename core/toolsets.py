"""Tool families ("toolsets"): which served tools ``tools/list`` shows up front, and what the
``medlit_toolsets`` tool answers about the rest.

Every tool's definition is paid for by the model on every turn, so only the default families are
listed at first; the others are named (one line a tool) and a model enables a family for its
session, asks for one tool's definition, or calls any served tool by name. Families come from
plugin declarations (``PluginInfo.toolsets``, ``ToolSpec.toolset``): core names none.
``MEDLIT_TOOLSETS`` chooses what is listed up front (``default``, ``all``, or family names);
``MEDLIT_TOOLS`` still decides what is served at all.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .types import PluginInfo, Toolset, ToolSpec

ALL = "all"
DEFAULT = "default"


@dataclass(frozen=True)
class Family:
    """A family as served: its served tools (sorted), summary, and whether it is listed up front."""

    name: str
    summary: str
    default: bool
    tools: tuple[str, ...]


def family_of(tool: ToolSpec, plugin: str, info: PluginInfo | None) -> str:
    """The tool's own ``toolset``, else the first of its plugin's families whose patterns match
    its name, else the plugin's name."""
    if tool.toolset:
        return tool.toolset
    for family in info.toolsets if info else ():
        if any(fnmatch.fnmatchcase(tool.name, p) for p in family.tools):
            return family.name
    return plugin


def build_families(
    tools: Iterable[tuple[ToolSpec, str, PluginInfo | None]], declared: Iterable[Toolset]
) -> dict[str, Family]:
    """The families of the served tools (``(tool, plugin, plugin info)``), by name; a family no
    plugin declares is summarised by its plugin's description (or title). A family with no
    served tool is left out."""
    declarations: dict[str, Toolset] = {}
    defaults: set[str] = set()
    for d in declared:
        if d.summary and d.name not in declarations:
            declarations[d.name] = d
        if d.default:
            defaults.add(d.name)
    members: dict[str, list[str]] = {}
    fallback: dict[str, str] = {}
    for tool, plugin, info in tools:
        name = family_of(tool, plugin, info)
        members.setdefault(name, []).append(tool.name)
        if info is not None:
            fallback.setdefault(name, info.description or info.title)
    return {
        name: Family(
            name=name,
            summary=(declarations[name].summary if name in declarations else fallback.get(name, "")),
            default=name in defaults,
            tools=tuple(sorted(names)),
        )
        for name, names in sorted(members.items())
    }


def listed_up_front(choice: Iterable[str], families: Mapping[str, Family]) -> frozenset[str]:
    """The families ``tools/list`` shows before any is enabled. ``all`` lists every family;
    ``default`` the families declared default (every family when none is: nothing would be
    listed otherwise); other names add themselves."""
    chosen: set[str] = set()
    for name in choice:
        if name == ALL:
            return frozenset(families)
        if name == DEFAULT:
            defaults = {f.name for f in families.values() if f.default}
            chosen |= defaults or set(families)
        elif name in families:
            chosen.add(name)
    return frozenset(chosen)


def unknown_toolsets(choice: Iterable[str], known: Iterable[str]) -> list[str]:
    """The names in ``MEDLIT_TOOLSETS`` that are neither a family nor a keyword."""
    known = set(known)
    return [n for n in choice if n not in (ALL, DEFAULT) and n not in known]


def first_line(description: str) -> str:
    """A tool's one-line summary: its description's first sentence."""
    text = " ".join(description.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


# -- what a session lists ------------------------------------------------------------------------


class SessionLists:
    """The families each session lists, for as long as the session lives: a session starts with
    the families listed up front and enables or disables others. Sessions are keyed by an object
    that lives as long as the connection (held weakly, so a closed session's entry goes with it)
    or by a string (an authenticated principal on a connection that keeps no session; at most
    ``limit`` of those are kept, the least recently changed dropped first)."""

    def __init__(self, up_front: frozenset[str], limit: int = 10_000) -> None:
        import weakref

        self.up_front = up_front
        self._objects: weakref.WeakKeyDictionary[object, frozenset[str]] = weakref.WeakKeyDictionary()
        self._names: dict[str, frozenset[str]] = {}
        self._limit = limit

    def listed(self, key: object | None) -> frozenset[str]:
        if key is None:
            return self.up_front
        found = self._names.get(key) if isinstance(key, str) else self._objects.get(key)
        return self.up_front if found is None else found

    def change(self, key: object, *, add: Iterable[str] = (), remove: Iterable[str] = ()) -> bool:
        """Enable ``add`` and disable ``remove`` for the session; whether its list changed."""
        before = self.listed(key)
        after = (before | frozenset(add)) - frozenset(remove)
        if after == before:
            return False
        if isinstance(key, str):
            self._names.pop(key, None)
            self._names[key] = after
            while len(self._names) > self._limit:
                self._names.pop(next(iter(self._names)))
        else:
            self._objects[key] = after
        return True
