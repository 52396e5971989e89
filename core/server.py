"""The MCP server: the only module that imports the MCP SDK.

Uses the SDK's low-level ``Server`` so that argument validation, error results and schemas are
ours: every error is an ``isError`` result whose text carries the message and recovery hint and
whose ``_meta["medlit/error"]`` carries the structured error (``structuredContent`` is left out
on errors because the TypeScript client validates it against ``outputSchema`` even then).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import mimetypes
import re
import sys
import warnings
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from . import errors as E
from .errors import MedlitError
from .host import Host
from .lazy import LazyError
from .render import fence_note
from .runtime import CallOutcome, Runtime
from .sdk_packages import rehearse_tool_call
from .settings import is_loopback_host
from .toolset_tools import (
    CALL_DESCRIPTION,
    CALL_SCHEMA,
    CALL_TOOL,
    TOOLSETS_DESCRIPTION,
    TOOLSETS_OUTPUT,
    TOOLSETS_TOOL,
    ToolsetsAnswer,
    describe,
    known_family,
    listing,
    parse_toolsets_arguments,
    refuse_nested,
    toolsets_schema,
)
from .toolset_tools import render as render_toolsets
from .toolsets import SessionLists

# What only a call needs (authentication, the lean-output pruner) is imported at the first call:
# nothing a served tool does not need at `tools/list` is imported before it.
if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette

    from .auth import AuthConfig
    from .lean import Pruner

log = logging.getLogger("medlit.server")
ERROR_META_KEY = "medlit/error"

INSTRUCTIONS = """\
medlit gives you the biomedical literature workflow: search, read records, read full text, follow
citations and metrics, format references. Each tool's description says when to use it and which
sibling to use instead."""
GENERAL = """\
Errors carry a reason, a recovery hint and whether a retry can help. Large answers are cut with a
notice saying how to continue (deferred ids, next offsets). """


def instructions(host: Host) -> str:
    """The server instructions for what is installed: each active plugin's line (the workflows it
    adds, the full-text chain in order), the active providers, those installed but off (and what
    turns them on), the families not listed, then how answers behave."""
    parts = [INSTRUCTIONS, *host.instructions()]
    # Providers are the plugins that reach a service; workflows compose them and say so below.
    providers = [p for p in host.plugins.values() if p.active and p.info and host.plugin_services(p.name)]
    if providers:
        named = [
            p.info.title + (f" ({p.info.description.rstrip('.')})" if p.info.description else "")
            for p in providers
            if p.info
        ]
        parts.append("Providers: " + "; ".join(named) + ".")
    off = [p for p in host.plugins.values() if p.status in ("disabled", "unconfigured") and p.waiting_on]
    if off:
        parts.append(
            "Installed but off (tell the user what would turn them on): "
            + "; ".join(f"{p.info.title if p.info else p.name} ({p.waiting_on})" for p in off)
            + "."
        )
    hidden = [f for f in host.families if f not in host.listed_families]
    if hidden:
        parts.append(
            f"Tools come in families; listed now: {', '.join(sorted(host.listed_families)) or 'none'}. "
            f"Also served: {', '.join(hidden)}. When no listed tool fits, call `{TOOLSETS_TOOL}` "
            "(list names each family's tools; enable adds a family to your tool list; describe gives "
            f"a tool's input schema); once enabled, call the tool from your refreshed list, or through "
            f"`{CALL_TOOL}` when your list does not refresh."
        )
    parts.append(GENERAL)
    return "\n".join(parts)


def _version() -> str:
    from medlit import __version__

    return __version__


def tool_definitions(host: Host) -> list[types.Tool]:
    tools = []
    for spec in sorted(host.tools.values(), key=lambda s: s.name):
        try:
            input_schema, output_schema = host.tool_schemas(spec)
        except LazyError as exc:  # the plugin's bug: the tool is not listed, its call says why
            log.error("tool %s of plugin %s not listed: %s", spec.name, spec.plugin, exc)
            continue
        tools.append(
            types.Tool(
                name=spec.name,
                title=spec.title,
                description=spec.description,
                input_schema=input_schema,
                output_schema=output_schema,
                annotations=types.ToolAnnotations(
                    title=spec.title,
                    read_only_hint=spec.read_only,
                    destructive_hint=spec.destructive,
                    idempotent_hint=spec.idempotent,
                    open_world_hint=spec.open_world,
                ),
                meta=_app_meta(host, spec.name),
            )
        )
    host.schema_store.save()
    return tools


def _app_meta(host: Host, name: str) -> dict[str, Any] | None:
    """The MCP Apps link of a tool a page declares (``_meta.ui.resourceUri``), else nothing."""
    uri = host.app_for_tool(name)
    return {"ui": {"resourceUri": uri}} if uri else None


def meta_definitions(host: Host) -> list[types.Tool]:
    """The tools that reach the families not listed: none when every family is listed up front
    (``MEDLIT_TOOLSETS=all`` gives the full list of before, nothing added)."""
    if host.listed_families >= set(host.families):
        return []
    # enable and disable change the session's tool list: not read-only, though nothing else changes
    annotations = types.ToolAnnotations(
        title="Tool families: list, enable, describe",
        read_only_hint=False,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=False,
    )
    return [
        types.Tool(
            name=TOOLSETS_TOOL,
            title="Tool families: list, enable, describe",
            description=TOOLSETS_DESCRIPTION,
            input_schema=toolsets_schema(host),
            output_schema=TOOLSETS_OUTPUT,
            annotations=annotations,
        ),
        types.Tool(
            name=CALL_TOOL,
            title="Run a tool by name",
            description=CALL_DESCRIPTION,
            input_schema=CALL_SCHEMA,
            # it runs whatever it is given, which may write (review tools): no read-only hint
            annotations=types.ToolAnnotations(title="Run a tool by name", open_world_hint=True),
        ),
    ]


def listed_definitions(
    host: Host, definitions: Sequence[types.Tool], families: frozenset[str]
) -> list[types.Tool]:
    """What ``tools/list`` sends a session listing ``families``: their tools, then the tools
    reaching the others."""
    names = {t for f in families if f in host.families for t in host.families[f].tools}
    return [d for d in definitions if d.name in names] + meta_definitions(host)


class _LifespanSession:
    """The marker a sessionless-era stdio client's list is kept under (one client per process)."""


