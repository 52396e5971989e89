"""Frozen records that plugins declare and the host executes, and the frozen values that flow
between the host and a plugin's callables.

Hooks return the declaration records (:class:`ToolSpec`, :class:`FulltextTier`, ...); the host
stamps each with the contributing plugin's name (``plugin``) and runs their callables with a
:class:`ToolContext`, defined here too: the records' callable slots name the context and the
context names records. Every callable slot says whether it is ``async`` (awaited by the host) or
sync (called inline: it must not do I/O); the host checks each at load. Nothing here does I/O, and
nothing here is mutable but a context's ``cache``: a step returns new values, it never edits its
inputs.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, Protocol, TypeVar, cast, get_origin

from pydantic import BaseModel
from typing_extensions import TypeVar as DefaultedTypeVar

from .context import ApiClient, OpenWebClient, Progress, no_progress
from .errors import ErrorKind, MedlitError, plugin_fault
from .lazy import Lazy

if TYPE_CHECKING:
    from .jats.models import FulltextArticle
    from .net.wire import Expect, Response

IdKind = Literal["pmcid", "pmid", "doi"]
PluginConfig = Mapping[str, "str | None"]
"""A plugin's own settings: every :class:`SettingSpec` it declared, by variable name."""

# What a tool offers, so that workflow tools can name a sibling without knowing its name
# (``ToolSpec.capabilities``): ``search`` finds records by a query; ``records`` fetches titles,
# abstracts and metadata by id; ``links`` follows links between records of any database;
# ``id_conversion`` converts between PMID, PMCID and DOI; ``full_text`` fetches article bodies;
# ``citation_match`` finds records for structured citations; ``citation_strings`` matches
# citations written as ECitMatch pipe strings; ``citations`` formats references;
# ``audit`` checks a reference list; ``review_set`` runs whole searches into a stored set.
Capability = Literal[
    "search",
    "records",
    "links",
    "id_conversion",
    "full_text",
    "vocabulary",
    "related",
    "citation_match",
    "citation_strings",
    "citations",
    "audit",
    "review_set",
]

# -- the outcome vocabulary of the full-text chain (one table) ------------------------------------
# Outcomes a step (tier or ID resolver) reports per article: a closed set; step names are open.
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
    "not-the-article",
    "service-error",
]
# Why an article came back unavailable: the most specific outcome any step reported.
UnavailableReason = Literal[
    "not-found",
    "no-source-enabled",
    "no-fulltext",
    "no-body",
    "no-doi",
    "doi-lookup-failed",
    "no-oa",
    "fetch-failed",
    "parse-failed",
    "not-the-article",
    "service-error",
]
OUTCOME_REASONS: tuple[tuple[TierOutcomeKind, UnavailableReason], ...] = (
    # Most specific first: a settled fact about the record (it exists but has no body; it has no
    # open-access copy) beats a failure; a transient failure beats a "not found" that a failing step
    # might have contradicted.
    ("no-body", "no-body"),
    ("no-oa", "no-oa"),
    ("no-fulltext", "no-fulltext"),
    # a copy was fetched and read, but it is another article (its metadata names another DOI)
    ("not-the-article", "not-the-article"),
    ("parse-failed", "parse-failed"),
    ("fetch-failed", "fetch-failed"),
    ("service-error", "service-error"),
    ("doi-lookup-failed", "doi-lookup-failed"),
    ("no-doi", "no-doi"),
    ("miss", "not-found"),
)
"""Each outcome but ``hit`` and ``not-attempted`` with the ``unavailable`` reason it stands for,
ranked; ``no-source-enabled``: no step could be asked (every source that might serve it is off)."""
NO_SOURCE_ENABLED: UnavailableReason = "no-source-enabled"
# Reasons that may pass: asking again later can give another answer.
UNSETTLED_REASONS: frozenset[str] = frozenset({"service-error", NO_SOURCE_ENABLED})


@dataclass(frozen=True)
class SettingSpec:
    """An environment variable a plugin reads (through its context, never ``os.environ``).

    ``required=True`` makes the plugin ``unconfigured`` while the variable is unset;
    ``recommended=True`` puts it, with ``example``, in the ``env`` of the host snippets
    ``medlit config`` prints (required ones always are); ``secret=True`` keeps its value out of
    logs, errors and ``medlit doctor``; ``kind`` is checked at start-up (a malformed value stops the
    server with exit code 2): ``text``, ``int``, ``number``, ``bool``, ``email`` or ``url``.
    """

    name: str
    description: str
    required: bool = False
    secret: bool = False
    default: str | None = None
    kind: Literal["text", "int", "number", "bool", "email", "url"] = "text"
    recommended: bool = False
    example: str | None = None


