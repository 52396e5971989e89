"""Frozen records that plugins declare and the host executes.

Hooks return these; the host stamps each with the contributing plugin's name (``plugin``) and
runs their async callables with a :class:`ToolContext`. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel

if TYPE_CHECKING:
    from .http import UpstreamClient
    from .settings import Settings

IdKind = Literal["pmcid", "pmid", "doi"]

# Outcomes a full-text tier reports per identifier (closed set; tier names are open).
TierOutcomeKind = Literal[
    "hit",
    "not-attempted",
    "miss",
    "no-fulltext",
    "no-body",
    "no-doi",
    "doi-lookup-failed",
    "no-oa",
    "fetch-failed",
    "parse-failed",
    "service-error",
]


@dataclass(frozen=True)
class SettingSpec:
    """An environment variable a plugin reads (through its context, never ``os.environ``).

    ``required=True`` makes the plugin ``unconfigured`` while the variable is unset;
    ``secret=True`` keeps its value out of logs, errors and ``medlit doctor``.
    """

    name: str
    description: str
    required: bool = False
    secret: bool = False
    default: str | None = None


@dataclass(frozen=True)
class PluginInfo:
    """A plugin's identity. ``name`` is also its switch: ``<NAME>_ENABLED=false``."""

    name: str
    title: str
    description: str = ""
    version: str | None = None
    settings: tuple[SettingSpec, ...] = ()
    services: tuple[str, ...] = ()  # upstream services it calls, for `medlit doctor`


class Progress(Protocol):
    async def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None: ...


@dataclass
class ToolContext:
    """What a tool handler, tier or provider may use while it runs."""

    settings: Settings
    plugin_settings: Mapping[str, str | None]
    clients: Mapping[str, UpstreamClient]
    progress: Progress
    host: Any  # medlit.core.host.Host; typed loosely to keep plugins off host internals
    cache: dict[str, Any] = field(default_factory=dict)

    def client(self, service: str) -> UpstreamClient:
        """The paced client for an upstream service (``ncbi``, ``idconv``, ``europepmc``, ...)."""
        return self.clients[service]

    def setting(self, name: str) -> str | None:
        return self.plugin_settings.get(name)


ToolHandler = Callable[[Any, ToolContext], Awaitable[BaseModel]]


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool. ``handler(args, ctx)`` gets a validated ``input_model`` instance and returns
    an ``output_model`` instance; ``render(result, args)`` gives the text block (default: the
    result as fenced JSON). Renderings over 25,000 characters are cut by the host with a notice.
    """

    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    handler: ToolHandler
    render: Callable[[Any, Any], str] | None = None
    idempotent: bool = True
    read_only: bool = True
    open_world: bool = True
    plugin: str = ""


@dataclass
class ArticleRef:
    """One article moving through the full-text chain. Tiers may fill in ids they discover
    (a DOI found by the ID converter is carried to later tiers)."""

    key: str  # the canonical id the caller's spellings were folded onto
    pmcid: str | None = None
    pmid: str | None = None
    doi: str | None = None
    requested: tuple[str, ...] = ()  # the caller's own spellings

    def has(self, kind: IdKind) -> bool:
        return getattr(self, kind) is not None


@dataclass
class TierResult:
    """What a tier says about one article: an outcome, a human detail and, on a hit, the payload."""

    outcome: TierOutcomeKind
    detail: str = ""
    article: Any = None


TierResolve = Callable[
    [Sequence[ArticleRef], ToolContext, Mapping[str, Any]], Awaitable[Mapping[str, TierResult]]
]


@dataclass(frozen=True)
class FulltextTier:
    """A full-text source. The chain calls ``resolve(refs, ctx, options)`` once with every still
    unresolved article that carries one of the ``accepts`` identifiers, and expects a
    :class:`TierResult` per ``ref.key`` (missing keys count as ``miss``)."""

    name: str
    order: int
    accepts: frozenset[IdKind]
    resolve: TierResolve
    description: str = ""
    timeout: float = 60.0
    plugin: str = ""


RelatedKind = Literal["similar", "cited_by", "references"]


@dataclass
class RelatedResult:
    pmids: list[str]
    total: int | None = None
    detail: str = ""
    scores: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class RelatedProvider:
    """A source of related articles for ``find_related``-style tools; tried in ``order``."""

    name: str
    order: int
    kinds: frozenset[RelatedKind]
    resolve: Callable[[str, RelatedKind, int, ToolContext], Awaitable[RelatedResult]]
    description: str = ""
    plugin: str = ""


@dataclass(frozen=True)
class ResourceSpec:
    """A static MCP resource whose text ``read(ctx)`` produces (may call upstreams, may cache)."""

    uri: str
    name: str
    title: str
    description: str
    read: Callable[[ToolContext], Awaitable[str]]
    mime_type: str = "application/json"
    plugin: str = ""


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool = True


@dataclass(frozen=True)
class PromptSpec:
    """An MCP prompt: ``render(arguments)`` returns ``[(role, text), ...]`` with role user|assistant."""

    name: str
    title: str
    description: str
    arguments: tuple[PromptArgument, ...]
    render: Callable[[Mapping[str, str]], list[tuple[str, str]]]
    plugin: str = ""
