"""Running tools: argument normalisation, validation, the handler, the result or the error.

Shared by the MCP server and ``medlit call`` so both behave identically. The runtime owns the
one ``aiohttp`` session of the process and the per-service clients built on it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import UnionType
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
from pydantic import BaseModel, ValidationError

from . import errors as E
from .context import Progress, no_progress
from .errors import MedlitError
from .host import Host
from .loaded import LoadedTool, load_tool
from .redact import Redactor
from .render import as_json, cap
from .settings import select_tool
from .store import SqlStore, StoreError, default_store_url, open_store
from .text import suggest
from .types import (
    ArticleRef,
    Catalog,
    ChainResult,
    IdKind,
    PromptMessages,
    RecordMetadata,
    SourcePage,
    SourceQuery,
    StepOutcome,
    TierOptions,
    ToolContext,
    ToolSpec,
)

# The cache and the network layer are imported by the warm-up or the first call:
# a server answers `initialize` and `tools/list` without them (tests/unit/test_launch_imports.py).
if TYPE_CHECKING:
    import aiohttp

    from .cache import Cache
    from .models import Image, ResourceLink
    from .net.http import UpstreamClient
    from .net.webfetch import WebClient

log = logging.getLogger("medlit.runtime")

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
T = TypeVar("T")


@dataclass
class CallOutcome:
    """A tool call's result: structured data and text, or an error."""

    text: str
    data: dict[str, Any] | None = None
    error: MedlitError | None = None
    elapsed: float = 0.0
    links: list[ResourceLink] = field(default_factory=list)  # resources the result points at
    images: list[Image] = field(default_factory=list)  # images the result carries

    @property
    def is_error(self) -> bool:
        return self.error is not None