@dataclass(frozen=True)
class PluginInfo:
    """A plugin's identity. ``name`` is also its switch: ``<NAME>_ENABLED=false``.

    ``check_settings(config)`` (sync), for settings that are required only in combination (one of
    two variables, a preset and the code it needs), runs once at start-up with the plugin's
    settings: it returns ``None`` when the plugin can run, or what to set (``"OPENURL_RESOLVER or
    OPENURL_PRESET"``), which leaves the plugin ``unconfigured`` with that hint; a ``ValueError`` it
    raises is a malformed configuration (the server refuses to start).

    ``id_links`` gives landing-page templates for identifier kinds the plugin's source names
    (``{"pmid": "https://example.org/{id}/"}``): core links records with them while the plugin
    is active, and knows no such page itself. ``error_kinds`` registers the error kinds the
    plugin raises beyond core's (each with its recovery hint and retryability).

    ``guide`` is the plugin's section of the guide resource (``medlit://guide``), markdown read
    once by a model before it searches: query syntax, identifiers, limits of the plugin's own
    tools. A callable gets the :class:`Catalog` (sync). Core drops every line naming, in
    backquotes, one of the plugin's tools that is not served, so a section never points to a
    tool the model cannot call.

    ``instructions`` is the plugin's sentence in the server instructions a host gives the model
    at the start of a session (a callable gets the :class:`Catalog`, sync); keep it to one line.

    ``toolsets`` names the tool families the plugin declares, each with its one-line summary in
    the ``medlit_toolsets`` listing; a tool joins one with ``ToolSpec.toolset`` (any plugin's tool
    may join any family). ``default_toolsets`` are listed in ``tools/list`` up front; the others
    once a model enables them (or with ``MEDLIT_TOOLSETS``), and every served tool can be called
    whether it is listed or not.

    ``host_services=True`` asks for the host's services (``ctx.host``, a
    :class:`~medlit.core.types.HostServices`): the catalog, the full-text chain, other plugins'
    steps and search sources run under their own contexts. A workflow plugin that composes what
    others declare asks for them; a provider does not need them.

    ``per_user_data=True`` says the plugin's tools keep data per principal (``ctx.principal``:
    sets, decisions, exports): the HTTP transport then refuses to serve them on a non-loopback
    address without authentication, naming the tools, since anyone reaching the port could read or
    delete any user's data. A plugin that keeps nothing per user leaves it ``False``."""

    name: str
    title: str
    description: str = ""
    version: str | None = None
    id_links: Mapping[str, str] = field(default_factory=dict)
    settings: tuple[SettingSpec, ...] = ()
    check_settings: Callable[[PluginConfig], str | None] | None = None
    error_kinds: tuple[ErrorKind, ...] = ()
    guide: str | Callable[[Catalog], str] = ""
    instructions: str | Callable[[Catalog], str] = ""
    host_services: bool = False
    toolsets: Mapping[str, str] = field(default_factory=dict)
    default_toolsets: tuple[str, ...] = ()
    per_user_data: bool = False


@dataclass(frozen=True)
class Probe:
    """A cheap request that proves a service answers (``medlit doctor``)."""

    path: str = ""
    params: Mapping[str, str] = field(default_factory=dict)
    expect: Expect = "json"


MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0