class _Server(Server[Any]):
    """Advertises ``tools.listChanged`` on the handshake era too: enabling a family changes the
    session's list, and the client is told."""

    def create_initialization_options(
        self, notification_options: Any = None, *args: Any, **kwargs: Any
    ) -> Any:
        from mcp.server.lowlevel.server import NotificationOptions

        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), *args, **kwargs
        )


def build_server(
    host: Host,
    *,
    runtime: Runtime | None = None,
    shared: dict[str, Any] | None = None,
    tasks: bool = False,
) -> Server[Any]:
    """An MCP server serving every active plugin's tools, resources and prompts.

    Its parts: the lifespan (a runtime and the sessions' tool lists), the tool handlers
    (``_Tools``: listing, calling, the toolsets tool and the dispatcher), the resource and prompt
    handlers (``_Catalog``), and the session helpers they share (``session_key``, ``_warm_soon``).
    ``tasks``: the plugins' server tasks run beside it (a long-lived HTTP server's).
    """
    tools = _Tools(host)
    catalog = _Catalog(host)
    server: Server[Any] = _Server(
        "medlit",
        version=_version(),
        title="medlit: biomedical literature",
        instructions=instructions(host) + fence_note(),
        lifespan=_lifespan(host, runtime, shared, tasks),
        # (without it, the SDK runs a whole tools/list for every tools/call over HTTP to check the
        # call's Mcp-Param headers: most of a short call's CPU)
        get_tool_input_schema=tools.input_schema,
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
        on_list_resources=catalog.list_resources,
        on_list_resource_templates=catalog.list_resource_templates,
        on_read_resource=catalog.read_resource,
        on_list_prompts=catalog.list_prompts,
        on_get_prompt=catalog.get_prompt,
        on_subscriptions_listen=ListenHandler(tools.bus),
    )
    server.add_notification_handler("notifications/initialized", types.NotificationParams, _initialized)
    return server


