"""Europe PMC search results (``resultType`` lite or core) read into :class:`EpmcRecord`.

Both result types carry ids, title, ``authorString``, dates and open-access flags; ``core`` adds
the abstract, an author list with ORCIDs and affiliations, journal details, licence, MeSH,
keywords and full-text links. Titles and abstracts carry HTML markup (``<i>``, ``<sup>``,
``<h4>`` headings in structured abstracts), sent raw or entity-encoded (``&lt;sup&gt;``), and
entities: :func:`plain_text` makes them plain.
Every field is read defensively: Europe PMC's shapes vary between sources and API versions.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from medlit.core.plugin import identifiers, rendering

SOURCES = ("MED", "PMC", "PPR", "PAT", "AGR")
SITE = "https://europepmc.org"

_HEADING = re.compile(r"<h[1-6][^>]*>(.*?)</h[1-6]>", re.IGNORECASE | re.DOTALL)
_BREAK = re.compile(r"<\s*(?:br\s*/?|/p|/div|/li)\s*>", re.IGNORECASE)
# A tag starts with a letter, or '/' and a letter; a literal '<' in text ('p < 0.05', 'age <40') does
# not, so neither it nor the text after it is taken for markup.
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]{0,400})?/?>")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")


def plain_text(value: Any) -> str | None:
    """Markup stripped, entities decoded, white space folded; structured-abstract headings kept as
    ``Heading:`` at the start of their paragraph. ``None`` for nothing left."""
    if not isinstance(value, str):
        return None
    text = html.unescape(value)  # first: entity-encoded markup is markup too
    text = _HEADING.sub(lambda m: "\n\n" + _TAG.sub("", m.group(1)).strip().rstrip(":") + ": ", text)
    text = _BREAK.sub("\n\n", text)
    text = rendering.strip_invisible(_TAG.sub("", text))
    paragraphs = [_SPACES.sub(" ", p).strip() for p in re.split(r"\n\s*\n", text)]
    out = "\n\n".join(p for p in paragraphs if p)
    return out or None


def _str(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    text = str(value).strip()
    return text or None


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().upper() in ("Y", "N"):
        return value.strip().upper() == "Y"
    return None


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _items(block: Any, key: str) -> list[Any]:
    """``{"key": [..]}`` (or a lone item) as a list."""
    if not isinstance(block, Mapping):
        return []
    items = block.get(key)
    if isinstance(items, list):
        return items
    return [items] if items is not None else []


@dataclass
class EpmcAuthor:
    name: str
    first_name: str | None = None
    last_name: str | None = None
    initials: str | None = None
    orcid: str | None = None
    affiliations: list[str] = field(default_factory=list)
    collective: bool = False


@dataclass
class FullTextLink:
    url: str
    availability: str | None = None  # e.g. "Open access", "Subscription required", "Free"
    site: str | None = None  # e.g. "Europe_PMC", "DOI", "PubMedCentral"
    style: str | None = None  # html | pdf | doi


@dataclass
class EpmcRecord:
    """One Europe PMC record, as much of it as the result type carried."""

    source: str
    id: str
    pmid: str | None = None
    pmcid: str | None = None
    doi: str | None = None  # as Europe PMC spells it (usually lower case)
    title: str | None = None
    author_string: str | None = None
    authors: list[EpmcAuthor] = field(default_factory=list)
    journal: str | None = None  # the abbreviation where Europe PMC has one, else the title
    journal_title: str | None = None
    issn: str | None = None
    essn: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None  # preprint server or book publisher
    pub_year: str | None = None
    first_publication_date: str | None = None
    electronic_date: str | None = None
    pub_types: list[str] = field(default_factory=list)
    abstract: str | None = None
    keywords: list[str] = field(default_factory=list)
    mesh: list[tuple[str, bool]] = field(default_factory=list)
    # MeSH headings as MEDLINE writes them, qualifiers and major-topic stars included
    # ("Neoplasms/*genetics"), for exports a reference manager indexes.
    mesh_terms: list[str] = field(default_factory=list)
    journal_abbrev: str | None = None  # MEDLINE's abbreviation, else the ISO one
    book_title: str | None = None  # the book a chapter is in (bookOrReportDetails.comprisingTitle)
    isbn: list[str] = field(default_factory=list)
    edition: str | None = None
    book_id: str | None = None  # the NCBI Bookshelf id of a book or chapter ("NBK1116")
    license: str | None = None
    language: str | None = None
    is_open_access: bool | None = None
    in_epmc: bool | None = None
    in_pmc: bool | None = None
    has_pdf: bool | None = None
    has_references: bool | None = None
    cited_by: int | None = None
    fulltext_ids: list[str] = field(default_factory=list)
    links: list[FullTextLink] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"{SITE}/article/{self.source}/{self.id}"

    @property
    def has_fulltext_xml(self) -> bool | None:
        """Europe PMC serves ``fullTextXML`` for open-access records with a full-text id
        (preprints included); ``None`` when it reported no open-access status."""
        if self.is_open_access is None:
            return None
        return bool(self.is_open_access and self.fulltext_id)

    @property
    def fulltext_id(self) -> str | None:
        """The id to ask ``<id>/fullTextXML`` with: a listed full-text id (a PMCID first), else the
        record's PMCID."""
        ids = [i for i in self.fulltext_ids if i]
        return next((i for i in ids if i.upper().startswith("PMC")), None) or (ids[0] if ids else self.pmcid)