class Runtime:
    """``async with Runtime(host) as rt: await rt.call("eutils_einfo", {...})``."""

    def __init__(self, host: Host, session: aiohttp.ClientSession | None = None) -> None:
        self.host = host
        self._own_session = session is None
        self.session = session
        self._clients: dict[str, UpstreamClient | WebClient] | None = None
        self.caches: dict[str, dict[str, Any]] = {}  # per plugin, process-wide
        self.cache: Cache | None = None  # the persistent response cache (MEDLIT_CACHE)
        self._store: SqlStore | None = None  # the host's store (MEDLIT_STORE), opened at first ask
        self._store_lock = asyncio.Lock()
        self.redact = Redactor(host.secrets)
        self._warming: asyncio.Future[None] | None = None
        self._active = 0  # tool calls running: the warm-up steps aside for them

    async def __aenter__(self) -> Runtime:
        return self

    # -- warm-up: the first call costs what later ones do ----------------------------------------
    @property
    def warm_up_started(self) -> bool:
        return self._warming is not None

    def start_warm_up(self) -> asyncio.Future[None] | None:
        """Start, once, in the background, what a first call would otherwise pay for: importing
        the HTTP stack (aiohttp: ~0.15 s, its two default SSL contexts included) and every served
        tool's modules (their pydantic models are built as they are defined), then opening the
        HTTP session and the clients. Call it when the session is initialised (the server does on
        ``notifications/initialized``): ``initialize`` and ``tools/list`` are answered without
        it. The imports run on a daemon thread, so the event loop keeps answering; a call that
        comes first imports what it needs itself (the import lock makes the two wait, not
        repeat). A failure is logged and costs nothing but the warmth."""
        if self._warming is not None:
            return self._warming
        if self._active:  # a call came first and imports what it needs itself: no contention
            return None
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._warming = done
        specs = _likely_first(self.host)

        def settle(error: BaseException | None) -> None:
            if done.done():
                return
            if error is None and self._clients is None:
                try:
                    _ = self.clients  # the session and the paced clients: quick once aiohttp is in
                except Exception as exc:
                    error = exc
            if error is not None:
                log.warning("warm-up failed (the first call will do the work): %s", self.redact(str(error)))
            done.set_result(None)

        def work() -> None:
            error: BaseException | None = None
            try:
                import aiohttp  # noqa: F401

                from . import auth, cache, context, lean  # noqa: F401
                from .net import clients, http, session, webfetch  # noqa: F401

                for spec in specs:
                    while self._active:  # never compete with a running call for the GIL
                        time.sleep(0.02)
                    try:
                        model: type[BaseModel] = load_tool(spec).input_model
                        accepted_names(model)
                    except Exception as exc:  # that tool's call will report it
                        log.debug("warm-up: tool %s not loaded: %s", spec.name, exc)
            except BaseException as exc:
                error = exc
            try:
                loop.call_soon_threadsafe(settle, error)
            except RuntimeError:  # the loop closed meanwhile
                pass

        threading.Thread(target=work, name="medlit-warm-up", daemon=True).start()
        return done

    @property
    def clients(self) -> dict[str, UpstreamClient | WebClient]:
        """The paced clients, built on first use: a server answers ``initialize`` and
        ``tools/list`` without importing aiohttp (~0.1 s of every launch)."""
        if self._clients is None:
            import aiohttp

            from .cache import cache_setting, open_cache
            from .net.clients import build_clients
            from .net.session import new_session

            if self.session is None:
                from medlit import __version__

                self.session = new_session(
                    headers={"User-Agent": f"medlit-mcp/{__version__} (MCP server)"},
                    connector=aiohttp.TCPConnector(limit=32, ttl_dns_cache=300),
                )
            self.cache = open_cache(cache_setting(self.host.settings))
            self._clients = build_clients(self.session, self.host, self.cache)
        return self._clients

    async def __aexit__(self, *exc: object) -> None:
        # Shielded: a runtime torn down by a cancellation (a session ended mid-call, a server
        # shutting down) must still close its store and sessions, or an unclosed aiohttp
        # session is left behind. anyio's cancellation is level-triggered, so without the shield
        # every await below would be cancelled again.
        with anyio.CancelScope(shield=True):
            await self._close()

    async def _close(self) -> None:
        try:
            await self._close_plugin_values()
            await self._close_clients()
            if self._store is not None:  # after the plugins that write to it
                await self._store.close()
                self._store = None
            if self.cache is not None:
                await self.cache.close()
        finally:
            if self._own_session and self.session is not None:
                await self.session.close()

    async def _close_plugin_values(self) -> None:
        # What plugins keep open for the process (a store, background work) closes first, while
        # the clients it may still use are up: any value of a plugin's cache with ``aclose()``.
        for cache in self.caches.values():
            for value in list(cache.values()):
                close = getattr(value, "aclose", None)
                if close is not None and not isinstance(value, type):
                    try:
                        await close()
                    except Exception:
                        log.exception("closing a plugin's %s failed", type(value).__name__)

    async def _close_clients(self) -> None:
        clients = self._clients or {}
        for client in clients.values():  # open-web clients own a session of their own
            close = getattr(client, "aclose", None)
            if close is not None:
                await close()
        pacers = [getattr(c, "pacer", None) for c in clients.values()]
        for pacer in {id(p): p for p in pacers if p is not None}.values():
            close = getattr(pacer, "close", None)  # shared pacers hold a Redis connection
            if close is not None:
                await close()

    # -- HostServices (ctx.host): what a plugin that asks for them may use -----------------------
    @property
    def catalog(self) -> Catalog:
        return self.host.catalog

    @property
    def call_deadline(self) -> float:
        return self.host.settings.call_deadline

    def context(self, plugin: str, progress: Progress | None = None, principal: str = "") -> ToolContext:
        """A plugin's context: its own settings, the clients of its own services, its own cache.
        A plugin that declares ``PluginInfo(host_services=True)`` also gets ``host`` (this runtime
        as :class:`HostServices`): it runs other plugins' steps, each under that plugin's own context."""
        from .net.webfetch import WebClient

        record = self.host.plugins.get(plugin, None)
        served = record is not None and record.info is not None and record.info.host_services
        own = set(self.host.plugin_services(plugin))
        clients = {k: v for k, v in self.clients.items() if k in own} if own else {}
        return ToolContext(
            plugin=plugin,
            settings=self.host.plugin_settings(plugin),
            clients=clients,
            web_services=frozenset(k for k, v in clients.items() if isinstance(v, WebClient)),
            progress=progress or no_progress,
            cache=self.caches.setdefault(plugin, {}),
            host=_Services(self, progress) if served else None,
            metadata=self.lookup_metadata,
            metadata_kinds=frozenset(k for m in self.host.catalog.metadata for k in m.accepts),
            principal=principal,
        )

    async def store(self) -> SqlStore:
        """The host's store (``MEDLIT_STORE``), opened at the first ask and kept for the process."""
        async with self._store_lock:
            if self._store is None:
                url = self.host.settings.get("MEDLIT_STORE") or default_store_url()
                backend = "postgresql" if url.startswith(("postgresql:", "postgres:")) else "sqlite"
                try:
                    self._store = await open_store(url)
                except StoreError as exc:
                    raise MedlitError(E.STORE_UNAVAILABLE, str(exc), retryable=False) from None
                except Exception as exc:  # the database's own failure: never its address in the answer
                    log.warning("the store could not be opened: %s", self.redact(str(exc)))
                    raise MedlitError(
                        E.STORE_UNAVAILABLE,
                        f"The store ({backend}) could not be opened: {type(exc).__name__}.",
                        retryable=True,
                    ) from None
            return self._store

    async def lookup_metadata(self, kind: IdKind, ids: Sequence[str]) -> dict[str, RecordMetadata]:
        """Ask the metadata providers in order, each only for the ids earlier ones did not know."""
        found: dict[str, RecordMetadata] = {}
        failures: list[MedlitError] = []
        asked = 0
        wanted = list(dict.fromkeys(ids))
        for provider in self.host.catalog.metadata:
            left = [i for i in wanted if i not in found]
            if not left:
                break
            if kind not in provider.accepts:
                continue
            asked += 1
            try:
                async with asyncio.timeout(provider.timeout):
                    answer = await provider.lookup(kind, left, self.context(provider.plugin))
            except MedlitError as err:
                failures.append(err)
                continue
            except Exception as exc:  # a broken provider must not break its caller
                log.exception("metadata provider %s failed", provider.name)
                failures.append(
                    E.plugin_fault(provider.plugin, f"metadata provider {provider.name} failed: {exc}")
                )
                continue
            for key, rec in (answer or {}).items():
                if key in left and isinstance(rec, RecordMetadata):
                    found[key] = rec if rec.source else replace(rec, source=provider.name)
        if asked and failures and len(failures) == asked and not found:
            raise failures[0]
        return found

    async def access_links(self, refs: Sequence[ArticleRef]) -> dict[str, str]:
        """A link per article from the active access-link providers (first provider by order wins).
        A link is a courtesy: a provider that fails or times out is logged and costs only its links."""
        found: dict[str, str] = {}
        for provider in self.host.catalog.access_links:
            left = [r for r in refs if r.key not in found]
            if not left:
                break
            try:
                async with asyncio.timeout(provider.timeout):
                    answer = await provider.build(left, self.context(provider.plugin))
            except Exception as exc:  # MedlitError included: the caller's answer stands without links
                log.warning("access-link provider %s failed: %s", provider.name, self.redact(str(exc)))
                continue
            keys = {r.key for r in left}
            for key, url in (answer or {}).items():
                if key in keys and isinstance(url, str) and url.startswith(("https://", "http://")):
                    found[key] = url
        return found

    async def call(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        progress: ProgressFn | None = None,
        *,
        principal: str = "",
    ) -> CallOutcome:
        """Run a tool for ``principal`` ("" the local user; see ``ToolContext.principal``)."""
        started = time.monotonic()
        spec = self.host.tools.get(name)
        if spec is None:
            unknown = self._unknown_tool(name)
            return CallOutcome(render_error(unknown), error=unknown)
        report = _monotonic(progress)

        async def run() -> CallOutcome:
            tool = load_tool(spec)  # a lazy tool's module is imported at its first call
            args = validate_arguments(tool, arguments or {})
            result = await tool.handler(args, self.context(spec.plugin, report, principal))
            if not isinstance(result, tool.output_model):
                result = tool.output_model.model_validate(result)
            data = self._redact_data(result.model_dump(mode="json"))
            text = tool.render(result, args) if tool.render else as_json(result)
            text = cap(self.redact(text), "Narrow the request or page through it to see the rest.")
            links = result.resource_links() if hasattr(result, "resource_links") else []
            images = result.images() if hasattr(result, "images") else []
            return CallOutcome(text, data=data, links=list(links), images=list(images))

        self._active += 1
        try:
            outcome, err = await self.isolated(spec.plugin, name, run, report)
        finally:
            self._active -= 1
        if err is not None:
            return CallOutcome(render_error(err), error=err, elapsed=time.monotonic() - started)
        assert outcome is not None
        outcome.elapsed = time.monotonic() - started
        return outcome

    async def isolated(
        self,
        plugin: str,
        what: str,
        run: Callable[[], Awaitable[T]],
        progress: Progress | None = None,
    ) -> tuple[T | None, MedlitError | None]:
        """Run one contribution of a plugin (a tool call, a resource read) as every contribution
        runs: under the call deadline (requests stop at it themselves; this guard stops work that
        goes on past it), with any exception mapped to an error naming the plugin, and secrets
        redacted from what an error says. Never raises (but for cancellation)."""
        from .net.wire import CALL_DEADLINE, CALL_PROGRESS

        limit = self.host.settings.call_deadline
        tokens = (
            CALL_DEADLINE.set(time.monotonic() + limit),
            CALL_PROGRESS.set(_notices(progress or no_progress)),
        )
        try:
            try:
                async with asyncio.timeout(limit + DEADLINE_GRACE):
                    return await run(), None
            except TimeoutError:
                raise MedlitError(
                    E.CALL_DEADLINE_EXCEEDED,
                    f"{what} did not finish within {limit:g} s; nothing was returned.",
                ) from None
        except MedlitError as err:
            # Plugins' errors may quote an upstream URL or body anywhere, not only in the message.
            return None, err.but(
                message=self.redact(err.message),
                recovery=self.redact(err.recovery),
                details=self._redact_data(dict(err.details)),
            )
        except Exception as exc:  # never crash the session; name the plugin whose code failed
            log.exception("%s of plugin %s failed", what, plugin)
            return None, E.plugin_fault(
                plugin, self.redact(f"{what} failed unexpectedly: {type(exc).__name__}: {exc}"), tool=what
            )
        finally:
            CALL_DEADLINE.reset(tokens[0])
            CALL_PROGRESS.reset(tokens[1])

    async def read_resource(self, uri: str, *, principal: str = "") -> tuple[str | None, MedlitError | None]:
        """A resource's text, or the error reading it came to (isolated like a tool call)."""
        spec, params = self.host.resource_for(uri)
        if spec is None:
            return None, E.invalid_argument(
                f"Unknown resource {uri[:200]!r}.",
                "Read one of: " + ", ".join(sorted(self.host.resources)),
                uri=uri[:200],
            )

        async def run() -> str:
            ctx = self.context(spec.plugin, principal=principal)
            text = await spec.read(replace(ctx, params=params) if params else ctx)
            if not isinstance(text, str):
                raise E.plugin_fault(spec.plugin, f"resource {uri} read {type(text).__name__}, not text")
            return self.redact(text)

        return await self.isolated(spec.plugin, f"resource {uri}", run)

    async def render_prompt(
        self, name: str, arguments: Mapping[str, str]
    ) -> tuple[PromptMessages | None, MedlitError | None]:
        """A prompt's messages for ``arguments``, or the error it came to (an unknown prompt, a
        missing argument, the plugin's render failing or answering something else than messages)."""
        spec = self.host.prompts.get(name)
        if spec is None:
            return None, E.invalid_argument(
                f"Unknown prompt {name[:80]!r}.", "Use one of: " + ", ".join(sorted(self.host.prompts))
            )
        missing = [a.name for a in spec.arguments if a.required and not arguments.get(a.name)]
        if missing:
            return None, E.invalid_argument(
                f"Prompt {spec.name} needs argument(s): {', '.join(missing)}",
                "Give every required argument.",
            )

        async def run() -> PromptMessages:
            messages = list(spec.render(dict(arguments), self.host.catalog))
            if not all(
                isinstance(m, tuple)
                and len(m) == 2
                and m[0] in ("user", "assistant")
                and isinstance(m[1], str)
                for m in messages
            ):
                raise E.plugin_fault(
                    spec.plugin, f"prompt {name} rendered something other than (role, text) pairs"
                )
            return [(role, self.redact(text)) for role, text in messages]

        return await self.isolated(spec.plugin, f"prompt {name}", run)

    def _redact_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """Secrets never reach tool output, even when an upstream echoes them (the ID converter
        echoes the request's email). One cheap scan; a rewrite only when something matched."""
        secrets = self.redact.secrets
        if not secrets:
            return data
        dumped = json.dumps(data, ensure_ascii=False)
        if not any(s in dumped for s in secrets):
            return data
        redacted: dict[str, Any] = json.loads(self.redact(dumped))
        return redacted

    def _unknown_tool(self, name: str) -> MedlitError:
        owner = self.host.owner_of_tool(name)
        if owner is not None and owner.active:  # the plugin runs, but MEDLIT_TOOLS leaves the tool out
            why = select_tool(name, self.host.settings.tool_patterns)[1]
            return MedlitError(
                E.UNAVAILABLE,
                f"Tool {name} is not served here: {why}.",
                recovery="Change MEDLIT_TOOLS to include it, then restart the server.",
            )
        if owner is not None:
            var = owner.waiting_on
            hint = ""
            if var:
                hint = f"Set {var}=true" if var.endswith("_ENABLED") else f"Set {var}"
                hint += " to enable it, then restart the server."
            elif owner.status == "disabled":
                hint = "Add it to MEDLIT_LOAD_PLUGINS (or unset that variable), then restart the server."
            detail = f" ({owner.detail})" if owner.detail else ""
            return MedlitError(
                E.UNAVAILABLE,
                f"Tool {name} belongs to the {owner.name} plugin, which is {owner.status}{detail}.",
                recovery=hint,
            )
        # A switched-off plugin's tools are never read: name the plugins that are off, first those
        # whose name the tool's name carries (a tool is usually named after its provider).
        off = self.host.catalog.switched_off
        likely = [p for p in off if p.name.lower().replace("-", "_") in name.lower()]
        if likely:
            p = likely[0]
            return MedlitError(
                E.UNAVAILABLE,
                f"Tool {name[:80]} is not served: it looks like the {p.name} plugin's, which is {p.detail}.",
                recovery=f"Set {p.waiting_on}=true to enable it, then restart the server.",
            )
        also = self.host.catalog.switched_off_hint()
        close = suggest(name[:80], self.host.tools)
        return E.invalid_argument(
            f"Unknown tool {name[:80]!r}" + (f"; did you mean {close!r}?" if close else "."),
            "Call one of: " + ", ".join(sorted(self.host.tools)) + "." + (f" {also}" if also else ""),
            tool=name[:80],
        )


