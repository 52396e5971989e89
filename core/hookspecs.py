"""The medlit plugin contract.

A plugin is a module (or object) with functions marked ``@hookimpl`` named after the hooks
below. Hooks are **synchronous and declarative**: they take no argument, return frozen records
from :mod:`medlit.core.plugin` and never do I/O; the host runs the callables inside those records
with a :class:`~medlit.core.types.ToolContext` holding the paced clients of the plugin's own
services and the plugin's own settings. Each callable slot says whether it is ``async`` (awaited:
handlers, tiers, resolvers, providers, readers) or sync (called inline: renders, describes,
settings checks, cache splitters); the host checks both at load time.

pluggy registers each plugin and checks it against this module: an argument a hook does not take,
a hook name it does not know (``check_pending``: a misspelt ``medlit_tool`` is named) and a module
with no marked hook each make that plugin ``error``, and the others load. Each hook is called for
one plugin at a time, so one plugin's exception never stops another's.

Plugins are discovered through the ``medlit.plugins`` entry-point group (built-ins too)::

    [project.entry-points."medlit.plugins"]
    crossref = "medlit_crossref"

The entry-point name is the plugin's switch: ``CROSSREF_ENABLED=false`` blocks it before any of
its hooks runs (its contributions are then unknown; it is listed ``disabled``), and
``MEDLIT_LOAD_PLUGINS`` decides which are imported at all. Import what you need from
:mod:`medlit.core.plugin` (the records, the context, the errors) and its helper namespaces
(``from medlit.core.plugin import identifiers``, then ``identifiers.normalize_pmid(x)``), never from
another module of ``medlit.core``, pluggy or the MCP SDK. The workflows (full text, related
articles, review sets, the reference audit) are plugins built on these hooks like any other.
"""

from __future__ import annotations

from collections.abc import Iterable

import pluggy

from .types import (
    AccessLinkProvider,
    CitationIndex,
    CommandSpec,
    FulltextTier,
    IdResolver,
    MetadataProvider,
    NoticeProvider,
    OpenWebSpec,
    PluginInfo,
    PromptSpec,
    ReferenceMatcher,
    RelatedProvider,
    ResourceSpec,
    SearchSource,
    ServerTask,
    ServiceSpec,
    ToolSpec,
    WebPage,
)

PROJECT = "medlit"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def medlit_plugin_info() -> PluginInfo:
    """Identify the plugin and declare the settings it reads.

    Required; called first (never for a switched-off plugin). ``name`` must equal the
    entry-point name. A required setting that is unset makes the plugin ``unconfigured``: its
    tools are not listed and its tiers report ``not-attempted`` naming the variable. Settings
    required only in combination (one of two variables) are checked by ``check_settings`` (see
    :class:`~medlit.core.types.PluginInfo`); error kinds the plugin raises beyond core's are
    registered from ``error_kinds``. A plugin whose tools keep data per user (per
    ``ctx.principal``) says so with ``per_user_data=True``: the HTTP transport then serves those
    tools on a public address only behind authentication.

    Example::

        @hookimpl
        def medlit_plugin_info():
            return PluginInfo(name="unpaywall", title="Unpaywall",
                              settings=(SettingSpec("UNPAYWALL_EMAIL", "Contact email", required=True),))
    """


@hookspec
def medlit_services() -> Iterable[ServiceSpec | OpenWebSpec]:
    """Declare the upstream services the plugin calls.

    The host builds one paced, retrying, size-capped client per :class:`ServiceSpec`, reachable as
    ``ctx.client(name)`` from the plugin's own handlers, tiers and resolvers, and one open-web
    client per :class:`OpenWebSpec` (``ctx.web(name)``: any public URL, vetted per hop). Service
    names are global (a duplicate is a startup error); ``MEDLIT_BASE_URL_<NAME>`` points a
    ``ServiceSpec`` at a loopback fake; ``medlit doctor`` sends its ``probe``. What is particular
    to a service is declared with it: its session parameters (never cached), how it spells
    booleans, where its errors hide in a body.

    Example::

        @hookimpl
        def medlit_services():
            return [ServiceSpec(name="crossref", title="Crossref", base_url="https://api.crossref.org",
                                rate=10.0, probe=Probe("works", {"rows": "0"}))]
    """


