"""Inputs and outputs of the review tools."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, PrivateAttr, StringConstraints, model_validator

from medlit.core.plugin import ArgumentError, ToolInput, ToolOutput, outputs

from .screening.stopping import Estimate

SET_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,79}$")
PAGE_MAX = 200


def _set_name(value: str) -> str:
    if not SET_NAME_RE.match(value) or ".." in value:
        raise ArgumentError(
            f"Set name {value[:80]!r} is not allowed: use 1-80 letters, digits, spaces, '-', '_' or '.' "
            "(no '/', '\\\\' or '..'; it becomes the export file name)",
            "Choose a name such as 'asthma-children-2024'.",
            reason="invalid_set_name",
        )
    return value


SetName = Annotated[
    str,
    StringConstraints(min_length=1, max_length=80),
    AfterValidator(_set_name),
    Field(description="Set name (review_sets lists them). Example: 'kids'"),
]
Query = Annotated[str, StringConstraints(min_length=1, max_length=4000)]


# The sources the built-in plugins declare, named as properties: a map with no properties is
# refused by single-type dialects (Gemini's function declarations); another plugin's source is
# still accepted (additionalProperties), and the description lists every source served.
NAMED_SOURCES = ("pubmed", "europepmc", "pubtator", "clinicaltrials", "preprints")


def _named_sources(schema: dict[str, Any]) -> None:
    query = {"type": "string", "maxLength": 4000}
    schema["properties"] = {name: dict(query) for name in NAMED_SOURCES}


class SearchInput(ToolInput):
    set: SetName
    queries: dict[Annotated[str, StringConstraints(max_length=40)], Query] | None = Field(
        None,
        max_length=8,
        description="Source -> query in its syntax (sources in the description; others refused); omit to see "
        "the set or resume. "
        'Example: {"pubmed": "stem cell*[tiab] AND knee[tiab]"}',
        json_schema_extra=_named_sources,
    )
    splitByDate: bool = Field(
        False,
        description="Fetch past a source's window (PubMed: 10,000 records) in date slices; without it: refused",
    )
    update: bool = Field(
        False,
        description="Living review: re-run the searches as a new run (decisions kept; `new`: what it adds)",
    )
    updateEvery: int | None = Field(
        None,
        ge=0,
        le=365,
        description="Re-run the searches every N days in the server (0 stops). Example: 30",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class SourceReport(ToolOutput):
    source: str
    query: str
    run: int
    ranAt: str = Field(description="UTC time the search started")
    found: int | None = Field(None, description="Records the query finds at the source")
    fetched: int = Field(description="Records fetched and stored so far")
    state: Literal["running", "complete", "failed", "refused", "paused"]
    reason: str | None = Field(None, description="Why it failed or was refused, machine-readable")
    retryable: bool | None = None
    error: str | None = None
    notice: str | None = None


class SetState(ToolOutput):
    set: str
    sources: list[SourceReport]
    identified: int = Field(description="Records fetched across the latest searches, before deduplication")
    duplicatesRemoved: int
    duplicatesByRule: dict[str, int] = Field(
        description="Duplicates by what matched them: pmid, doi, pmcid, title (the bibliographic fields), manual"
    )
    unique: int = Field(description="Distinct records the latest searches found")
    total: int = Field(description="Records in the set")
    new: int | None = Field(None, description="Records of this run not in the set before")
    droppedIncludes: list[int] | None = Field(
        None,
        description="update: keys of records included earlier that the searches found before and the latest "
        "run no longer retrieves (check the revised queries)",
    )
    updateEvery: int | None = Field(
        None, description="Days between the updates the server runs (updateEvery)"
    )
    nextUpdate: str | None = Field(None, description="UTC time the server runs the next update")
    lastUpdate: str | None = Field(None, description="How the last update the server ran ended, and when")
    complete: bool
    running: bool = Field(description="A search goes on in the server; call with only `set` for its state")
    notice: str | None = None


# -- imports --------------------------------------------------------------------------------------

ImportFormat = Literal[
    "auto",
    "ris",
    "medline",
    "endnote_xml",
    "wos",
    "wos_tab",
    "bibtex",
    "csljson",
    "csv",
    "tsv",
    "ovid",
    "ovid_tagged",
    "refer",
    "refworks",
]
CONTENT_MAX = 8_000_000  # characters of one part of a file sent in the call


class ImportInput(ToolInput):
    set: SetName
    database: Annotated[str, StringConstraints(min_length=1, max_length=80)] = Field(
        description="Database searched (PRISMA name). Example: 'Embase'"
    )
    # kept as sent (no whitespace stripped): a part's edge may fall inside a record's line
    content: (
        Annotated[str, StringConstraints(strip_whitespace=False, min_length=1, max_length=CONTENT_MAX)] | None
    ) = Field(
        None,
        description="The file's text. Example: 'TY  - JOUR\\nTI  - Asthma\\nER  - '",
    )
    path: Annotated[str, StringConstraints(min_length=1, max_length=4096)] | None = Field(
        None,
        description="Server file under MEDLIT_IMPORT_DIRS, for an export too long for content (unset: see "
        "instructions). Example: '~/e.ris'",
    )
    contentEncoding: Literal["text", "base64"] = Field(
        "text", description="base64: non-UTF-8 bytes (UTF-16...). Example: 'base64'"
    )
    fileName: Annotated[str, StringConstraints(max_length=255)] | None = Field(
        None, description="content's file name. Example: 's.csv'"
    )
    part: int = Field(
        1,
        ge=1,
        le=1000,
        description="Piece no. if a call's size is limited (1-based, in order; same set/database). Example: 2",
    )
    parts: int = Field(1, ge=1, le=1000, description="Parts in all. Example: 3")
    format: ImportFormat = Field(
        "auto",
        description="auto (default); medline: .nbib; wos/wos_tab: WoS plain/tab; csv/tsv: header row (Scopus...); "
        "ovid/ovid_tagged: Ovid labels/tags; refer: .enw. "
        "Example: 'ris'",
    )
    searchedOn: Annotated[str, StringConstraints(max_length=10, pattern=r"^\d{4}-\d{2}-\d{2}$")] | None = (
        Field(
            None,
            description="Search date, for the PRISMA-S log (ask the user). Example: '2026-11-30'",
        )
    )
    query: Annotated[str, StringConstraints(max_length=20_000)] | None = Field(
        None,
        description="The search as run there. Example: \"'asthma'/exp\"",
    )
    interface: Annotated[str, StringConstraints(max_length=80)] | None = Field(
        None, description="Platform searched on. Example: 'Ovid'"
    )
    sourceKind: Literal["database", "register", "other"] | None = Field(
        None,
        description="PRISMA route if the name doesn't tell. Example: 'register'",
    )

    cancel: bool = Field(
        False,
        description="true: drop the parts held.",
    )

    @model_validator(mode="after")
    def _one_file(self) -> ImportInput:
        if self.cancel:
            if self.path is not None or self.content is not None:
                raise ValueError("cancel=true takes no `path` or `content` (it drops the parts received)")
            return self
        if self.path is not None and self.content is not None:
            raise ValueError(
                "give the export file as either `path` (a file on this machine, local server) or `content`, "
                "not both (neither: the state of this database's import)"
            )
        return self

    recordsReported: int | None = Field(
        None,
        ge=0,
        le=10_000_000,
        description="Hits the database showed (checked). Example: 1200",
    )
    fillMissing: bool = Field(
        True, description="Fill missing abstracts/titles from PubMed/Crossref; default true"
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class FillFailure(ToolOutput):
    ids: str = Field(description="The ids the providers were asked by: 'PMIDs' or 'DOIs'")
    records: int = Field(description="Records left as the file gave them")
    message: str = Field(description="Why: the provider's error, or that none serves these ids")


class SkippedRecord(ToolOutput):
    position: int = Field(description="The record's position in the file (1-based)")
    id: str | None = Field(None, description="Its own id in the file, when it has one")
    reason: str


class ImportOutput(ToolOutput):
    set: str
    database: str
    fileName: str
    format: str = Field(description="The format the file was read as")
    recordsInFile: int = Field(description="Records in the file: stored + skipped")
    stored: int = Field(
        description="Records of the file stored so far (new or merged into one already there)"
    )
    newRecords: int = Field(description="Stored as records the set did not have")
    duplicates: int = Field(description="Stored as duplicates of records the set had (merged into them)")
    skipped: int = Field(description="Records that could not be read (listed in skippedRecords)")
    skippedRecords: list[SkippedRecord] = Field(default_factory=list, description="The first 50 skipped")
    total: int = Field(description="Records in the set now")
    complete: bool = Field(description="Every record of the file is stored")
    running: bool = Field(description="The import goes on in the server; call again for its state")
    filled: dict[str, dict[str, int]] | None = Field(
        None,
        description="Fields given by metadata providers: records per field and provider, e.g. "
        "{'abstract': {'pubmed': 120}}; absent with fillMissing=false",
    )
    fillFailed: list[FillFailure] | None = Field(
        None, description="Providers that failed: records not filled"
    )
    notice: str | None = None


class MergeRef(ToolInput):
    source: Annotated[str, StringConstraints(min_length=1, max_length=80)] = Field(
        description="Example: 'Embase'"
    )
    id: Annotated[str, StringConstraints(min_length=1, max_length=200)] = Field(
        description="Example: 'L2004123456'"
    )


class MergeInput(ToolInput):
    set: SetName
    action: Literal["split", "join", "log"] = Field(
        description="split (key, inputs), join (keys) or log. Example: 'log'"
    )
    key: int | None = Field(
        None, ge=0, le=2**53 - 1, description="split: the record's key (review_records). Example: 12"
    )
    inputs: list[MergeRef] | None = Field(
        None,
        min_length=1,
        max_length=50,
        description='split: 1-50 mergedFrom entries to move out. Example: [{"source": "Embase", "id": "L1"}]',
    )
    keys: list[Annotated[int, Field(ge=0, le=2**53 - 1)]] | None = Field(
        None,
        min_length=2,
        max_length=20,
        description="join: 2-20 keys of one work. Example: [12, 40]",
    )
    reviewer: Annotated[
        str, StringConstraints(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.@\-]*$")
    ] = Field("model", description="Who rules (logged); default 'model'. Example: 'Dr Lee'")
    reason: Annotated[str, StringConstraints(max_length=2000)] | None = Field(
        None, description="Why (logged). Example: 'erratum of 12'"
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @model_validator(mode="after")
    def _what_the_action_needs(self) -> MergeInput:
        if self.action == "split" and (self.key is None or not self.inputs):
            raise ValueError("split needs `key` (the record) and `inputs` (from its mergedFrom)")
        if self.action == "join" and not self.keys:
            raise ValueError("join needs `keys`: two or more records that are one work")
        return self


class MergeLogEntry(ToolOutput):
    action: str
    detail: str
    reviewer: str
    at: str


class MergeOutput(ToolOutput):
    set: str
    action: str
    keys: list[int] = Field(
        default_factory=list, description="The records after the ruling (split: old, new)"
    )
    records: list[SetRecord] = Field(default_factory=list)
    log: list[MergeLogEntry] = Field(default_factory=list)
    notice: str | None = None


class RecordsInput(ToolInput):
    set: SetName
    offset: int = Field(0, ge=0, le=10_000_000, description="First record (0-based). Example: 50")
    limit: int = Field(50, ge=1, le=PAGE_MAX, description="Records per page. Example: 100")
    source: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        None, description="Only records from this source or imported database. Example: 'Embase'"
    )
    yearFrom: int | None = Field(None, ge=1000, le=2100, description="Example: 2015")
    yearTo: int | None = Field(None, ge=1000, le=2100, description="Example: 2024")
    hasAbstract: bool | None = Field(None, description="true: with an abstract; false: without")
    decision: Decision | None = Field(
        None, description="Only records decided so at `stage`. Example: 'include'"
    )
    stage: Stage = Field(
        "title_abstract", description="Stage of decision/conflicts/undecided. Example: 'full_text'"
    )
    conflicts: bool = Field(False, description="Only records reviewers disagree on")
    merged: bool = Field(
        False,
        description="Only records merged from duplicates, title matches first (mergedFrom[].evidence: why; "
        "brief too)",
    )
    undecided: bool = Field(False, description="No decision yet (full_text: among title/abstract includes)")
    reviewer: Reviewer | None = Field(
        None, description="decision/undecided of this reviewer. Example: 'Dr Lee'"
    )
    brief: bool = Field(True, description="Title, first author, year, ids; false adds abstracts (to screen)")
    order: Literal["key", "priority", "seeds"] = Field(
        "key",
        description="key (set order), priority (likeliest includes first), seeds (chased, most seeds first). "
        "Example: 'priority'",
    )
    criteria: Annotated[str, StringConstraints(max_length=4000)] | None = Field(
        None,
        description="priority: criteria to rank by (default: the set's). Example: 'RCTs, adults'",
    )
    maxResponseCharacters: int = Field(
        40_000, ge=2_000, le=200_000, description="JSON budget of the page. Example: 20000"
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class InputRecord(ToolOutput):
    source: str
    id: str
    evidence: str | None = Field(
        None,
        description="Why the matcher merged this input record into the record: the rule and the fields that "
        "agreed, e.g. 'doi 10.1/x + title 0.97' or 'title 0.98 + authors + year + journal'; absent for "
        "the record's first input record",
    )


class RemainingIncludes(ToolOutput):
    estimate: int = Field(description="Includes expected among the unscreened records")
    upper95: int = Field(description="Upper 95% bound of the includes still unscreened")


class StoppingSample(ToolOutput):
    """The random sample that gives the stop its guarantee once the ranked yield fell."""

    size: int = Field(description="Sample records the guarantee needs in all; grows if one is an include")
    screened: int = Field(description="Sample records decided so far")
    includes: int = Field(description="Includes among them")
    toScreen: int = Field(description="Sample records still to screen")
    servedFirst: bool = Field(description="The priority page serves them first: the cheaper route")


class ScreeningEstimate(ToolOutput):
    screened: int = Field(description="Records with a title/abstract decision")
    includesFound: int = Field(
        description="Title/abstract includes (maybe and conflicts counted as includes)"
    )
    remainingIncludes: RemainingIncludes
    recallEstimate: float | None = Field(None, description="includesFound / (includesFound + estimate)")
    safeToStop: bool = Field(description="Recall of 95% is reached with 95% confidence (see method)")
    pValue: float | None = Field(None, description="The stopping test's p-value for 'recall < 95%'")
    method: str
    # issue 51: a stop advised on a heuristic, and what the guarantee costs
    stopBasis: Literal["ranked test", "random sample", "knee"] | None = Field(
        None,
        description="Why stopping is advised: 'ranked test' or 'random sample' (guaranteed: safeToStop), "
        "'knee' (a heuristic, no guarantee; see advice); null: not yet",
    )
    stopAdvised: bool = Field(False, description="safeToStop, or the knee heuristic advises stopping")
    rankedToGo: int | None = Field(
        None,
        description="After the knee: records in priority order the ranked test needs if none is an include",
    )
    sample: StoppingSample | None = Field(
        None, description="After the knee: the random sample for the guarantee"
    )
    advice: str = Field(
        "", description="What the rule says in plain words: its basis, the sample's cost and why"
    )


def screening_estimate(e: Estimate) -> ScreeningEstimate:
    return ScreeningEstimate(
        screened=e.screened,
        includesFound=e.includes_found,
        remainingIncludes=RemainingIncludes(estimate=e.remaining_estimate, upper95=e.remaining_upper95),
        recallEstimate=e.recall_estimate,
        safeToStop=e.safe_to_stop,
        pValue=e.p_value,
        method=e.method,
        stopBasis=e.basis,
        stopAdvised=e.advised,
        rankedToGo=e.ranked_to_go,
        sample=StoppingSample(
            size=e.sample_size,
            screened=e.sample_screened,
            includes=e.sample_includes,
            toScreen=len(e.sample_keys),
            servedFirst=e.sample_first,
        )
        if e.sample_size
        else None,
        advice=e.advice,
    )


class StudyReport(ToolOutput):
    """Another report of a record's study in the set, linked to it by a shared identifier."""

    key: int = Field(description="The other record's key in the set")
    relation: Literal["registration", "article", "preprint", "report"] = Field(
        description="What the other record is: a trial registration, a journal article, a preprint, another report"
    )
    via: str = Field(
        description="The identifier linking the two, e.g. 'NCT01234567', 'PMID 12345678', 'DOI 10.1/x'"
    )


