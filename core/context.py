"""What a plugin's callables get while they run: :class:`ToolContext`, typed against small protocols
of the clients it may use, and :class:`CoreAccess`, what core's own plugins (the full-text chain,
related articles) see of the other plugins' declarations.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar, Unpack, cast, get_origin

from .types import ArticleRef, Catalog, IdKind, PluginConfig, RecordMetadata

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
        self, path: str = "", params: Mapping[str, object] | None = None, **options: Unpack[RequestOptions]
    ) -> Response: ...

    async def post(
        self, path: str = "", data: Mapping[str, object] | None = None, **options: Unpack[RequestOptions]
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


class CoreAccess(Protocol):
    """What core's own plugins see of the others: the declarations (``catalog``), a context to run
    another plugin's callable under (its own settings and clients), the access links, and how long
    one call may take. Given only to core's plugins (``ctx.core``); ``None`` for every other."""

    @property
    def catalog(self) -> Catalog: ...

    @property
    def call_deadline(self) -> float: ...

    def context(self, plugin: str, progress: Progress | None = None) -> ToolContext: ...

    async def access_links(self, refs: Sequence[ArticleRef]) -> Mapping[str, str]: ...


MetadataLookup = Callable[[IdKind, Sequence[str]], Awaitable[Mapping[str, RecordMetadata]]]
T = TypeVar("T")


def _fault(plugin: str, message: str) -> Exception:
    from .errors import plugin_fault

    return plugin_fault(plugin, message)


@dataclass(frozen=True)
class ToolContext:
    """What a tool handler, tier, resolver or provider may use while it runs.

    ``settings`` holds the running plugin's own declared settings only (secrets included, other
    plugins' never); ``clients`` the clients of the services it declared; ``cache`` a dict private
    to the plugin that lives as long as the server process (the one mutable thing here), typed
    through :meth:`keep`.
    """

    plugin: str = ""
    settings: PluginConfig = field(default_factory=dict)
    clients: Mapping[str, ApiClient | OpenWebClient] = field(default_factory=dict)
    web_services: frozenset[str] = frozenset()  # which of ``clients`` are open-web clients
    progress: Progress = no_progress
    cache: dict[str, object] = field(default_factory=dict)
    core: CoreAccess | None = None
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

    def keep(self, key: str, make: Callable[[], T]) -> T:
        """What the plugin keeps under ``key`` for the life of the process (a memo, a small store,
        a shared task), made by ``make()`` at the first call: ``ctx.keep("seen", OrderedDict)``.
        mypy types the answer by ``make`` (or the annotation it is assigned to). One key holds one
        kind of object: a value of another class under the key is the plugin's bug, said so."""
        if key not in self.cache:
            self.cache[key] = make()
        value = self.cache[key]
        kind = get_origin(make) or make  # dict[str, int] -> dict
        if isinstance(kind, type) and not isinstance(value, kind):
            raise _fault(
                self.plugin, f"ctx.keep({key!r}) holds a {type(value).__name__}, not a {kind.__name__}"
            )
        return cast(T, value)

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
