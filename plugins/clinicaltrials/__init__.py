"""ClinicalTrials.gov provider plugin: study search and records by NCT number (API v2), and the
register as a review search source (PRISMA's registers box). Its tools form the ``trials`` family,
listed once a model asks for it, so the default tool list stays within its budget."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import PluginInfo, SearchSource, SettingSpec, ToolSpec, hookimpl, lazy_module

from . import service

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import fetch_tool as _fetch_tool
    from . import inputs as _inputs
    from . import models as _models
    from . import review_source as _review_source
    from . import search_tool as _search_tool
else:  # run time: each attribute is a lazy reference, imported at its first use
    _fetch_tool = lazy_module(".fetch_tool", __name__)
    _inputs = lazy_module(".inputs", __name__)
    _models = lazy_module(".models", __name__)
    _review_source = lazy_module(".review_source", __name__)
    _search_tool = lazy_module(".search_tool", __name__)

FAMILY = "trials"

# No `capabilities`: they name the article tools other workflows point to ("search", "records");
# a trial or a preprint's versions are not what those pointers promise.
SEARCH_TOOL = ToolSpec(
    name="clinicaltrials_search",
    title="Search ClinicalTrials.gov",
    description=(
        "Search ClinicalTrials.gov (ongoing, unpublished and completed trials) for trial summaries (status, "
        "phase, dates, sponsor, linked PMIDs). Articles: "
        "pubmed_search_articles; known NCT numbers: clinicaltrials_fetch; every study into a review set: "
        "review_search (review family). Give at least one criterion; criteria AND together, status and phase "
        "match any value. "
        "Page with pageToken = nextPageToken (absent on the last page). No match: an empty result; bad Essie "
        "syntax: invalid_argument."
    ),
    input_model=_inputs.SearchInput,
    output_model=_models.SearchOutput,
    handler=_search_tool.search_trials,
    render=_search_tool.render_search,
    guide="trials in a register by condition, drug, status, phase, place or date",
    toolset=FAMILY,
)

FETCH_TOOL = ToolSpec(
    name="clinicaltrials_fetch",
    title="Fetch ClinicalTrials.gov records",
    description=(
        "Read ClinicalTrials.gov records by NCT number, several in one request, at the `detail` asked. Use it for NCT numbers from "
        "clinicaltrials_search or a paper; to find trials use "
        "clinicaltrials_search, to read the linked articles pubmed_fetch_articles with the pmids. Up to 50 "
        "numbers a call, 10 with 'full'; numbers the register does not know are listed in notFound, an old "
        "number merged into another answers with the current record (aliases)."
    ),
    input_model=_inputs.FetchInput,
    output_model=_models.FetchOutput,
    handler=_fetch_tool.fetch_trials,
    render=_fetch_tool.render_fetch,
    guide="NCT numbers, want the trial's record (eligibility, outcomes, results)",
    toolset=FAMILY,
)

SEARCH_SOURCE = SearchSource(
    name="clinicaltrials",
    title="ClinicalTrials.gov",
    run=_review_source.run_clinicaltrials,
    syntax="Essie syntax (AREA[Phase]PHASE3)",
    order=40,
    batch=1000,
    description="/studies query.term with pageToken paging, 1,000 studies a request.",
    kind="register",
)

GUIDE = """\
- Search fields: `condition` (query.cond), `intervention` (query.intr), `terms` (query.term, Essie
  syntax: `AREA[LeadSponsorName]Pfizer`, `AREA[StartDate]RANGE[2020-01-01,MAX]`), `location`;
  filters `status`, `phase`, `startFrom`/`startTo`, `advanced` (filter.advanced: `AREA[StudyType]INTERVENTIONAL`).
- Trials link their publications by PMID (`pmids`); a trial's articles cite its NCT number.
- `clinicaltrials_fetch` with detail 'full' reads eligibility, outcomes and posted results.
"""


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="clinicaltrials",
        title="ClinicalTrials.gov",
        description="ClinicalTrials.gov study search and records, and the register as a review search source.",
        guide=GUIDE,
        toolsets={
            FAMILY: "Trial registers: ClinicalTrials.gov search and study records by NCT number.",
        },
        id_links={"nct": "https://clinicaltrials.gov/study/{id}"},
        settings=(
            SettingSpec(
                service.RATE_SETTING,
                f"ClinicalTrials.gov requests/s (default {service.RATE:g}); above it only with "
                "MEDLIT_BASE_URL_CLINICALTRIALS (tests)",
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
def medlit_search_sources():
    return [SEARCH_SOURCE]