@hookspec
def medlit_tools() -> Iterable[ToolSpec]:
    """Declare the MCP tools the plugin contributes.

    Tool names are global: two plugins declaring one name is a startup error naming both.
    ``handler(args, ctx)`` is awaited with a validated ``input_model`` (unknown fields are refused
    whatever the model says); it returns an ``output_model`` instance or raises
    :class:`~medlit.core.errors.MedlitError`. Any other exception is reported as a fault of the
    plugin, by name. ``render(result, args)`` and ``describe(catalog)`` are sync. ``capabilities``
    say what the tool offers (``search``, ``records``, ...), so workflow tools name it as a
    sibling without knowing its name.

    The models and callables may be lazy references (any record's callables may): attributes of a
    ``lazy_module``, which mypy checks against their slots, or ``lazy(".module:attribute",
    __name__)`` strings. The module is imported at the tool's first call, and ``tools/list`` reads
    the schemas from the schema store, so a session that never calls the tool never imports it.

    Example::

        if TYPE_CHECKING:
            from . import lookup as _lookup
        else:
            _lookup = lazy_module(".lookup", __name__)

        LOOKUP = ToolSpec(name="crossref_lookup", title="Look up a DOI", description="...",
                          input_model=_lookup.LookupIn, output_model=_lookup.LookupOut,
                          handler=_lookup.lookup)

        @hookimpl
        def medlit_tools():
            return [LOOKUP]
    """


@hookspec
def medlit_fulltext_tiers() -> Iterable[FulltextTier]:
    """Declare full-text tiers for the resolution chain.

    The chain runs tiers by ``order`` (lowest first; ``MEDLIT_TIER_ORDER_<NAME>`` overrides),
    each on the articles still unresolved that carry an identifier in ``accepts``, under the
    tier's ``timeout``. ``resolve(refs, ctx, options)`` (async; ``options`` a
    :class:`~medlit.core.types.TierOptions`) returns a :class:`~medlit.core.types.TierResult`
    per ``ref.key``; a hit carries a :class:`~medlit.core.types.StructuredArticle` (JATS read
    with ``markup.read_jats``) or an :class:`~medlit.core.types.ExtractedTextArticle` (text
    from a PDF or an HTML page). Refs are frozen: ids a tier learns go in ``TierResult.ids``. The
    output labels a tier's articles with its ``source`` and shows the ``record_ids`` it declares.
    An exception becomes ``service-error`` for that tier's articles.

    Example::

        @hookimpl
        def medlit_fulltext_tiers():
            return [FulltextTier(name="pmc", order=10, accepts=frozenset({"pmcid"}), resolve=fetch_pmc)]
    """


@hookspec
def medlit_id_resolvers() -> Iterable[IdResolver]:
    """Declare identifier resolution steps for the full-text chain (PMID/DOI -> PMCID, PMID -> DOI).

    Before a tier runs, articles that lack every identifier it accepts are given to the
    resolvers (by ``order``) that ``provide`` one of them and ``accept`` an id the article has.
    ``resolve(refs, ctx)`` (async) answers a ``TierResult`` per ref, a hit carrying the ids found
    in ``ids``. Each step is listed in the per-identifier report like a tier.

    Example::

        @hookimpl
        def medlit_id_resolvers():
            return [IdResolver(name="idconv", order=10, accepts=frozenset({"pmid", "doi"}),
                               provides=frozenset({"pmcid", "doi"}), resolve=convert)]
    """


@hookspec
def medlit_metadata_providers() -> Iterable[MetadataProvider]:
    """Declare sources of brief bibliographic metadata for PMIDs or DOIs (title, container,
    ISSN, date, volume, issue, pages, authors). Any plugin reads them through
    ``ctx.lookup_metadata(kind, ids)`` without knowing which plugin answers.

    Example::

        @hookimpl
        def medlit_metadata_providers():
            return [MetadataProvider(name="pubmed", order=10, accepts=frozenset({"pmid"}), lookup=summaries)]
    """