def _doi(value: Any) -> str | None:
    text = _str(value)
    return text if identifiers.canonical("doi", text) else None  # kept as Europe PMC spells it


def _pmcid(value: Any) -> str | None:
    return identifiers.canonical("pmcid", _str(value))


def _pmid(value: Any) -> str | None:
    text = _str(value)
    return text.lstrip("0") or None if text and text.isdigit() else None


def _author(raw: Mapping[str, Any]) -> EpmcAuthor | None:
    collective = _str(raw.get("collectiveName"))
    name = _str(raw.get("fullName")) or collective
    if name is None:
        return None
    orcid = None
    ident = raw.get("authorId")
    if isinstance(ident, Mapping) and str(ident.get("type", "")).upper() == "ORCID":
        orcid = _str(ident.get("value"))
    affiliations = [
        a
        for a in (
            plain_text(x.get("affiliation"))
            for x in _items(raw.get("authorAffiliationDetailsList"), "authorAffiliation")
            if isinstance(x, Mapping)
        )
        if a
    ]
    return EpmcAuthor(
        name=name,
        first_name=_str(raw.get("firstName")),
        last_name=_str(raw.get("lastName")),
        initials=_str(raw.get("initials")),
        orcid=orcid,
        affiliations=affiliations,
        collective=collective is not None and _str(raw.get("fullName")) is None,
    )


def _pub_types(raw: Mapping[str, Any]) -> list[str]:
    """The publication types from the list, else from the flat ``pubType`` string."""
    pub_types = [plain_text(t) for t in _items(raw.get("pubTypeList"), "pubType")]
    if not pub_types and _str(raw.get("pubType")):
        pub_types = [t.strip() for t in str(raw["pubType"]).split(";")]
    return [t for t in pub_types if t]


def _mesh_heading(m: Mapping[str, Any]) -> tuple[tuple[str, bool], str]:
    """A MeSH heading as (descriptor, major) and as a term ``*Descriptor/*Qualifier``, a star
    marking a major topic."""
    name, major = str(m["descriptorName"]).strip(), _flag(m.get("majorTopic_YN")) is True
    parts = [("*" if major else "") + name]
    for q in _items(m.get("meshQualifierList"), "meshQualifier"):
        if isinstance(q, Mapping) and (qname := _str(q.get("qualifierName"))):
            parts.append(("*" if _flag(q.get("majorTopic_YN")) is True else "") + qname)
    return (name, major), "/".join(parts)


def _mesh(raw: Mapping[str, Any]) -> dict[str, Any]:
    headings = [
        _mesh_heading(m)
        for m in _items(raw.get("meshHeadingList"), "meshHeading")
        if isinstance(m, Mapping) and _str(m.get("descriptorName"))
    ]
    return {"mesh": [h for h, _ in headings], "mesh_terms": [t for _, t in headings]}


