"""Frozen records that plugins declare and the host executes.

Hooks return these; the host stamps each with the contributing plugin's name (``plugin``) and
runs their async callables with a :class:`ToolContext`. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel

from .lazy import Lazy, resolved

if TYPE_CHECKING:
    from .http import Response, UpstreamClient
    from .jats_models import FulltextArticle
    from .webfetch import WebClient

IdKind = Literal["pmcid", "pmid", "doi"]
Expect = Literal["xml", "json", "text", "bytes"]
PluginConfig = Mapping[str, "str | None"]
"""A plugin's own settings: every :class:`SettingSpec` it declared, by variable name."""

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
    ``secret=True`` keeps its value out of logs, errors and ``medlit doctor``; ``kind`` is checked
    at start-up (a malformed value stops the server with exit code 2): ``text``, ``int``,
    ``number``, ``bool``, ``email`` or ``url``.
    """

    name: str
    description: str
    required: bool = False
    secret: bool = False
    default: str | None = None
    kind: Literal["text", "int", "number", "bool", "email", "url"] = "text"


@dataclass(frozen=True)
class PluginInfo:
    """A plugin's identity. ``name`` is also its switch: ``<NAME>_ENABLED=false``.

    ``check_settings(config)``, for settings that are required only in combination (one of two
    variables, a preset and the code it needs), runs once at start-up with the plugin's settings:
    it returns ``None`` when the plugin can run, or what to set (``"OPENURL_RESOLVER or
    OPENURL_PRESET"``), which leaves the plugin ``unconfigured`` with that hint; a ``ValueError``
    it raises is a malformed configuration (the server refuses to start).

    ``id_links`` gives landing-page templates for identifier kinds the plugin's source names
    (``{"pmid": "https://example.org/{id}/"}``): core links records with them while the plugin
    is active, and knows no such page itself."""

    name: str
    title: str
    description: str = ""
    version: str | None = None
    id_links: Mapping[str, str] = field(default_factory=dict)
    settings: tuple[SettingSpec, ...] = ()
    check_settings: Callable[[PluginConfig], str | None] | None = None


@dataclass(frozen=True)
class Probe:
    """A cheap request that proves a service answers (``medlit doctor``)."""

    path: str = ""
    params: Mapping[str, str] = field(default_factory=dict)
    expect: Expect = "json"


MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0
PACE_CEILING = 10.0  # how far past its declared rate a service's announced rate may take its pacer


@dataclass(frozen=True)
class CacheRule:
    """Request-level caching for one endpoint class of a service: answers to requests on ``path``
    (an ``fnmatch`` pattern: ``"*"`` any path, ``"*/fullTextXML"``) whose parameters include every
    ``when`` pair are kept ``ttl`` seconds.
    Statuses in ``negative`` (e.g. a 404 for an unknown DOI) are kept ``negative_ttl`` seconds.
    Requests with History parameters (WebEnv, query_key, usehistory) and answers that carry a
    ``WebEnv`` are never cached; errors never are."""

    path: str
    ttl: float
    when: Mapping[str, str] = field(default_factory=dict)
    negative: frozenset[int] = frozenset()
    negative_ttl: float = 10 * MINUTE


@dataclass(frozen=True)
class RecordRule:
    """Record-level caching for a record-addressed endpoint (e.g. efetch by PMID): the client asks
    upstream only for the ids it has not cached, stores each record raw and hands the caller one
    answer joined from cached and fresh records, so parse options never cause a refetch.

    ``split(body)`` returns ``(id, raw record)`` pairs (``id`` may be a tuple of every id the
    record answers to, or None for a record it cannot name: passed on, not cached); ``join(records)`` builds one answer body from raw records;
    ``normalize(id)`` canonicalises an id of the ``id_param`` list (comma-separated). Ids asked
    for but absent from the answer are remembered ``missing_ttl`` seconds (0: not at all)."""

    scope: str
    path: str
    id_param: str
    split: Callable[[bytes], Sequence[tuple[str | Sequence[str] | None, bytes]]]
    join: Callable[[Sequence[bytes]], bytes]
    ttl: float = 7 * DAY
    when: Mapping[str, str] = field(default_factory=dict)
    normalize: Callable[[str], str] = str.strip
    missing_ttl: float = 10 * MINUTE
    content_type: str = "text/xml"


@dataclass(frozen=True)
class ServiceSpec:
    """An upstream service a plugin calls. The host builds one paced client per service.

    ``base_url`` is the real service; ``MEDLIT_BASE_URL_<NAME>`` may replace it with a loopback
    URL (tests). ``hosts`` are further hosts redirects may stay on (the base URL's own host is
    always allowed). Services with the same ``pacing_group`` share one request budget (the
    lowest of their rates). ``rate`` may be a callable of the plugin's settings (a key raising
    the limit); ``rate_setting`` names a variable that overrides it, above the declared rate only
    while the base URL points at loopback. ``identify`` adds parameters to every request (a
    mapping or a callable of the plugin's settings), ``headers`` likewise for HTTP headers.
    ``inspect(response)`` raises :class:`~medlit.core.errors.MedlitError` for an error hidden in
    a 2xx body (retried when ``retryable``). ``pace_from(headers)`` reads the rate a service
    announces in its answers' headers (requests/s, or ``None`` when it says nothing): the client
    then paces the service's group at that rate, never above the declared ``rate`` times
    :data:`PACE_CEILING` (start low, follow what the service says). ``concurrency`` may be a
    callable of the plugin's settings (a pool with more parallel requests for identified clients). ``error_prefix`` starts the reasons of its errors
    (``<prefix>_rate_limited``); ``max_retries`` overrides ``MEDLIT_MAX_RETRIES``. ``cache`` and
    ``records`` declare what the persistent cache may keep (:class:`CacheRule`,
    :class:`RecordRule`); without them nothing of the service is cached. A GET whose query string
    outgrows ~1,800 characters is sent as a POST form (NCBI's advice); ``get_only=True`` keeps it a
    GET for services documented as GET only.

    ``open_web=True`` declares a client for the open web instead (``ctx.web(name)``, a
    :class:`~medlit.core.webfetch.WebClient`): it fetches any public http(s) URL given as an
    absolute URL (an open-access copy on a publisher's or repository's host), refusing private,
    loopback, link-local, multicast, reserved and cloud-metadata addresses for every redirect hop
    and for names resolving to them (loopback only with ``MEDLIT_ALLOW_LOOPBACK_CONTENT=1``, for
    tests), at most 3 redirects, a byte cap and a timeout per request, ``rate`` requests per
    second to each host, ``concurrency`` in flight across hosts, no retries. ``headers`` apply
    (a polite ``User-Agent`` naming a contact); ``base_url`` only names the service in listings
    and ``identify``, ``inspect``, ``hosts``, ``pacing_group``, the caches and
    ``MEDLIT_BASE_URL_<NAME>`` do not apply.
    """

    name: str
    title: str
    base_url: str
    hosts: tuple[str, ...] = ()
    rate: float | Callable[[PluginConfig], float] = 5.0
    pacing_group: str = ""
    rate_setting: str | None = None
    identify: Mapping[str, str] | Callable[[PluginConfig], Mapping[str, str]] = field(default_factory=dict)
    headers: Mapping[str, str] | Callable[[PluginConfig], Mapping[str, str]] = field(default_factory=dict)
    inspect: Callable[[Response], None] | None = None
    pace_from: Callable[[Mapping[str, str]], float | None] | None = None
    probe: Probe | None = None
    error_prefix: str = ""
    concurrency: int | Callable[[PluginConfig], int] = 4
    max_queue: int = 64
    max_retries: int | None = None
    cache: tuple[CacheRule, ...] = ()
    records: tuple[RecordRule, ...] = ()
    get_only: bool = False
    open_web: bool = False
    description: str = ""
    plugin: str = ""

    @property
    def group(self) -> str:
        return self.pacing_group or self.name

    @property
    def prefix(self) -> str:
        return self.error_prefix or self.name


class Progress(Protocol):
    async def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None: ...


async def _no_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    return None


@dataclass
class ToolContext:
    """What a tool handler, tier, resolver or provider may use while it runs.

    ``settings`` holds the running plugin's own declared settings only (secrets included, other
    plugins' never); ``clients`` the paced clients of the services it declared; ``cache`` a dict
    private to the plugin that lives as long as the server process.
    """

    plugin: str = ""
    settings: PluginConfig = field(default_factory=dict)
    clients: Mapping[str, UpstreamClient | WebClient] = field(default_factory=dict)
    progress: Progress = _no_progress
    cache: dict[str, Any] = field(default_factory=dict)
    # The runtime (``.host``, ``.context(plugin)``): given to core's own built-in plugins only,
    # which run other plugins' tiers and resolvers under those plugins' own contexts.
    runtime: Any = None
    # Set by the runtime: runs the installed metadata providers (see lookup_metadata).
    metadata: Callable[[IdKind, Sequence[str]], Awaitable[Mapping[str, RecordMetadata]]] | None = None
    # The id kinds some active metadata provider accepts: an id of another kind is absent from
    # lookup_metadata's answer because nobody could be asked, not because it is unknown.
    metadata_kinds: frozenset[IdKind] = frozenset()

    def client(self, service: str) -> UpstreamClient:
        """The paced client for a service this plugin declared (``medlit_services``)."""
        from .webfetch import WebClient

        client = self._declared(service)
        if isinstance(client, WebClient):
            from .errors import plugin_fault

            raise plugin_fault(
                self.plugin, f"service {service!r} is declared with open_web=True: use ctx.web()"
            )
        return client

    def _declared(self, service: str) -> UpstreamClient | WebClient:
        try:
            return self.clients[service]
        except KeyError:
            from .errors import plugin_fault

            raise plugin_fault(
                self.plugin,
                f"asked for service {service!r}, which it does not declare "
                f"(declared: {', '.join(sorted(self.clients)) or 'none'})",
            ) from None

    def web(self, service: str) -> WebClient:
        """The open-web client of a service this plugin declared with ``open_web=True``."""
        from .webfetch import WebClient

        client = self._declared(service)
        if not isinstance(client, WebClient):
            from .errors import plugin_fault

            raise plugin_fault(self.plugin, f"service {service!r} is not declared with open_web=True")
        return client

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


ToolHandler = Callable[[Any, ToolContext], Awaitable[BaseModel]]


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool. ``handler(args, ctx)`` gets a validated ``input_model`` instance and returns
    an ``output_model`` instance; ``render(result, args)`` gives the text block (default: the
    result as fenced JSON). Renderings over 25,000 characters are cut by the host with a notice.

    The models, handler and render may be :func:`~medlit.core.lazy.lazy` references: the module
    holding them is imported at the tool's first call, and ``tools/list`` reads the schemas from
    the schema store, so a session that never calls the tool never imports it.
    """

    name: str
    title: str
    description: str
    input_model: type[BaseModel] | Lazy
    output_model: type[BaseModel] | Lazy
    handler: ToolHandler
    render: Callable[[Any, Any], str] | None = None
    # Builds the description from what is installed (tiers, resolvers, related providers):
    # called once at load with the host's catalog; replaces ``description``.
    describe: Callable[[Any], str] | None = None
    idempotent: bool = True
    read_only: bool = True
    open_world: bool = True
    plugin: str = ""

    def loaded(self) -> LoadedTool:
        """This tool with its lazy references imported (the first call pays the import)."""
        return LoadedTool(
            spec=self,
            input_model=resolved(self.input_model),
            output_model=resolved(self.output_model),
            handler=resolved(self.handler),
            render=resolved(self.render),
        )


@dataclass(frozen=True)
class LoadedTool:
    """A :class:`ToolSpec` whose models and callables are the objects themselves."""

    spec: ToolSpec
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    handler: ToolHandler
    render: Callable[[Any, Any], str] | None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def plugin(self) -> str:
        return self.spec.plugin


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
    article: TierPayload | None = None  # on a hit


TierResolve = Callable[
    [Sequence[ArticleRef], ToolContext, Mapping[str, Any]], Awaitable[Mapping[str, TierResult]]
]


@dataclass
class StructuredArticle:
    """A tier's hit read from JATS with core's reader (``read_jats``), whatever tier served it.

    ``extra_ids`` carries source-specific record ids the output should show (for instance
    ``{"epmcId": "PMC123", "epmcSource": "PMC"}``); ``tier`` is stamped by the chain."""

    article: FulltextArticle
    extra_ids: Mapping[str, str] = field(default_factory=dict)
    tier: str = ""


ContentFormat = Literal["html-markdown", "pdf-text"]


@dataclass
class ExtractedTextArticle:
    """A tier's hit extracted from a PDF (``pdf-text``) or an HTML page (``html-markdown``)."""

    content: str
    content_format: ContentFormat
    source_url: str
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    title: str | None = None
    journal: str | None = None
    year: int | None = None
    license: str | None = None
    version: str | None = None  # submittedVersion | acceptedVersion | publishedVersion
    host_type: str | None = None  # publisher | repository
    word_count: int | None = None
    page_count: int | None = None
    tier: str = ""


TierPayload = StructuredArticle | ExtractedTextArticle


@dataclass(frozen=True)
class IdResolver:
    """A step that finds identifiers articles lack before the tiers that need them run (PMID or
    DOI to PMCID, PMID to DOI). The chain calls ``resolve(refs, ctx)`` lazily, once per tier that
    needs a kind in ``provides``, with the pending articles that lack it and carry a kind in
    ``accepts``; the resolver fills ids in on the refs and returns a :class:`TierResult` per
    ``ref.key`` (``hit``: ids found; ``miss``/``no-body``/...: why not, shown in the report)."""

    name: str
    order: int
    accepts: frozenset[IdKind]
    provides: frozenset[IdKind]
    resolve: Callable[[Sequence[ArticleRef], ToolContext], Awaitable[Mapping[str, TierResult]]]
    description: str = ""
    timeout: float = 30.0
    plugin: str = ""


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


@dataclass(frozen=True)
class RelatedQuery:
    """What a related-articles tool asks a provider: the articles related to the canonical PMID
    ``pmid`` by ``kind`` (``similar``: neighbours by content; ``cited_by``: articles citing it;
    ``references``: articles it cites), rows ``offset`` to ``offset + limit`` of the provider's own
    ordered list. Rows that carry no PMID count toward the window (they are dropped and counted,
    never skipped over), so the caller pages with ``offset + limit`` whatever was dropped."""

    pmid: str
    kind: RelatedKind
    offset: int = 0
    limit: int = 20


@dataclass
class RelatedResult:
    """A provider's answer for one window of a :class:`RelatedQuery`.

    ``pmids``: the window's canonical PMIDs in the provider's order (the source itself left out).
    ``total``: rows in the provider's whole list, rows without a PMID included (``None``: unknown);
    ``0`` says the provider knows no related article of that kind, and the tool then asks the next
    provider. ``dropped``: rows of the window that carry no PMID. ``scores``: relevance by PMID
    where the provider ranks (``similar``). ``notice``: a caveat the tool shows with this answer
    (e.g. that a ranking is not PubMed's). ``detail``: what was asked upstream, for the report."""

    pmids: list[str]
    total: int | None = None
    detail: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    dropped: int = 0
    notice: str = ""


RelatedResolve = Callable[[RelatedQuery, "ToolContext"], Awaitable[RelatedResult]]


@dataclass(frozen=True)
class RelatedProvider:
    """A source of related articles for ``find_related``-style tools, tried by ``order`` for the
    ``kinds`` it serves. ``resolve(query, ctx)`` returns a :class:`RelatedResult` for the query's
    window, or raises :class:`~medlit.core.errors.MedlitError` when its upstream failed (the tool
    then asks the next provider and reports why). It runs under ``timeout`` seconds."""

    name: str
    order: int
    kinds: frozenset[RelatedKind]
    resolve: RelatedResolve
    description: str = ""
    timeout: float = 30.0
    plugin: str = ""


RecordKind = Literal["article", "book", "chapter", "preprint", "other"]


@dataclass
class RecordMetadata:
    """Brief bibliographic metadata of one record, as a metadata provider knows it.

    Names are ``"Last Initials"`` strings; dates are ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``. For a
    chapter, ``container_title`` is the book's title; for an article, the journal's."""

    pmid: str | None = None
    doi: str | None = None
    pmcid: str | None = None
    kind: RecordKind = "article"
    title: str | None = None
    container_title: str | None = None
    container_abbrev: str | None = None
    issn: str | None = None
    eissn: str | None = None
    isbn: str | None = None
    publisher: str | None = None
    date: str | None = None
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    first_page: str | None = None
    last_page: str | None = None
    authors: tuple[str, ...] = ()
    first_author_family: str | None = None
    first_author_given: str | None = None
    publication_types: tuple[str, ...] = ()
    source: str = ""  # the provider that answered (stamped by the host)


MetadataLookup = Callable[[IdKind, Sequence[str], "ToolContext"], Awaitable[Mapping[str, RecordMetadata]]]


@dataclass(frozen=True)
class MetadataProvider:
    """Looks up :class:`RecordMetadata` for PMIDs or DOIs, in batches (as few requests as the
    upstream allows). ``lookup(kind, ids, ctx)`` returns a record per id it knows, keyed by the id
    as given (canonical form); an id it does not know is simply absent. Any plugin reaches the
    installed providers through ``ctx.lookup_metadata(kind, ids)``, tried by ``order``."""

    name: str
    order: int
    accepts: frozenset[IdKind]
    lookup: MetadataLookup
    description: str = ""
    timeout: float = 30.0
    plugin: str = ""


AccessLinkBuild = Callable[[Sequence[ArticleRef], "ToolContext"], Awaitable[Mapping[str, str]]]


@dataclass(frozen=True)
class AccessLinkProvider:
    """Builds links through which a user may still reach articles no full-text tier served (a
    library's link resolver, an interlibrary-loan form). ``build(refs, ctx)`` returns a URL per
    ``ref.key`` it can link (others absent); it builds links only and never fetches the linked
    page (it may look metadata up with ``ctx.lookup_metadata``). Core's full-text tool asks the
    active providers by ``order`` and shows the first link per article as ``institutionalLink``."""

    name: str
    order: int
    build: AccessLinkBuild
    description: str = ""
    timeout: float = 15.0
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
    render: Callable[[Mapping[str, str]], Sequence[tuple[Literal["user", "assistant"], str]]]
    plugin: str = ""


# -- reference audit ----------------------------------------------------------------------------

MatchStage = Literal["identifiers", "citation", "search"]


@dataclass
class ReferenceQuery:
    """One reference to audit, as the caller stated it (parsed from a string or given as fields).

    ``key`` is its position in the call (``"1"``, ``"2"``, ...); ``text`` the reference as written
    (``None`` when given as fields); ``authors`` ``"Family Initials"`` strings in the stated order;
    ``doi`` and ``pmid`` canonical (checked, never believed)."""

    key: str
    text: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    journal: str | None = None
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    first_page: str | None = None
    last_page: str | None = None
    doi: str | None = None
    pmid: str | None = None

    def bibliographic(self) -> str:
        """The reference as one line, for free-text matchers: the text as written, else its fields."""
        if self.text:
            return self.text
        parts = [
            ", ".join(self.authors[:3]),
            self.title or "",
            self.journal or "",
            str(self.year or ""),
            self.volume or "",
            self.issue or "",
            self.first_page or "",
        ]
        return " ".join(p for p in parts if p)


@dataclass
class ReferenceCandidate:
    """A record a matcher offers for a reference: its metadata, the matcher's own ``score`` where it
    ranks (not comparable across matchers), and ``via``, how it was found (``"doi"``, ``"pmid"``,
    ``"citation"``, ``"title"``, ``"bibliographic"``)."""

    record: RecordMetadata
    via: str
    score: float | None = None


ReferenceResolve = Callable[
    [Sequence[ReferenceQuery], MatchStage, "ToolContext"],
    Awaitable[Mapping[str, Sequence[ReferenceCandidate]]],
]


@dataclass(frozen=True)
class ReferenceMatcher:
    """Finds the records references may be, in three stages the audit tool runs in turn:
    ``identifiers`` (every reference with a stated DOI or PMID the matcher can check, one batch per
    kind), ``citation`` (cheap batched lookups by journal, volume and page) and ``search`` (one
    free-text or title search per reference, only for references no earlier stage or matcher
    settled). ``resolve(refs, stage, ctx)`` returns candidates per ``ref.key`` (best first, a few at
    most; a reference it has none for is absent) and may return nothing for a stage it does not
    serve. The tool, not the matcher, decides which candidate is the same work."""

    name: str
    order: int
    stages: frozenset[MatchStage]
    resolve: ReferenceResolve
    description: str = ""
    timeout: float = 60.0
    plugin: str = ""


NoticeKind = Literal["retraction", "erratum", "correction", "expression_of_concern", "withdrawal"]


@dataclass
class RecordNotice:
    """A notice attached to a record: a retraction, erratum, correction, expression of concern or
    withdrawal. ``label`` is the type as the source words it (``"RetractionIn"``, ``"erratum"``);
    ``origin`` who deposited or curated it within the source (``"publisher"``,
    ``"retraction-watch"``), empty when the source does not say; ``doi``/``pmid`` identify the
    notice itself when known; ``date`` is ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``."""

    type: NoticeKind
    label: str = ""
    doi: str | None = None
    pmid: str | None = None
    date: str | None = None
    origin: str = ""
    source: str = ""  # the provider that answered (stamped by the tool)


NoticeLookup = Callable[
    [IdKind, Sequence[str], "ToolContext"], Awaitable[Mapping[str, Sequence[RecordNotice]]]
]


@dataclass(frozen=True)
class NoticeProvider:
    """Reports the notices of records by canonical id of a kind in ``accepts``, in as few requests
    as its upstream allows. ``lookup(kind, ids, ctx)`` returns the notices per id (an id it knows
    without notices maps to an empty list; an id it does not know is absent)."""

    name: str
    order: int
    accepts: frozenset[IdKind]
    lookup: NoticeLookup
    description: str = ""
    timeout: float = 30.0
    plugin: str = ""