@dataclass(frozen=True)
class CacheRule:
    """Request-level caching for one endpoint class of a service: answers to requests on ``path``
    (an ``fnmatch`` pattern: ``"*"`` any path, ``"*/fullTextXML"``) whose parameters include every
    ``when`` pair are kept ``ttl`` seconds.
    Statuses in ``negative`` (e.g. a 404 for an unknown DOI) are kept ``negative_ttl`` seconds.
    Requests carrying one of the service's ``uncacheable_params`` and answers carrying one of its
    ``uncacheable_markers`` are never cached; errors never are."""

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

    ``split(body)`` (sync) returns ``(id, raw record)`` pairs (``id`` may be a tuple of every id the
    record answers to, or None for a record it cannot name: passed on, not cached); ``join(records)``
    (sync) builds one answer body from raw records; ``normalize(id)`` (sync) canonicalises an id of
    the ``id_param`` list (comma-separated). Ids asked for but absent from the answer are remembered
    ``missing_ttl`` seconds (0: not at all).

    ``batch_size`` > 0 lets the client merge concurrent requests of the rule for different ids
    into one (up to that many ids, the endpoint's own limit): requests whose other parameters are
    identical, arriving while one waits for a slot or the pacer, ride in one request and each
    caller gets ``join`` of its own records (see :mod:`medlit.core.net.batching`). ``cached=False``
    declares a rule for that merging only: the persistent cache leaves such requests to its
    request-level :class:`CacheRule` (if any)."""

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
    batch_size: int = 0
    cached: bool = True


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
    ``PACE_CEILING`` (10; start low, follow what the service says). ``concurrency`` may be a
    callable of the plugin's settings (a pool with more parallel requests for identified clients). ``error_prefix`` starts the reasons of its errors
    (``<prefix>_rate_limited``); ``max_retries`` overrides ``MEDLIT_MAX_RETRIES``. ``cache`` and
    ``records`` declare what the persistent cache may keep (:class:`CacheRule`,
    :class:`RecordRule`); without them nothing of the service is cached. A GET whose query string
    outgrows ~1,800 characters is sent as a POST form (NCBI's advice); ``get_only=True`` keeps it a
    GET for services documented as GET only.

    The service's own conventions, which core applies without knowing them:
    ``uncacheable_params`` names request parameters (any case) that bind a request to
    server-side state (a search history handle): a request carrying one is never cached.
    ``uncacheable_markers`` are bytes whose presence in an answer's first 4 KB means the same of
    the answer (it hands out such a handle). ``bool_values`` is how a Python ``True``/``False``
    parameter is sent (``("y", "n")`` for E-utilities). ``error_keys`` are the JSON keys of an
    error body (a 4xx answer) whose text the error message quotes, first found wins.

    A client for the open web (any public URL) is declared with :class:`OpenWebSpec` instead.
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
    uncacheable_params: frozenset[str] = frozenset()
    uncacheable_markers: tuple[bytes, ...] = ()
    bool_values: tuple[str, str] = ("true", "false")
    error_keys: tuple[str, ...] = ("error", "message", "detail")
    description: str = ""
    plugin: str = ""

    @property
    def group(self) -> str:
        return self.pacing_group or self.name

    @property
    def prefix(self) -> str:
        return self.error_prefix or self.name


@dataclass(frozen=True)
class OpenWebSpec:
    """A client for the open web (``ctx.web(name)``, a :class:`~medlit.core.net.webfetch.WebClient`),
    returned from ``medlit_services`` like a :class:`ServiceSpec`.

    It fetches any public http(s) URL given as an absolute URL (an open-access copy on a
    publisher's or repository's host), refusing private, loopback, link-local, multicast,
    reserved and cloud-metadata addresses for every redirect hop and for names resolving to them
    (loopback only with ``MEDLIT_ALLOW_LOOPBACK_CONTENT=1``, for tests), with at most 3
    redirects, a byte cap and a timeout per request, ``rate`` requests per second to each host,
    ``concurrency`` in flight across hosts, ``max_queue`` callers waiting, and no retries.
    ``headers`` (a mapping or a callable of the plugin's settings) go with every request: a
    polite ``User-Agent`` naming a contact. ``error_prefix`` starts the reasons of its errors
    (default: ``name``). It has no base URL, so no ``MEDLIT_BASE_URL_<NAME>`` and no probe.
    """

    name: str
    title: str
    rate: float = 5.0
    headers: Mapping[str, str] | Callable[[PluginConfig], Mapping[str, str]] = field(default_factory=dict)
    concurrency: int = 4
    max_queue: int = 64
    error_prefix: str = ""
    description: str = ""
    plugin: str = ""

    @property
    def group(self) -> str:
        return self.name

    @property
    def prefix(self) -> str:
        return self.error_prefix or self.name


# -- what flows through the full-text chain -----------------------------------------------------
@dataclass(frozen=True)
class TierOptions:
    """What the caller of the full-text chain asks of every tier: whether to read the reference
    list and the tables/figures/supplementary assets (a tier may skip work the caller does not want)."""

    include_references: bool = False
    include_assets: bool = True


@dataclass(frozen=True)
class ArticleRef:
    """One article moving through the full-text chain: the key the caller's spellings were folded
    onto, the ids known so far and the caller's own spellings. Steps never change it: they report
    ids they learn in :attr:`TierResult.ids`, and the chain carries them to later steps."""

    key: str
    pmcid: str | None = None
    pmid: str | None = None
    doi: str | None = None
    requested: tuple[str, ...] = ()

    def has(self, kind: IdKind) -> bool:
        return getattr(self, kind) is not None

    def with_ids(self, ids: Mapping[IdKind, str | None]) -> ArticleRef:
        """This ref with the ids it lacks filled in from ``ids`` (known ids are kept)."""
        pmcid = self.pmcid or ids.get("pmcid") or None
        pmid = self.pmid or ids.get("pmid") or None
        doi = self.doi or ids.get("doi") or None
        if (pmcid, pmid, doi) == (self.pmcid, self.pmid, self.doi):
            return self
        return replace(self, pmcid=pmcid, pmid=pmid, doi=doi)


@dataclass(frozen=True)
class StructuredArticle:
    """A tier's hit read from JATS with the contract's reader (``markup.read_jats``), whatever tier
    served it.

    ``record_ids`` are the serving source's own record ids (names the tier declares in
    ``FulltextTier.record_ids``); ``tier`` and ``source`` are stamped by the chain."""

    article: FulltextArticle
    record_ids: Mapping[str, str] = field(default_factory=dict)
    tier: str = ""
    source: str = ""


ContentFormat = Literal["html-markdown", "pdf-text"]


@dataclass(frozen=True)
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
    record_ids: Mapping[str, str] = field(default_factory=dict)
    tier: str = ""
    source: str = ""


TierPayload = StructuredArticle | ExtractedTextArticle


@dataclass(frozen=True)
class TierResult:
    """What a step says about one article: an outcome, a human detail, on a tier's hit the payload,
    and the ids the step learned about the article (an ID resolver's whole answer: ``{"pmcid": ...}``;
    a tier may report a DOI it read), which the chain carries to later steps."""

    outcome: TierOutcomeKind
    detail: str = ""
    article: TierPayload | None = None
    ids: Mapping[IdKind, str] = field(default_factory=dict)


# -- what the host's services answer (ctx.host) ------------------------------------------------
@dataclass
class TierAttempt:
    """One step of an article's report: a tier or an ID resolver, its outcome and why."""

    tier: str
    outcome: TierOutcomeKind
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        out = {"tier": self.tier, "outcome": self.outcome}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass
class Resolution:
    """What the chain did for one article."""

    ref: ArticleRef
    tried: list[TierAttempt] = field(default_factory=list)
    hit: TierResult | None = None
    served_by: str | None = None  # tier name of the hit
    unqueried: list[str] = field(default_factory=list)  # inactive tiers that could have served it
    waiting_on: dict[str, str] = field(default_factory=dict)  # tier -> variable it waits on
    reason: UnavailableReason | None = None  # set when unresolved
    resolvers_run: set[str] = field(default_factory=set)  # resolver names already given this article

    @property
    def resolved(self) -> bool:
        return self.hit is not None

    @property
    def unsettled(self) -> bool:
        """Unresolved for a reason that may pass (a service failed, or no source is enabled yet):
        ask again later, and never count it as "not available"."""
        return not self.resolved and self.reason in UNSETTLED_REASONS


@dataclass
class ChainResult:
    """What the full-text chain did for every article asked about (``ctx.host.fulltext``)."""

    resolutions: list[Resolution]
    # Why steps failed as a whole, in the order they failed: what they raised, or the chain's
    # own account of a timeout or a broken answer. The tool's all-failed error quotes the first.
    errors: list[MedlitError] = field(default_factory=list)

    @property
    def hits(self) -> list[Resolution]:
        return [r for r in self.resolutions if r.resolved]

    @property
    def unresolved(self) -> list[Resolution]:
        return [r for r in self.resolutions if not r.resolved]

    def all_failed_for_service_reasons(self) -> bool:
        """True when nothing resolved and every step that was asked failed with a service error
        (a settled answer such as ``miss`` or ``no-body`` from any step makes this False)."""
        if not self.resolutions or self.hits:
            return False
        attempted = [a for r in self.resolutions for a in r.tried if a.outcome != "not-attempted"]
        return bool(attempted) and all(a.outcome == "service-error" for a in attempted)


@dataclass
class StepOutcome:
    """``ctx.host.run_step``: What one provider call came to: its answer, or the error its failure amounts to and a line
    saying what went wrong (a step's own MedlitError as ``reason: message``)."""

    answer: object = None
    error: MedlitError | None = None
    detail: str = ""


TierResolve = Callable[
    [Sequence[ArticleRef], "ToolContext", TierOptions], Awaitable[Mapping[str, TierResult]]
]
IdResolve = Callable[[Sequence[ArticleRef], "ToolContext"], Awaitable[Mapping[str, TierResult]]]


@dataclass(frozen=True)
class IdResolver:
    """A step that finds identifiers articles lack before the tiers that need them run (PMID or
    DOI to PMCID, PMID to DOI). The chain awaits ``resolve(refs, ctx)`` lazily, once per tier that
    needs a kind in ``provides``, with the pending articles that lack it and carry a kind in
    ``accepts``; it returns a :class:`TierResult` per ``ref.key`` (``hit`` with the ``ids`` found;
    ``miss``/``no-body``/...: why not, shown in the report)."""

    name: str
    order: int
    accepts: frozenset[IdKind]
    provides: frozenset[IdKind]
    resolve: IdResolve
    description: str = ""
    timeout: float = 30.0
    plugin: str = ""


@dataclass(frozen=True)
class FulltextTier:
    """A full-text source. The chain awaits ``resolve(refs, ctx, options)`` once with every still
    unresolved article that carries one of the ``accepts`` identifiers, and expects a
    :class:`TierResult` per ``ref.key`` (missing keys count as ``miss``).

    ``source`` is the label the tool's output gives the articles this tier serves (default: the
    tier's name); ``record_ids`` names the source's own record ids its articles may carry
    (``StructuredArticle.record_ids``), shown as ``sourceIds``; others are dropped."""

    name: str
    order: int
    accepts: frozenset[IdKind]
    resolve: TierResolve
    description: str = ""
    timeout: float = 60.0
    source: str = ""
    record_ids: tuple[str, ...] = ()
    plugin: str = ""

    @property
    def label(self) -> str:
        return self.source or self.name


# -- related articles ------------------------------------------------------------------------------
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


@dataclass(frozen=True)
class RelatedResult:
    """A provider's answer for one window of a :class:`RelatedQuery`.

    ``pmids``: the window's canonical PMIDs in the provider's order (the source itself left out).
    ``total``: rows in the provider's whole list, rows without a PMID included (``None``: unknown);
    ``0`` says the provider knows no related article of that kind, and the tool then asks the next
    provider. ``dropped``: rows of the window that carry no PMID. ``scores``: relevance by PMID
    where the provider ranks (``similar``). ``notice``: a caveat the tool shows with this answer
    (e.g. that a ranking is not the usual one). ``detail``: what was asked upstream, for the report."""

    pmids: Sequence[str]
    total: int | None = None
    detail: str = ""
    scores: Mapping[str, float] = field(default_factory=dict)
    dropped: int = 0
    notice: str = ""


RelatedResolve = Callable[[RelatedQuery, "ToolContext"], Awaitable[RelatedResult]]


@dataclass(frozen=True)
class RelatedProvider:
    """A source of related articles, tried by ``order`` for the ``kinds`` it serves.
    ``resolve(query, ctx)`` (async) returns a :class:`RelatedResult` for the query's window, or
    raises :class:`~medlit.core.errors.MedlitError` when its upstream failed (the tool then asks the
    next provider and reports why). It runs under ``timeout`` seconds."""

    name: str
    order: int
    kinds: frozenset[RelatedKind]
    resolve: RelatedResolve
    description: str = ""
    timeout: float = 30.0
    plugin: str = ""


# -- metadata and access links ---------------------------------------------------------------------
RecordKind = Literal["article", "book", "chapter", "preprint", "other"]


@dataclass(frozen=True)
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
    abstract: str | None = None  # plain text, labelled sections as "Label: text" paragraphs
    source: str = ""  # the provider that answered (stamped by the host)


MetadataLookup = Callable[[IdKind, Sequence[str], "ToolContext"], Awaitable[Mapping[str, RecordMetadata]]]


@dataclass(frozen=True)
class MetadataProvider:
    """Looks up :class:`RecordMetadata` for PMIDs or DOIs, in batches (as few requests as the
    upstream allows). ``lookup(kind, ids, ctx)`` (async) returns a record per id it knows, keyed by
    the id as given (canonical form); an id it does not know is simply absent. Any plugin reaches
    the installed providers through ``ctx.lookup_metadata(kind, ids)``, tried by ``order``."""

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
    library's link resolver, an interlibrary-loan form). ``build(refs, ctx)`` (async) returns a URL
    per ``ref.key`` it can link (others absent); it builds links only and never fetches the linked
    page (it may look metadata up with ``ctx.lookup_metadata``). The full-text tool (the
    ``fulltext`` plugin) asks the active providers by ``order`` and shows the first link per
    article as ``institutionalLink``."""

    name: str
    order: int
    build: AccessLinkBuild
    description: str = ""
    timeout: float = 15.0
    plugin: str = ""


# -- search sources (whole result sets, for the review plugin's sets) -----------------------------
@dataclass(frozen=True)
class SourceRecord:
    """One bibliographic record as a search source normalises it, whatever its upstream.

    ``source`` is the :class:`SearchSource` name and ``source_id`` its own record id (a PMID, a
    ``MED:123`` key, ...). Identifiers are canonical (``normalize_pmid``/``_pmcid``/``_doi``;
    ``None`` when unknown). ``authors`` are ``"Family, Given"`` strings (given names or initials)
    or a group's name without a comma; ``year`` the publication year; ``pages`` ``"12-19"``;
    ``publication_types`` as the upstream names them; ``language`` a code or name. A book or
    chapter has ``kind`` set, ``journal`` the book's title (a chapter's container), and its
    ``publisher``, ``place``, ``editors`` and ``isbn`` where known. ``study_links`` names other
    reports of the same study (a trial's registration, its articles, a preprint's journal version)."""

    source: str
    source_id: str
    pmid: str | None = None
    pmcid: str | None = None
    doi: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    journal: str | None = None
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    abstract: str | None = None
    publication_types: tuple[str, ...] = ()
    language: str | None = None
    # What exporters need beside the citation (all optional, added in the fourth edition):
    kind: str | None = None  # "article", "book", "chapter", "preprint", ...; None: not said
    journal_abbrev: str | None = None  # MEDLINE/ISO abbreviation, ``journal`` keeping the full title
    issn: tuple[str, ...] = ()  # print and electronic, "1234-5678"
    isbn: tuple[str, ...] = ()
    publisher: str | None = None
    place: str | None = None  # the publisher's place
    editors: tuple[str, ...] = ()  # a book's editors, shaped like ``authors``
    mesh: tuple[str, ...] = ()  # MeSH headings as MEDLINE writes them ("*Asthma/drug therapy")
    keywords: tuple[str, ...] = ()
    url: str | None = None
    # Other reports of the same study this record names (added for registers and preprints), each
    # ``kind:value`` in its canonical form: ``nct:NCT01234567`` (a trial registration: a register
    # record's own, or the trial an article reports), ``pmid:123`` (a trial's publications), ``doi:...``
    # (the journal article a preprint became). A review links such records, never merges them.
    study_links: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceQuery:
    """What a review asks a search source for: one batch of the records ``query`` (in the
    source's own syntax) finds, from ``cursor`` (``None``: the start; else a value an earlier
    :class:`SourcePage` handed back, possibly in another process), at most ``limit`` records.
    ``split_by_date``: the caller accepts a result set larger than the source's window being
    fetched in date-range slices (the source decides the slices)."""

    query: str
    cursor: str | None = None
    limit: int = 500
    split_by_date: bool = False


@dataclass(frozen=True)
class SourcePage:
    """One batch of a search source's answer: its normalised ``records``, ``total`` (records the
    query finds: the same on every page of one run), and ``cursor`` to ask the next batch with
    (``None`` when this was the last). ``detail`` says what was asked upstream (for the search
    log); ``notice`` a caveat the review shows (a window the source cannot page past)."""

    records: Sequence[SourceRecord]
    total: int
    cursor: str | None = None
    detail: str = ""
    notice: str = ""


SourceRun = Callable[[SourceQuery, "ToolContext"], Awaitable[SourcePage]]


@dataclass(frozen=True)
class SearchSource:
    """A bibliographic database the review plugin (or any workflow) can run whole searches on.

    ``run(query, ctx)`` (async) answers one :class:`SourcePage` per call; the review stores each
    page with its cursor in one transaction, so an import killed mid-way resumes from the last
    stored cursor. ``syntax`` is a one-line hint on the source's query language (shown in the
    review tools' description); ``batch`` the page size the source serves best (the largest its
    API allows within the body cap); ``window`` the most records one query can reach without
    ``split_by_date`` (``0``: no limit). ``run`` raises :class:`~medlit.core.errors.MedlitError`
    for a query the source refuses (reported for that source; the others still run). ``kind`` says
    what the source is in PRISMA 2020's flow diagram: a bibliographic ``database``, a trial
    ``register`` (counted in the "records identified from registers" box), or ``other``."""

    name: str
    title: str
    run: SourceRun
    syntax: str = ""
    order: int = 100
    batch: int = 500
    window: int = 0
    description: str = ""
    timeout: float = 60.0
    kind: Literal["database", "register", "other"] = "database"
    plugin: str = ""


# -- citation indexes (backward: references; forward: citing works) -------------------------------
CitationDirection = Literal["backward", "forward"]
CitationIdKind = Literal["pmid", "pmcid", "doi", "openalex"]


@dataclass(frozen=True)
class CitedWork:
    """One work a citation index links a seed to, by the identifiers the index gives (canonical:
    PMID digits, ``PMC…``, a lower-case DOI, an OpenAlex ``W…`` id; ``None`` when unknown), with a
    title and year where the index answers them."""

    pmid: str | None = None
    pmcid: str | None = None
    doi: str | None = None
    openalex: str | None = None
    title: str | None = None
    year: int | None = None


@dataclass(frozen=True)
class CitationQuery:
    """What a chase asks one citation index: the works ``direction`` of the seeds ``ids`` (all of
    id kind ``kind``, canonical, at most the index's ``batch``), at most ``limit`` works per seed."""

    direction: CitationDirection
    kind: CitationIdKind
    ids: tuple[str, ...]
    limit: int = 2000


@dataclass(frozen=True)
class CitationAnswer:
    """An index's answer for one batch of seeds, per seed as given in the query: ``found`` the
    works of each seed the index answered for (an empty tuple: it knows the seed and links it to
    nothing), ``failed`` why a seed could not be answered (a failed request is never "no
    references"), ``unknown`` the seeds the index has no record of. ``requests`` made upstream."""

    found: Mapping[str, Sequence[CitedWork]] = field(default_factory=dict)
    failed: Mapping[str, str] = field(default_factory=dict)
    unknown: tuple[str, ...] = ()
    requests: int = 0
    detail: str = ""


CitationChase = Callable[[CitationQuery, "ToolContext"], Awaitable[CitationAnswer]]


@dataclass(frozen=True)
class CitationIndex:
    """A citation index a chase (the ``review`` plugin's citation searching, or any workflow) runs
    seeds through. ``directions`` it serves (``backward``: a seed's references; ``forward``: the
    works citing it); ``accepts`` the id kinds it takes, the one it prefers first; ``batch`` how
    many seeds one ``chase(query, ctx)`` call takes (async; raises
    :class:`~medlit.core.errors.MedlitError` when the whole batch failed, or reports seeds one by
    one in :class:`CitationAnswer`). For the costs a chase states before it runs:
    ``requests_per_batch`` the upstream requests one batch takes at least, and ``rate`` the
    requests per second the index's service is paced at."""

    name: str
    title: str
    directions: frozenset[CitationDirection]
    accepts: tuple[CitationIdKind, ...]
    chase: CitationChase
    batch: int = 1
    requests_per_batch: int = 1
    rate: float = 1.0
    order: int = 100
    description: str = ""
    timeout: float = 60.0
    plugin: str = ""


# -- tools, resources, prompts ---------------------------------------------------------------------
# A tool's input and output models. mypy infers them from ``input_model`` and ``output_model`` and
# holds ``handler`` and ``render`` to them. The default (``ToolSpec`` unparametrised) is the host's
# view of a list of different tools, which no single pair of models describes.
In = DefaultedTypeVar("In", bound=BaseModel, default=Any)
Out = DefaultedTypeVar("Out", bound=BaseModel, default=Any)
ToolHandler = Callable[[In, "ToolContext"], Awaitable[Out]]
ToolRender = Callable[[Out, In], str]


@dataclass(frozen=True)
class ToolSpec(Generic[In, Out]):
    """One MCP tool. ``handler(args, ctx)`` (async) gets a validated ``input_model`` instance and
    returns an ``output_model`` instance; ``render(result, args)`` (sync) gives the text block
    (default: the result as fenced JSON). mypy checks both against the models (``ToolSpec[In, Out]``
    is inferred from them). Renderings over 25,000 characters are cut by the host
    with a notice. ``capabilities`` say what the tool offers (:data:`Capability`), so that other
    tools' descriptions can name it as a sibling without knowing its name. ``read_only``,
    ``idempotent``, ``open_world`` and ``destructive`` are the MCP annotations (hints) hosts show;
    a ``destructive`` tool may delete what it cannot restore (hosts ask before calling it).
    ``toolset`` names the family the tool is listed with (``PluginInfo.toolsets``); without it,
    the family is the plugin's name. ``guide`` is its row in
    the guide's "which tool" table: one line, the task it serves ("citation counts and RCR for
    PMIDs"); without it the row shows ``title``. ``example`` is the first call ``medlit tools NAME``
    prints, for a tool whose fields' examples alone would make another call (review_import's set
    and database alone ask an import's state); without it the call is built from those examples.

    The models, handler and render may be lazy references (attributes of a
    :func:`~medlit.core.lazy.lazy_module`, or :func:`~medlit.core.lazy.lazy` strings): the module
    holding them is imported at the tool's first call, and ``tools/list`` reads the schemas from
    the schema store, so a session that never calls the tool never imports it.
    ``describe(catalog)`` (sync), for a tool whose description depends on what is installed, is
    called once at load with the :class:`Catalog` and replaces ``description``.
    """

    name: str
    title: str
    description: str
    input_model: type[In] | Lazy[type[In]]
    output_model: type[Out] | Lazy[type[Out]]
    handler: ToolHandler[In, Out]
    render: ToolRender[Out, In] | None = None
    describe: Callable[[Catalog], str] | None = None
    capabilities: frozenset[Capability] = frozenset()
    idempotent: bool = True
    read_only: bool = True
    open_world: bool = True
    destructive: bool = False
    guide: str = ""
    toolset: str = ""
    example: Mapping[str, Any] | None = None
    plugin: str = ""


@dataclass(frozen=True)
class ResourceSpec:
    """An MCP resource whose text ``read(ctx)`` (async) produces (may call upstreams, may cache).
    The host runs it like a tool: under the call deadline, with faults mapped and secrets redacted.

    A ``uri`` with ``{name}`` placeholders (``files://{stem}.txt``) is a template, listed by
    ``resources/templates/list``: a read of a URI it matches (each placeholder one or more
    characters other than ``/``) runs ``read(ctx)`` with the values in ``ctx.params``."""

    uri: str
    name: str
    title: str
    description: str
    read: Callable[[ToolContext], Awaitable[str]]
    mime_type: str = "application/json"
    plugin: str = ""

    @property
    def is_template(self) -> bool:
        return "{" in self.uri

    def match(self, uri: str) -> dict[str, str] | None:
        """The placeholder values of ``uri`` when this template matches it, else ``None``."""
        import re

        parts = re.split(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", self.uri)
        pattern = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^/]+)" for i, p in enumerate(parts))
        found = re.fullmatch(pattern, uri)
        return dict(found.groupdict()) if found else None


