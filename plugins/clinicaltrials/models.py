"""Output models of the ClinicalTrials.gov tools: a trial's summary, and what a whole record adds."""

from __future__ import annotations

from pydantic import Field

from medlit.core.plugin import ToolOutput


class Reference(ToolOutput):
    pmid: str | None = Field(None, description="PubMed id of the article: read it with pubmed_fetch_articles")
    type: str | None = Field(
        None,
        description="RESULT (reports the trial's results), BACKGROUND, or DERIVED (matched by the registry)",
    )
    citation: str | None = None


class Design(ToolOutput):
    allocation: str | None = Field(None, description="RANDOMIZED, NON_RANDOMIZED or NA")
    interventionModel: str | None = Field(None, description="e.g. PARALLEL, SINGLE_GROUP, CROSSOVER")
    primaryPurpose: str | None = None
    masking: str | None = Field(None, description="NONE, SINGLE, DOUBLE, TRIPLE or QUADRUPLE")
    whoMasked: list[str] = []
    observationalModel: str | None = None
    timePerspective: str | None = None


class Arm(ToolOutput):
    label: str
    type: str | None = Field(None, description="e.g. EXPERIMENTAL, PLACEBO_COMPARATOR, ACTIVE_COMPARATOR")
    description: str | None = None
    interventions: list[str] = []


class Intervention(ToolOutput):
    type: str | None = Field(None, description="e.g. DRUG, DEVICE, BIOLOGICAL, BEHAVIORAL, PROCEDURE")
    name: str
    description: str | None = None
    otherNames: list[str] = []
    arms: list[str] = []


class Eligibility(ToolOutput):
    criteria: str | None = Field(
        None, description="Inclusion and exclusion criteria as registered (plain text)"
    )
    sex: str | None = None
    minimumAge: str | None = None
    maximumAge: str | None = None
    healthyVolunteers: bool | None = None
    ageGroups: list[str] = []


class Outcome(ToolOutput):
    kind: str = Field(description="primary, secondary or other")
    measure: str
    timeFrame: str | None = None
    description: str | None = None


class StatusHistory(ToolOutput):
    firstSubmitted: str | None = None
    firstPosted: str | None = None
    resultsFirstPosted: str | None = None
    lastUpdatePosted: str | None = None
    statusVerified: str | None = None
    whyStopped: str | None = None


class ResultGroup(ToolOutput):
    id: str
    title: str
    value: str | None = Field(None, description="The group's first reported value with its spread")


class ResultMeasure(ToolOutput):
    type: str | None = Field(None, description="PRIMARY, SECONDARY, OTHER_PRE_SPECIFIED or POST_HOC")
    title: str
    timeFrame: str | None = None
    unit: str | None = None
    paramType: str | None = None
    groups: list[ResultGroup] = []


class AdverseEvents(ToolOutput):
    group: str
    seriousAffected: int | None = None
    otherAffected: int | None = None
    atRisk: int | None = None


class Results(ToolOutput):
    outcomes: list[ResultMeasure] = []
    adverseEvents: list[AdverseEvents] = []
    participantsStarted: int | None = Field(None, description="Participants who started, all groups together")


class Detail(ToolOutput):
    briefSummary: str | None = None
    design: Design | None = None
    arms: list[Arm] = []
    interventions: list[Intervention] = []
    eligibility: Eligibility | None = None
    outcomes: list[Outcome] = []
    statusHistory: StatusHistory | None = None
    officials: list[str] = []
    locationCount: int = Field(0, description="Sites registered")
    countries: list[str] = []
    references: list[Reference] = []
    keywords: list[str] = []
    meshTerms: list[str] = Field(
        default_factory=list, description="MeSH terms the registry derived for conditions"
    )
    results: Results | None = Field(
        None, description="Posted results (hasResults); absent when none are posted"
    )


class Trial(ToolOutput):
    nctId: str = Field(description="Registry number, e.g. NCT04280705")
    url: str
    title: str | None = None
    officialTitle: str | None = None
    acronym: str | None = None
    status: str | None = Field(None, description="Overall status, e.g. RECRUITING, COMPLETED, TERMINATED")
    studyType: str | None = None
    phases: list[str] = []
    conditions: list[str] = []
    interventions: list[str] = Field(default_factory=list, description="'TYPE: name', e.g. 'DRUG: Toca FC'")
    enrollment: int | None = None
    enrollmentType: str | None = Field(None, description="ACTUAL or ESTIMATED")
    startDate: str | None = None
    primaryCompletionDate: str | None = None
    completionDate: str | None = None
    sponsor: str | None = None
    hasResults: bool | None = Field(None, description="Results are posted on ClinicalTrials.gov")
    pmids: list[str] = Field(
        default_factory=list,
        description="PubMed ids the record links (its references): pubmed_fetch_articles",
    )
    aliases: list[str] = Field(default_factory=list, description="Older NCT numbers merged into this one")
    detail: Detail | None = Field(None, description="The whole record, with detail 'full'")


class SearchOutput(ToolOutput):
    trials: list[Trial]
    totalCount: int | None = Field(None, description="Studies matching across all pages (first page only)")
    returned: int
    nextPageToken: str | None = Field(
        None, description="Pass as pageToken for the next page; absent on the last"
    )
    query: dict[str, str] = Field(description="The parameters sent to ClinicalTrials.gov")
    searchUrl: str
    notice: str | None = None


class FetchOutput(ToolOutput):
    trials: list[Trial]
    notFound: list[str] = Field(
        default_factory=list, description="NCT numbers ClinicalTrials.gov does not know"
    )
    detail: str
    notice: str | None = None
