"""pubmed_lookup_citation (ECitMatch + one verifying esummary) and pubmed_format_citations."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator

from medlit.core.plugin import (
    ArgumentError,
    MedlitError,
    ToolContext,
    ToolInput,
    ToolOutput,
    outputs,
    rendering,
)

from ..citation_styles import STYLE_ALIASES, STYLES, CitationStyle, correction_notes, format_citation
from ..client import esummary_pubmed, fetch_pubmed
from ..inputs import Pmids, check_pmids, pmids_field
from ..parse.citmatch import build_ecitmatch_bdata, parse_ecitmatch
from ..parse.eutils import PubMedDocSum, pubmed_docsum

# ============================================================================ pubmed_lookup_citation

MAX_CITATIONS = 100
_BAD_CHARS = re.compile(r"[|\r\n]")
CITATION_RECOVERY = (
    "Give each citation as an object with at least journal or year, e.g. {'journal': 'proc natl acad sci u s a', "
    "'year': '1991', 'volume': '88', 'firstPage': '3248', 'authorName': 'mann bj'}; no '|' or line breaks."
)


class CitationIn(ToolInput):
    journal: str | None = Field(
        None, max_length=300, description="Title or ISO abbreviation. Example: 'proc natl acad sci u s a'."
    )
    year: str | None = Field(None, max_length=10, description="Example: '1991'.")
    volume: str | None = Field(None, max_length=30, description="Example: '88'.")
    firstPage: str | None = Field(None, max_length=30, description="Or article number. Example: '3248'.")
    authorName: str | None = Field(
        None, max_length=150, description="An author, usually the first. Example: 'mann bj'."
    )
    key: str | None = Field(
        None,
        max_length=100,
        description="Your label, echoed, never sent (default: position). Example: 'ref12'.",
    )

    @field_validator("journal", "year", "volume", "firstPage", "authorName", mode="before")
    @classmethod
    def _clean(cls, v: Any, info: Any) -> Any:
        if not isinstance(v, str):
            return str(v) if isinstance(v, int) and not isinstance(v, bool) else v
        if v == "":
            return None
        if not v.strip():
            raise ArgumentError(
                f"citation {info.field_name} is blank",
                "Omit the field or give it a value.",
                reason="invalid_citation",
            )
        if _BAD_CHARS.search(v):
            raise ArgumentError(
                f"citation {info.field_name} {v!r} contains '|' or a line break, which ECitMatch cannot carry",
                CITATION_RECOVERY,
                reason="invalid_citation",
            )
        return v

    @field_validator("year")
    @classmethod
    def _year(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"\d{4}", v):
            raise ArgumentError(
                f"citation year {v!r} is not four digits",
                "Give the year as four digits, e.g. '1991'.",
                reason="invalid_year",
            )
        return v

    @model_validator(mode="after")
    def _enough(self) -> CitationIn:
        if not (self.journal or self.year):
            raise ArgumentError(
                "a citation needs at least journal or year (ECitMatch keys on journal+volume+page)",
                CITATION_RECOVERY,
                reason="insufficient_citation",
            )
        return self


class LookupCitationInput(ToolInput):
    citations: list[CitationIn] = Field(
        min_length=1,
        max_length=MAX_CITATIONS,
        description="References, each matched on its own; more fields, better matches. Example: "
        "[{'journal': 'science', 'year': '1987', 'volume': '235', 'firstPage': '182'}].",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD


class CitationWarning(ToolOutput):
    code: Literal["author_mismatch", "year_mismatch"]
    message: str


class CitationMatch(ToolOutput):
    key: str
    status: Literal["matched", "not_found", "ambiguous"]
    matched: bool
    pmid: str | None = None
    candidatePmids: list[str] | None = Field(
        None, description="PMIDs an ambiguous citation matched; add fields or fetch each to choose"
    )
    detail: str | None = Field(None, description="ECitMatch's detail, e.g. 'INVALID_JOURNAL'")
    matchedFirstAuthor: str | None = Field(
        None, description="First author of the matched record, e.g. 'Mann BJ'"
    )
    matchedYear: int | None = None
    matchedTitle: str | None = None
    warnings: list[CitationWarning] | None = Field(
        None,
        description="The matched record's first author or year disagrees with the input: verify before use",
    )


class LookupCitationOutput(ToolOutput):
    results: list[CitationMatch]
    totalSubmitted: int
    totalMatched: int
    totalWarnings: int = Field(description="Matched citations carrying at least one warning")
    notice: str | None = None


def _fold(text: str) -> str:
    norm = unicodedata.normalize("NFKD", text)
    return "".join(c for c in norm if not unicodedata.combining(c)).lower()


def _surname_tokens(name: str) -> list[str]:
    """'van der Berg J' -> ['van', 'der', 'berg'] (trailing initials dropped)."""
    words = re.findall(r"[^\W\d_]+", _fold(name))
    if len(words) > 1 and len(words[-1]) <= 3:
        words = words[:-1]
    return words


def _author_warning(given: str, authors: list[str]) -> CitationWarning | None:
    want = _surname_tokens(given)
    if not want or not authors:
        return None
    first = _surname_tokens(authors[0])
    if want[0] in first or (first and first[-1] in want):
        return None
    others = [a for a in authors[1:] if want[0] in _surname_tokens(a)]
    extra = f" ({others[0]} is a later author)" if others else ""
    return CitationWarning(
        code="author_mismatch",
        message=f"The matched record's first author is {authors[0]}, not {given!r}{extra}.",
    )


def _checked(c: CitationIn, r: CitationMatch, d: PubMedDocSum) -> None:
    """The matched record's first author, year and title on the match, and a warning where they
    disagree with the citation (a year matches the print or the electronic date)."""
    year = re.search(r"\b(\d{4})\b", d.pub_date or "")
    epub = re.search(r"\b(\d{4})\b", d.epub_date or "")
    r.matchedFirstAuthor = d.authors[0] if d.authors else None
    r.matchedYear = int(year.group(1)) if year else None
    r.matchedTitle = d.title or None
    warnings = []
    if c.authorName and (w := _author_warning(c.authorName, d.authors)):
        warnings.append(w)
    years = {y.group(1) for y in (year, epub) if y}
    if c.year and years and c.year not in years:
        warnings.append(
            CitationWarning(
                code="year_mismatch",
                message=f"The matched record is dated {d.pub_date}, not {c.year}.",
            )
        )
    r.warnings = warnings or None


async def _docsums(ctx: ToolContext, pmids: list[str], notices: list[str]) -> dict[str, PubMedDocSum]:
    """The matched records' summaries; when they cannot be had, the matches stand unchecked."""
    if not pmids:
        return {}
    try:
        return {uid: pubmed_docsum(d) for uid, d in (await esummary_pubmed(ctx, pmids)).items()}
    except MedlitError as err:
        notices.append(f"Matches could not be checked against their records ({err.reason}); verify them.")
        return {}


