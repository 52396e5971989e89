"""The shape of one record of a review set, as the store keeps it (JSON) and every part of the
review plugin passes it around: search sources' records (:func:`~.identity.keys.as_data`), records read
from an imported file (:mod:`.readers`), the merged record of a duplicate group (:mod:`.merging`)
and what the exporters write (:mod:`.exports`).

Every key is optional; a key whose value is unknown is left out or ``None``/empty. Identifiers
are in their matching form (PMID digits, ``PMC123``, DOI lower case without a resolver prefix).
``journal`` is the container's title: a journal's full title, the book a chapter is in, the
proceedings of a conference paper.
"""

from __future__ import annotations

from typing import Literal, TypedDict

Kind = Literal["article", "book", "chapter", "conference", "preprint", "thesis", "report", "other"]
KINDS: tuple[Kind, ...] = (
    "article",
    "book",
    "chapter",
    "conference",
    "preprint",
    "thesis",
    "report",
    "other",
)


class RecordData(TypedDict, total=False):
    kind: Kind  # what the work is; "article" when a source does not say
    pmid: str | None
    pmcid: str | None
    doi: str | None
    title: str | None
    authors: list[str]  # "Family, Given" (given names or initials), or a group's name without a comma
    editors: list[str]  # same shape: a book's or chapter's editors
    journal: str | None  # the container's full title (journal, book of a chapter, proceedings)
    journal_abbrev: str | None  # the journal's abbreviation (MEDLINE TA / ISO), kept beside the title
    issn: list[str]  # "1234-5678", print and electronic
    isbn: list[str]
    publisher: str | None
    place: str | None  # the publisher's place
    year: int | None
    volume: str | None
    issue: str | None
    pages: str | None  # "123-129" expanded where known, or an article number ("e0221829")
    abstract: str | None
    keywords: list[str]  # author keywords and a database's index terms other than MeSH
    mesh: list[str]  # MeSH headings as MEDLINE writes them ("*Asthma", "Asthma/*drug therapy")
    publication_types: list[str]
    language: str | None
    url: str | None
    # other reports of the same study the record names, "kind:value" (SourceRecord.study_links):
    # nct:NCT01234567, pmid:123, doi:10.1/x; linked by :mod:`.identity.links`, never merged
    study_links: list[str]
    sources: list[str]  # the sources (search sources, imported databases) that found the record
    source_ids: dict[str, str]  # source -> that source's own id of the record (first one seen)
    # fields a metadata provider gave at import, not the source ({"abstract": "pubmed"}):
    # :mod:`.sources.filling`; a merged record keeps the marks of the values it took
    filled: dict[str, str]


# Fields that describe the work (what merging and exporting are about), in a stable order.
WORK_FIELDS: tuple[str, ...] = (
    "kind",
    "pmid",
    "pmcid",
    "doi",
    "title",
    "authors",
    "editors",
    "journal",
    "journal_abbrev",
    "issn",
    "isbn",
    "publisher",
    "place",
    "year",
    "volume",
    "issue",
    "pages",
    "abstract",
    "keywords",
    "mesh",
    "publication_types",
    "language",
    "url",
    "study_links",
)