class SetRecord(ToolOutput):
    key: int = Field(description="The record's key in the set")
    title: str | None = None
    authors: str | None = None
    journal: str | None = None
    year: int | None = None
    pmid: str | None = None
    pmcid: str | None = None
    doi: str | None = None
    sources: list[str]
    mergedFrom: list[InputRecord] | None = Field(
        None, description="The input records merged into this one as [{source, id}], the one kept first"
    )
    publicationTypes: list[str] | None = None
    language: str | None = None
    abstract: str | None = None
    filled: dict[str, str] | None = Field(
        None, description="Fields a metadata provider gave at import, not the source: {'abstract': 'pubmed'}"
    )
    score: float | None = Field(
        None,
        description="priority order: the model's score of inclusion (0-1); absent for a record without text",
    )
    decisions: list[ScreenDecision] | None = None
    sample: bool | None = Field(
        None,
        description="priority: one of the stopping rule's random-sample records (screen it as any other)",
    )
    retrieval: RetrievalState | None = None
    # Reports of one study (issue 54): linked records, never merged
    registrations: list[str] | None = Field(
        None, description="Trial registration numbers the record is or names, e.g. ['NCT01234567']"
    )
    reports: list[StudyReport] | None = Field(
        None,
        description="Other records of the set reporting the same study (a trial's registration and its "
        "articles, a preprint and its journal article): screen them together",
    )
    study: int | None = Field(
        None,
        description="The study's key: the smallest key among the records reporting it (directly or through "
        "others); absent when the record is its study's only report",
    )

    foundVia: list[list[str]] | None = Field(
        None,
        description="Citation searching (review_chase): [seed, direction, index] for each way it was found",
    )
    seedsCiting: int | None = Field(None, description="review_chase: seeds that cite it (co-citation)")
    seedsCited: int | None = Field(None, description="review_chase: seeds it cites (coupling)")


