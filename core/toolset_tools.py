"""The two tools core serves so that every tool stays reachable while only some are listed:
``medlit_toolsets`` (list the families, enable or disable one for the session, describe one tool)
and ``medlit_call_tool`` (run any served tool by name, for hosts whose tool list never refreshes).

Their definitions and answers live here, free of the MCP SDK; ``core/server.py`` serves them and
keeps each session's list (:class:`~medlit.core.toolsets.SessionLists`)."""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict

from . import errors as E
from .errors import MedlitError
from .host import Host
from .toolsets import first_line

TOOLSETS_TOOL = "medlit_toolsets"
CALL_TOOL = "medlit_call_tool"
META_TOOLS = (TOOLSETS_TOOL, CALL_TOOL)
Action = Literal["list", "enable", "disable", "describe"]
ACTIONS: tuple[Action, ...] = ("list", "enable", "disable", "describe")

TOOLSETS_DESCRIPTION = """\
List the tool families this server has beyond the tools listed now, add one to this session's \
tool list, or describe one tool; use it when no listed tool fits the task (the families are in \
`toolset`). `list` (the default) names every family's tools, one line each; `enable` with \
`toolset` adds a family's tools to your list (the host is told it changed; `changed` says so), \
`disable` removes them; `describe` with `tool` returns its description and input schema (with \
`toolset` alone: every tool of the family in one answer). If your tool list did not grow after \
`enable`, run the family's tools through `medlit_call_tool`."""

TOOLSETS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {
            "type": "string",
            "enum": list(ACTIONS),
            "default": "list",
            "description": "What to do (default list). Example: 'enable'.",
        },
        "toolset": {
            "type": "string",
            "maxLength": 64,
            "description": "The family to enable or disable, as `list` names it. Example: 'review'.",
        },
        "tool": {
            "type": "string",
            "maxLength": 80,
            "description": "describe: the tool (omit it to describe every tool of `toolset`). "
            "Example: 'review_import'.",
        },
    },
    "additionalProperties": False,
}


_NAME_LINE: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "summary": {"type": "string"}},
    "required": ["name", "summary"],
}
# A tool's input schema in an answer: any JSON Schema object, as tools/list gives it.
_SCHEMA_OBJECT: dict[str, Any] = {
    "type": "object",
    "properties": {"type": {"type": "string"}},
    "additionalProperties": True,
}
# What every answer of medlit_toolsets holds (ToolsetsAnswer), as its output schema.
TOOLSETS_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "toolsets": {
            "type": "array",
            "description": "list: every family; enable/disable: the one acted on",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "summary": {"type": "string"},
                    "listed": {"type": "boolean", "description": "Its tools are in this session's list now"},
                    "tools": {"type": "array", "items": _NAME_LINE},
                },
                "required": ["name", "summary", "listed", "tools"],
            },
        },
        "changed": {"type": "boolean", "description": "enable/disable: the session's tool list changed"},
        "tool": {"type": "string"},
        "description": {"type": "string", "description": "describe: the tool's description"},
        "inputSchema": {
            **_SCHEMA_OBJECT,
            "description": "describe: the tool's input schema, as tools/list gives it",
        },
        "definitions": {
            "type": "array",
            "description": "describe with a family: each of its tools' description and input schema",
            "items": {
                "type": "object",
                "properties": {
                    "tool": {"type": "string"},
                    "description": {"type": "string"},
                    "inputSchema": _SCHEMA_OBJECT,
                },
                "required": ["tool", "description", "inputSchema"],
            },
        },
        "notice": {"type": "string"},
    },
    "required": ["action"],
}


def toolsets_schema(host: Host) -> dict[str, Any]:
    """:data:`TOOLSETS_SCHEMA` with ``toolset`` as the enum of this server's families, each named
    with its one line, so a model sees every family before it calls anything."""
    families = sorted(host.families)
    lines = "; ".join(
        f"{name}: {host.families[name].summary.rstrip('.')}" if host.families[name].summary else name
        for name in families
    )
    toolset = {
        "type": "string",
        "enum": families,
        "description": f"enable/disable: the family. {lines}. Example: 'review'.",
    }
    return {**TOOLSETS_SCHEMA, "properties": {**TOOLSETS_SCHEMA["properties"], "toolset": toolset}}


CALL_DESCRIPTION = """\
Run any tool this server serves by its name, listed or not, with the same validation, answer and \
errors as calling it directly. For hosts whose tool list does not refresh after `medlit_toolsets` \
enable: take the name from `medlit_toolsets` list and the arguments from its describe (one call \
with `toolset` describes the whole family). Call a listed tool directly instead."""

CALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "maxLength": 80,
            "description": "The tool to run. Example: 'review_sets'.",
        },
        "arguments": {
            "type": "object",
            # A free-form object with no properties is refused by single-type dialects (Gemini's
            # function declarations); every tool takes responseFormat, so it is named here.
            "properties": {
                "responseFormat": {
                    "type": "string",
                    "enum": ["markdown", "json"],
                    "description": "Every tool takes it: text reply's format; default markdown. Example: 'json'.",
                }
            },
            "additionalProperties": True,
            "default": {},
            "description": "The tool's own arguments, as its input schema says (default none). "
            'Example: {"db": "gene", "term": "BRCA1"}.',
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}


class ToolLine(TypedDict):
    name: str
    summary: str


class ToolsetEntry(TypedDict):
    name: str
    summary: str
    listed: bool
    tools: list[ToolLine]


