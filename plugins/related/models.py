"""pubmed_find_related's input and output models."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from medlit.core.plugin import ArgumentError, ToolInput, ToolOutput, identifiers, kinds, outputs

PER_CALL = 100  # articles per call: one metadata batch, one OpenAlex OR filter, a readable table
MAX_OFFSET = 1_000_000
Outcome = Literal["answered", "empty", "failed", "not-queried"]


class FindRelatedInput(ToolInput):
    pmid: str = Field(
        max_length=64,
        description="The source article's PMID; numbers, 'PMID:' labels and URLs accepted. Example: '33533846'.",
    )
    relationship: kinds.RelatedKind = Field(
        "similar",
        description="'similar' (ranked), 'cited_by' (articles citing it) or 'references' (articles it cites). "
        "Example: 'cited_by'.",
    )
    maxResults: int = Field(
        20,
        ge=1,
        le=10_000,  # what callers send; served at PER_CALL with a notice
        description=f"Articles to return, 1 to {PER_CALL} (default 20). Example: 50.",
        json_schema_extra={"maximum": PER_CALL},  # the schema states what is served
    )
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="Pass nextOffset. Example: 100.")
    responseFormat: outputs.ResponseFormat = outputs.response_format_field()

    @field_validator("pmid", mode="before")
    @classmethod
    def _pmid(cls, v: Any) -> Any:
        if isinstance(v, int) and not isinstance(v, bool):
            v = str(v)
        if isinstance(v, str):
            try:
                return identifiers.normalize_pmid(v)
            except identifiers.IdentifierError as exc:
                raise ArgumentError(
                    str(exc),
                    "Send one PMID of digits, e.g. '33533846' (the search and ID-conversion tools find one).",
                    reason="malformed_id",
                ) from None
        return v


class RelatedArticle(ToolOutput):
    pmid: str
    title: str | None = Field(
        None, description="Title as the metadata provider gives it; absent when no summary was found"
    )
    authors: str | None = Field(None, description="First three authors ('Surname Initials'), then 'et al.'")
    journal: str | None = Field(None, description="Journal abbreviation, or the book of a Bookshelf chapter")
    year: int | None = None
    pubDate: str | None = Field(None, description="Publication date, YYYY, YYYY-MM or YYYY-MM-DD")
    doi: str | None = None
    pmcId: str | None = None
    score: float | None = Field(
        None, description="The provider's relevance score (similar articles; higher is closer)"
    )
    pubmedUrl: str | None = None  # from the plugin that names PMIDs (PluginInfo.id_links)


class ProviderReport(ToolOutput):
    provider: str = Field(description="The related-article provider, as the tool description names it")
    outcome: Outcome = Field(
        description="'answered' (its list is the answer), 'empty' (it knows none: the next one was asked), "
        "'failed' (see reason) or 'not-queried' (its plugin is off: see variable)"
    )
    detail: str = Field("", description="What was asked upstream, or why it failed or was skipped")
    reason: str | None = Field(
        None, description="Machine-readable failure reason, '<service>_<kind>' for an upstream fault"
    )
    retryable: bool | None = Field(None, description="Whether retrying may reach this provider")
    variable: str | None = Field(
        None, description="The environment variable that would enable a not-queried provider"
    )


class FindRelatedOutput(ToolOutput):
    sourcePmid: str
    sourceTitle: str | None = Field(
        None, description="The source article's title, when a metadata provider knows it"
    )
    relationship: kinds.RelatedKind
    source: str = Field(description="The provider whose list this is")
    offset: int
    totalCount: int | None = Field(
        None,
        description="Rows in the provider's whole list, rows without a PMID included; absent when unknown",
    )
    nextOffset: int | None = Field(None, description="Offset of the next page; absent on the last page")
    articles: list[RelatedArticle] = Field(default_factory=list)
    droppedWithoutPmid: int = Field(
        0, description="Rows of this page the provider had without a PMID, which cannot be returned"
    )
    providers: list[ProviderReport] = Field(
        default_factory=list, description="Each provider asked (or skipped) in order, with its outcome"
    )
    notice: str | None = Field(
        None,
        description="What differs from a clean answer: a fallback answered, providers failed, rows dropped, "
        "maxResults capped, offset past the end, summaries missing",
    )