class RankingProgress(ToolOutput):
    """order='priority' while the set's ranking runs: no page yet, ask again later."""

    state: Literal["running"] = Field(description="running: the set's ranking job is under way")
    percent: int = Field(description="The share of the ranking done, 0-99")
    askAgainSeconds: int = Field(
        description="The ranking's estimated time left; the same call again waits for it"
    )
    runningSeconds: float = Field(description="How long the ranking has been running")


class Agreement(ToolOutput):
    reviewers: list[str]
    both: int = Field(description="Records both decided")
    agreed: int
    percent: float
    kappa: float | None = Field(None, description="Cohen's kappa")


class RecordsOutput(ToolOutput):
    set: str
    total: int = Field(description="Records matching the filters")
    offset: int
    records: list[SetRecord]
    nextOffset: int | None = None
    complete: bool = Field(description="Whether the set's latest searches all finished")
    ranking: Literal["classifier", "similarity", "none"] | None = Field(
        None, description="priority: how the page was ranked (none: not ranked, see notice)"
    )
    screeningEstimate: ScreeningEstimate | None = Field(
        None, description="priority: the stopping test over the title/abstract decisions so far"
    )
    rankingProgress: RankingProgress | None = Field(
        None, description="priority: the set's ranking is still running (no records yet); ask again then"
    )
    agreement: list[Agreement] | None = Field(None, description="conflicts: each reviewer pair's agreement")
    notice: str | None = None


