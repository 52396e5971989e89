"""A record's matching form (:class:`Work`), built once per record by :func:`normalize`."""

from __future__ import annotations

from dataclasses import dataclass

from ...record import RecordData
from ..keys import clean_doi, clean_pmcid, clean_pmid  # the store's matching forms, one definition
from . import fields


@dataclass(frozen=True, slots=True)
class Work:
    """What matching needs of a record, normalised: identifiers, the title's folded forms (main
    form first), authors as ``(family, initials)``, the container's words, and the numbers
    (year, volume, issue, first page). Tuples and short strings only: a few hundred bytes a
    record, so 50,000 stay in memory."""

    kind: str | None = None
    pmid: str | None = None
    doi: str | None = None
    pmcid: str | None = None
    titles: tuple[str, ...] = ()
    head: str = ""  # the title before its subtitle, when it has one
    words: tuple[str, ...] = ()  # the main title form's words
    translated: bool = False  # the title says it is a translation (fields.translated)
    tongue: str = ""  # the title's language as its function words tell (fields.tongue)
    # Sets as sorted tuples: an empty frozenset built at run time costs 216 bytes, a tuple 40.
    parts: tuple[str, ...] = ()
    authors: tuple[tuple[str, str], ...] = ()
    journals: tuple[tuple[str, ...], ...] = ()  # the full title's words, the abbreviation's
    issn: tuple[str, ...] = ()
    isbn: tuple[str, ...] = ()
    year: int | None = None
    volume: str | None = None
    issue: str | None = None
    pages: tuple[str, int, int] | None = None  # (prefix, first, last)
    notice: bool = False  # an erratum, correction or retraction notice
    meeting: bool = False  # a conference contribution (abstract or proceedings paper)
    supplement: bool = False  # the volume or issue is a supplement

    @property
    def brief(self) -> bool:
        """An abstract's shape: in a supplement, or on two pages at most."""
        return self.supplement or (self.pages is not None and self.pages[2] - self.pages[1] <= 1)

    @property
    def title(self) -> str:
        return self.titles[0] if self.titles else ""

    @property
    def page(self) -> int | None:
        return self.pages[1] if self.pages else None

    @property
    def first_author(self) -> str:
        return self.authors[0][0] if self.authors else ""


def normalize(data: RecordData) -> Work:
    """``data``'s matching form."""
    title = data.get("title")
    types = tuple(data.get("publication_types") or ())
    journal = data.get("journal")
    abbrev = data.get("journal_abbrev")
    journals = fields.journal_names(journal, abbrev)
    year = data.get("year")
    forms, head = fields.titles(title)
    words = fields.title_words(title)
    return Work(
        kind=data.get("kind"),
        pmid=clean_pmid(data.get("pmid")),
        doi=clean_doi(data.get("doi")),
        pmcid=clean_pmcid(data.get("pmcid")),
        titles=forms,
        head=head,
        words=words,
        translated=fields.translated(title),
        tongue=fields.tongue(title, words),
        parts=fields.parts(title),
        authors=fields.people(tuple(data.get("authors") or ())),
        journals=journals,
        issn=fields.issns(tuple(data.get("issn") or ())),
        isbn=tuple(sorted({i.replace("-", "").upper() for i in data.get("isbn") or () if i})),
        year=int(year) if isinstance(year, int) or (isinstance(year, str) and year.isdigit()) else None,
        volume=_volume(data),
        issue=fields.issue_number(data.get("issue")),
        pages=fields.page_range(data.get("pages")),
        notice=fields.is_notice(title, types),
        supplement=fields.is_supplement(data.get("volume"), data.get("issue"), data.get("pages")),
        meeting=fields.is_meeting(data.get("kind"), types, journal, data.get("volume"), data.get("issue")),
    )


def _volume(data: RecordData) -> str | None:
    """The volume's number, unless it is the year (a magazine's "2016" where an index gives
    "94"): that says nothing a year does not."""
    volume = fields.number(data.get("volume"))
    year = data.get("year")
    if volume is not None and year is not None and volume == str(year):
        return None
    return volume