def _lifespan(
    host: Host, runtime: Runtime | None, shared: dict[str, Any] | None = None, tasks: bool = False
) -> Callable[[Server[Any]], contextlib.AbstractAsyncContextManager[dict[str, Any]]]:
    """What every request of the server reads from ``ctx.lifespan_context``: the runtime (the one
    given, managed by its owner, else one of its own), the sessions' tool lists and the marker of
    the one stdio client. With ``tasks``, the plugins' server tasks run on its own runtime."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        # each session's tool list lives as long as the lifespan: one stdio run, one HTTP app
        lists = SessionLists(host.listed_families)
        session = _LifespanSession()
        if runtime is not None:  # shared (HTTP app, tests): the owner manages it
            yield {"runtime": runtime, "toolsets": lists, "session": session}
            return
        async with Runtime(host) as rt:
            if shared is not None:  # the HTTP app's pages call tools on the same runtime
                shared["runtime"] = rt
            if not tasks:
                yield {"runtime": rt, "toolsets": lists, "session": session}
                return
            from . import server_tasks

            async with server_tasks.running(rt):
                yield {"runtime": rt, "toolsets": lists, "session": session}

    return lifespan


# -- sessions ----------------------------------------------------------------------------------
def session_key(ctx: ServerRequestContext[Any]) -> object | None:
    """What a session's list is kept under: the connection on the handshake protocol era (one
    per stdio process, one per HTTP session id); on the sessionless era, the lifespan's own
    marker over stdio (one client per process) and the authenticated principal over HTTP
    (none without authentication: nothing ties one request to the next)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        # the SDK builds a session proxy per request; its connection is the one that lasts
        connection: object | None = getattr(ctx.session, "_connection", None)
        return connection
    if ctx.request is None:
        marker: object = ctx.lifespan_context["session"]
        return marker
    from .auth import principal_of

    return principal_of(ctx.request) or None


def _warm_soon(ctx: ServerRequestContext[Any]) -> None:
    """The session is up: warm what the first tool call needs (Runtime.start_warm_up), a
    moment later, so the answers a host waits for at launch (``tools/list`` right after the
    handshake) are not shared with it."""
    with contextlib.suppress(Exception):  # a warm-up is a courtesy, never a failure
        rt: Runtime = ctx.lifespan_context["runtime"]
        if not rt.warm_up_started:
            asyncio.get_running_loop().call_later(WARM_UP_DELAY, _start_warm_up, rt, ctx.protocol_version)


async def _initialized(ctx: ServerRequestContext[Any], params: types.NotificationParams | None) -> None:
    _warm_soon(ctx)