DEADLINE_GRACE = 1.5  # seconds past the call deadline before the handler itself is stopped


def _likely_first(host: Host) -> list[ToolSpec]:
    """The served tools, those with a declared capability (search, records, full text, ...:
    what a workflow starts with) first."""
    caps = host.catalog.tools
    return sorted(host.tools.values(), key=lambda s: (not caps.get(s.name), s.name))


def _monotonic(progress: ProgressFn | None) -> Progress:
    """Progress values must increase (MCP); tools count their own steps while the client reports
    waits on retries, so a value that does not move on is nudged past the last one sent."""
    last = float("-inf")

    async def report(done: float, total: float | None = None, message: str | None = None) -> None:
        nonlocal last
        value = done if done > last else last + 0.001
        last = value
        if progress is not None:
            if total is not None and value > total:
                total = None
            await progress(value, total, message)

    return report


def _notices(progress: Progress) -> Callable[[str], Awaitable[None]]:
    async def notice(message: str) -> None:
        await progress(0, None, message)

    return notice


def render_error(err: MedlitError) -> str:
    lines = [f"Error ({err.reason}): {err.message}"]
    if err.recovery:
        lines.append(f"How to fix: {err.recovery}")
    lines.append("Retryable: " + ("yes" if err.retryable else "no"))
    return "\n".join(lines)


