"""PubMed as a source of bibliographic metadata for other plugins, and the full-text chain's
PMID -> DOI step (both declared in the package's ``__init__``).

:func:`lookup`, the ``pubmed`` metadata provider, answers ``ctx.lookup_metadata("pmid", ...)``
from parsed PubMed records: one efetch for up to 200 PMIDs (as many requests as
:func:`~.client.fetch_pubmed` needs for more), served from the process record cache when a tool
read the same records in the last ten minutes (a fetch then a lookup costs nothing more). PMIDs
PubMed does not know are absent from the answer.

:func:`resolve_dois`, the ``pubmed`` ID resolver (order 20: after the ID converter, which knows
only PMC articles), fills in the DOI PubMed records for each PMID of the call, in the same one
batched request: ``hit`` with the DOI, ``no-doi`` when the record carries none, ``miss`` when
PubMed does not know the PMID.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from medlit.core.plugin import ArticleRef, IdKind, RecordMetadata, TierResult, ToolContext, identifiers, kinds

from .client import fetch_pubmed
from .parse.pubmed_records import Author, Book, Journal, PartialDate, PubMedArticle, month_number


async def pubmed_metadata(ctx: ToolContext, pmids: Sequence[str]) -> dict[str, RecordMetadata]:
    """Metadata for canonical PMIDs, keyed by PMID; unknown ones absent. Any cached variant of a
    record serves (metadata needs neither investigators nor grants)."""
    wanted = list(dict.fromkeys(pmids))
    if not wanted:
        return {}
    records, _ = await fetch_pubmed(ctx, wanted)
    return {rec.pmid: to_metadata(rec) for rec in records if rec.pmid}


async def lookup(kind: IdKind, ids: Sequence[str], ctx: ToolContext) -> Mapping[str, RecordMetadata]:
    if kind != "pmid":
        return {}
    canonical: dict[str, str] = {}  # canonical PMID -> the id as asked
    for raw in ids:
        try:
            canonical.setdefault(identifiers.normalize_pmid(raw), raw)
        except identifiers.IdentifierError:
            continue  # not a PMID: nobody knows it
    found = await pubmed_metadata(ctx, list(canonical))
    return {canonical[pmid]: rec for pmid, rec in found.items() if pmid in canonical}


async def resolve_dois(refs: Sequence[ArticleRef], ctx: ToolContext) -> dict[str, TierResult]:
    """The chain's PMID -> DOI step: one lookup for every article of the call that has a PMID."""
    with_pmid = [r for r in refs if r.pmid]
    found = await pubmed_metadata(ctx, [r.pmid for r in with_pmid if r.pmid])
    out: dict[str, TierResult] = {}
    for ref in with_pmid:
        rec = found.get(ref.pmid or "")
        if rec is None:
            out[ref.key] = TierResult("miss", f"PubMed has no record for PMID {ref.pmid}")
        elif rec.doi:
            out[ref.key] = TierResult("hit", f"DOI {rec.doi} from PubMed", ids={"doi": rec.doi})
        else:
            out[ref.key] = TierResult("no-doi", f"PubMed has no DOI for PMID {ref.pmid}")
    return out


# ----------------------------------------------------------------------------- mapping


def to_metadata(a: PubMedArticle) -> RecordMetadata:
    """A PubMed record as :class:`RecordMetadata`: a chapter's container is its book, a book's
    its collection (series); an article's date is its issue's (else the electronic date), a
    chapter's its last revision, a book's its publication date. A group author leads ``authors``
    by its name and is the first author's family name (no given name)."""
    kind = _kind(a)
    j = a.journal if kind in ("article", "preprint") else None
    book = a.book
    date = _date(a, kind)
    return RecordMetadata(
        pmid=a.pmid,
        doi=_doi(a.doi),
        pmcid=_pmcid(a.pmcid),
        kind=kind,
        title=a.title,
        container_title=_container_title(kind, j, book),
        **_journal_fields(j),
        isbn=_isbn(book.isbn) if book else None,
        publisher=book.publisher if book else None,
        date=date,
        year=int(date[:4]) if date else None,
        volume=(j.volume if j else book.volume if book else None),
        **_author_fields(a),
        publication_types=tuple(a.publicationTypes),
        abstract=a.abstract,
    )


def _date(a: PubMedArticle, kind: kinds.RecordKind) -> str | None:
    # A chapter is cited by its last revision (a Bookshelf book's PubDate is when the book began).
    dates = (
        [a.dateRevised, a.contributionDate, a.pubDate] if kind == "chapter" else [a.pubDate, a.articleDate]
    )
    return next((iso for d in dates if (iso := _iso(d))), None)


def _container_title(kind: kinds.RecordKind, j: Journal | None, book: Book | None) -> str | None:
    """An article's journal, a chapter's book, a book's collection (series)."""
    if kind in ("article", "preprint"):
        return j.title if j else None
    if book is None:
        return None
    return book.title if kind == "chapter" else book.collectionTitle


def _journal_fields(j: Journal | None) -> dict[str, Any]:
    """Journal abbreviation, ISSNs, issue and pages; all None for a book or chapter. An ISSN
    PubMed marks electronic is only the eISSN."""
    if j is None:
        return dict.fromkeys(("container_abbrev", "issn", "eissn", "issue", "first_page", "last_page"))
    electronic = (j.issnType or "").lower() == "electronic"
    return {
        "container_abbrev": j.isoAbbreviation or j.medlineTa,
        "issn": None if electronic else j.issn,
        "eissn": j.eIssn,
        "issue": j.issue,
        "first_page": j.startPage,
        "last_page": j.endPage,
    }


def _author_fields(a: PubMedArticle) -> dict[str, Any]:
    people = [p for p in a.authors if p.lastName or p.collectiveName]
    first = people[0] if people else None
    return {
        "authors": tuple(_name(p) for p in people),
        "first_author_family": (first.lastName or first.collectiveName) if first else None,
        "first_author_given": first.foreName if first and first.lastName else None,
    }


def _kind(a: PubMedArticle) -> kinds.RecordKind:
    if a.recordType == "book-chapter":
        return "chapter"
    if a.recordType == "book":
        return "book"
    return "preprint" if any(t.lower() == "preprint" for t in a.publicationTypes) else "article"


def _name(p: Author) -> str:
    """``Last FM`` (initials as PubMed gives them, else from the given names); a group as named."""
    if not p.lastName:
        return p.collectiveName or p.foreName or ""
    initials = p.initials or "".join(w[0] for w in re.split(r"[\s\-.]+", p.foreName or "") if w)
    return " ".join(x for x in (p.lastName, initials, p.suffix) if x)


def _iso(d: PartialDate | None) -> str | None:
    """``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` from a PubMed date (a MedlineDate gives its year)."""
    if d is None or not d.year:
        return None
    month = month_number(d.month)
    if month is None:
        return f"{d.year:04d}"
    if d.day and 1 <= d.day <= 31:
        return f"{d.year:04d}-{month:02d}-{d.day:02d}"
    return f"{d.year:04d}-{month:02d}"


def _isbn(values: list[str]) -> str | None:
    """The ISBN-13 when the book lists one (the form every registry takes), else the first."""
    digits = [(v, re.sub(r"[^0-9Xx]", "", v)) for v in values]
    return next((v for v, d in digits if len(d) == 13), values[0] if values else None)


def _doi(value: str | None) -> str | None:
    return identifiers.canonical("doi", value)  # a malformed DOI would send other tiers to the wrong place


def _pmcid(value: str | None) -> str | None:
    return identifiers.canonical("pmcid", value)