def _links(raw: Mapping[str, Any]) -> list[FullTextLink]:
    return [
        FullTextLink(
            url=str(x["url"]).strip(),
            availability=_str(x.get("availability")),
            site=_str(x.get("site")),
            style=_str(x.get("documentStyle")),
        )
        for x in _items(raw.get("fullTextUrlList"), "fullTextUrl")
        if isinstance(x, Mapping) and _str(x.get("url"))
    ]


def _ids(raw: Mapping[str, Any], source: str, rid: str) -> dict[str, Any]:
    """PMID and PMCID, given or (for a MED or PMC record) read from the record's own id."""
    return {
        "pmid": _pmid(raw.get("pmid")) or (rid.lstrip("0") if source == "MED" and rid.isdigit() else None),
        "pmcid": _pmcid(raw.get("pmcid")) or (_pmcid(rid) if source == "PMC" else None),
        "doi": _doi(raw.get("doi")),
    }


def _journal(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Journal, volume, issue and year: the nested ``journalInfo`` first, the flat fields after."""
    info = _map(raw.get("journalInfo"))
    journal = _map(info.get("journal"))
    issns = [s.strip() for s in str(raw.get("journalIssn") or "").split(";") if s.strip()]
    abbrev = plain_text(journal.get("medlineAbbreviation") or journal.get("isoabbreviation"))
    return {
        "journal": abbrev or plain_text(raw.get("journalTitle")) or plain_text(journal.get("title")),
        "journal_title": plain_text(journal.get("title")) or plain_text(raw.get("journalTitle")),
        "issn": _str(journal.get("issn")) or (issns[0] if issns else None),
        "essn": _str(journal.get("essn")) or (issns[1] if len(issns) > 1 else None),
        "volume": _str(info.get("volume")) or _str(raw.get("journalVolume")),
        "issue": _str(info.get("issue")) or _str(raw.get("issue")),
        "pub_year": _str(raw.get("pubYear")) or _str(info.get("yearOfPublication")),
        "journal_abbrev": abbrev,
    }


def _book(raw: Mapping[str, Any]) -> dict[str, Any]:
    book = _map(raw.get("bookOrReportDetails"))
    return {
        "publisher": plain_text(book.get("publisher")),
        "book_title": plain_text(book.get("comprisingTitle")),
        "isbn": [x for x in (_str(book.get("isbn13")), _str(book.get("isbn10"))) if x],
        "edition": _str(book.get("edition")),
    }


# record field <- Europe PMC's yes/no flag
_FLAGS = {
    "is_open_access": "isOpenAccess",
    "in_epmc": "inEPMC",
    "in_pmc": "inPMC",
    "has_pdf": "hasPDF",
    "has_references": "hasReferences",
}


def _flags(raw: Mapping[str, Any]) -> dict[str, Any]:
    return {field: _flag(raw.get(key)) for field, key in _FLAGS.items()}


def read_record(raw: Mapping[str, Any]) -> EpmcRecord | None:
    """A search result as a record; ``None`` for one without an id or source."""
    source = (_str(raw.get("source")) or "").upper()
    rid = _str(raw.get("id"))
    if not source or not rid:
        return None
    return EpmcRecord(
        source=source,
        id=rid,
        **_ids(raw, source, rid),
        title=plain_text(raw.get("title")),
        author_string=plain_text(raw.get("authorString")),
        authors=[
            a
            for a in (_author(x) for x in _items(raw.get("authorList"), "author") if isinstance(x, Mapping))
            if a
        ],
        **_journal(raw),
        pages=_str(raw.get("pageInfo")),
        first_publication_date=_str(raw.get("firstPublicationDate")),
        electronic_date=_str(raw.get("electronicPublicationDate")),
        pub_types=_pub_types(raw),
        abstract=plain_text(raw.get("abstractText")),
        keywords=[k for k in (plain_text(x) for x in _items(raw.get("keywordList"), "keyword")) if k],
        **_mesh(raw),
        **_book(raw),
        book_id=_str(raw.get("bookid")),
        license=_str(raw.get("license")),
        language=_str(raw.get("language")),
        **_flags(raw),
        cited_by=_int(raw.get("citedByCount")),
        fulltext_ids=[str(i).strip() for i in _items(raw.get("fullTextIdList"), "fullTextId") if _str(i)],
        links=_links(raw),
    )
