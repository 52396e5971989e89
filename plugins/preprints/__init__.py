"""bioRxiv and medRxiv provider plugin: preprints by DOI with every version and the journal
article each became (api.biorxiv.org), and a preprint search over Europe PMC's preprint records
run through the Europe PMC plugin's search source. Full text goes through the full-text chain
like any article (Europe PMC carries many preprints' text)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import PluginInfo, SearchSource, SettingSpec, ToolSpec, hookimpl, lazy_module

from . import service

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import inputs as _inputs
    from . import lookup_tool as _lookup_tool
    from . import models as _models
    from . import review_source as _review_source
    from . import search_tool as _search_tool
else:  # run time: each attribute is a lazy reference, imported at its first use
    _inputs = lazy_module(".inputs", __name__)
    _lookup_tool = lazy_module(".lookup_tool", __name__)
    _models = lazy_module(".models", __name__)
    _review_source = lazy_module(".review_source", __name__)
    _search_tool = lazy_module(".search_tool", __name__)

FAMILY = "preprints"

# No `capabilities`: they name the article tools other workflows point to ("search", "records");
# a trial or a preprint's versions are not what those pointers promise.
LOOKUP_TOOL = ToolSpec(
    name="preprints_lookup",
    title="Look up bioRxiv and medRxiv preprints",
    description=(
        "Look up bioRxiv and medRxiv preprints by DOI: every version (date, title changes, licence, category) "
        "and the journal article the preprint became. Use it "
        "to check whether a preprint was revised or published, and cite the journal version; to find preprints "
        "by topic use preprints_search; to read one, pubmed_fetch_fulltext with the DOI; for the journal "
        "article's record pubmed_fetch_articles. Up to 100 DOIs a call, about 3 a second: DOIs not reached "
        "in time come back in deferred (call again with them), failed look-ups in failed, unknown DOIs in "
        "notFound."
    ),
    input_model=_inputs.LookupInput,
    output_model=_models.LookupOutput,
    handler=_lookup_tool.lookup_preprints,
    render=_lookup_tool.render_lookup,
    guide="preprint DOIs, want every version and the journal article it became",
    toolset=FAMILY,
)

SEARCH_TOOL = ToolSpec(
    name="preprints_search",
    title="Search preprints",
    description=(
        "Search preprints only (bioRxiv, medRxiv, SSRN...) in Europe PMC's preprint "
        "records (as pubmed_europepmc_search with sources=['PPR']), each hit with its DOI and server. Use it for new "
        "evidence not yet in journals; for journals and preprints together use pubmed_europepmc_search "
        "(europepmc family), for versions and the published article preprints_lookup with the hits' DOIs, for "
        "full text pubmed_fetch_fulltext. Page "
        "with cursor = nextCursor (absent on the last page). No match is an empty result with a notice."
    ),
    input_model=_inputs.SearchInput,
    output_model=_models.SearchOutput,
    handler=_search_tool.search_preprints,
    render=_search_tool.render_search,
    guide="preprints by topic (bioRxiv, medRxiv and others, through Europe PMC)",
    toolset=FAMILY,
)

GUIDE = """\
- `preprints_lookup` takes DOIs (`10.1101/...`) and answers every version and the journal article.
- `preprints_search` searches Europe PMC's preprint records (SRC:PPR) in Europe PMC syntax.
- A preprint and its journal article are two reports of one study: cite the journal version when there is one.
"""


# A review search source (issue 54): Europe PMC's preprint records, each bioRxiv/medRxiv one with the
# journal article it became in study_links, so a review set links the two (never merges them).
SEARCH_SOURCE = SearchSource(
    name="preprints",
    title="Preprints (Europe PMC, bioRxiv, medRxiv)",
    run=_review_source.run_preprints,
    syntax="Europe PMC syntax, preprints only",
    order=60,
    batch=100,  # one bioRxiv request per preprint on the page, at bioRxiv's pace
    timeout=120.0,
    description="Europe PMC preprint search, each bioRxiv/medRxiv preprint's journal article looked up by DOI.",
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="preprints",
        title="bioRxiv and medRxiv preprints",
        description="Preprints by DOI with every version and the journal article, and preprint search.",
        guide=GUIDE,
        host_services=True,  # preprints_search runs Europe PMC's search source through ctx.host
        toolsets={
            FAMILY: "bioRxiv/medRxiv versions and published articles by DOI; preprint search.",
        },
        settings=(
            SettingSpec(
                service.RATE_SETTING,
                f"bioRxiv API requests/s (default {service.RATE:g}); above it only with MEDLIT_BASE_URL_BIORXIV "
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
    return [LOOKUP_TOOL, SEARCH_TOOL]


@hookimpl
def medlit_search_sources():
    return [SEARCH_SOURCE]
