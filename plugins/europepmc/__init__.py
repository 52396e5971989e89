"""Europe PMC provider plugin: search and record fetch (preprints, patents, Agricola), the
open-access full-text tier after PMC, and citations/references for related-article tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import (
    CitationIndex,
    FulltextTier,
    PluginInfo,
    RelatedProvider,
    SearchSource,
    SettingSpec,
    ToolSpec,
    hookimpl,
    lazy_module,
)

from . import service

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import citations as _citations
    from . import fetch_tool as _fetch_tool
    from . import inputs as _inputs
    from . import models as _models
    from . import related as _related
    from . import review_source as _review_source
    from . import search_tool as _search_tool
    from . import tier as _tier
else:  # run time: each attribute is a lazy reference, imported at its first use
    _citations = lazy_module(".citations", __name__)
    _fetch_tool = lazy_module(".fetch_tool", __name__)
    _inputs = lazy_module(".inputs", __name__)
    _models = lazy_module(".models", __name__)
    _related = lazy_module(".related", __name__)
    _review_source = lazy_module(".review_source", __name__)
    _search_tool = lazy_module(".search_tool", __name__)
    _tier = lazy_module(".tier", __name__)

# Declarations only: models, queries and parsers are imported at first use.
SEARCH_SOURCE = SearchSource(
    name="europepmc",
    title="Europe PMC",
    run=_review_source.run_europepmc,
    syntax="Europe PMC syntax (TITLE:asthma AND PUB_YEAR:[2015 TO 2024])",
    order=20,
    batch=1000,
    description="cursorMark search, resultType=core, 1,000 records a request.",
)
SEARCH_TOOL = ToolSpec(
    name="pubmed_europepmc_search",
    title="Search Europe PMC",
    description=(
        "Search Europe PMC: PubMed plus preprints, patents, Agricola and the words of open full texts. Use it for preprints, non-MEDLINE records or words in full text; for MeSH-based searches of "
        "MEDLINE use pubmed_search_articles. Whole records: pubmed_europepmc_fetch; full text: "
        "pubmed_fetch_fulltext; every record of a systematic search into a set: review_search (review family). "
        "Page with cursorMark = nextCursorMark (absent on the last page). No match is an empty result, not an "
        "error."
    ),
    input_model=_inputs.SearchInput,
    output_model=_models.SearchOutput,
    handler=_search_tool.search_europepmc,
    render=_search_tool.render_search,
    guide="preprints, patents, Agricola or words in open full texts (Europe PMC)",
)

FETCH_TOOL = ToolSpec(
    name="pubmed_europepmc_fetch",
    title="Fetch Europe PMC records",
    description=(
        "Fetch whole Europe PMC records (abstract, authors, MeSH, licence, where to read the text) by "
        "{source, epmcId} from pubmed_europepmc_search hits. The way to read "
        "preprints (PPR), patents and Agricola records, which often lack a PMID or DOI; for PubMed records "
        "pubmed_fetch_articles is richer, for full text use pubmed_fetch_fulltext. Up to 25 pairs, one "
        "request; unknown pairs are listed in notFound; past maxResponseCharacters, call again with deferred."
    ),
    input_model=_inputs.FetchInput,
    output_model=_models.FetchOutput,
    handler=_fetch_tool.fetch_records,
    render=_fetch_tool.render_fetch,
    guide="Europe PMC hits ({source, epmcId}), want whole records",
)

TIER = FulltextTier(
    name="europepmc",
    order=20,
    accepts=frozenset({"pmcid", "pmid", "doi"}),
    resolve=_tier.resolve_europepmc,
    description="Europe PMC open-access JATS, preprints included: one search for all ids, then fullTextXML per article",
    timeout=45.0,
    source="europepmc",
    record_ids=("epmcId", "epmcSource"),
)

PROVIDER = RelatedProvider(
    name="europepmc",
    order=20,
    kinds=frozenset({"cited_by", "references"}),
    resolve=_related.related_europepmc,
    description="Europe PMC citations and references lists (PubMed records only; others counted as dropped)",
    timeout=30.0,
)


CITATIONS = CitationIndex(
    name="europepmc",
    title="Europe PMC",
    directions=frozenset({"backward", "forward"}),
    accepts=("pmid", "pmcid"),
    chase=_citations.chase,
    batch=20,
    requests_per_batch=20,  # one request a seed (pages of 1,000 rows)
    rate=service.RATE,
    order=20,
    description="Europe PMC /references (backward) and /citations (forward), one request a seed",
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="europepmc",
        title="Europe PMC",
        description="Europe PMC search and records (preprints, patents, Agricola), open-access full text "
        "and citation lists.",
        toolsets={
            "europepmc": "Europe PMC search and records: preprints, patents, Agricola, words in full texts."
        },
        settings=(
            SettingSpec(
                service.RATE_SETTING,
                f"Europe PMC requests/s (default {service.RATE:g}); above it only with MEDLIT_BASE_URL_EUROPEPMC "
                "(tests)",
                kind="number",
            ),
        ),
    )


@hookimpl
def medlit_services():
    return [service.SERVICE]


@hookimpl
def medlit_tools():
    return [SEARCH_TOOL, FETCH_TOOL]


@hookimpl
def medlit_fulltext_tiers():
    return [TIER]


@hookimpl
def medlit_related_providers():
    return [PROVIDER]


@hookimpl
def medlit_search_sources():
    return [SEARCH_SOURCE]


@hookimpl
def medlit_citation_indexes():
    return [CITATIONS]