class ToolDefinition(TypedDict):
    tool: str
    description: str
    inputSchema: dict[str, Any]


class ToolsetsAnswer(TypedDict, total=False):
    action: Action
    toolsets: list[ToolsetEntry]
    changed: bool
    tool: str
    description: str
    inputSchema: dict[str, Any]
    definitions: list[ToolDefinition]
    notice: str


def parse_toolsets_arguments(arguments: dict[str, Any]) -> tuple[Action, str, str]:
    """``(action, toolset, tool)``, or :class:`MedlitError` naming the bad field."""
    unknown = sorted(set(arguments) - {"action", "toolset", "tool"})
    if unknown:
        raise E.invalid_argument(
            f"{TOOLSETS_TOOL} takes no argument {unknown[0][:40]!r}.", "Give action, toolset or tool."
        )
    action = arguments.get("action", "list")
    if action not in ACTIONS:
        raise E.invalid_argument(
            f"action must be one of {', '.join(ACTIONS)}, not {str(action)[:40]!r}.",
            "Use action 'list' to see the families.",
        )
    values = {}
    for field in ("toolset", "tool"):
        value = arguments.get(field, "")
        if not isinstance(value, str) or len(value) > 80:
            raise E.invalid_argument(f"{field} must be a name of at most 80 characters.", "Give the name.")
        values[field] = value.strip()
    return action, values["toolset"], values["tool"]


def listing(host: Host, listed: frozenset[str]) -> list[ToolsetEntry]:
    """Every family with one line per tool; ``listed`` says which the session lists now."""
    return [
        ToolsetEntry(
            name=f.name,
            summary=f.summary,
            listed=f.name in listed,
            tools=[ToolLine(name=t, summary=first_line(host.tools[t].description)) for t in f.tools],
        )
        for f in host.families.values()
    ]


def known_family(host: Host, name: str) -> str:
    if name in host.families:
        return name
    from .text import suggest

    guess = suggest(name[:64], list(host.families)) if name else None
    raise E.invalid_argument(
        (f"Unknown toolset {name[:64]!r}" if name else "toolset is required for enable and disable")
        + (f"; did you mean {guess!r}?" if guess else "."),
        "Use one of: " + ", ".join(host.families) + " (action 'list' shows their tools).",
    )


def describe(host: Host, tool: str, toolset: str = "") -> ToolsetsAnswer:
    """One served tool's full definition, as ``tools/list`` would send it; with ``toolset`` and no
    ``tool``, every tool of that family in one answer (a host whose list never refreshes needs
    them all before its first call through ``medlit_call_tool``), a tool whose plugin's models fail
    to load named in ``notice`` rather than failing the others."""
    if tool or not toolset:
        one = _definition(host, tool)
        return ToolsetsAnswer(
            action="describe",
            tool=one["tool"],
            description=one["description"],
            inputSchema=one["inputSchema"],
        )
    family = known_family(host, toolset)
    definitions: list[ToolDefinition] = []
    unreadable: list[str] = []
    for name in sorted(host.families[family].tools):
        try:
            definitions.append(_definition(host, name))
        except MedlitError:
            unreadable.append(name)
    answer = ToolsetsAnswer(action="describe", tool="", definitions=definitions)
    if unreadable:
        answer["notice"] = (
            f"Not described, their plugin's models fail to load (a call says why): {', '.join(unreadable)}."
        )
    return answer


def _definition(host: Host, tool: str) -> ToolDefinition:
    spec = host.tools.get(tool)
    if spec is None:
        from .text import suggest

        guess = suggest(tool[:80], host.tools) if tool else None
        raise E.invalid_argument(
            (
                f"Unknown tool {tool[:80]!r}"
                if tool
                else "tool (or toolset, for all its tools) is required for describe"
            )
            + (f"; did you mean {guess!r}?" if guess else "."),
            "Use a tool name that action 'list' shows.",
        )
    try:
        schema, _ = host.tool_schemas(spec)
    except Exception as exc:  # the plugin's models fail to load: its calls say the same
        raise E.plugin_fault(
            spec.plugin, f"tool {tool} has no readable input schema: {exc}", tool=tool
        ) from None
    return ToolDefinition(tool=tool, description=spec.description, inputSchema=schema)


def render(answer: ToolsetsAnswer) -> str:
    """The answer as text a model reads."""
    if answer.get("action") == "describe":
        shown = (
            answer["definitions"]
            if "definitions" in answer
            else [
                ToolDefinition(
                    tool=answer["tool"], description=answer["description"], inputSchema=answer["inputSchema"]
                )
            ]
        )
        blocks = [answer.get("notice", "")] + [
            f"## {d['tool']}\n{d['description']}\n\nInput schema:\n"
            + json.dumps(d["inputSchema"], separators=(",", ":"))
            for d in shown
        ]
        return "\n\n".join(b for b in blocks if b)
    lines = []
    if answer.get("notice"):
        lines.append(answer["notice"])
    for entry in answer.get("toolsets", []):
        state = (
            "listed" if entry["listed"] else f"not listed: enable it, or run its tools through {CALL_TOOL}"
        )
        lines.append(f"\n## {entry['name']} ({state})\n{entry['summary']}")
        lines += [f"- {t['name']}: {t['summary']}" for t in entry["tools"]]
    return "\n".join(lines).strip()


def refuse_nested(name: str) -> MedlitError:
    return E.invalid_argument(f"{CALL_TOOL} does not run {name}.", f"Call {name} directly.", tool=name)