async def lookup_citation(args: LookupCitationInput, ctx: ToolContext) -> LookupCitationOutput:
    # Our own positional keys go to NCBI, so answers map back whatever the caller's keys hold.
    rows = [
        {
            "journal": c.journal,
            "year": c.year,
            "volume": c.volume,
            "first_page": c.firstPage,
            "author": c.authorName,
            "key": str(i + 1),
        }
        for i, c in enumerate(args.citations)
    ]
    bdata = build_ecitmatch_bdata(rows)
    resp = await ctx.client("ncbi").get(
        "ecitmatch.cgi", {"db": "pubmed", "retmode": "xml", "bdata": bdata}, expect="text"
    )
    matches = parse_ecitmatch(resp.text(), bdata.split("\r"))
    notices: list[str] = []
    docs = await _docsums(ctx, list(dict.fromkeys(m.pmid for m in matches if m.pmid)), notices)
    results: list[CitationMatch] = []
    for c, m in zip(args.citations, matches, strict=True):
        r = CitationMatch(
            key=c.key or str(len(results) + 1),
            status=m.status,
            matched=m.status == "matched",
            pmid=m.pmid,
            candidatePmids=m.candidates or None,
            detail=m.detail,
        )
        d = docs.get(m.pmid or "")
        if d is not None:
            _checked(c, r, d)
        results.append(r)
    matched = sum(r.matched for r in results)
    if matched == 0:
        notices.append(
            "No citation matched. Check journal abbreviation, volume and first page, or search by title with "
            "pubmed_search_articles."
        )
    return LookupCitationOutput(
        results=results,
        totalSubmitted=len(results),
        totalMatched=matched,
        totalWarnings=sum(1 for r in results if r.warnings),
        notice=" ".join(notices) or None,
    )


def render_lookup(out: LookupCitationOutput, args: LookupCitationInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "ecitmatch")
    lines = [
        f"**{out.totalMatched} of {out.totalSubmitted} citation(s) matched**, {out.totalWarnings} with warnings."
    ]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    items = []
    for r in out.results:
        if r.status == "matched":
            s = f"{r.key}: PMID {r.pmid} — {r.matchedFirstAuthor or '?'} {r.matchedYear or ''}. {r.matchedTitle or ''}"
        elif r.status == "ambiguous":
            s = f"{r.key}: ambiguous" + (
                f", candidates {', '.join(r.candidatePmids)}" if r.candidatePmids else f" ({r.detail})"
            )
        else:
            s = f"{r.key}: not found" + (f" ({r.detail})" if r.detail else "")
        for w in r.warnings or []:
            s += f"\n   warning {w.code}: {w.message}"
        items.append(s)
    lines.append(rendering.fence("\n".join(items), "ecitmatch"))
    return "\n".join(lines)


# ============================================================================ pubmed_format_citations

MAX_FORMAT = 50
_DEFAULT_STYLES: list[CitationStyle] = ["apa"]
NOTICE_TYPES = (
    "RetractionIn",
    "RetractedandRepublishedIn",
    "ExpressionOfConcernIn",
    "ErratumIn",
    "CorrectedandRepublishedIn",
)