# -- arguments --------------------------------------------------------------------------------
def _is_list_field(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, set, frozenset):
        return True
    if origin in (typing.Union, UnionType):
        return any(_is_list_field(a) for a in typing.get_args(annotation))
    if origin is typing.Annotated:
        return _is_list_field(typing.get_args(annotation)[0])
    return False


def normalise_arguments(model: type[BaseModel], arguments: dict[str, Any]) -> dict[str, Any]:
    """Accept what a model obviously meant: ``""`` for an unset optional field, a JSON-encoded
    array for a list field. Anything else is left to validation."""
    out: dict[str, Any] = {}
    fields = model.model_fields
    for key, value in arguments.items():
        field = fields.get(key)
        if field is not None and value == "" and not field.is_required():
            continue
        if field is not None and isinstance(value, str) and _is_list_field(field.annotation):
            stripped = value.strip()
            if stripped.startswith("["):
                try:
                    value = json.loads(stripped)
                except ValueError:
                    pass
        out[key] = value
    return out


@functools.cache
def accepted_names(model: type[BaseModel]) -> frozenset[str]:
    """Field names and their aliases: what a caller may send (once per model, not per call)."""
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(name)
        for alias in (info.alias, info.validation_alias):
            if isinstance(alias, str):
                names.add(alias)
            elif alias is not None and hasattr(alias, "choices"):
                names.update(c for c in alias.choices if isinstance(c, str))
    return frozenset(names)