# -- tools -------------------------------------------------------------------------------------
class _Tools:
    """The tool handlers: ``tools/list`` (each session's own list), ``tools/call`` (a tool, the
    toolsets tool, or the dispatcher that runs any tool by name)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.definitions = tool_definitions(host)
        self.output_schemas = {t.name: t.output_schema for t in self.definitions}
        meta = meta_definitions(host)
        self.meta_names = frozenset(t.name for t in meta)
        self.input_schemas = {t.name: t.input_schema for t in [*self.definitions, *meta]}
        self.bus = InMemorySubscriptionBus()  # tool-list changes for `subscriptions/listen` streams
        self.pruners: dict[str, Pruner | None] = {}

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """A served tool's input schema, the same in every session's list (``None``: not served)."""
        return self.input_schemas.get(name)

    def pruner(self, name: str) -> Pruner | None:
        """The tool's lean-output pruner, compiled from its listed output schema at first use."""
        if name not in self.pruners:
            from .lean import compile_pruner

            schema = self.output_schemas.get(name)
            self.pruners[name] = compile_pruner(schema) if schema else None
        return self.pruners[name]

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        _warm_soon(ctx)  # sessions of the stateless protocol era send no `initialized`
        lists: SessionLists = ctx.lifespan_context["toolsets"]
        return types.ListToolsResult(
            tools=listed_definitions(self.host, self.definitions, lists.listed(session_key(ctx)))
        )

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        if params.name == TOOLSETS_TOOL and params.name in self.meta_names:
            return await self.toolsets_tool(ctx, arguments)
        if params.name in self.meta_names:
            return await self.dispatch(ctx, arguments)
        return await self.run_tool(ctx, params.name, arguments)

    async def dispatch(
        self, ctx: ServerRequestContext[Any], arguments: dict[str, Any]
    ) -> types.CallToolResult:
        """The dispatcher: any served tool by name, with the tool's own validation and answer."""
        name = arguments.get("name")
        inner = arguments.get("arguments", {})
        extra = sorted(set(arguments) - {"name", "arguments"})
        if not isinstance(name, str) or not name or extra or not isinstance(inner, dict):
            return error_result(
                E.invalid_argument(
                    f"{CALL_TOOL} takes name (a tool's name) and arguments (an object)"
                    + (f", not {extra[0][:40]!r}." if extra else "."),
                    "Give the tool's name and its arguments as an object.",
                )
            )
        if name in self.meta_names:
            return error_result(refuse_nested(name))
        return await self.run_tool(ctx, name, inner)

    async def run_tool(
        self, ctx: ServerRequestContext[Any], name: str, arguments: dict[str, Any]
    ) -> types.CallToolResult:
        from .auth import principal_of

        rt: Runtime = ctx.lifespan_context["runtime"]

        async def progress(done: float, total: float | None = None, message: str | None = None) -> None:
            with contextlib.suppress(Exception):  # progress is best effort, never a failure
                await ctx.session.report_progress(done, total, message)

        outcome = await rt.call(name, arguments, progress, principal=principal_of(ctx.request))
        content = _content(outcome)
        if outcome.error is not None:
            return types.CallToolResult(
                content=content, is_error=True, meta={ERROR_META_KEY: outcome.error.to_dict()}
            )
        data = outcome.data
        prune = self.pruner(name) if data is not None else None
        if prune is not None:  # null and empty optional fields left out (core/lean.py)
            data = prune(data)
        return types.CallToolResult(content=content, structured_content=data, is_error=False)

    async def toolsets_tool(
        self, ctx: ServerRequestContext[Any], arguments: dict[str, Any]
    ) -> types.CallToolResult:
        lists: SessionLists = ctx.lifespan_context["toolsets"]
        try:
            action, toolset, tool = parse_toolsets_arguments(arguments)
            if action == "describe":
                answer = describe(self.host, tool, toolset)
            else:
                key = session_key(ctx)
                answer = ToolsetsAnswer(action=action)
                if action in ("enable", "disable"):
                    await self.change_list(ctx, answer, lists, key, known_family(self.host, toolset))
                answer["toolsets"] = listing(self.host, lists.listed(key))
                if action != "list":  # the family acted on, not all of them again
                    answer["toolsets"] = [e for e in answer["toolsets"] if e["name"] == toolset]
        except MedlitError as err:
            return error_result(err)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=render_toolsets(answer))],
            structured_content=dict(answer),
            is_error=False,
        )

    async def change_list(
        self,
        ctx: ServerRequestContext[Any],
        answer: ToolsetsAnswer,
        lists: SessionLists,
        key: object | None,
        family: str,
    ) -> None:
        """Enable or disable a family in the session's tool list (a connection without a session
        keeps its list: it calls the tools by name), telling the client when the list changed."""
        action = answer["action"]
        if key is None:
            answer["changed"] = False
            answer["notice"] = (
                f"This connection keeps no session, so its tool list stays as it is: call "
                f"the {family} tools by name (or through {CALL_TOOL}); `describe` gives "
                "each one's input schema."
            )
            return
        change = {"add": (family,)} if action == "enable" else {"remove": (family,)}
        answer["changed"] = lists.change(key, **change)
        if answer["changed"]:
            await self.tools_changed(ctx)
        verb = "now listed" if action == "enable" else "no longer listed"
        answer["notice"] = (
            f"The {family} tools are {verb} in this session's tool list. If your tool "
            f"list does not refresh, call them through {CALL_TOOL}; they can always be "
            "called by name."
        )

    async def tools_changed(self, ctx: ServerRequestContext[Any]) -> None:
        """Tell the client its tool list changed: a notification on the handshake era, an event
        for `subscriptions/listen` streams on the sessionless one. Best effort: a client that
        cannot hear it still reaches every tool through the dispatcher."""
        with contextlib.suppress(Exception):
            if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                await self.bus.publish(ToolsListChanged())
            else:
                await ctx.session.send_tool_list_changed()


def _content(outcome: CallOutcome) -> list[types.ContentBlock]:
    """A call's answer as MCP content: its text, then its resource links and images."""
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=outcome.text)]
    content += [
        types.ResourceLink(
            type="resource_link",
            uri=link.uri,
            name=link.name,
            title=link.title,
            mime_type=link.mimeType,
            size=link.size,
        )
        for link in outcome.links
    ]
    content += [
        types.ImageContent(
            type="image", data=base64.b64encode(image.data).decode("ascii"), mime_type=image.mimeType
        )
        for image in outcome.images
    ]
    return content


