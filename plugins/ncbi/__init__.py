"""NCBI provider plugin: E-utilities, PubMed research tools, the PMC full-text tier.

Declarations and hookimpls only: every record names its code with a lazy reference, so importing
the plugin (each server launch) imports no tool, parser or model; a tool's module is imported at
its first call. The plugin is laid out by concern: ``service`` (the two NCBI services; light),
``tools/__init__`` (the tool declarations), ``client`` (requests, batching, History handles, the
PubMed record cache), ``parse/`` (pure readers of NCBI answers), ``inputs`` / ``render`` /
``citation_styles`` (pieces tools share), ``tools/`` (one module per tool family; they never
import each other), ``metadata`` (PubMed as a metadata provider and the PMID -> DOI step),
``idconv`` and ``pmc_tier`` (the chain's ID converter step and PMC tier), ``related`` (ELink as a
related-article provider), ``resources`` and ``guide`` (light: the database-info resource and the plugin's guide section).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import (
    CitationIndex,
    FulltextTier,
    IdResolver,
    MetadataProvider,
    NoticeProvider,
    PluginInfo,
    ReferenceMatcher,
    RelatedProvider,
    ResourceSpec,
    SearchSource,
    SettingSpec,
    errors,
    hookimpl,
    lazy_module,
)

from . import guide, service
from .tools import TOOLS

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import citations as _citations
    from . import idconv as _idconv
    from . import metadata as _metadata
    from . import pmc_tier as _pmc_tier
    from . import references as _references
    from . import related as _related
    from . import resources as _resources
    from . import review_source as _review_source
else:  # run time: each attribute is a lazy reference, imported at its first use
    _citations = lazy_module(".citations", __name__)
    _idconv = lazy_module(".idconv", __name__)
    _metadata = lazy_module(".metadata", __name__)
    _pmc_tier = lazy_module(".pmc_tier", __name__)
    _references = lazy_module(".references", __name__)
    _related = lazy_module(".related", __name__)
    _resources = lazy_module(".resources", __name__)
    _review_source = lazy_module(".review_source", __name__)

PMC_TIER = FulltextTier(
    name="pmc",
    order=10,
    accepts=frozenset({"pmcid"}),
    resolve=_pmc_tier.resolve_pmc,
    description="NCBI PubMed Central JATS, one efetch request for every PMCID of the call",
    timeout=60.0,
    source="pmc",
)

IDCONV_RESOLVER = IdResolver(
    name="idconv",
    order=10,
    accepts=frozenset({"pmid", "doi"}),
    provides=frozenset({"pmcid", "doi"}),
    resolve=_idconv.resolve_pmcids,
    description="NCBI PMC ID Converter, one request for every PMID and DOI of the call",
)

METADATA_PROVIDER = MetadataProvider(
    name="pubmed",
    order=10,
    accepts=frozenset({"pmid"}),
    lookup=_metadata.lookup,
    description="PubMed records by PMID (journal articles, Bookshelf books and chapters), one request per 200.",
)

DOI_RESOLVER = IdResolver(
    name="pubmed",
    order=20,
    accepts=frozenset({"pmid"}),
    provides=frozenset({"doi"}),
    resolve=_metadata.resolve_dois,
    description="The DOI PubMed records for a PMID (any article PubMed holds, not only PMC's).",
)

RELATED_PROVIDER = RelatedProvider(
    name="ncbi",
    order=10,
    kinds=frozenset({"similar", "cited_by", "references"}),  # the keys of related.LINKNAMES
    resolve=_related.related,
    description="NCBI ELink; citing and references only from reference lists PMC holds",
)

MATCHER = ReferenceMatcher(
    name="ncbi",
    order=10,
    stages=frozenset({"identifiers", "citation", "search"}),
    resolve=_references.match,
    description="PubMed: stated PMIDs and DOIs (one ESearch, one EFetch), ECitMatch, title search",
)

NOTICES = NoticeProvider(
    name="ncbi",
    order=10,
    accepts=frozenset({"pmid"}),
    lookup=_references.notices,
    description="PubMed CommentsCorrections (RetractionIn, ErratumIn, ExpressionOfConcernIn, ...)",
)

PUBMED_SOURCE = SearchSource(
    name="pubmed",
    title="PubMed",
    run=_review_source.run_pubmed,
    syntax="PubMed syntax (asthma[mh] AND 2015:2024[dp])",
    order=10,
    batch=500,
    window=10_000,
    description="ESearch on the History server, then EFetch XML in batches of 500; past 10,000 in date slices.",
)

DATABASE_INFO = ResourceSpec(
    uri="pubmed://database/info",
    name="pubmed_database_info",
    title="PubMed database info",
    description="PubMed's record count, last update, searchable field tags and link names (NCBI EInfo, cached "
    "for the process).",
    read=_resources.read_pubmed_info,
)


CITATIONS = CitationIndex(
    name="pubmed",
    title="PubMed (NCBI ELink)",
    directions=frozenset({"backward", "forward"}),
    accepts=("pmid",),
    chase=_citations.chase,
    batch=100,  # citations.SEED_BATCH: PMIDs in one ELink request
    requests_per_batch=1,
    rate=3.0,  # NCBI's keyless rate; the client is paced at 10/s with an API key
    order=10,
    description="NCBI ELink pubmed_pubmed_refs (backward) and pubmed_pubmed_citedin (forward), 100 PMIDs a request",
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="ncbi",
        title="NCBI E-utilities, PubMed and PMC",
        description="Entrez E-utilities for every NCBI database, PubMed research tools and PMC full text.",
        guide=guide.GUIDE,
        # what a research conversation starts with is listed up front; the raw E-utilities
        # (about 17,000 characters of definitions) only once a model asks for them
        toolsets={
            "pubmed": "PubMed research: search, records, full text, citations, reference checks, related "
            "articles, metrics, MeSH.",
            "eutils": "Raw E-utilities for every NCBI database (gene, protein, ...): search, summaries, records, "
            "links, History server.",
        },
        default_toolsets=("pubmed",),
        id_links={
            "pmid": "https://pubmed.ncbi.nlm.nih.gov/{id}/",
            "pmcid": "https://pmc.ncbi.nlm.nih.gov/articles/{id}/",
        },
        settings=(
            SettingSpec(
                "NCBI_API_KEY", "NCBI API key: raises the shared limit from 3 to 10 requests/s", secret=True
            ),
            SettingSpec(
                "NCBI_EMAIL",
                "Contact email NCBI asks every client to send",
                kind="email",
                recommended=True,
                example="you@example.org",
            ),
            SettingSpec("NCBI_TOOL", "Tool name sent to NCBI", default=service.DEFAULT_TOOL),
            SettingSpec(
                "MEDLIT_NCBI_RATE",
                "NCBI requests/s; above NCBI's limit only with MEDLIT_BASE_URL_NCBI (tests)",
                kind="number",
            ),
        ),
        error_kinds=(
            errors.ErrorKind("invalid_citation", "Give the citation's journal, year, volume and first page."),
            errors.ErrorKind(
                "insufficient_citation", "Add the journal, year, volume and first page the match needs."
            ),
            errors.ErrorKind("invalid_year", "Give a four-digit year."),
            errors.ErrorKind(
                "invalid_style", "Use one of the citation styles the tool lists (apa, mla, vancouver, ...)."
            ),
            errors.ErrorKind("blank_filter", "Leave the filter out or give it a value."),
            errors.ErrorKind("offset_out_of_range", "Use an offset below the total the search reports."),
            errors.ErrorKind("no_search_term", "Give a query or at least one filter."),
            errors.ErrorKind(
                "pubmed_window_exceeded", "Split the search by date (splitByDate=true) or narrow the query."
            ),
        ),
    )


@hookimpl
def medlit_services():
    return list(service.SERVICES)


@hookimpl
def medlit_tools():
    return list(TOOLS)


@hookimpl
def medlit_resources():
    return [DATABASE_INFO]


@hookimpl
def medlit_metadata_providers():
    return [METADATA_PROVIDER]


@hookimpl
def medlit_fulltext_tiers():
    return [PMC_TIER]


@hookimpl
def medlit_id_resolvers():
    return [IDCONV_RESOLVER, DOI_RESOLVER]


@hookimpl
def medlit_related_providers():
    return [RELATED_PROVIDER]


@hookimpl
def medlit_reference_matchers():
    return [MATCHER]


@hookimpl
def medlit_notice_providers():
    return [NOTICES]


@hookimpl
def medlit_search_sources():
    return [PUBMED_SOURCE]


@hookimpl
def medlit_citation_indexes():
    return [CITATIONS]
