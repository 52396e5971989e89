"""PubMed as a search source for review sets: every record of a query through the History server.

Per query: one ESearch (``usehistory=y``, ``retmax=0``) stores the result set on NCBI's History
server and gives its size; then one EFetch (XML) per batch from that set (``WebEnv`` +
``query_key`` + ``retstart``/``retmax``). NCBI allows ``retmax`` up to 10,000, but PubMed XML runs
5-20 KB a record and the client caps a body at ``MEDLIT_MAX_BODY_BYTES`` (5 MB), so a batch is
:data:`BATCH` records, halved (for the rest of the search) when an answer is still too large.

Only the first 10,000 records of a PubMed result set can be reached. A larger set is refused
unless the caller asks to split by date: the query is then cut into publication-date slices
(``AND ("2001/01/01"[dp] : "2003/06/30"[dp])``) by bisection, one count-only ESearch per slice
tried, until every slice holds at most 10,000; each slice is fetched like a query of its own.

The cursor is JSON (the slices, which one, where in it), so an import resumes in another process:
the History handle is kept in the plugin's process cache and asked again (one ESearch) when the
process has none.
"""

from __future__ import annotations

import json
import time
from datetime import date, timedelta
from typing import Any

from medlit.core.plugin import (
    MedlitError,
    SourcePage,
    SourceQuery,
    SourceRecord,
    ToolContext,
    errors,
    identifiers,
)

from .client import run_esearch
from .parse.pubmed import parse_pubmed_xml
from .parse.pubmed_records import Author, Journal, PubMedArticle

WINDOW = 10_000  # PubMed serves only the first 10,000 records of a result set
BATCH = 500
HISTORY_TTL = 1800.0  # seconds a History handle is reused (NCBI keeps them for hours of inactivity)
FIRST_DAY = date(1700, 1, 1)
MAX_SLICES = 400


def _handles(ctx: ToolContext) -> dict[str, tuple[float, str, str, int]]:
    return ctx.keep("ncbi.review.history", dict)


async def _history(ctx: ToolContext, term: str, fresh: bool = False) -> tuple[str, str, int]:
    """(WebEnv, query_key, count) for ``term``: the process's handle, else a new ESearch."""
    cache = _handles(ctx)
    hit = cache.get(term)
    if hit is not None and not fresh and time.monotonic() - hit[0] < HISTORY_TTL:
        return hit[1], hit[2], hit[3]
    result = await run_esearch(ctx, "pubmed", term, usehistory=True, retmax=0)
    if not (result.web_env and result.query_key):
        if result.count == 0:
            return "", "", 0
        raise errors.upstream_error(
            "ncbi",
            errors.INVALID_RESPONSE,
            "NCBI ESearch stored no History handle for the query",
            retryable=True,
        )
    cache[term] = (time.monotonic(), result.web_env, result.query_key, result.count)
    return result.web_env, result.query_key, result.count


async def _count(ctx: ToolContext, term: str) -> int:
    return (await run_esearch(ctx, "pubmed", term, retmax=0)).count


def _dated(query: str, start: date, end: date) -> str:
    return f'({query}) AND ("{start:%Y/%m/%d}"[dp] : "{end:%Y/%m/%d}"[dp])'


async def _slices(ctx: ToolContext, query: str) -> tuple[list[list[Any]], str]:
    """Date slices of at most :data:`WINDOW` records each (bisection on publication dates)."""
    last = date.today() + timedelta(days=730)
    pending = [(FIRST_DAY, last)]
    out: list[list[Any]] = []
    notice = ""
    while pending:
        start, end = pending.pop(0)
        n = await _count(ctx, _dated(query, start, end))
        if n == 0:
            continue
        if n <= WINDOW or start == end or len(out) + len(pending) >= MAX_SLICES:
            if n > WINDOW:
                notice = f"A one-day slice holds {n:,} records: only its first {WINDOW:,} are reachable."
            out.append([start.isoformat(), end.isoformat(), n])
            continue
        middle = start + (end - start) // 2
        pending[:0] = [(start, middle), (middle + timedelta(days=1), end)]
    return out, notice


def _name(a: Author) -> str | None:
    if a.lastName:
        given = a.foreName or a.initials or ""
        return f"{a.lastName}, {given}" if given else a.lastName
    if a.collectiveName:
        # A comma would read as "Family, Given": a group's commas become spaces, once.
        return " ".join(a.collectiveName.replace(",", " ").split())
    return None


def _names(people: list[Author]) -> tuple[str, ...]:
    return tuple(n for n in (_name(a) for a in people) if n)


def _mesh(rec: PubMedArticle) -> tuple[str, ...]:
    """MeSH headings as MEDLINE writes them: ``*Asthma``, ``Asthma/*drug therapy/prevention &
    control`` (a star before each major topic)."""
    out = []
    for h in rec.mesh:
        parts = [("*" if h.majorTopic else "") + h.descriptor]
        parts += [("*" if q.majorTopic else "") + q.name for q in h.qualifiers]
        out.append("/".join(parts))
    return tuple(out)


def _issns(j: Journal | None) -> tuple[str, ...]:
    if j is None:
        return ()
    return tuple(dict.fromkeys(x for x in (j.issn, j.eIssn) if x))