# -- resources and prompts ---------------------------------------------------------------------
class _Catalog:
    """The resource and prompt handlers: listings from the host, reads and renders through the
    runtime (errors at the protocol level: resources and prompts have no isError result)."""

    def __init__(self, host: Host) -> None:
        self.host = host

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=r.uri,
                    name=r.name,
                    title=r.title,
                    description=r.description,
                    mime_type=r.mime_type or None,
                )
                for r in self.host.resources.values()
                if not r.is_template
            ]
        )

    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=r.uri,
                    name=r.name,
                    title=r.title,
                    description=r.description,
                    mime_type=r.mime_type or None,  # "": each file's own type
                )
                for r in self.host.resources.values()
                if r.is_template
            ]
        )

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        from .auth import principal_of

        rt: Runtime = ctx.lifespan_context["runtime"]
        uri = str(params.uri)
        text, err = await rt.read_resource(uri, principal=principal_of(ctx.request))
        if err is not None or text is None:
            raise _protocol_error(err)
        spec, _ = self.host.resource_for(uri)
        mime = spec.mime_type if spec is not None else None
        if mime == "":  # a template of files: each file's own type (an .svg is image/svg+xml)
            mime = mimetypes.guess_type(uri.rsplit("/", 1)[-1])[0] or "text/plain"
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    async def list_prompts(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=p.name,
                    title=p.title,
                    description=p.description,
                    arguments=[
                        types.PromptArgument(name=a.name, description=a.description, required=a.required)
                        for a in p.arguments
                    ],
                )
                for p in self.host.prompts.values()
            ]
        )

    async def get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        rt: Runtime = ctx.lifespan_context["runtime"]
        rendered, err = await rt.render_prompt(params.name, dict(params.arguments or {}))
        if err is not None or rendered is None:
            raise _protocol_error(err)
        messages = [
            types.PromptMessage(role=role, content=types.TextContent(type="text", text=text))
            for role, text in rendered
        ]
        return types.GetPromptResult(
            description=self.host.prompts[params.name].description, messages=messages
        )


WARM_UP_DELAY = 0.1  # seconds after the handshake (or the first tools/list) the warm-up starts


def _start_warm_up(rt: Runtime, version: str | None = None) -> None:
    with contextlib.suppress(Exception):
        rt.start_warm_up()
    if version is not None:
        with contextlib.suppress(Exception):  # the SDK's models a first call needs, on this thread
            rehearse_tool_call(version)


def error_result(err: MedlitError) -> types.CallToolResult:
    """A refused call, in the shape every tool's errors have."""
    from .runtime import render_error

    return types.CallToolResult(
        content=[types.TextContent(type="text", text=render_error(err))],
        is_error=True,
        meta={ERROR_META_KEY: err.to_dict()},
    )


def _protocol_error(err: MedlitError | None) -> MCPError:
    """Resources and prompts answer errors at the protocol level (they have no isError result):
    bad input is INVALID_PARAMS, anything else INTERNAL_ERROR; the structured error rides along."""
    if err is None:
        return MCPError(types.INTERNAL_ERROR, "no answer")
    code = types.INVALID_PARAMS if err.kind == "invalid_argument" else types.INTERNAL_ERROR
    return MCPError(code, f"{err.reason}: {err.message}", err.to_dict())


# -- transports ---------------------------------------------------------------------------------
async def serve_stdio(host: Host) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(host)
    async with stdio_server() as (read, write):
        await server.run(AnswerParseErrors(read, write), write, server.create_initialization_options())


