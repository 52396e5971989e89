"""pubmed_verify_references' input and output models."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from medlit.core.plugin import ArgumentError, ToolInput, ToolOutput, kinds, outputs

MAX_REFERENCES = 100
MAX_ITEM_CHARS = 20_000  # one reference string (a BibTeX or RIS blob of many entries stays under it)
Short = Annotated[str, Field(max_length=30)]
# unverified: no source knew it, but a source that was asked failed (or the deadline kept it from
# being asked), so "no such paper" is not established: retrying later may settle it.
Match = Literal["verified", "mismatch", "ambiguous", "not_found", "unverified"]
Confidence = Literal["high", "medium", "low"]
Field_ = Literal["title", "authors", "year", "journal", "volume", "issue", "pages", "doi", "pmid"]


def _list_of_names(schema: dict[str, Any]) -> None:
    schema.pop("anyOf", None)
    schema.update(type="array", items={"type": "string", "maxLength": 200}, maxItems=200)


class ReferenceFields(ToolInput):
    title: str | None = Field(
        None, max_length=1000, description="Example: 'CERMINE: automatic extraction ...'."
    )
    authors: (
        Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=200)]
        | Annotated[str, Field(max_length=5000)]
        | None
    ) = Field(
        None,
        description="First author first, 'Family Initials' or as written. Example: ['Tkaczyk D'].",
        # one form advertised (a list; one string of names is still read): a string-or-array union
        # has no single type, which single-type dialects (Gemini's declarations) need
        json_schema_extra=_list_of_names,
    )
    journal: str | None = Field(
        None, max_length=300, description="Full title or abbreviation. Example: 'IJDAR'."
    )
    # Numbers are accepted too (a model often sends a year or volume as one): read as text.
    year: Short | None = Field(None, description="Example: '2015'.")
    volume: Short | None = Field(None, description="Example: '18'.")
    issue: Short | None = Field(None, description="Example: '4'.")
    pages: Annotated[str, Field(max_length=40)] | None = Field(None, description="Example: '317-335'.")
    doi: str | None = Field(
        None, max_length=300, description="Checked, not believed. Example: '10.1007/s10032-015-0249-8'."
    )
    pmid: Short | None = Field(None, description="Checked, not believed. Example: '9500320'.")

    @field_validator("year", "volume", "issue", "pages", "pmid", mode="before")
    @classmethod
    def _numbers_as_text(cls, v: Any) -> Any:
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 999_999_999:
            return str(v)
        return v


class VerifyReferencesInput(ToolInput):
    references: list[Annotated[str, Field(max_length=MAX_ITEM_CHARS)] | ReferenceFields] = Field(
        min_length=1,
        max_length=MAX_REFERENCES,
        description=f"Up to {MAX_REFERENCES} references: strings in any style (Vancouver, APA, AMA, Harvard, "
        "numbered, BibTeX, RIS) or field objects. Example: ['Wakefield AJ, et al. Lancet. 1998;351:637-41.'].",
    )
    responseFormat: outputs.ResponseFormat = outputs.response_format_field()

    @field_validator("references", mode="before")
    @classmethod
    def _items(cls, v: Any) -> Any:
        if isinstance(v, str):
            raise ArgumentError(
                "references must be a list, one reference per item",
                "Send a list of strings or objects: ['Smith J, ... 2020;1:2.', ...]; split a pasted list by line.",
            )
        if isinstance(v, list):
            for i, item in enumerate(v[: MAX_REFERENCES + 1]):
                if isinstance(item, str):
                    if not item.strip() or not re.search(r"\w", item):
                        raise ArgumentError(
                            f"references[{i}] is empty",
                            "Remove empty items, or give each reference's text or fields.",
                            reason="empty_reference",
                        )
                    if len(item) > MAX_ITEM_CHARS:
                        raise ArgumentError(
                            f"references[{i}] is {len(item):,} characters, over the {MAX_ITEM_CHARS:,} an item may hold",
                            f"Send one reference per item (at most {MAX_REFERENCES} per call), not a whole document.",
                            reason="reference_too_long",
                        )
                elif isinstance(item, dict) and not any(
                    (str(val).strip() if val is not None else "") for val in item.values()
                ):
                    raise ArgumentError(
                        f"references[{i}] has no fields",
                        "Give at least a title, or journal with volume and pages, or a DOI or PMID.",
                        reason="empty_reference",
                    )
        return v


class MatchedRecord(ToolOutput):
    pmid: str | None = None
    doi: str | None = None
    pmcid: str | None = None
    title: str | None = None
    authors: list[str] = Field(
        default_factory=list, description="First authors ('Family Initials'), at most 6"
    )
    journal: str | None = None
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    type: str | None = Field(None, description="article, preprint, book, chapter or other")


class Discrepancy(ToolOutput):
    field: Field_
    stated: str | None = None
    actual: str | None = None
    belongsTo: MatchedRecord | None = Field(
        None, description="doi/pmid: the work the stated identifier belongs to, as its source gives it"
    )


class NoticeSource(ToolOutput):
    source: str = Field(
        description="The provider, with the depositor where the provider names one: '<provider>:<depositor>'"
    )
    type: kinds.NoticeKind = Field(description="The type as this source gives it (folded onto the six kinds)")
    label: str = Field("", description="The source's own word for the type")
    id: str | None = None
    date: str | None = None


class NoticeOut(ToolOutput):
    type: kinds.NoticeKind = Field(description="The gravest type the sources give this notice")
    id: str | None = Field(None, description="The notice's DOI, else its PMID")
    date: str | None = None
    source: str = Field(description="Every source reporting it, comma-separated")
    sources: list[NoticeSource] = Field(default_factory=list, description="Each source's own report")
    disagreement: bool | None = Field(None, description="True when the sources type it differently")


class CandidateOut(ToolOutput):
    record: MatchedRecord
    providers: list[str]
    score: float | None = Field(None, description="The matcher's own score (not comparable across matchers)")
    why: str = Field("", description="What agrees or differs")


class StatedOut(ToolOutput):
    style: str
    title: str | None = None
    firstAuthor: str | None = None
    journal: str | None = None
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = None
    pmid: str | None = None


class Evidence(ToolOutput):
    asked: list[str] = Field(description="Providers asked about this reference")
    agreed: list[str] = Field(default_factory=list, description="Providers whose record is the matched work")
    via: list[str] = Field(
        default_factory=list, description="How it was found: doi, pmid, citation, title, bibliographic"
    )
    notAsked: list[str] = Field(default_factory=list, description="Providers not asked, with why")
    failed: list[str] = Field(
        default_factory=list,
        description="Providers that failed on this reference (or that the call's deadline kept from it)",
    )
    note: str | None = None


class ReferenceResult(ToolOutput):
    index: int = Field(description="1-based position in the audited list")
    input: str = Field(description="The reference as given (cut to 200 characters)")
    stated: StatedOut
    match: Match = Field(
        description="verified, mismatch, ambiguous, not_found (every source asked answered: none knows "
        "it) or unverified (none knew it, but a source failed: not established either way; retry later)"
    )
    confidence: Confidence
    retryable: bool | None = Field(None, description="unverified: retrying later may settle it")
    record: MatchedRecord | None = None
    discrepancies: list[Discrepancy] = Field(default_factory=list)
    notices: list[NoticeOut] = Field(default_factory=list)
    candidates: list[CandidateOut] | None = Field(
        None, description="Ambiguous: the top candidates; not_found: the nearest rejected"
    )
    chimera: bool | None = Field(
        None, description="The title is real but its authors and journal are another paper's"
    )
    evidence: Evidence


class Summary(ToolOutput):
    verified: int = 0
    mismatch: int = 0
    ambiguous: int = 0
    not_found: int = 0
    unverified: int = Field(0, description="Not found, but a source failed: retry later")
    retracted: int = Field(0, description="Matched works with a retraction or withdrawal")
    withNotices: int = 0


class ProviderReport(ToolOutput):
    provider: str
    kind: Literal["matcher", "notices"]
    outcome: Literal["answered", "failed", "not-queried"]
    stages: list[str] = Field(default_factory=list)
    detail: str = ""
    reason: str | None = None
    variable: str | None = Field(None, description="The variable that would enable a not-queried provider")


class OverLimit(ToolOutput):
    count: int = Field(description="References beyond the per-call limit, not audited")
    firstIndex: int = Field(description="1-based position of the first one not audited")
    limit: int = MAX_REFERENCES


class VerifyReferencesOutput(ToolOutput):
    results: list[ReferenceResult]
    summary: Summary
    providers: list[ProviderReport]
    overLimit: OverLimit | None = None
    notice: str | None = None