# -- the command line and the long-running server (beside the tools) ---------------------------
@dataclass(frozen=True)
class CommandSpec:
    """A subcommand of the ``medlit`` command line (``medlit <name> ...``), for work run from a
    shell, cron or a systemd timer rather than by a model. ``arguments(parser)`` (sync) adds the
    command's arguments (and sub-commands) to the ``argparse`` parser core made for it;
    ``run(args, ctx)`` (async) gets the parsed ``argparse.Namespace`` and the plugin's context in a
    runtime of the command's own (clients, store; ``ctx.principal`` is ``""``), prints its report
    to stdout and returns the exit code (non-zero on failure). ``help`` is its line in
    ``medlit --help``. Core's own commands (``serve``, ``call``, ...) keep their names."""

    name: str
    help: str
    arguments: Callable[[Any], None]
    run: Callable[[Any, ToolContext], Awaitable[int]]
    plugin: str = ""


@dataclass(frozen=True)
class ServerTask:
    """Work the server runs now and then while it serves over HTTP (a long-lived process; a stdio
    server lives as long as one session and runs none): ``run(ctx)`` (async) every ``every``
    seconds, the first about ``every`` seconds after start-up, under the plugin's context, each run
    stopped after ``timeout`` seconds; an exception is logged and the next run comes as planned.
    Replicas each run it: a task that must act once per fleet takes a lease in the store."""

    name: str
    run: Callable[[ToolContext], Awaitable[None]]
    every: float = 60.0
    timeout: float = 3600.0
    plugin: str = ""