class AnswerParseErrors:
    """The SDK's stdio reader turns a line it cannot parse (garbage, JSON nested too deep) into an
    exception the session drops, so the caller waits out its own timeout. This stream answers such
    a line with JSON-RPC's ``-32700 Parse error``, with the message's top-level ``id`` when a
    linear scan of the line can read it (a request whose ``params`` nest too deep, say) and
    ``null`` otherwise, as the spec says when the id is unknown; it logs it and hands every real
    message on unchanged."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read, self._write = read, write

    def __aiter__(self) -> AnswerParseErrors:
        return self

    async def __anext__(self) -> Any:
        while True:
            item = await self._read.__anext__()
            if not isinstance(item, Exception):
                return item
            request_id = _readable_id(item)
            log.warning(
                "stdio: unparseable message answered with -32700 (%s, id %r)", type(item).__name__, request_id
            )
            from mcp.shared.message import SessionMessage

            error = types.JSONRPCError(
                jsonrpc="2.0",
                id=request_id,
                error=types.ErrorData(code=types.PARSE_ERROR, message="Parse error: not a JSON-RPC message"),
            )
            with contextlib.suppress(Exception):
                await self._write.send(SessionMessage(error))

    def __getattr__(self, name: str) -> Any:  # receive(), aclose(), context managers
        return getattr(self._read, name)

    async def receive(self) -> Any:
        return await self.__anext__()

    async def __aenter__(self) -> AnswerParseErrors:
        await self._read.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._read.__aexit__(*exc)


_ID_SCAN_LIMIT = 4_000_000  # characters of a line scanned for its id (the scan is linear)
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)")
_WS = " \t\r\n"


def _readable_id(exc: Exception) -> str | int | None:
    """The ``id`` of the line a parse failure is about, when pydantic kept the line (it does for
    invalid JSON) and its top-level object names one before the point where it breaks."""
    raw: Any = None
    with contextlib.suppress(Exception):
        raw = exc.errors(include_url=False)[0].get("input")  # type: ignore[attr-defined]
    if isinstance(raw, dict):
        value = raw.get("id")
        return value if isinstance(value, str | int) and not isinstance(value, bool) else None
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    return top_level_id(raw) if isinstance(raw, str) else None


def top_level_id(text: str) -> str | int | None:
    """Read ``"id"`` of a JSON object's top level without parsing the rest: keys are read, other
    values skipped by counting brackets outside strings (no recursion, so any depth is cheap). The
    id counts only when its value is complete (a string, or an integer followed by ``,`` or ``}``)."""
    from json.decoder import scanstring  # type: ignore[attr-defined]

    text = text[:_ID_SCAN_LIMIT]
    n = len(text)

    def skip_ws(i: int) -> int:
        while i < n and text[i] in _WS:
            i += 1
        return i

    try:
        i = skip_ws(0)
        if i >= n or text[i] != "{":
            return None
        i += 1
        while True:
            i = skip_ws(i)
            if i >= n or text[i] != '"':
                return None
            key, i = scanstring(text, i + 1)
            i = skip_ws(i)
            if i >= n or text[i] != ":":
                return None
            i = skip_ws(i + 1)
            if key == "id":
                value: str | int
                if i < n and text[i] == '"':
                    value, end = scanstring(text, i + 1)
                else:
                    m = _NUMBER.match(text, i)
                    if m is None:
                        return None
                    value, end = int(m.group()), m.end()
                end = skip_ws(end)
                return value if end < n and text[end] in ",}" else None
            i = _skip_value(text, i)
            i = skip_ws(i)
            if i >= n or text[i] != ",":
                return None
            i += 1
    except (ValueError, IndexError):
        return None


def _skip_value(text: str, i: int) -> int:
    """The index after the JSON value starting at ``i`` (brackets counted, strings skipped)."""
    from json.decoder import scanstring  # type: ignore[attr-defined]

    n, depth = len(text), 0
    while i < n:
        c = text[i]
        if c == '"':
            _, i = scanstring(text, i + 1)
            if depth == 0:
                return i
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
            if depth < 0:
                return i
        elif depth == 0 and c in ",":
            return i
        i += 1
    return i


def http_security(allowed_hosts: Sequence[str], allowed_origins: Sequence[str]) -> TransportSecuritySettings:
    """Host/Origin checks for Streamable HTTP: loopback names always, plus an explicit allowlist.

    Binding a non-loopback address without an allowlist is refused by the CLI, since the SDK
    would otherwise switch the check off."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    for h in allowed_hosts:
        hosts += [h, f"{h}:*"] if ":" not in h else [h]
    origins += list(allowed_origins)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def http_app(
    host: Host,
    *,
    bind: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    path: str = "/mcp",
    stateless: bool = False,
    auth: AuthConfig | None = None,
) -> Starlette:
    """The Streamable HTTP app, plus ``GET /health`` for load balancers (200 while serving;
    ``status`` is ``degraded`` while shared pacing falls back to local pacing). ``stateless``
    issues no session ids, so any replica behind a load balancer can answer any request."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    shared: dict[str, Any] = {}
    server = build_server(host, shared=shared, tasks=True)
    app = server.streamable_http_app(
        streamable_http_path=path,
        transport_security=http_security(allowed_hosts, allowed_origins),
        host=bind,
        stateless_http=stateless,
    )

    async def health(request: Request) -> JSONResponse:
        from .net.shared_pacer import degraded

        pacing = degraded()  # groups paced locally while Redis is unreachable: still serving
        return JSONResponse(
            {
                "status": "degraded" if pacing else "ok",
                **({"degraded": {"sharedPacing": pacing}} if pacing else {}),
                "version": _version(),
                "tools": len(host.tools),
                "plugins": {p.name: p.status for p in host.plugins.values()},
                "stateless": stateless,
            }
        )

    app.router.routes.insert(0, Route("/health", health, methods=["GET"]))
    if host.pages:  # the plugins' pages for people (core/webapp.py), behind their own sign-in
        from .webapp import page_routes

        app.router.routes[1:1] = page_routes(
            host, shared, auth if auth is not None and auth.configured else None
        )
    if auth is not None and auth.configured:
        require_auth(app, path, auth)
    return app


def require_auth(app: Starlette, path: str, auth: AuthConfig) -> None:
    """Put the MCP endpoint behind the SDK's bearer authentication: ``AuthenticationMiddleware``
    with ``BearerAuthBackend`` over our verifier (the token file, the issuer's JWTs), and
    ``RequireAuthMiddleware`` answering 401 with ``WWW-Authenticate: Bearer ...`` (naming the
    RFC 9728 metadata when OAuth is configured, which is then served). ``/health`` stays open."""
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
    from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
    from pydantic import AnyHttpUrl
    from starlette.middleware.authentication import AuthenticationMiddleware
    from starlette.routing import Route

    metadata_url = None
    if auth.jwt is not None and auth.resource_url:
        resource = AnyHttpUrl(auth.resource_url)
        metadata_url = build_resource_metadata_url(resource)
        routes = create_protected_resource_routes(
            resource_url=resource,
            # as a string: the metadata model keeps a path-less issuer exact (RFC 8414 compares
            # issuers as strings), where AnyHttpUrl would add a slash
            authorization_servers=[cast(AnyHttpUrl, auth.jwt.issuer)],
            resource_name="medlit",
        )
        # RFC 9728 puts the resource's path after the well-known name; clients that ask at the
        # root (as the MCP spec's fallback does) get the same document.
        root = "/.well-known/oauth-protected-resource"
        extra = [Route(root, r.endpoint, methods=["GET", "OPTIONS"]) for r in routes if r.path != root]
        app.router.routes[0:0] = [*routes, *extra]
    for i, route in enumerate(app.router.routes):
        if isinstance(route, Route) and route.path == path:
            app.router.routes[i] = Route(
                path, endpoint=RequireAuthMiddleware(route.endpoint, [], metadata_url)
            )
    app.add_middleware(AuthContextMiddleware)
    app.add_middleware(AuthenticationMiddleware, backend=BearerAuthBackend(auth))


def serve_http(
    host: Host,
    *,
    bind: str = "127.0.0.1",
    port: int = 8000,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    stateless: bool = False,
    auth: AuthConfig | None = None,
    on_server: Callable[[uvicorn.Server], None] | None = None,
    on_started: Callable[[], None] | None = None,
) -> None:
    """Serve until stopped. ``on_started`` runs once the port is bound (not before: a port in use
    fails start-up with uvicorn's own message, and nothing claims the server is serving)."""
    import uvicorn

    if not is_loopback_host(bind) and not (auth is not None and auth.configured):
        print(
            f"medlit: WARNING: serving on non-loopback address {bind}; only Host headers in "
            f"{', '.join(allowed_hosts)} are accepted. There is no authentication.",
            file=sys.stderr,
        )
    app = http_app(
        host,
        bind=bind,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        stateless=stateless,
        auth=auth,
    )
    # Open streams get half a second to finish after a signal: shutdown stays under a second.
    config = uvicorn.Config(
        app,
        host=bind,
        port=port,
        log_level="warning",
        lifespan="on",
        # uvicorn annotates int, but hands the value to asyncio.wait_for: half a second works.
        timeout_graceful_shutdown=0.5,  # type: ignore[arg-type]
    )
    server = uvicorn.Server(config)
    if on_server is not None:
        on_server(server)

    async def announce() -> None:
        while not server.started:  # noqa: ASYNC110 (uvicorn sets a plain flag, no event)
            await asyncio.sleep(0.02)
        if on_started is not None:
            on_started()

    async def run() -> None:
        watcher = asyncio.ensure_future(announce())
        try:
            await server.serve()
        finally:
            watcher.cancel()

    anyio.run(run)


def quiet_sdk_warnings() -> None:
    # The SDK warns on deprecated protocol features a client may use; that is not our user's concern.
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="mcp")
