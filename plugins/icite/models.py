"""The tool's input (up to 1,000 PMIDs, folded to distinct canonical ids) and its output records."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from medlit.core.plugin import ArgumentError, ToolInput, ToolOutput, identifiers, outputs

MAX_PMIDS = 1000
OTHER_FIELD = re.compile(r"; send it in `\w+`")
MAX_ITEM_CHARS = 12_000  # one string may pack the whole list: 1,000 PMIDs and their separators
PMIDS_RECOVERY = (
    "Give PubMed IDs as an array (['27599104', '23456789']); each is digits, optionally with a "
    "'PMID:' prefix. DOIs and PMC IDs: convert them with pubmed_convert_ids."
)


def check_pmids(value: Any) -> list[str]:
    """Distinct canonical PMIDs in request order (leading zeros, prefixes and packed strings folded)."""
    if value is None or (isinstance(value, (list, tuple, str)) and not value):
        raise ArgumentError("pmids is empty", PMIDS_RECOVERY, reason="empty_id_list")
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_PMIDS:
            raise ArgumentError(
                f"{len(value):,} PMIDs given; at most {MAX_PMIDS:,} per call",
                f"Split the list into calls of at most {MAX_PMIDS:,} PMIDs.",
                reason="too_many_ids",
            )
        items: list[Any] = list(value)
    else:
        items = [value]
    if any(isinstance(v, str) and len(v) > MAX_ITEM_CHARS for v in items):
        raise ArgumentError(
            f"a pmids entry is longer than {MAX_ITEM_CHARS:,} characters",
            PMIDS_RECOVERY,
            reason="malformed_id",
        )
    try:
        ids = identifiers.parse_list("pmid", items)
    except identifiers.IdentifierError as exc:
        # The parser's "send it in `dois`" names fields this tool lacks; the hint names pubmed_convert_ids.
        raise ArgumentError(OTHER_FIELD.sub("", str(exc)), PMIDS_RECOVERY, reason="malformed_id") from None
    out = list(dict.fromkeys(i.value for i in ids))
    if not out:
        raise ArgumentError("pmids is empty", PMIDS_RECOVERY, reason="empty_id_list")
    if len(out) > MAX_PMIDS:
        raise ArgumentError(
            f"{len(out):,} distinct PMIDs given; at most {MAX_PMIDS:,} per call",
            f"Split the list into calls of at most {MAX_PMIDS:,} PMIDs.",
            reason="too_many_ids",
        )
    return out


class CitationMetricsInput(ToolInput):
    # check_pmids (a before-validator) folds what callers send and enforces the limits itself.
    pmids: list[Annotated[str, Field(max_length=MAX_ITEM_CHARS)]] = Field(
        description="PubMed IDs; numbers, 'PMID:' labels and packed lists ('1, 2') accepted, duplicates dropped. "
        "Example: ['27599104', '23456789'].",
        json_schema_extra={"minItems": 1, "maxItems": MAX_PMIDS},
    )
    maxResponseCharacters: int | None = Field(
        None,
        ge=1,
        le=10_000_000,
        description="Ceiling on the records' JSON size (200 records: ~90,000); the rest is deferred. "
        "Example: 30000.",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("pmids", mode="before")
    @classmethod
    def _pmids(cls, v: Any) -> list[str]:
        return check_pmids(v)


Scoring = Literal["scored", "provisional", "no-rcr", "not-scored"]


class CitationMetrics(ToolOutput):
    """NIH iCite citation metrics for one PubMed article."""

    pmid: str = Field(description="PubMed ID, without leading zeros")
    scoring: Scoring = Field(
        description="'scored': final RCR; 'provisional': RCR of a recent paper, may change; 'no-rcr': rates "
        "counted but no RCR (too recent or too few citations); 'not-scored': iCite holds no metrics yet"
    )
    relativeCitationRatio: float | None = Field(
        None,
        description="RCR: citations per year over those expected for the article's field (co-citation network), "
        "benchmarked so the median NIH-funded paper of its year scores 1.0",
    )
    rcrProvisional: bool | None = Field(None, description="True when iCite marks the RCR provisional")
    nihPercentile: float | None = Field(
        None, description="Percentile (0-100) of the RCR among NIH-funded papers"
    )
    citationCount: int | None = Field(
        None, description="Citations iCite counts (PubMed-indexed citing papers)"
    )
    citationsPerYear: float | None = Field(
        None, description="Citations per year since publication (RCR numerator)"
    )
    expectedCitationsPerYear: float | None = Field(
        None, description="Citations per year expected for the field and year (RCR denominator)"
    )
    fieldCitationRate: float | None = Field(
        None, description="Citation rate of the co-citation network the expectation is derived from"
    )
    apt: float | None = Field(
        None,
        description="Approximate Potential to Translate: estimated chance a clinical article will cite it "
        "(0.05, 0.25, 0.5, 0.75 or 0.95)",
    )
    human: float | None = Field(None, description="Share (0-1) of the MeSH terms in the Human category")
    animal: float | None = Field(None, description="Share (0-1) of the MeSH terms in the Animal category")
    molecularCellular: float | None = Field(
        None, description="Share (0-1) of the MeSH terms in the Molecular/Cellular category"
    )
    isClinical: bool | None = Field(None, description="iCite classes the article itself as clinical")
    citedByClinicalArticle: bool | None = Field(None, description="At least one clinical article cites it")
    clinicalCitationCount: int | None = Field(None, description="Clinical articles citing it")
    isResearchArticle: bool | None = Field(
        None, description="A primary research article (reviews, editorials, letters and errata are not)"
    )
    year: int | None = Field(None, description="Publication year as iCite has it")
    doi: str | None = None
    title: str | None = Field(None, description="Title as plain text (markup stripped)")
    journal: str | None = Field(None, description="Journal abbreviation as iCite reports it")


class OverLimit(ToolOutput):
    pmids: list[str] = Field(
        description="Distinct PMIDs past the per-call fetch limit, in request order, none fetched: re-call with "
        "these as `pmids`"
    )
    limit: int = Field(description="Distinct PMIDs one call fetches (the first this many were)")


class MetricsDeferred(outputs.DeferredIds):
    """Records `maxResponseCharacters` withheld (fetched, but not returned)."""

    ids: list[str] = Field(description="PMIDs withheld, in request order: re-call with these as `pmids`")


class CitationMetricsOutput(ToolOutput):
    records: list[CitationMetrics] = Field(
        description="One record per fetched PMID iCite knows, in request order"
    )
    totalReturned: int
    unavailablePmids: list[str] = Field(
        default_factory=list,
        description="Fetched PMIDs iCite has no record for (it omits them without an error; whether PubMed has "
        "the article, pubmed_fetch_articles tells)",
    )
    overLimit: OverLimit | None = Field(None, description="PMIDs past the per-call limit, not fetched")
    deferred: MetricsDeferred | None = Field(
        None, description="Records withheld by maxResponseCharacters: re-call with deferred.ids"
    )
    truncated: bool | None = Field(None, description="True when maxResponseCharacters withheld records")
    notice: str | None = Field(
        None,
        description="Names PMIDs without a record, records not yet scored, without RCR or provisional, and what "
        "was left out and how to get it",
    )