@hookspec
def medlit_access_links() -> Iterable[AccessLinkProvider]:
    """Declare builders of access links (a library's OpenURL resolver, an interlibrary-loan form)
    for articles no full-text tier served. ``build(refs, ctx)`` returns ``{ref.key: url}`` for the
    articles it can link; it builds URLs and never fetches them. Core's full-text tool asks the
    active providers by ``order`` for its unavailable articles and adds the first link per article
    as ``institutionalLink``; a provider that fails or times out only costs its links.

    Example::

        @hookimpl
        def medlit_access_links():
            return [AccessLinkProvider(name="openurl", order=10, build=resolver_links)]
    """


@hookspec
def medlit_related_providers() -> Iterable[RelatedProvider]:
    """Declare sources of related articles (similar, cited by, references), tried by ``order``.

    ``resolve(query, ctx)`` (async) gets a :class:`~medlit.core.types.RelatedQuery` (source PMID,
    kind, ``offset``/``limit`` window) and returns a :class:`~medlit.core.types.RelatedResult`.
    Core's related-articles tool asks the active providers of the requested kind in order: the
    first non-empty answer wins; an empty one (``total == 0``) or a raised error passes to the next.

    Example::

        @hookimpl
        def medlit_related_providers():
            return [RelatedProvider(name="openalex", order=30,
                                    kinds=frozenset({"cited_by", "references"}), resolve=related)]
    """


@hookspec
def medlit_reference_matchers() -> Iterable[ReferenceMatcher]:
    """Declare matchers that find the records a reference list's entries may be, by stage:
    ``identifiers`` (stated DOIs or PMIDs, one batch per kind), ``citation`` (batched lookups by
    journal, volume and page) and ``search`` (free text or title, only for what is still unsettled).
    ``resolve(refs, stage, ctx)`` gets :class:`~medlit.core.types.ReferenceQuery` items and returns
    :class:`~medlit.core.types.ReferenceCandidate` lists per ``ref.key``; the reference audit
    (the ``references`` plugin) decides which candidate is the same work.

    Example::

        @hookimpl
        def medlit_reference_matchers():
            return [ReferenceMatcher(name="crossref", order=20,
                                     stages=frozenset({"identifiers", "search"}), resolve=match)]
    """


@hookspec
def medlit_notice_providers() -> Iterable[NoticeProvider]:
    """Declare sources of notices on records (retractions, errata, corrections, expressions of
    concern, withdrawals) by PMID or DOI. ``lookup(kind, ids, ctx)`` returns
    :class:`~medlit.core.types.RecordNotice` lists per id, in as few requests as the upstream allows.

    Example::

        @hookimpl
        def medlit_notice_providers():
            return [NoticeProvider(name="pubmed", order=10, accepts=frozenset({"pmid"}), lookup=notices)]
    """


@hookspec
def medlit_search_sources() -> Iterable[SearchSource]:
    r"""Declare bibliographic databases whole searches can run on (the ``review`` plugin's review sets).

    ``run(query, ctx)`` (async) gets a :class:`~medlit.core.types.SourceQuery` (the query in the
    source's own syntax, a resume ``cursor``, a batch ``limit``) and returns one
    :class:`~medlit.core.types.SourcePage` of normalised
    :class:`~medlit.core.types.SourceRecord` records with the total and the next cursor. The review
    stores every page with its cursor, deduplicates across sources and exports the set.

    Example::

        @hookimpl
        def medlit_search_sources():
            return [SearchSource(name="crossref", title="Crossref", run=search_all,
                                 syntax="Crossref free text", batch=1000)]
    """