@dataclass(frozen=True)
class WebPage:
    """A page a plugin serves to people, from files shipped in its package: over Streamable HTTP
    at ``path`` (``/desk``: the entry at ``/desk/``, each asset at ``/desk/<name>``) for the
    principals the server authenticates, and, with ``app_uri``, as an MCP App: a ``ui://``
    resource (``text/html;profile=mcp-app``) whose HTML has the assets inlined, which the tools in
    ``linked_tools`` point at through ``_meta.ui.resourceUri``.

    ``package`` is the importable package holding ``entry`` and ``assets`` (plain files: HTML,
    JavaScript, CSS, SVG; no build step). The entry names its assets by relative URL
    (``<script src="app.js" defer></script>``, ``<link rel="stylesheet" href="app.css">``) and
    carries no inline script: the host serves it under a Content-Security-Policy allowing only
    its own files. The page calls the tools in ``tools`` and nothing else: over HTTP through
    ``POST <path>/api/call`` (JSON ``{"tool", "arguments"}``, with the CSRF token the host puts in
    ``<meta name="medlit-csrf">``), inside an MCP host through the host's bridge (``tools/call``).
    """

    path: str
    title: str
    package: str
    entry: str = "index.html"
    assets: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    app_uri: str = ""
    linked_tools: tuple[str, ...] = ()
    description: str = ""
    plugin: str = ""


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool = True