def _book_fields(rec: PubMedArticle) -> dict[str, Any]:
    """A GeneReviews-like book or chapter: the book's title as the container, its publication
    facts, and the Bookshelf page as its URL."""
    book = rec.book
    if book is None:
        return {}
    return {
        "kind": "chapter" if rec.recordType == "book-chapter" else "book",
        "journal": book.title if rec.recordType == "book-chapter" else None,
        "publisher": book.publisher,
        "place": book.publisherLocation,
        "editors": _names(book.editors),
        "isbn": tuple(book.isbn),
        "url": f"https://www.ncbi.nlm.nih.gov/books/{rec.bookAccession}/" if rec.bookAccession else None,
    }


def _registrations(rec: PubMedArticle) -> tuple[str, ...]:
    """The trial registrations MEDLINE lists in its secondary-source ids (``SI``:
    ``ClinicalTrials.gov/NCT01234567``), as ``nct:`` study links."""
    found = (
        identifiers.canonical("nct", number)
        for bank in rec.databanks
        if bank.name.lower() == "clinicaltrials.gov"
        for number in bank.accessionNumbers
    )
    return tuple(dict.fromkeys(f"nct:{n}" for n in found if n))


def normalise(rec: PubMedArticle) -> SourceRecord:
    j = rec.journal
    pages = j.pages if j and j.pages else None
    if j and j.startPage:  # the expanded range ("244-255"), not MEDLINE's abbreviation ("244-55")
        pages = j.startPage + (f"-{j.endPage}" if j.endPage else "")
    year = rec.pubDate.year if rec.pubDate else None
    fields: dict[str, Any] = {
        "kind": "article",
        "journal": (j.title or j.isoAbbreviation) if j else None,
        "journal_abbrev": (j.medlineTa or j.isoAbbreviation) if j else None,
        "issn": _issns(j),
    }
    if rec.recordType != "journal-article":
        fields.update(_book_fields(rec))
    return SourceRecord(
        source="pubmed",
        source_id=rec.pmid,
        pmid=rec.pmid,
        pmcid=rec.pmcid,
        doi=rec.doi,
        title=rec.title or rec.chapterTitle or (rec.book.title if rec.book else None),
        authors=_names(rec.authors),
        year=year,
        volume=j.volume if j else None,
        issue=j.issue if j else None,
        pages=pages,
        abstract=rec.abstract,
        publication_types=tuple(rec.publicationTypes),
        language=rec.language[0] if rec.language else None,
        mesh=_mesh(rec),
        keywords=tuple(rec.keywords),
        study_links=_registrations(rec),
        **fields,
    )


def _parse(resp: Any) -> list[PubMedArticle]:
    return parse_pubmed_xml(resp.body)


async def _efetch(ctx: ToolContext, term: str, start: int, size: int) -> list[PubMedArticle]:
    web_env, query_key, _ = await _history(ctx, term)
    params = {"db": "pubmed", "retmode": "xml", "retstart": start, "retmax": size}
    try:
        resp = await ctx.client("ncbi").get(
            "efetch.fcgi", {**params, "WebEnv": web_env, "query_key": query_key}, expect="xml", parse=_parse
        )
    except MedlitError as err:
        if "history" in err.message.lower() or "unable to obtain query" in err.message.lower():
            web_env, query_key, _ = await _history(ctx, term, fresh=True)  # the handle expired
            resp = await ctx.client("ncbi").get(
                "efetch.fcgi",
                {**params, "WebEnv": web_env, "query_key": query_key},
                expect="xml",
                parse=_parse,
            )
        else:
            raise
    records: list[PubMedArticle] = resp.parsed
    return records


async def run_pubmed(q: SourceQuery, ctx: ToolContext) -> SourcePage:
    if q.cursor is None:
        _, _, total = await _history(ctx, q.query)
        notice = ""
        if total > WINDOW:
            if not q.split_by_date:
                raise errors.invalid_argument(
                    f"The PubMed query finds {total:,} records; PubMed serves only the first {WINDOW:,} of a query.",
                    "Call again with splitByDate=true (the query is fetched in publication-date slices), or narrow it.",
                    kind="pubmed_window_exceeded",
                    found=total,
                )
            slices, notice = await _slices(ctx, q.query)
        else:
            slices = [["", "", total]] if total else []
        state: dict[str, Any] = {"total": total, "slices": slices, "i": 0, "start": 0, "batch": BATCH}
        if not slices:
            return SourcePage([], total, None, "esearch: no records")
    else:
        try:
            state = json.loads(q.cursor)
            total, slices = int(state["total"]), state["slices"]
        except (ValueError, KeyError, TypeError):
            raise errors.invalid_argument(
                "The PubMed resume cursor is unreadable.", "Start the search again."
            ) from None
        notice = ""
    first, last, count = slices[state["i"]]
    term = _dated(q.query, date.fromisoformat(first), date.fromisoformat(last)) if first else q.query
    start = int(state["start"])
    size = max(1, min(q.limit, int(state.get("batch", BATCH)), min(count, WINDOW) - start))
    while True:
        try:
            records = await _efetch(ctx, term, start, size)
            break
        except MedlitError as err:
            if err.reason.endswith(errors.RESPONSE_TOO_LARGE) and size > 1:
                size //= 2
                state["batch"] = size
                continue
            raise
    start += size
    if start >= min(count, WINDOW):
        state["i"] += 1
        start = 0
    state["start"] = start
    done = state["i"] >= len(slices)
    detail = f"efetch {len(records)} records from the History server" + (
        f" (slice {first}..{last})" if first else ""
    )
    return SourcePage(
        records=[normalise(r) for r in records],
        total=total,
        cursor=None if done else json.dumps(state, separators=(",", ":")),
        detail=detail,
        notice=notice,
    )
