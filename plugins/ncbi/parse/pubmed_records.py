"""Typed records for PubMed efetch XML (journal articles and NCBI Bookshelf documents).

Field names are camelCase because they are the JSON the tools return. Text fields are plain
text: ``<i>``/``<b>``/``<u>`` are dropped, ``<sup>``/``<sub>`` become Unicode super/subscripts
when every character has one (``Cu₂O``, ``Ca²⁺``, ``10⁻⁶``) and otherwise stay readable
(``2nd``, ``GeneReviews®``, ``x^(a+b)``), MathML is linearised (``³He/¹²⁹Xe MRI``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

__all__ = [
    "AbstractSection",
    "Author",
    "Book",
    "BookSection",
    "Chemical",
    "DataBank",
    "Grant",
    "Journal",
    "MeshHeading",
    "MeshQualifier",
    "Notice",
    "OtherAbstract",
    "PartialDate",
    "PubMedArticle",
    "RecordType",
    "SupplementaryConcept",
    "month_number",
]

RecordType = Literal["journal-article", "book", "book-chapter"]


class _Model(BaseModel):
    # Frozen: the process record cache hands the same record to every caller (no copies), so no
    # one may change one; build a new value instead (``model_copy(update=...)``), and never
    # change a list a record holds.
    model_config = ConfigDict(extra="forbid", frozen=True)


class PartialDate(_Model):
    """A PubMed date as given: any of the parts may be missing.

    ``month`` is kept as written ("Mar", "03"); ``medlineDate`` is verbatim ("1998 Dec-1999 Jan")
    and ``year`` is derived from it when there is no Year element.
    """

    year: int | None = None
    month: str | None = None
    day: int | None = None
    season: str | None = None
    medlineDate: str | None = None


_MONTH_ABBREVS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def month_number(month: str | None) -> int | None:
    """A PubMed month as 1-12 ("Mar", "March", "03"); None when absent or unreadable."""
    m = (month or "").strip()
    if m.isdecimal() and len(m) <= 9:  # not isdigit: int() rejects "²"; huge runs exceed its limit
        n = int(m)
        return n if 1 <= n <= 12 else None
    key = m[:3].lower()
    return _MONTH_ABBREVS.index(key) + 1 if key in _MONTH_ABBREVS else None


class AbstractSection(_Model):
    label: str | None = None
    nlmCategory: str | None = None
    text: str = ""


class OtherAbstract(_Model):
    language: str | None = None
    type: str | None = None
    text: str = ""


class Author(_Model):
    """A person (``lastName``...) or a group (``collectiveName``); investigators and editors too."""

    lastName: str | None = None
    foreName: str | None = None
    initials: str | None = None
    suffix: str | None = None
    collectiveName: str | None = None
    orcid: str | None = None
    affiliationIndexes: list[int] = Field(default_factory=list)
    equalContrib: bool = False


class Journal(_Model):
    title: str | None = None
    isoAbbreviation: str | None = None
    medlineTa: str | None = None
    issn: str | None = None
    issnType: str | None = None
    eIssn: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    startPage: str | None = None
    endPage: str | None = None
    elocationId: str | None = None


class MeshQualifier(_Model):
    name: str
    ui: str | None = None
    majorTopic: bool = False


class MeshHeading(_Model):
    descriptor: str
    ui: str | None = None
    majorTopic: bool = False
    qualifiers: list[MeshQualifier] = Field(default_factory=list)


class SupplementaryConcept(_Model):
    name: str
    ui: str | None = None
    type: str | None = None


class Chemical(_Model):
    name: str
    ui: str | None = None
    registryNumber: str | None = None


class Grant(_Model):
    grantId: str | None = None
    acronym: str | None = None
    agency: str | None = None
    country: str | None = None


class DataBank(_Model):
    name: str
    accessionNumbers: list[str] = Field(default_factory=list)


class Notice(_Model):
    """A CommentsCorrections link other than ``Cites`` (RetractionIn, ErratumIn, CommentOn...)."""

    type: str
    pmid: str | None = None
    refSource: str | None = None
    note: str | None = None


class BookSection(_Model):
    title: str
    locationLabel: str | None = None
    sections: list[BookSection] = Field(default_factory=list)


class Book(_Model):
    """The containing book (or, on a whole-book record, the book itself).

    ``doi`` and ``isbn`` are the book's own identifiers (``Book/ELocationID``, ``Book/Isbn``);
    a chapter's DOI is the record-level ``PubMedArticle.doi``.
    """

    title: str | None = None
    doi: str | None = None
    publisher: str | None = None
    publisherLocation: str | None = None
    edition: str | None = None
    collectionTitle: str | None = None
    volume: str | None = None
    volumeTitle: str | None = None
    editors: list[Author] = Field(default_factory=list)
    isbn: list[str] = Field(default_factory=list)
    beginningDate: PartialDate | None = None
    endingDate: PartialDate | None = None
    medium: str | None = None
    reportNumber: str | None = None


class PubMedArticle(_Model):
    """One PubMed record: a journal article, a whole book or a book chapter."""

    pmid: str
    recordType: RecordType = "journal-article"
    title: str | None = None
    vernacularTitle: str | None = None
    abstract: str | None = None
    abstractSections: list[AbstractSection] = Field(default_factory=list)
    otherAbstracts: list[OtherAbstract] = Field(default_factory=list)
    authors: list[Author] = Field(default_factory=list)
    affiliations: list[str] = Field(default_factory=list)
    # Filled only when asked for (the list can run to thousands of names).
    investigators: list[Author] = Field(default_factory=list)
    journal: Journal | None = None
    pubDate: PartialDate | None = None
    articleDate: PartialDate | None = None
    doi: str | None = None
    pmcid: str | None = None
    pii: str | None = None
    bookAccession: str | None = None
    mesh: list[MeshHeading] = Field(default_factory=list)
    supplementaryConcepts: list[SupplementaryConcept] = Field(default_factory=list)
    chemicals: list[Chemical] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    publicationTypes: list[str] = Field(default_factory=list)
    language: list[str] = Field(default_factory=list)
    # None unless grants were asked for; [] means asked for and none listed.
    grants: list[Grant] | None = None
    databanks: list[DataBank] = Field(default_factory=list)
    notices: list[Notice] = Field(default_factory=list)
    isRetracted: bool = False
    coiStatement: str | None = None
    # ReferenceList size; else the count of CommentsCorrections "Cites"; else NumberOfReferences.
    referenceCount: int | None = None
    # Bookshelf documents only.
    book: Book | None = None
    chapterTitle: str | None = None
    sections: list[BookSection] = Field(default_factory=list)
    locationLabel: str | None = None
    contributionDate: PartialDate | None = None
    dateRevised: PartialDate | None = None
    # Read with investigators: how many of `affiliations` the authors and editors brought (the
    # investigators' own come after them), so the record can answer a read without them.
    _people_affiliations: int | None = PrivateAttr(default=None)

    def narrowed(self, investigators: bool, grants: bool) -> PubMedArticle:
        """This record as a read with these options makes it: one read with more options
        (investigators, grants) answers a read with fewer, without its investigators (and their
        affiliations) or grants. A new record sharing this one's parts, or this one unchanged."""
        update: dict[str, object] = {}
        if not investigators and self.investigators:
            update["investigators"] = []
            keep = self._people_affiliations
            if keep is not None and keep < len(self.affiliations):
                update["affiliations"] = self.affiliations[:keep]
        if not grants and self.grants is not None:
            update["grants"] = None
        return self.model_copy(update=update) if update else self