PromptMessages = Sequence[tuple[Literal["user", "assistant"], str]]


@dataclass(frozen=True)
class PromptSpec:
    """An MCP prompt: ``render(arguments, catalog)`` (sync) returns ``[(role, text), ...]`` with
    role user|assistant; ``catalog`` says which tools are served, so the text names only those. A
    failure is reported as the plugin's fault, never a crash."""

    name: str
    title: str
    description: str
    arguments: tuple[PromptArgument, ...]
    render: Callable[[Mapping[str, str], Catalog], PromptMessages]
    plugin: str = ""


# -- reference audit ----------------------------------------------------------------------------

MatchStage = Literal["identifiers", "citation", "search"]


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


NoticeKind = Literal[
    "retraction", "partial_retraction", "erratum", "correction", "expression_of_concern", "withdrawal"
]


@dataclass(frozen=True)
class RecordNotice:
    """A notice attached to a record: a retraction, partial retraction, erratum, correction,
    expression of concern or withdrawal. ``label`` is the type as the source words it (``"RetractionIn"``, ``"erratum"``);
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


# -- what a plugin's callables get while they run --------------------------------------------------
Row = tuple[Any, ...]  # a result row as the driver gives it (SQL values are typed by the schema)


class Transaction(Protocol):
    """One transaction's statements (``async with db.transaction() as tx``)."""

    async def execute(self, sql: str, *args: object) -> None: ...
    async def fetch(self, sql: str, *args: object) -> list[Row]: ...
    async def insert(self, sql: str, *args: object) -> int: ...

    async def execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        """One statement over many rows of arguments, in one round trip where the driver can
        (thousands of rows of one import batch)."""
        ...

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
    async def execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None: ...
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


