"""NIH iCite provider plugin: citation metrics (RCR, percentiles, translation) for PubMed articles.

Declarations only: the tool's models and code (``tool``, ``models``, ``parse``) are named by lazy
references and imported at its first call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import CitationIndex, PluginInfo, ToolSpec, hookimpl, lazy_module

from . import service

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import citations as _citations
    from . import models as _models
    from . import tool as _tool
else:  # run time: each attribute is a lazy reference, imported at its first use
    _citations = lazy_module(".citations", __name__)
    _models = lazy_module(".models", __name__)
    _tool = lazy_module(".tool", __name__)

TOOL = ToolSpec(
    name="pubmed_fetch_citation_metrics",
    title="Fetch iCite citation metrics",
    description=(
        "Fetch NIH iCite citation metrics for PubMed articles: Relative Citation Ratio, NIH percentile, citation "
        "counts and rates, translation signals. Use it to judge how influential known papers are; to find "
        "papers, pubmed_search_articles; the papers citing one, pubmed_find_related. iCite does not flag "
        "retractions: check pubmed_fetch_articles. Takes up to 1,000 PMIDs, fetches the first 200; the rest are "
        "listed in overLimit."
    ),
    input_model=_models.CitationMetricsInput,
    output_model=_models.CitationMetricsOutput,
    handler=_tool.fetch_metrics,
    render=_tool.render_metrics,
    guide="PMIDs, want citation counts and RCR",
    toolset="pubmed",  # listed with the PubMed research tools it completes
)


CITATIONS = CitationIndex(
    name="icite",
    title="NIH iCite",
    directions=frozenset({"backward", "forward"}),
    accepts=("pmid",),
    chase=_citations.chase,
    batch=50,  # citations.SEED_BATCH
    requests_per_batch=1,
    rate=service.RATE,
    order=40,
    description="NIH iCite references (backward) and cited_by (forward) PMID lists, 50 PMIDs a request",
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="icite",
        title="NIH iCite",
        description="Citation metrics of PubMed articles from NIH iCite: RCR, NIH percentile, citation rates, "
        "translation signals.",
    )


@hookimpl
def medlit_services():
    return [service.SERVICE]


@hookimpl
def medlit_tools():
    return [TOOL]


@hookimpl
def medlit_citation_indexes():
    return [CITATIONS]