def validate_arguments(spec: ToolSpec | LoadedTool, arguments: dict[str, Any]) -> BaseModel:
    if isinstance(spec, ToolSpec):
        spec = load_tool(spec)
    if not isinstance(arguments, dict):
        raise E.invalid_argument(
            "Arguments must be a JSON object.", "Send the arguments as an object of named fields."
        )
    # Unknown fields are refused for every tool, whatever its model's own `extra` says: a
    # misspelt filter silently ignored is a wrong answer.
    model: type[BaseModel] = spec.input_model  # the host's view: any tool's model
    unknown = sorted(k for k in arguments if k not in accepted_names(model))
    if unknown:
        fields = ", ".join(model.model_fields)
        raise E.invalid_argument(
            f"Invalid arguments for {spec.name}: "
            + "; ".join(f"{k[:60]}: unknown field; accepted fields are {fields}" for k in unknown[:5]),
            "Fix the named fields (see the tool's input schema and field descriptions) and call again.",
            problems=[f"{k[:60]}: unknown field" for k in unknown[:20]],
        )
    try:
        return model.model_validate(normalise_arguments(model, arguments))
    except ValidationError as exc:
        raise validation_error(spec, exc) from None


ECHO_LIMIT = 80  # characters of a bad value an error message may quote


def _long_strings(value: Any, found: list[str]) -> list[str]:
    """The long strings in a bad value (itself, or inside its lists and objects), a few at most."""
    if len(found) >= 20:
        return found
    if isinstance(value, str):
        if len(value) > ECHO_LIMIT:
            found.append(value)
    elif isinstance(value, dict):
        for v in list(value.values())[:20]:
            _long_strings(v, found)
    elif isinstance(value, (list, tuple)):
        for v in value[:20]:
            _long_strings(v, found)
    return found


