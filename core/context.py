"""What a plugin's callables get while they run: :class:`ToolContext`, typed against small protocols
of the clients it may use, and :class:`HostServices`, the host's services to a plugin that asks
for them (a workflow composing the other plugins' declarations).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Unpack

from .types import (
    ArticleRef,
    Catalog,
    ChainResult,
    IdKind,
    PluginConfig,
    RecordMetadata,
    SourcePage,
    SourceQuery,
    StepOutcome,
    TierOptions,
)

if TYPE_CHECKING:
    from .net.http import RequestOptions, Response
    from .net.webfetch import WebResponse


class Progress(Protocol):
    """``await ctx.progress(done, total, message)``: a progress notification (best effort)."""

    async def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None: ...


async def no_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    return None


class ApiClient(Protocol):
    """The paced, retrying, size-capped client of one declared :class:`~medlit.core.types.ServiceSpec`
    (``ctx.client(name)``). ``path`` is relative to the service's base URL; ``params`` and ``data``
    values may be strings, numbers, bools (sent as the service declares), lists (comma-joined) or
    ``Repeated`` (sent once per value). Options: ``expect`` (``"xml"``, ``"json"``, ``"text"``,
    ``"bytes"``: the answer is checked to be one), ``deadline`` (a ``time.monotonic()`` instant),
    ``ok_statuses`` (statuses returned instead of raised), ``headers``, ``identify``, ``parse``
    (read the body inside the retry loop: a garbled answer is asked again), ``share``."""

    async def get(
        self, path: str = "", params: Mapping[str, Any] | None = None, **options: Unpack[RequestOptions]
    ) -> Response: ...

    async def post(
        self, path: str = "", data: Mapping[str, Any] | None = None, **options: Unpack[RequestOptions]
    ) -> Response: ...


class OpenWebClient(Protocol):
    """The open-web client of a declared open-web service (``ctx.web(name)``): fetches absolute
    public http(s) URLs with every hop vetted (see :class:`~medlit.core.webfetch.WebClient`)."""

    async def fetch(
        self,
        url: str,
        *,
        deadline: float | None = None,
        max_bytes: int | None = None,
        accept: str | None = None,
    ) -> WebResponse: ...


Row = tuple[Any, ...]  # a result row as the driver gives it (SQL values are typed by the schema)


class Transaction(Protocol):
    """One transaction's statements (``async with db.transaction() as tx``)."""

    async def execute(self, sql: str, *args: object) -> None: ...
    async def fetch(self, sql: str, *args: object) -> list[Row]: ...
    async def insert(self, sql: str, *args: object) -> int: ...

    async def lock(self, table: str, row_id: int) -> None:
        """Hold ``table``'s row ``row_id`` until the transaction ends (writers to one parent row queue)."""
        ...


class Database(Protocol):
    """The host's SQL store (``await ctx.host.store()``, ``MEDLIT_STORE``: SQLite or PostgreSQL),
    shared by the plugins that keep user data. One SQL text serves both: ``?`` placeholders, and
    ``{pk}`` in a migration's DDL for the auto-numbered primary key (``dialect`` names the backend).
    A plugin names its tables after itself and applies its own versioned migrations once at first
    use (``await db.migrate("review", MIGRATIONS)``: ``(version, name, statements)`` each, run in
    one transaction apiece). ``insert`` returns the new row's ``id``."""

    @property
    def dialect(self) -> str: ...

    @property
    def pk(self) -> str: ...

    async def execute(self, sql: str, *args: object) -> None: ...
    async def fetch(self, sql: str, *args: object) -> list[Row]: ...
    async def insert(self, sql: str, *args: object) -> int: ...
    def transaction(self) -> AbstractAsyncContextManager[Transaction]: ...
    async def migrate(self, owner: str, migrations: Sequence[tuple[int, str, Sequence[str]]]) -> int: ...
    async def version(self, owner: str) -> int: ...
    async def size(self, prefix: str) -> int: ...


