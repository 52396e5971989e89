"""pubmed_search_articles: PubMed query syntax plus filters, paging and brief summaries."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from pydantic import Field, field_validator, model_validator

from medlit.core.plugin import ArgumentError, ToolContext, ToolInput, ToolOutput, outputs, rendering

from ..client import esummary_pubmed, ncbi_json
from ..inputs import QUERY_LENGTH, has_term, strip_inline_tags
from ..parse.eutils import DocSum, parse_esearch, pubmed_docsum
from ..render import PUBMED_URL, pmc_url, pubmed_url

PAGING_LIMIT = 9_999  # PubMed serves only the first 9,999 records of a result set
MAX_RESULTS_CAP = 1_000
SUMMARY_CAP = 50
_DATE = re.compile(r"^(\d{4})(?:[/\-.](\d{1,2})(?:[/\-.](\d{1,2}))?)?$")
_ESEARCH_SORT = {
    "relevance": "relevance",
    "pub_date": "pub_date",
    "author": "Author",
    "journal": "JournalName",
}
_WEB_SORT = {"pub_date": "pubdate", "author": "fauth", "journal": "jour"}
DATE_RECOVERY = (
    "Use YYYY, YYYY/MM or YYYY/MM/DD with a real calendar date, e.g. '2020', '2024/06' or '2024/02/29'."
)
SUBJECT_FILTERS = ("author", "journal", "meshTerms", "publicationTypes")

SpeciesFilter = Literal["humans", "animals"]
DateType = Literal["pdat", "mdat", "edat"]


# ----------------------------------------------------------------------------- inputs


def _parse_date(value: str, which: str) -> tuple[str, dt.date, dt.date]:
    """(normalised text, first day covered, last day covered) of a YYYY[/MM[/DD]] date."""
    m = _DATE.match(value.strip())
    if not m:
        raise ArgumentError(
            f"dateRange.{which} {value!r} is not a date", DATE_RECOVERY, reason="invalid_date"
        )
    year, month, day = int(m.group(1)), m.group(2), m.group(3)
    if month is not None and not 1 <= int(month) <= 12:
        raise ArgumentError(
            f"dateRange.{which} {value!r} has month {month}, outside 01-12",
            DATE_RECOVERY,
            reason="invalid_date",
        )
    if day is not None:
        last = calendar.monthrange(year, int(month))[1]
        if not 1 <= int(day) <= last:
            raise ArgumentError(
                f"dateRange.{which} {value!r} is not a real calendar date ({year}/{int(month):02d} has "
                f"{last} days)",
                DATE_RECOVERY,
                reason="invalid_date",
            )
    if month is None:
        return f"{year}", dt.date(year, 1, 1), dt.date(year, 12, 31)
    mo = int(month)
    if day is None:
        return f"{year}/{mo:02d}", dt.date(year, mo, 1), dt.date(year, mo, calendar.monthrange(year, mo)[1])
    d = dt.date(year, mo, int(day))
    return f"{year}/{mo:02d}/{int(day):02d}", d, d


class DateRange(ToolInput):
    minDate: str | None = Field(None, max_length=10, description="YYYY[/MM[/DD]]. Example: '2020/01'.")
    maxDate: str | None = Field(None, max_length=10, description="Inclusive. Example: '2024/06/30'.")
    dateType: DateType = Field("pdat", description="edat: added to PubMed; mdat: modified. Example: 'edat'.")

    @field_validator("minDate", "maxDate", mode="before")
    @classmethod
    def _empty(cls, v: Any) -> Any:
        return None if isinstance(v, str) and not v.strip() else v

    @model_validator(mode="after")
    def _order(self) -> DateRange:
        lo = _parse_date(self.minDate, "minDate") if self.minDate else None
        hi = _parse_date(self.maxDate, "maxDate") if self.maxDate else None
        if lo and hi and lo[1] > hi[2]:
            raise ArgumentError(
                f"dateRange.minDate {self.minDate!r} falls after maxDate {self.maxDate!r}",
                "Swap the two dates, or widen the range: minDate counts from the start of its year or month, "
                "maxDate to the end ('2024/06' to '2024' is valid).",
                reason="invalid_date_range",
            )
        self.minDate = lo[0] if lo else None
        self.maxDate = hi[0] if hi else None
        return self


def _blank_filter(name: str) -> ArgumentError:
    return ArgumentError(
        f"{name} holds no term (only whitespace, invisible characters, markup, parentheses, brackets or quotes)",
        f"Give {name} a real value, e.g. author 'Smith J', journal 'Nature', meshTerms ['Diabetes Mellitus'], "
        f"publicationTypes ['Review'], language 'english'; send an empty string or omit it for no filter.",
        reason="blank_filter",
    )


def _check_filter(name: str, v: Any) -> Any:
    if isinstance(v, str):
        if v == "":
            return None
        if not has_term(v, drop_field_tags=True, drop_quotes=True):
            raise _blank_filter(name)
        return rendering.strip_invisible(strip_inline_tags(v)).strip()
    return v


class SearchArticlesInput(ToolInput):
    query: str | None = Field(
        None,
        max_length=QUERY_LENGTH,
        description="Omit to use filters alone. Example: 'crispr[tiab]'.",
    )
    author: str | None = Field(None, max_length=200, description="'Family Initials'. Example: 'Doudna JA'.")
    journal: str | None = Field(
        None, max_length=300, description="Title, ISO abbreviation or ISSN. Example: 'Lancet'."
    )
    meshTerms: list[Annotated[str, Field(max_length=200)]] | None = Field(
        None,
        max_length=20,
        description="All required (narrower included). Example: ['Asthma'].",
    )
    publicationTypes: list[Annotated[str, Field(max_length=100)]] | None = Field(
        None, max_length=20, description="PubMed publication types, any of these. Example: ['Review']."
    )
    language: str | None = Field(None, max_length=40, description="Article language. Example: 'english'.")
    species: SpeciesFilter | None = Field(
        None, description="MeSH-indexed (new records lack it). Example: 'humans'."
    )
    hasAbstract: bool = Field(False, description="Has an abstract")
    freeFullText: bool = Field(False, description="Only free full text")
    dateRange: DateRange | None = Field(
        None,
        description="Partial dates cover the whole year or month. Example: {'minDate': '2020'}.",
    )
    sort: Literal["relevance", "pub_date", "author", "journal"] = Field(
        "relevance", description="pub_date: newest first. Example: 'pub_date'."
    )
    offset: int = Field(
        0,
        ge=0,
        description="Pass nextOffset. Example: 20.",
        json_schema_extra={"maximum": PAGING_LIMIT - 1},  # enforced by _offset, with its own hint
    )
    maxResults: int = Field(
        20,
        ge=0,
        le=10_000,  # what peer servers accept; served at MAX_RESULTS_CAP with a notice
        description=f"At most {MAX_RESULTS_CAP:,} served; 0 counts only. Example: 100.",
        json_schema_extra={"maximum": MAX_RESULTS_CAP},  # the schema states what is served
    )
    summaryCount: int = Field(
        0,
        ge=0,
        le=500,  # as maxResults: served at SUMMARY_CAP with a notice
        description="Summaries for the first N PMIDs. Example: 10.",
        json_schema_extra={"maximum": SUMMARY_CAP},
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("query", mode="before")
    @classmethod
    def _query(cls, v: Any) -> Any:
        if isinstance(v, str):
            if v == "":
                return None
            if not has_term(v, drop_field_tags=True):
                raise ArgumentError(
                    f"query {v!r} holds no search term once markup, [field] tags, parentheses and invisible "
                    "characters are disregarded",
                    "Give a query with a term, e.g. 'asthma[mh] AND children', or omit query and search on author, "
                    "journal, meshTerms or publicationTypes.",
                    reason="blank_query",
                )
            if len(v) > 10_000:
                raise ArgumentError(
                    "query is longer than 10,000 characters",
                    "Shorten the query or split it.",
                    reason="query_too_long",
                )
            return rendering.strip_invisible(strip_inline_tags(v))
        return v

    @field_validator("author", "journal", "language", mode="before")
    @classmethod
    def _text_filter(cls, v: Any, info: Any) -> Any:
        return _check_filter(info.field_name, v)

    @field_validator("meshTerms", "publicationTypes", mode="before")
    @classmethod
    def _list_filter(cls, v: Any, info: Any) -> Any:
        if isinstance(v, str):
            v = [v]
        if isinstance(v, list):
            out = []
            for item in v:
                checked = _check_filter(f"{info.field_name} element", item)
                if checked is not None and checked not in out:
                    out.append(checked)
            return out or None
        return v

    @field_validator("offset")
    @classmethod
    def _offset(cls, v: int) -> int:
        if v > PAGING_LIMIT - 1:
            raise ArgumentError(
                f"offset {v:,} is past the first {PAGING_LIMIT:,} records, which is all PubMed serves",
                "Narrow the search instead, e.g. a dateRange of one year at a time, so each result set stays "
                "under 9,999 records.",
                reason="offset_out_of_range",
            )
        return v

    @model_validator(mode="after")
    def _subject(self) -> SearchArticlesInput:
        if self.query is None and not any(getattr(self, f) for f in SUBJECT_FILTERS):
            raise ArgumentError(
                "no query and no subject filter (author, journal, meshTerms or publicationTypes): dateRange, "
                "language, species, hasAbstract and freeFullText only narrow a search",
                "Add a query (e.g. 'heart failure'), or one of author, journal, meshTerms, publicationTypes; use "
                "query 'all[sb]' to slice the whole database by the other filters.",
                reason="no_search_term",
            )
        return self


# ----------------------------------------------------------------------------- outputs


class AppliedDateRange(ToolOutput):
    minDate: str | None = Field(None, description="Lower bound as sent (YYYY[/MM[/DD]]); absent when open")
    maxDate: str | None = Field(None, description="Upper bound as sent; absent when open")
    dateType: DateType


class AppliedFilters(ToolOutput):
    author: str | None = None
    journal: str | None = None
    meshTerms: list[str] | None = None
    publicationTypes: list[str] | None = None
    language: str | None = None
    species: SpeciesFilter | None = None
    hasAbstract: bool | None = None
    freeFullText: bool | None = None
    dateRange: AppliedDateRange | None = None


class ArticleSummary(ToolOutput):
    pmid: str
    title: str = ""
    authors: str | None = Field(
        None, description="First three authors, then 'et al.' (ESummary 'Surname Initials')"
    )
    source: str | None = Field(None, description="Journal (ISO abbreviation); absent on Bookshelf records")
    pubDate: str | None = Field(None, description="Publication date as NCBI writes it, e.g. '2017 Aug 14'")
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = Field(None, description="DOI as NCBI reports it (case not normalised)")
    pmcId: str | None = None
    publicationTypes: list[str] = Field(default_factory=list)
    hasAbstract: bool | None = None
    docType: str | None = Field(
        None, description="'citation' (journal article), 'chapter' or 'book' (NCBI Bookshelf)"
    )
    bookTitle: str | None = Field(
        None, description="Containing book of a Bookshelf record, e.g. 'GeneReviews®'"
    )
    publisherName: str | None = None
    editors: list[str] | None = Field(None, description="Editors of the containing book (never in authors)")
    pubmedUrl: str
    pmcUrl: str | None = None


class SearchArticlesOutput(ToolOutput):
    query: str = Field(
        description="The query as given (markup removed); empty when the search ran on filters alone"
    )
    effectiveQuery: str = Field(
        description="Exactly the term sent to PubMed: the query with one AND-ed clause per active filter"
    )
    queryTranslation: str | None = Field(
        None, description="How PubMed interpreted the term (automatic term mapping)"
    )
    appliedFilters: AppliedFilters = Field(
        default_factory=AppliedFilters,
        description="The filters the call set (left out when none was: an empty object says nothing)",
    )
    totalCount: int = Field(description="Records matching in PubMed, regardless of paging")
    offset: int
    pmids: list[str]
    nextOffset: int | None = Field(
        None, description="Offset of the next page; absent on the last page or at PubMed's 9,999-record limit"
    )
    summaries: list[ArticleSummary] = Field(default_factory=list)
    searchUrl: str = Field(description="The same search on the PubMed website")
    notice: str | None = Field(
        None, description="Why the result differs from what was asked, and what to do next"
    )


# ----------------------------------------------------------------------------- query building


_TAG_IN_VALUE = re.compile(r"\[[^\]]*\]")


def _quoted(value: str) -> str:
    """A filter value as one quoted phrase: a ``[tag]`` the caller typed, stray brackets and
    quotes would end the phrase or re-tag it, so they are dropped (``Smith J[au]`` -> ``"Smith J"``)."""
    v = re.sub(r'["\[\]]', " ", _TAG_IN_VALUE.sub(" ", value))
    return '"' + " ".join(v.split()) + '"'


def build_term(args: SearchArticlesInput) -> tuple[str, AppliedFilters]:
    clauses: list[str] = []
    applied = AppliedFilters()
    if args.author:
        clauses.append(f"{_quoted(args.author)}[au]")
        applied.author = args.author
    if args.journal:
        clauses.append(f"{_quoted(args.journal)}[journal]")
        applied.journal = args.journal
    for term in args.meshTerms or []:
        clauses.append(f"{_quoted(term)}[mh]")
    applied.meshTerms = args.meshTerms
    if args.publicationTypes:
        types = [f"{_quoted(t)}[pt]" for t in args.publicationTypes]
        clauses.append(types[0] if len(types) == 1 else "(" + " OR ".join(types) + ")")
        applied.publicationTypes = args.publicationTypes
    if args.language:
        clauses.append(f"{_quoted(args.language)}[lang]")  # quoted: 'english OR french' stays one value
        applied.language = args.language
    if args.species == "humans":
        clauses.append("humans[mh]")
    elif args.species == "animals":
        clauses.append('"animals"[mh:noexp]')
    applied.species = args.species
    if args.hasAbstract:
        clauses.append("hasabstract")
        applied.hasAbstract = True
    if args.freeFullText:
        clauses.append("free full text[sb]")
        applied.freeFullText = True
    r = args.dateRange
    if r is not None and (r.minDate or r.maxDate):
        hi = r.maxDate or "3000"  # PubMed's documented open end
        # open start: 1800 predates nearly all of PubMed, but never let it invert an older maxDate
        lo = r.minDate or ("1800" if hi[:4] >= "1800" else "1000")
        clauses.append(f'("{lo}"[{r.dateType}] : "{hi}"[{r.dateType}])')
        applied.dateRange = AppliedDateRange(minDate=r.minDate, maxDate=r.maxDate, dateType=r.dateType)
    parts = ([f"({args.query})" if clauses else args.query] if args.query else []) + clauses
    return " AND ".join(parts), applied


def search_url(term: str, sort: str) -> str:
    params = {"term": term}
    if sort in _WEB_SORT:
        params["sort"] = _WEB_SORT[sort]
    return PUBMED_URL + "?" + urlencode(params)


# ----------------------------------------------------------------------------- summaries


def _field(doc: DocSum, name: str) -> Any:
    for k, v in doc.fields.items():
        if k.lower() == name:
            return v
    return None


def _str(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def summary_of(doc: DocSum) -> ArticleSummary:
    d = pubmed_docsum(doc)
    editors = [
        name
        for a in _field(doc, "authors") or []
        if isinstance(a, dict)
        and str(a.get("authtype", "")).lower() == "editor"
        and isinstance(name := a.get("name"), str)
        and name
    ]
    doc_type = _str(_field(doc, "doctype"))
    is_book = doc_type in ("chapter", "book")
    names = d.authors
    year = re.search(r"\b(\d{4})\b", d.pub_date or "")
    return ArticleSummary(
        pmid=d.pmid,
        title=d.title,
        authors=(", ".join(names[:3]) + (", et al." if len(names) > 3 else "")) if names else None,
        source=None if is_book else d.source,
        pubDate=d.pub_date,
        year=int(year.group(1)) if year else None,
        volume=d.volume,
        issue=d.issue,
        pages=d.pages,
        doi=d.doi,
        pmcId=d.pmcid,
        publicationTypes=d.pub_types,
        hasAbstract=d.has_abstract,
        docType=doc_type,
        bookTitle=_str(_field(doc, "booktitle")) or (_str(_field(doc, "bookname")) if is_book else None),
        publisherName=_str(_field(doc, "publishername")),
        editors=editors or None,
        pubmedUrl=pubmed_url(d.pmid),
        pmcUrl=pmc_url(d.pmcid) if d.pmcid else None,
    )


# ----------------------------------------------------------------------------- handler


async def search_articles(args: SearchArticlesInput, ctx: ToolContext) -> SearchArticlesOutput:
    term, applied = build_term(args)
    notices: list[str] = []
    want = args.maxResults
    if want > MAX_RESULTS_CAP:
        notices.append(
            f"maxResults {want:,} is over the per-call cap; served {MAX_RESULTS_CAP:,}. Continue with "
            f"offset={args.offset + MAX_RESULTS_CAP}."
        )
        want = MAX_RESULTS_CAP
    if args.offset + want > PAGING_LIMIT:
        notices.append(
            f"PubMed serves only the first {PAGING_LIMIT:,} records of a result set; this page stops there. "
            "Narrow the search (e.g. a dateRange per year) to reach later records."
        )
        want = PAGING_LIMIT - args.offset
    params = {
        "db": "pubmed",
        "term": term,
        "retstart": args.offset,
        "retmax": want,
        "sort": _ESEARCH_SORT[args.sort],
        "retmode": "json",
    }
    body, json_mode = await ncbi_json(ctx, "esearch.fcgi", params)
    res = parse_esearch(body, json_mode=json_mode)
    total = res.count
    if res.errors.fields_not_found:
        notices.append(
            "PubMed ignored unknown field tag(s): "
            + ", ".join(res.errors.fields_not_found)
            + " (those words were searched in all fields). See pubmed://database/info for valid tags."
        )
    if res.errors.phrases_not_found:
        notices.append(
            "PubMed found nothing for: "
            + ", ".join(repr(p) for p in res.errors.phrases_not_found)
            + " and searched without it. Check the spelling (pubmed_spell_check)."
        )
    if res.warnings.quoted_phrases_not_found:
        notices.append(
            "Quoted phrase(s) not found as written: "
            + ", ".join(res.warnings.quoted_phrases_not_found)
            + ". Remove the quotes to let PubMed map the words."
        )
    if res.warnings.phrases_ignored:
        notices.append("PubMed ignored: " + ", ".join(res.warnings.phrases_ignored) + ".")
    if total == 0:
        notices.append(
            "No PubMed records match. Try pubmed_spell_check on the query, fewer filters, or broader terms "
            "(MeSH headings via pubmed_lookup_mesh)."
        )
    elif args.offset >= total:
        notices.append(
            f"offset {args.offset:,} is past the end of the {total:,} results; use an offset below {total:,}."
        )
    pmids = res.ids[:want]
    next_offset = args.offset + len(pmids)
    has_next = bool(pmids) and next_offset < min(total, PAGING_LIMIT)
    if total > PAGING_LIMIT and not has_next and pmids:
        notices.append(
            f"{total:,} records match but PubMed serves only the first {PAGING_LIMIT:,}; segment by dateRange."
        )
    summaries: list[ArticleSummary] = []
    n = args.summaryCount
    if n > SUMMARY_CAP:
        notices.append(
            f"summaryCount {n} is over the per-call cap; summarised the first {SUMMARY_CAP}. Pass the other PMIDs "
            "to pubmed_fetch_articles, or page with offset."
        )
        n = SUMMARY_CAP
    wanted = pmids[:n]
    if wanted:
        docs = await esummary_pubmed(ctx, wanted)
        summaries = [summary_of(docs[p]) for p in wanted if p in docs]
        missing = [p for p in wanted if p not in docs]
        if missing:
            notices.append("No summary was available for PMID(s) " + ", ".join(missing) + ".")
    return SearchArticlesOutput(
        query=args.query or "",
        effectiveQuery=term,
        queryTranslation=res.query_translation or None,
        appliedFilters=applied,
        totalCount=total,
        offset=args.offset,
        pmids=pmids,
        nextOffset=next_offset if has_next else None,
        summaries=summaries,
        searchUrl=search_url(term, args.sort),
        notice=" ".join(notices) or None,
    )


SEARCH_HINT = "Lower maxResults or summaryCount and page on with offset=nextOffset."


def render_search(out: SearchArticlesOutput, args: SearchArticlesInput) -> str:
    if args.responseFormat == "json":
        return rendering.cap_text(rendering.as_json(out, "pubmed-search"), SEARCH_HINT)
    shown = f"{out.offset + 1:,}-{out.offset + len(out.pmids):,}" if out.pmids else "none"
    lines = [
        f"**{out.totalCount:,} PubMed records** match; showing {shown}.",
        f"Query sent: `{out.effectiveQuery}`",
    ]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    if out.nextOffset is not None:
        lines.append(f"Next page: offset={out.nextOffset}.")
    if out.pmids:
        lines.append("PMIDs: " + ", ".join(out.pmids))
    if out.summaries:
        items = []
        for i, s in enumerate(out.summaries, 1):
            where = s.source or s.bookTitle or ""
            ids = " ".join(x for x in (f"PMID {s.pmid}", f"doi:{s.doi}" if s.doi else "", s.pmcId or "") if x)
            who = (s.authors or "No authors").rstrip(".")
            items.append(f"{i}. {s.title}\n   {who}. {where} {s.pubDate or ''}. {ids}")
        lines.append("")
        lines.append(rendering.fence("\n".join(items), "pubmed-esummary"))
    lines.append(f"PubMed: {out.searchUrl}")
    return rendering.cap_text("\n".join(lines), SEARCH_HINT)