class ExportInput(ToolInput):
    set: SetName
    format: Literal["ris", "bibtex", "csljson", "nbib", "csv", "rayyan_csv", "endnote_xml"] = Field(
        description="Covidence: ris, nbib, endnote_xml; Rayyan: ris, rayyan_csv; Zotero: ris, bibtex, csljson; "
        "csv: every field. Example: 'ris'"
    )
    decision: Decision | None = Field(
        None, description="Only records decided so at `stage`. Example: 'include'"
    )
    stage: Stage = Field("title_abstract", description="Stage `decision` is about. Example: 'full_text'")
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class ExportOutput(ToolOutput):
    set: str
    format: str
    path: str = Field(
        description="The file on the server's disk for the local user; for a remote (HTTP) principal "
        "only its name: read it through uri"
    )
    uri: str = Field(description="The file as an MCP resource (resources/read)")
    records: int
    bytes: int
    logPath: str = Field(description="The search log's path, or its name for a remote principal")
    logUri: str = Field(description="The PRISMA-S search log written with it")
    complete: bool
    notice: str | None = None
    mimeType: str

    def resource_links(self) -> list[outputs.ResourceLink]:
        name = self.path.rsplit("/", 1)[-1]
        return [
            outputs.ResourceLink(
                uri=self.uri,
                name=name,
                mimeType=self.mimeType,
                title=f"{self.set} ({self.format})",
                size=self.bytes,
            ),
            outputs.ResourceLink(
                uri=self.logUri,
                name=self.logPath.rsplit("/", 1)[-1],
                mimeType="text/markdown",
                title=f"{self.set} search log",
            ),
        ]


