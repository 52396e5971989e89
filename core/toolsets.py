"""Tool families ("toolsets"): which served tools ``tools/list`` shows up front, and what the
``medlit_toolsets`` tool answers about the rest.

Every tool's definition is paid for by the model on every turn, so only the default families are
listed at first; the others are named (one line a tool) and a model enables a family for its
session, asks for one tool's definition, or calls any served tool by name. Families come from
plugin declarations (``PluginInfo.toolsets`` and ``default_toolsets``, ``ToolSpec.toolset``):
core names none.
``MEDLIT_TOOLSETS`` chooses what is listed up front (``default``, ``all``, or family names);
``MEDLIT_TOOLS`` still decides what is served at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .types import PluginInfo, ToolSpec

ALL = "all"
DEFAULT = "default"


@dataclass(frozen=True)
class Family:
    """A family as served: its served tools (sorted), summary, and whether it is listed up front."""

    name: str
    summary: str
    default: bool
    tools: tuple[str, ...]


def family_of(tool: ToolSpec, plugin: str) -> str:
    """The tool's declared ``toolset``, else its plugin's name."""
    return tool.toolset or plugin


def build_families(tools: Iterable[tuple[ToolSpec, str, PluginInfo | None]]) -> dict[str, Family]:
    """The families of the served tools (``(tool, plugin, plugin info)``), by name. A family's
    summary is the first one a plugin declares for it, else its first plugin's description (or
    title); it is a default family when any plugin says so. A family with no served tool is left
    out."""
    tools = list(tools)
    infos = [info for _, _, info in tools if info is not None]
    summaries: dict[str, str] = {}
    defaults: set[str] = set()
    for info in infos:
        for name, summary in info.toolsets.items():
            if summary:
                summaries.setdefault(name, summary)
        defaults.update(info.default_toolsets)
    members: dict[str, list[str]] = {}
    for tool, plugin, owner in tools:
        name = family_of(tool, plugin)
        members.setdefault(name, []).append(tool.name)
        if owner is not None:
            summaries.setdefault(name, owner.description or owner.title)
    return {
        name: Family(
            name=name, summary=summaries.get(name, ""), default=name in defaults, tools=tuple(sorted(names))
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