def _short_echo(msg: str, value: Any) -> str:
    """A validation message quoting at most a short prefix of the bad value (a 1 MB date once gave
    3 MB of error): each long string of the value is cut where it appears, then the message."""
    for s in _long_strings(value, []):
        if s in msg:
            msg = msg.replace(s, s[:ECHO_LIMIT] + "...")
    return msg if len(msg) <= 4 * ECHO_LIMIT else msg[: 4 * ECHO_LIMIT] + "..."


def validation_error(spec: LoadedTool, exc: ValidationError) -> MedlitError:
    problems = []
    for e in exc.errors(include_url=False)[:20]:
        loc = (".".join(str(p) for p in e["loc"]) or "arguments")[:ECHO_LIMIT]
        msg = _short_echo(e["msg"].removeprefix("Value error, "), e.get("input"))
        if e["type"] == "extra_forbidden":
            msg = f"unknown field; accepted fields are {', '.join(spec.input_model.model_fields)}"
        problems.append(f"{loc}: {msg}")
    details = {"problems": problems}
    custom = [
        e["ctx"]["error"] for e in exc.errors() if isinstance(e.get("ctx", {}).get("error"), E.ArgumentError)
    ]
    return E.invalid_argument(
        f"Invalid arguments for {spec.name}: " + "; ".join(problems),
        custom[0].recovery
        if custom and custom[0].recovery
        else "Fix the named fields (see the tool's input schema and field descriptions) and call again.",
        kind=custom[0].reason if custom else E.INVALID_ARGUMENT,
        **details,
    )