@hookspec
def medlit_citation_indexes() -> Iterable[CitationIndex]:
    """Declare citation indexes: where a work's references (``backward``) and the works citing it
    (``forward``) can be read, for citation searching (the ``review`` plugin chases a set's
    includes through every active index and combines them).

    ``chase(query, ctx)`` (async) gets a :class:`~medlit.core.types.CitationQuery` (a direction,
    an id kind from ``accepts``, at most ``batch`` seed ids) and returns a
    :class:`~medlit.core.types.CitationAnswer`: the :class:`~medlit.core.types.CitedWork` list of
    each seed it answered, the seeds it could not answer and why, the seeds it does not know.
    ``requests_per_batch`` and ``rate`` let a chase state its cost before it runs.

    Example::

        @hookimpl
        def medlit_citation_indexes():
            return [CitationIndex(name="opencitations", title="OpenCitations",
                                  directions=frozenset({"backward", "forward"}), accepts=("doi",),
                                  chase=chase, batch=1, rate=3.0)]
    """


@hookspec
def medlit_resources() -> Iterable[ResourceSpec]:
    """Declare MCP resources (read-only documents a host can attach to the conversation).
    ``read(ctx)`` (async) runs like a tool call: under the call deadline, faults mapped to errors
    naming the plugin, secrets redacted.

    Example::

        @hookimpl
        def medlit_resources():
            return [ResourceSpec(uri="pubmed://database/info", name="pubmed_info",
                                 title="PubMed database info", description="...", read=read_info)]
    """


@hookspec
def medlit_web_pages() -> Iterable[WebPage]:
    """Declare pages for people: files of the plugin's package served over Streamable HTTP at a
    path (signed-in principals only, under a strict Content-Security-Policy) and, with an
    ``app_uri``, as an MCP App resource the listed tools point at (see :class:`WebPage` and
    docs/plugins.md, "Pages and MCP Apps").

    Example::

        @hookimpl
        def medlit_web_pages():
            return [WebPage(path="/notes", title="Notes", package="my_plugin.page",
                            assets=("notes.js", "notes.css"), tools=("notes_list",),
                            app_uri="ui://notes/page", linked_tools=("notes_list",))]
    """


@hookspec
def medlit_prompts() -> Iterable[PromptSpec]:
    """Declare MCP prompts (reusable conversation starters with arguments).
    ``render(arguments, catalog)`` (sync) returns ``[(role, text), ...]``; the
    :class:`~medlit.core.types.Catalog` says which tools are served, so the text names only those.

    Example::

        @hookimpl
        def medlit_prompts():
            return [PromptSpec(name="review", title="Literature review", description="...",
                               arguments=(PromptArgument("topic", "What to review"),),
                               render=lambda a, catalog: [("user", f"Review the literature on {a['topic']}")])]
    """


@hookspec
def medlit_commands() -> Iterable[CommandSpec]:
    """Declare subcommands of the ``medlit`` command line, for work run from a shell, cron or a
    systemd timer. ``arguments(parser)`` (sync) adds the command's arguments to its ``argparse``
    parser; ``run(args, ctx)`` (async) runs in a runtime of its own with the plugin's context,
    prints to stdout and returns the exit code. A name core uses, or another plugin's, is a
    startup error naming both.

    Example::

        def arguments(parser):
            parser.add_argument("set")

        async def run(args, ctx):
            print(f"{args.set}: up to date")
            return 0

        @hookimpl
        def medlit_commands():
            return [CommandSpec(name="acme", help="refresh a set", arguments=arguments, run=run)]
    """


@hookspec
def medlit_server_tasks() -> Iterable[ServerTask]:
    """Declare work the server runs every ``every`` seconds while it serves over HTTP (never under
    stdio): ``run(ctx)`` (async), under the plugin's context, stopped at shutdown like a call.
    Every replica runs it: a task acting once per fleet takes a lease in the store first.

    Example::

        @hookimpl
        def medlit_server_tasks():
            return [ServerTask(name="acme_refresh", run=refresh_due_sets, every=300.0)]
    """


HOOK_NAMES = (
    "medlit_plugin_info",
    "medlit_services",
    "medlit_tools",
    "medlit_fulltext_tiers",
    "medlit_id_resolvers",
    "medlit_metadata_providers",
    "medlit_access_links",
    "medlit_related_providers",
    "medlit_reference_matchers",
    "medlit_notice_providers",
    "medlit_search_sources",
    "medlit_citation_indexes",
    "medlit_resources",
    "medlit_prompts",
    "medlit_web_pages",
    "medlit_commands",
    "medlit_server_tasks",
)