class HostServices(Protocol):
    """The host's services to a plugin that asks for them (``PluginInfo(host_services=True)``):
    ``ctx.host``, ``None`` for a plugin that did not ask. A workflow plugin (review sets, the
    reference audit, the full-text and related-article tools) composes the other plugins'
    declarations through it, exactly as a third-party plugin would:

    - ``catalog``: what is installed, each declaration with the standing of its plugin;
    - ``call_deadline``: how long one tool call may take, in seconds;
    - ``fulltext(refs, options)``: the full-text resolution chain (ID resolvers, then each tier in
      order), every tier's outcome reported per article;
    - ``run_step(name, plugin, call, limit=...)``: another plugin's callable run under that
      plugin's own context (its settings, clients and cache) within ``limit`` seconds, never
      raising: its answer, or the error its failure amounts to;
    - ``step_limit(timeout, later)``: a step's fair share of what is left of the call;
    - ``search(source, query)``: one page of a declared search source, run under its plugin;
    - ``access_links(refs)``: institutional links from the access-link providers (best effort);
    - ``store()``: the host's SQL store for the plugin's user data (:class:`Database`), opened
      once per process; raises ``store_unavailable`` (retryable) when it cannot be opened.
    """

    @property
    def catalog(self) -> Catalog: ...

    @property
    def call_deadline(self) -> float: ...

    async def fulltext(
        self, refs: Sequence[ArticleRef], options: TierOptions | None = None
    ) -> ChainResult: ...

    async def run_step(
        self,
        name: str,
        plugin: str,
        call: Callable[[ToolContext], Awaitable[object]],
        *,
        limit: float,
        expect: type | tuple[type, ...] = object,
        expected: str = "",
    ) -> StepOutcome: ...

    def step_limit(self, timeout: float, later: int, until: float | None = None) -> float: ...

    async def search(self, source: str, query: SourceQuery) -> SourcePage: ...

    async def access_links(self, refs: Sequence[ArticleRef]) -> Mapping[str, str]: ...

    async def store(self) -> Database: ...


MetadataLookup = Callable[[IdKind, Sequence[str]], Awaitable[Mapping[str, RecordMetadata]]]


def _fault(plugin: str, message: str) -> Exception:
    from .errors import plugin_fault

    return plugin_fault(plugin, message)


@dataclass(frozen=True)
class ToolContext:
    """What a tool handler, tier, resolver or provider may use while it runs.

    ``settings`` holds the running plugin's own declared settings only (secrets included, other
    plugins' never); ``clients`` the clients of the services it declared; ``cache`` a dict private
    to the plugin that lives as long as the server process (the one mutable thing here).
    """

    plugin: str = ""
    settings: PluginConfig = field(default_factory=dict)
    clients: Mapping[str, ApiClient | OpenWebClient] = field(default_factory=dict)
    web_services: frozenset[str] = frozenset()  # which of ``clients`` are open-web clients
    progress: Progress = no_progress
    cache: dict[str, Any] = field(default_factory=dict)
    host: HostServices | None = None  # for plugins declaring PluginInfo(host_services=True)
    metadata: MetadataLookup | None = None  # runs the installed metadata providers
    # The id kinds some active metadata provider accepts: an id of another kind is absent from
    # lookup_metadata's answer because nobody could be asked, not because it is unknown.
    metadata_kinds: frozenset[IdKind] = frozenset()
    # A resource template's placeholder values for the URI being read (``{"stem": "x"}``).
    params: Mapping[str, str] = field(default_factory=dict)
    # Whom the call runs for: "" is the local user (stdio, or HTTP without authentication), else
    # the principal authenticated over Streamable HTTP. Data a tool keeps per user is keyed by it.
    principal: str = ""

    def client(self, service: str) -> ApiClient:
        """The paced client for a service this plugin declared (``medlit_services``)."""
        client = self._declared(service)
        if service in self.web_services:
            raise _fault(self.plugin, f"service {service!r} is declared as an OpenWebSpec: use ctx.web()")
        return client  # type: ignore[return-value]  # narrowed by web_services

    def web(self, service: str) -> OpenWebClient:
        """The client of an open-web service this plugin declared."""
        client = self._declared(service)
        if service not in self.web_services:
            raise _fault(
                self.plugin, f"service {service!r} is a ServiceSpec, not an OpenWebSpec: use ctx.client()"
            )
        return client  # type: ignore[return-value]

    def _declared(self, service: str) -> ApiClient | OpenWebClient:
        try:
            return self.clients[service]
        except KeyError:
            raise _fault(
                self.plugin,
                f"asked for service {service!r}, which it does not declare "
                f"(declared: {', '.join(sorted(self.clients)) or 'none'})",
            ) from None

    async def report(self, step: float, message: str) -> None:
        """A progress notification (``step`` counts up; no total), best effort: a failing one
        never fails the call."""
        try:
            await self.progress(step, None, message)
        except Exception:
            logging.getLogger("medlit.context").debug("progress notification failed", exc_info=True)

    def setting(self, name: str) -> str | None:
        """One of the plugin's declared settings (its default when unset), else ``None``."""
        return self.settings.get(name)

    async def lookup_metadata(self, kind: IdKind, ids: Sequence[str]) -> Mapping[str, RecordMetadata]:
        """Brief metadata for canonical PMIDs or DOIs from the installed metadata providers (each
        provider is asked only for the ids earlier ones did not know). Ids nobody knows are absent.
        Raises :class:`~medlit.core.errors.MedlitError` only when every provider that was asked failed."""
        if self.metadata is None or not ids:
            return {}
        return await self.metadata(kind, ids)