@dataclass(frozen=True)
class _Services:
    """:class:`HostServices` for one plugin's context (``ctx.host``): the runtime's catalog and
    steps, with the caller's progress for the chain's notifications."""

    runtime: Runtime
    progress: Progress | None = None

    @property
    def catalog(self) -> Catalog:
        return self.runtime.host.catalog

    @property
    def call_deadline(self) -> float:
        return self.runtime.host.settings.call_deadline

    async def access_links(self, refs: Sequence[ArticleRef]) -> dict[str, str]:
        return await self.runtime.access_links(refs)

    async def store(self) -> SqlStore:
        return await self.runtime.store()

    def context(self, plugin: str, progress: Progress | None = None) -> ToolContext:
        """A plugin's own context (the chain runner gives each step its plugin's)."""
        return self.runtime.context(plugin, progress or self.progress)

    async def fulltext(self, refs: Sequence[ArticleRef], options: TierOptions | None = None) -> ChainResult:
        """The full-text resolution chain on ``refs`` (the tool's progress is the caller's)."""
        from .resolution import run_chain

        catalog = self.runtime.host.catalog
        ctx = self.runtime.context("", self.progress)
        return await run_chain(
            refs,
            ctx,
            options,
            tiers=catalog.tiers,
            resolvers=catalog.resolvers,
            contexts=self.runtime.context,
        )

    async def run_step(
        self,
        name: str,
        plugin: str,
        call: Callable[[ToolContext], Awaitable[object]],
        *,
        limit: float,
        expect: type | tuple[type, ...] = object,
        expected: str = "",
    ) -> StepOutcome:
        """``call`` with ``plugin``'s own context, within ``limit`` seconds, never raising."""
        from .resolution import run_step

        ctx = self.runtime.context(plugin, self.progress)  # the step reports to the caller's progress
        return await run_step(name, plugin, limit, lambda: call(ctx), expect, expected)

    def step_limit(self, timeout: float, later: int, until: float | None = None) -> float:
        from .resolution import step_limit

        return step_limit(timeout, later, until)

    async def search(self, source: str, query: SourceQuery) -> SourcePage:
        """One page of a declared, active search source, run under its own plugin's context within
        its timeout. Raises what the source raised (a ``MedlitError``) or the fault it amounts to."""
        found = next((d for d in self.runtime.host.catalog.sources if d.record.name == source), None)
        if found is None or not found.state.active:
            raise E.plugin_fault(source, f"search source {source!r} is not installed and active")
        record = found.record
        async with asyncio.timeout(record.timeout):
            page = await record.run(query, self.runtime.context(record.plugin, None))
        if not isinstance(page, SourcePage):
            raise E.plugin_fault(record.plugin, f"search source {record.name} answered {type(page).__name__}")
        return page