# The installed metadata providers run in order for one call (``ctx.metadata``); a provider's own
# lookup is :data:`MetadataLookup`, which takes the context as well.
RunMetadata = Callable[[IdKind, Sequence[str]], Awaitable[Mapping[str, RecordMetadata]]]


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
    host: HostServices | None = None  # for plugins declaring PluginInfo(host_services=True)
    metadata: RunMetadata | None = None  # runs the installed metadata providers
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
            raise plugin_fault(
                self.plugin, f"service {service!r} is declared as an OpenWebSpec: use ctx.web()"
            )
        return client  # type: ignore[return-value]  # narrowed by web_services

    def web(self, service: str) -> OpenWebClient:
        """The client of an open-web service this plugin declared."""
        client = self._declared(service)
        if service not in self.web_services:
            raise plugin_fault(
                self.plugin, f"service {service!r} is a ServiceSpec, not an OpenWebSpec: use ctx.client()"
            )
        return client  # type: ignore[return-value]

    def _declared(self, service: str) -> ApiClient | OpenWebClient:
        try:
            return self.clients[service]
        except KeyError:
            raise plugin_fault(
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

    def services(self) -> HostServices:
        """``ctx.host``, or this plugin's fault when it runs without them: a plugin that needs the
        host's services declares ``PluginInfo(host_services=True)``, and forgetting to is its bug."""
        if self.host is None:
            raise plugin_fault(
                self.plugin, "needs the host's services: declare PluginInfo(host_services=True)"
            )
        return self.host

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
            raise plugin_fault(
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


# -- the catalog: what a workflow plugin sees of the others (ctx.host.catalog) ----------------------
@dataclass(frozen=True)
class PluginState:
    """A plugin's standing as a step's report needs it: ``status`` (``active`` runs; an
    ``unconfigured`` plugin's steps are reported as not attempted), and the variable it waits on."""

    name: str
    status: str = "active"
    detail: str = ""
    waiting_on: str = ""

    @property
    def active(self) -> bool:
        return self.status == "active"


R = TypeVar("R")
T = TypeVar("T")


class Declared(NamedTuple, Generic[R]):
    """A declaration record with the standing of the plugin that declared it."""

    record: R
    state: PluginState


@dataclass(frozen=True)
class Catalog:
    """What is installed, as workflow plugins need it to describe themselves and to run: the steps
    of each chain in order (switched-on plugins' steps, active or waiting on a setting), the active
    metadata and access-link providers, the served tools with their capabilities, and the record
    landing pages plugins declare, and the plugins switched off. Built by the host once the plugins
    are loaded."""

    tiers: tuple[Declared[FulltextTier], ...] = ()
    resolvers: tuple[Declared[IdResolver], ...] = ()
    related: tuple[Declared[RelatedProvider], ...] = ()
    matchers: tuple[Declared[ReferenceMatcher], ...] = ()
    notices: tuple[Declared[NoticeProvider], ...] = ()
    sources: tuple[Declared[SearchSource], ...] = ()
    citation_indexes: tuple[Declared[CitationIndex], ...] = ()
    metadata: tuple[MetadataProvider, ...] = ()
    access_links: tuple[AccessLinkProvider, ...] = ()
    tools: Mapping[str, frozenset[Capability]] = field(default_factory=dict)
    # Each served tool's family (``ToolSpec.toolset``, else its plugin): a description pointing at
    # a tool of another family names it, since hosts list some families only on request.
    families: Mapping[str, str] = field(default_factory=dict)
    id_links: Mapping[str, str] = field(default_factory=dict)
    # Plugins switched off (``<NAME>_ENABLED=false``): none of their hooks ran, so what they would
    # contribute is unknown; a tool that found nothing names them, with the variable to set.
    switched_off: tuple[PluginState, ...] = ()
    # The guide's material: each served tool's one-line task (``ToolSpec.guide`` or its title), and
    # every switched-on plugin's section (``PluginInfo.guide`` rendered, lines naming its unserved
    # tools dropped; "" for one without) with its standing (an unconfigured one waits on a setting).
    tool_guides: Mapping[str, str] = field(default_factory=dict)
    guides: tuple[Declared[str], ...] = ()
    # Per plugin, the names of its declared settings that have a value on this server, never the
    # values (paths, secrets): what its instructions may say is available (a folder allowed).
    settings_set: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def tool_for(self, capability: Capability) -> str | None:
        """The first served tool offering ``capability`` (plugins in load order), or ``None``."""
        return next(iter(self.tools_for(capability)), None)

    def tools_for(self, capability: Capability) -> list[str]:
        """Every served tool offering ``capability``, plugins in load order."""
        return [name for name, caps in self.tools.items() if capability in caps]

    def serves(self, tool: str) -> bool:
        return tool in self.tools

    def named(self, tool: str, beside: str) -> str:
        """``tool`` as the description of ``beside`` names it: with its family and the way to it
        when the two are of different families (``eutils_elink (eutils family, via medlit_toolsets)``)."""
        return self.named_all([tool], beside)

    def named_all(self, tools: Sequence[str], beside: str) -> str:
        """``tools`` joined by 'or', each family named once: 'a or b (eutils family, via medlit_toolsets)'."""
        out: list[str] = []
        for i, tool in enumerate(tools):
            family = self.families.get(tool, "")
            later = tools[i + 1] if i + 1 < len(tools) else None
            shown = family and family != self.families.get(beside)
            if shown and (later is None or self.families.get(later) != family):
                out.append(f"{tool} ({family} family, via medlit_toolsets)")
            else:
                out.append(tool)
        return " or ".join(out)

    def switched_off_hint(self) -> str:
        """'' or e.g. 'Plugins switched off here: ncbi (NCBI_ENABLED=true enables it).'"""
        if not self.switched_off:
            return ""
        named = ", ".join(f"{p.name} ({p.waiting_on}=true enables it)" for p in self.switched_off)
        return f"Plugins switched off here: {named}."

    def id_link(self, kind: str, value: str | None) -> str | None:
        """A record's landing page for an identifier kind, when an active plugin declares one."""
        template = self.id_links.get(kind)
        return template.replace("{id}", value) if template and value else None