def _style_schema(schema: dict[str, Any]) -> None:
    """Advertise what the validator accepts: one style as a string (or 'all') or a list of styles."""
    styles = list(STYLES)
    schema.pop("type", None)
    schema.pop("items", None)
    schema["anyOf"] = [
        {"type": "string", "enum": [*styles, "all"]},
        {
            "type": "array",
            "items": {"type": "string", "enum": styles},
            "minItems": 1,
            "maxItems": len(styles),
        },
    ]
    schema["default"] = "apa"


class FormatCitationsInput(ToolInput):
    pmids: Pmids = pmids_field(MAX_FORMAT, "to cite")
    format: list[CitationStyle] = Field(
        default_factory=_DEFAULT_STYLES.copy,
        validation_alias=AliasChoices("format", "styles", "style"),  # what models often send
        description="One style, a list of styles, or 'all'. Example: ['apa', 'bibtex'].",
        json_schema_extra=_style_schema,
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("pmids", mode="before")
    @classmethod
    def _pmids(cls, v: Any) -> list[str]:
        return check_pmids(v, MAX_FORMAT)

    @field_validator("format", mode="before")
    @classmethod
    def _styles(cls, v: Any) -> Any:
        if isinstance(v, str):
            v = re.split(r"[,\s]+", v.strip())
        if not isinstance(v, list):
            return v
        out: list[str] = []
        for s in v:
            key = str(s).strip().lower()
            if not key:
                continue
            key = STYLE_ALIASES.get(key, key)
            keys = list(STYLES) if key == "all" else [key]
            for k in keys:
                if k not in STYLES:
                    raise ArgumentError(
                        f"unknown citation style {s!r}",
                        "Use any of: " + ", ".join(STYLES) + " (or 'all').",
                        reason="invalid_style",
                    )
                if k not in out:
                    out.append(k)
        if not out:
            raise ArgumentError("format is empty", "Give a style such as 'apa'.", reason="invalid_style")
        return out


class CitationNotice(ToolOutput):
    refType: str = Field(description="RetractionIn, ErratumIn, ExpressionOfConcernIn, ...")
    refSource: str | None = Field(None, description="Citation of the notice as NCBI writes it")
    pmid: str | None = Field(None, description="PMID of the notice, for pubmed_fetch_articles")
    note: str | None = None


class FormattedCitation(ToolOutput):
    pmid: str
    recordType: str = Field(description="'journal-article', 'book-chapter' or 'book'")
    title: str | None = None
    citations: dict[str, str] = Field(
        description="Reference per style, plain text (APA/MLA/Vancouver one line; BibTeX and RIS records)"
    )
    isRetracted: bool = False
    notices: list[CitationNotice] | None = Field(
        None,
        description="Retraction, erratum and expression-of-concern notices linked to the record. APA, MLA and "
        "Vancouver also mention them in the reference; check this before citing",
    )
    correctionNotes: list[str] | None = Field(
        None, description="Short reader notes, e.g. 'Retracted; see PMID 1'"
    )


class FormatCitationsOutput(ToolOutput):
    citations: list[FormattedCitation]
    totalSubmitted: int
    totalFormatted: int
    unavailablePmids: list[str] = Field(
        default_factory=list, description="PMIDs PubMed returned no record for"
    )
    notice: str | None = None


async def format_citations(args: FormatCitationsInput, ctx: ToolContext) -> FormatCitationsOutput:
    records, unavailable = await fetch_pubmed(ctx, args.pmids)
    out = []
    for a in records:
        notices = [
            CitationNotice(refType=n.type, refSource=n.refSource, pmid=n.pmid, note=n.note)
            for n in a.notices
            if n.type in NOTICE_TYPES
        ]
        out.append(
            FormattedCitation(
                pmid=a.pmid,
                recordType=a.recordType,
                title=a.title,
                citations={s: format_citation(a, s) for s in args.format},
                isRetracted=a.isRetracted,
                notices=notices or None,
                correctionNotes=correction_notes(a) or None,
            )
        )
    notice = None
    if not out:
        notice = "PubMed returned no record for any PMID; find valid PMIDs with pubmed_search_articles."
    elif unavailable:
        notice = f"No record for {len(unavailable)} PMID(s); see unavailablePmids."
    return FormatCitationsOutput(
        citations=out,
        totalSubmitted=len(args.pmids),
        totalFormatted=len(out),
        unavailablePmids=unavailable,
        notice=notice,
    )


def render_format(out: FormatCitationsOutput, args: FormatCitationsInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "citations")
    lines = [f"**{out.totalFormatted} of {out.totalSubmitted} formatted** ({', '.join(args.format)})."]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    blocks = []
    for c in out.citations:
        head = f"PMID {c.pmid}" + (" — RETRACTED" if c.isRetracted else "")
        if c.correctionNotes:
            head += " [" + "; ".join(c.correctionNotes) + "]"
        blocks.append(head + "\n" + "\n\n".join(f"{s.upper()}:\n{t}" for s, t in c.citations.items()))
    if blocks:
        lines.append(rendering.fence("\n\n---\n".join(blocks), "citations"))
    return "\n".join(lines)