Term = Annotated[str, StringConstraints(min_length=1, max_length=80)]


class SetsInput(ToolInput):
    action: Literal["list", "rename", "delete", "settings"] = Field(
        "list",
        description="list, rename (set, newName), delete (set, confirm), settings (set; writes those given). "
        "Example: 'list'",
    )
    set: SetName | None = Field(None, description="The set (not for list). Example: 'kids'")
    newName: SetName | None = Field(None, description="rename: the new name. Example: 'kids-v2'")
    confirm: Annotated[str, StringConstraints(max_length=80)] | None = Field(
        None, description="delete: the set's name again. Example: 'kids'"
    )
    criteria: Annotated[str, StringConstraints(max_length=4000)] | None = Field(
        None, description="Criteria priority ranking uses. Example: 'RCTs, adults'"
    )
    includeTerms: list[Term] | None = Field(
        None,
        max_length=50,
        description="Words the screening page highlights as for inclusion. Example: ['statin']",
    )
    excludeTerms: list[Term] | None = Field(
        None, max_length=50, description="Words it highlights as against. Example: ['erratum']"
    )
    blind: bool | None = Field(
        None,
        description="Reviewers see only their own decisions",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class SetSettings(ToolOutput):
    criteria: str = ""
    includeTerms: list[str] = Field(default_factory=list)
    excludeTerms: list[str] = Field(default_factory=list)
    blind: bool = False


class PendingUpload(ToolOutput):
    database: str = Field(description="The database whose file is being sent in parts")
    partsReceived: int = Field(description="Parts the server holds")
    parts: int = Field(description="Parts in all")
    bytes: int = Field(description="Bytes held")
    since: str = Field(description="When its first held part arrived (UTC)")


class SetSummary(ToolOutput):
    set: str
    total: int
    runs: int
    complete: bool
    running: bool
    updatedAt: str
    sources: list[str]
    updateEvery: int | None = Field(
        None, description="Days between the updates the server runs (updateEvery)"
    )
    nextUpdate: str | None = Field(None, description="UTC time the server runs the next update")
    uploads: list[PendingUpload] = Field(
        default_factory=list,
        description="Files being sent in parts (review_import part/parts), not yet imported: they expire "
        "after a day without a new part (as the server sets it); review_import cancel=true drops one",
    )


class SetsOutput(ToolOutput):
    action: str
    sets: list[SetSummary] = Field(default_factory=list)
    renamed: str | None = None
    deleted: str | None = None
    deletedRecords: int | None = None
    settings: SetSettings | None = None
    store: str = Field(description="The store's backend (sqlite or postgresql)")
    notice: str | None = None


# -- screening ----------------------------------------------------------------------------------

Reviewer = Annotated[
    str,
    StringConstraints(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.@\-]*$"),
]
Stage = Literal["title_abstract", "full_text"]
# A record key is a BIGINT row id; bounded where JSON clients still read integers exactly (2^53),
# so a larger one is refused as an argument rather than overflowing the database driver.
KEY_MAX = 2**53 - 1
Decision = Literal["include", "exclude", "maybe"]


def _vocabulary(*values: str) -> Any:
    """The schema lists the vocabulary; validation stays loose (an item outside it is refused on
    its own, the rest recorded)."""

    def advertise(schema: dict[str, Any]) -> None:
        schema.pop("anyOf", None)
        schema.pop("maxLength", None)
        schema.update(type="string", enum=list(values))

    return advertise


def _reason_categories(schema: dict[str, Any]) -> None:
    from .screening.decisions import REASON_CATEGORIES  # the labels' one list (imported when listed)

    _vocabulary(*REASON_CATEGORIES)(schema)


class ScreenItem(ToolInput):
    # Loose on purpose: an item outside the vocabulary is refused on its own, the rest recorded.
    id: Annotated[int, Field(ge=0, le=KEY_MAX)] | Annotated[str, StringConstraints(max_length=200)] = Field(
        description="The record's key (review_records) or its PMID, DOI or PMCID"
    )
    stage: Annotated[str, StringConstraints(max_length=40)] = Field(
        description="Example: 'title_abstract'",
        json_schema_extra=_vocabulary("title_abstract", "full_text"),
    )
    decision: Annotated[str, StringConstraints(max_length=40)] = Field(
        description="maybe: pending (PRISMA) until decided again, before full text. Example: 'exclude'",
        json_schema_extra=_vocabulary("include", "exclude", "maybe"),
    )
    # Up to 20,000 validates so that a long reason is refused on its own item (reason_too_long);
    # the schema states what is kept, screening.MAX_REASON (a test holds the two together).
    reason: Annotated[str, StringConstraints(max_length=20_000)] | None = Field(
        None, description="Why, in a few words. Example: 'not COPD'", json_schema_extra={"maxLength": 2000}
    )
    reasonCategory: Annotated[str, StringConstraints(max_length=60)] | None = Field(
        None,
        description="Needed to exclude at full_text (not_retrievable: counted once, as not retrieved). "
        "Example: 'wrong_population'",
        json_schema_extra=_reason_categories,
    )


class ScreenInput(ToolInput):
    set: SetName
    decisions: list[ScreenItem] = Field(
        min_length=1,
        max_length=200,
        description="Up to 200: id, stage, decision, reason. "
        'Example: [{"id": 1, "stage": "title_abstract", "decision": "exclude", "reason": "adults"}]',
    )
    reviewer: Reviewer = Field(
        "model",
        description="Who decides: 'model' (default), a person, 'final' (settles conflicts). Example: 'Dr Lee'",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class Refused(ToolOutput):
    index: int = Field(description="The item's place in decisions (0-based)")
    id: int | str
    reason: str


class Conflict(ToolOutput):
    key: int
    stage: str
    decisions: dict[str, str] = Field(description="Reviewer -> decision")


class ScreenOutput(ToolOutput):
    set: str
    reviewer: str
    decidedAt: str
    recorded: int = Field(description="Decisions new for this reviewer")
    replaced: int = Field(description="Decisions that replaced this reviewer's earlier ones")
    refused: list[Refused] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(
        default_factory=list, description="Records of this call the reviewers disagree on (no final decision)"
    )
    conflictsInSet: int | None = Field(description="Unresolved conflicts in the set (null for a blind set)")
    notice: str | None = None


class ScreenDecision(ToolOutput):
    stage: str
    reviewer: str
    decision: str
    reasonCategory: str | None = None
    reason: str | None = None
    decidedAt: str


class RetrievalState(ToolOutput):
    state: Literal["retrieved", "not_retrieved", "failed"]
    tier: str | None = Field(None, description="The tier that served it")
    source: str | None = None
    reason: str | None = Field(None, description="Why not (the chain's most specific reason)")
    triedTiers: list[dict[str, str]] | None = Field(None, description="Every step: tier, outcome, detail")
    institutionalLink: str | None = Field(None, description="The user's library (OpenURL) link")
    checkedAt: str


# -- full-text retrieval ------------------------------------------------------------------------

RETRIEVE_MAX = 25


class RetrieveInput(ToolInput):
    set: SetName
    limit: int = Field(
        RETRIEVE_MAX, ge=1, le=RETRIEVE_MAX, description="Records this call, at most 25. Example: 10"
    )
    retry: bool = Field(False, description="Ask again about records not retrieved before")
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class Retrieved(RetrievalState):
    key: int
    title: str | None = None


class RetrieveOutput(ToolOutput):
    set: str
    checked: list[Retrieved]
    remaining: int = Field(description="Reports sought still unchecked (or failed): call again")
    sought: int = Field(description="Reports sought for retrieval (title/abstract includes)")
    retrieved: int
    notRetrieved: int
    failed: int = Field(
        0, description="Of `remaining`, checks a service failure stopped (asked again next call)"
    )
    notice: str | None = None


# -- PRISMA -------------------------------------------------------------------------------------


class PrismaInput(ToolInput):
    set: SetName
    format: Literal["json", "svg", "png"] = Field(
        "json", description="json (default: counts), svg (file + resource) or png (image). Example: 'svg'"
    )
    run: Literal["all", "latest"] = Field(
        "all",
        description="all: every run; latest: the last update run, its new records. Example: 'latest'",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class OtherMethodsCounts(ToolOutput):
    """The other-methods column: records only other-methods sources found."""

    identified: dict[str, int] = Field(description="Records identified, per other-methods source")
    screened: int
    excluded: int
    sought: int
    notRetrieved: int
    assessed: int
    excludedWithReasons: dict[str, int]
    included: int = Field(description="Of the studies included in the review")


class PrismaCounts(ToolOutput):
    identified: dict[str, int] = Field(description="Records identified, per source (latest searches)")
    routes: dict[str, str] = Field(
        default_factory=dict,
        description="Each source's PRISMA route: database, register or other (methods; own column)",
    )
    duplicatesRemoved: int = Field(description="Among the databases' and registers' records")
    records: int = Field(description="Records in the set after deduplication")
    screened: int = Field(description="Title/abstract: decided include or exclude")
    excluded: int = Field(description="Excluded at title/abstract")
    sought: int = Field(description="Reports sought for retrieval (title/abstract includes)")
    notRetrieved: int
    assessed: int = Field(description="Reports assessed for eligibility (full-text include or exclude)")
    excludedWithReasons: dict[str, int] = Field(description="Full-text exclusions per reason category")
    included: int = Field(description="Studies included in the review (with other methods')")
    pendingScreening: dict[str, int] = Field(description="Not counted: undecided, maybe, conflicts")
    pendingFullText: dict[str, int] = Field(
        description="Not counted: notChecked, awaitingAssessment, maybe, conflicts"
    )
    otherMethods: OtherMethodsCounts | None = Field(
        None, description="Other methods' column; the counts above leave its records out"
    )


class PrismaOutput(ToolOutput):
    set: str
    format: str
    counts: PrismaCounts
    reconciliation: str = Field(description="How reviewers' decisions were combined")
    stopping: str | None = Field(
        None, description="Records left unscreened: the stopping rule and its figures (also the footnote)"
    )
    latestRun: str | None = Field(None, description="run='latest': the run counted ('run 2 of 2026-01-31')")
    previouslyIncluded: int | None = Field(None, description="run='latest': studies included in earlier runs")
    path: str | None = Field(None, description="svg: the file on the server's disk")
    uri: str | None = Field(None, description="svg: the file as an MCP resource")
    size: int | None = Field(None, description="svg: the file's size in bytes")
    _image: bytes | None = PrivateAttr(None)  # png: sent as image content, not in the JSON
    notice: str | None = None

    def resource_links(self) -> list[outputs.ResourceLink]:
        if not self.uri or not self.path:
            return []
        return [
            outputs.ResourceLink(
                uri=self.uri,
                name=self.path.rsplit("/", 1)[-1],
                mimeType="image/svg+xml",
                title=f"{self.set} PRISMA 2020 flow diagram",
                size=self.size,
            )
        ]

    def set_image(self, data: bytes) -> None:
        self._image = data

    def images(self) -> list[outputs.Image]:
        return [outputs.Image(data=self._image, mimeType="image/png")] if self._image else []


for _model in (RecordsInput, SetRecord, RecordsOutput, ExportInput):
    _model.model_rebuild()


# -- review_chase (citation searching; issue 53) ----------------------------------------------------
ChaseId = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class ChaseInput(ToolInput):
    set: SetName
    action: Literal["estimate", "run", "status"] = Field(
        "run",
        description="estimate: requests and time per index, nothing asked; status: the running or last chase. "
        "Example: 'estimate'",
    )
    seeds: list[ChaseId] | None = Field(
        None,
        max_length=2000,
        description="PMIDs, PMCIDs, DOIs, OpenAlex ids, mixed; default: the set's includes. "
        "Example: ['33533846', '10.1038/nature12373']",
    )
    directions: list[Literal["backward", "forward"]] = Field(
        ["backward", "forward"],
        min_length=1,
        max_length=2,
        description="backward: references; forward: citing works. Example: ['backward']",
    )
    indexes: list[Annotated[str, StringConstraints(max_length=40)]] | None = Field(
        None,
        max_length=10,
        description="Of pubmed, europepmc, openalex, crossref, icite; default every enabled one. "
        "Example: ['openalex']",
    )
    depth: int = Field(
        1,
        ge=1,
        le=3,
        description="Steps out (2: chase step 1's finds too). Example: 2",
    )
    maxPerSeed: int = Field(
        2000,
        ge=1,
        le=10000,
        description="Works per seed and direction at most. Example: 500",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class ChaseIndexReport(ToolOutput):
    index: str
    direction: Literal["backward", "forward"]
    state: str = Field(
        description="planned, answered, partly failed, failed, not enabled, or no seed it takes (a failed "
        "index is never reported as having no references)"
    )
    seeds: int = Field(0, description="Seeds sent to it (estimate) or answered by it (run)")
    failed: int = 0
    unknown: int = Field(0, description="Seeds the index has no record of")
    works: int = Field(0, description="Links it returned")
    requests: int = Field(0, description="Upstream requests: planned at least (estimate) or made (run)")
    seconds: float | None = Field(None, description="Estimate: time at the index's pace")
    error: str | None = None


class ChaseStep(ToolOutput):
    step: int
    seeds: int
    found: int = Field(description="Distinct works the step found")
    new: int = Field(description="Of them, records new to the set")


class ChasedRecord(ToolOutput):
    key: int | None = Field(None, description="The record's key in the set (review_records)")
    ids: dict[str, str]
    title: str | None = None
    foundVia: list[list[str]] = Field(description="[seed, direction, index] for each way it was found")
    seedsCiting: int = Field(description="Seeds that cite it (co-citation by the seeds: backward)")
    seedsCited: int = Field(description="Seeds it cites (coupling with the seeds: forward)")


class ChaseOutput(ToolOutput):
    set: str
    action: str
    seeds: int
    seedsFrom: str = Field(description="given, full-text includes, or title/abstract includes")
    indexes: list[ChaseIndexReport]
    requests: int = Field(description="Upstream requests planned (estimate) or made (run)")
    seconds: float | None = Field(
        None, description="Estimate: the time at each index's pace, summed (indexes run one by one)"
    )
    steps: list[ChaseStep] = Field(default_factory=list)
    added: dict[str, int] = Field(
        default_factory=dict, description="Records stored per source (Citation searching (backward) ...)"
    )
    newRecords: int
    top: list[ChasedRecord] = Field(
        default_factory=list, description="The works linked to the most seeds first (at most 20)"
    )
    running: bool
    complete: bool
    notice: str | None = None
