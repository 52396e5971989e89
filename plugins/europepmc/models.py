"""Output models of the Europe PMC tools and the mapping from :class:`EpmcRecord` to them."""

from __future__ import annotations

from pydantic import Field

from medlit.core.plugin import ToolOutput

from .inputs import Source
from .parse import EpmcRecord

SNIPPET = 400  # characters of abstract a search hit carries
AUTHORS_CAP = 1000  # characters of author string a search hit carries (consortia list thousands)


class Address(ToolOutput):
    source: str = Field(description="Europe PMC source, e.g. 'MED', 'PPR'")
    epmcId: str


class Hit(ToolOutput):
    source: str = Field(
        description="MED (PubMed), PMC, PPR (preprint), PAT (patent), AGR (Agricola), or another code"
    )
    epmcId: str = Field(description="Europe PMC's id within `source`: pass both to pubmed_europepmc_fetch")
    epmcUrl: str
    pmid: str | None = None
    pmcId: str | None = None
    doi: str | None = Field(
        None, description="As Europe PMC spells it (often lower case): compare case-insensitively"
    )
    title: str | None = None
    authors: str | None = Field(None, description="Author string, plain text; very long ones cut with '…'")
    journal: str | None = Field(
        None, description="Journal abbreviation or title; the server's name for preprints"
    )
    pubYear: str | None = None
    firstPublicationDate: str | None = Field(None, description="YYYY-MM-DD")
    pubTypes: list[str] | None = None
    isOpenAccess: bool | None = None
    hasFullText: bool | None = Field(
        None,
        description="Europe PMC serves its full text (open access with a full-text id): read it with "
        "pubmed_fetch_fulltext by pmcId/pmid/doi",
    )
    citedByCount: int | None = None
    license: str | None = Field(None, description="Licence as Europe PMC states it, e.g. 'cc by' (core only)")
    abstractSnippet: str | None = Field(
        None, description=f"First {SNIPPET} characters of the abstract (core only)"
    )
    abstractTruncated: bool | None = Field(
        None, description="True when the snippet is cut: pubmed_europepmc_fetch returns the whole abstract"
    )


class SearchOutput(ToolOutput):
    hits: list[Hit]
    totalCount: int = Field(description="Records matching the query across all pages")
    returned: int
    query: str = Field(description="The query sent, with the sources filter")
    appliedSources: list[Source]
    sort: str | None = Field(None, description="The sort sent; absent for relevance")
    pageSize: int = Field(description="The page size served")
    cursorMark: str = Field(description="The cursor this page was read from")
    nextCursorMark: str | None = Field(
        None, description="Pass as cursorMark for the next page; absent when this page ends the results"
    )
    repeatsDropped: int | None = Field(
        None, description="Hits left out because an earlier page of this search returned them"
    )
    searchUrl: str = Field(description="The same search on europepmc.org")
    notice: str | None = None


class AuthorOut(ToolOutput):
    name: str
    firstName: str | None = None
    lastName: str | None = None
    initials: str | None = None
    orcid: str | None = None
    affiliations: list[str] | None = None


class JournalOut(ToolOutput):
    title: str | None = None
    abbreviation: str | None = None
    issn: str | None = None
    eIssn: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None


class LinkOut(ToolOutput):
    url: str
    availability: str | None = Field(None, description="e.g. 'Open access', 'Free', 'Subscription required'")
    site: str | None = None
    style: str | None = Field(None, description="html, pdf or doi")


class MeshOut(ToolOutput):
    descriptor: str
    majorTopic: bool


class RecordOut(ToolOutput):
    source: str
    epmcId: str
    epmcUrl: str
    pmid: str | None = None
    pmcId: str | None = None
    doi: str | None = Field(None, description="As Europe PMC spells it: compare case-insensitively")
    title: str | None = None
    authors: list[AuthorOut] | None = None
    authorString: str | None = None
    journal: JournalOut | None = None
    publisher: str | None = Field(None, description="Preprint server or book publisher, e.g. 'medRxiv'")
    pubYear: str | None = None
    firstPublicationDate: str | None = None
    electronicPublicationDate: str | None = None
    pubTypes: list[str] | None = None
    abstract: str | None = Field(None, description="The whole abstract, plain text; labelled paragraphs kept")
    keywords: list[str] | None = None
    meshTerms: list[MeshOut] | None = None
    language: str | None = None
    license: str | None = Field(None, description="Licence as Europe PMC states it, e.g. 'cc by'")
    isOpenAccess: bool | None = None
    hasFullText: bool | None = Field(
        None,
        description="Europe PMC serves its full text: read it with pubmed_fetch_fulltext by pmcId/pmid/doi",
    )
    fullTextIds: list[str] | None = None
    inPMC: bool | None = None
    hasPdf: bool | None = None
    citedByCount: int | None = None
    hasReferences: bool | None = None
    fullTextLinks: list[LinkOut] | None = Field(
        None, description="Where the text can be read (publisher, server, PMC)"
    )


class FetchDeferred(ToolOutput):
    records: list[Address] = Field(description="Records withheld, in order: pass them back as `records`")
    deferredCount: int
    maxResponseCharacters: int
    returnedCharacters: int
    nextDeferredCharacters: int = Field(
        description="Size of the first deferred record: a follow-up call needs maxResponseCharacters at least this"
    )


class FetchOutput(ToolOutput):
    records: list[RecordOut]
    totalReturned: int
    notFound: list[Address] = Field(
        default_factory=list, description="Requested records Europe PMC has no record for"
    )
    deferred: FetchDeferred | None = None
    truncated: bool | None = Field(None, description="True when maxResponseCharacters withheld records")
    notice: str | None = None


def snippet(text: str | None, limit: int = SNIPPET) -> tuple[str | None, bool | None]:
    """The first ``limit`` characters cut at a word, with '…', and whether it was cut."""
    if not text:
        return None, None
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat, False
    cut = flat.rfind(" ", 0, limit)
    return flat[: cut if cut > limit // 2 else limit].rstrip(" ,;:") + "…", True


def to_hit(r: EpmcRecord) -> Hit:
    text, cut = snippet(r.abstract)
    authors = r.author_string
    if authors and len(authors) > AUTHORS_CAP:
        authors = snippet(authors, AUTHORS_CAP)[0]
    return Hit(
        source=r.source,
        epmcId=r.id,
        epmcUrl=r.url,
        pmid=r.pmid,
        pmcId=r.pmcid,
        doi=r.doi,
        title=r.title,
        authors=authors,
        journal=r.journal or r.publisher,
        pubYear=r.pub_year,
        firstPublicationDate=r.first_publication_date,
        pubTypes=r.pub_types or None,
        isOpenAccess=r.is_open_access,
        hasFullText=r.has_fulltext_xml,
        citedByCount=r.cited_by,
        license=r.license,
        abstractSnippet=text,
        abstractTruncated=cut,
    )


def to_record(r: EpmcRecord) -> RecordOut:
    journal = JournalOut(
        title=r.journal_title,
        abbreviation=r.journal if r.journal != r.journal_title else None,
        issn=r.issn,
        eIssn=r.essn,
        volume=r.volume,
        issue=r.issue,
        pages=r.pages,
    )
    return RecordOut(
        source=r.source,
        epmcId=r.id,
        epmcUrl=r.url,
        pmid=r.pmid,
        pmcId=r.pmcid,
        doi=r.doi,
        title=r.title,
        authors=[
            AuthorOut(
                name=a.name,
                firstName=a.first_name,
                lastName=a.last_name,
                initials=a.initials,
                orcid=a.orcid,
                affiliations=a.affiliations or None,
            )
            for a in r.authors
        ]
        or None,
        authorString=r.author_string,
        journal=journal if journal.model_dump(exclude_none=True) else None,
        publisher=r.publisher,
        pubYear=r.pub_year,
        firstPublicationDate=r.first_publication_date,
        electronicPublicationDate=r.electronic_date,
        pubTypes=r.pub_types or None,
        abstract=r.abstract,
        keywords=r.keywords or None,
        meshTerms=[MeshOut(descriptor=d, majorTopic=m) for d, m in r.mesh] or None,
        language=r.language,
        license=r.license,
        isOpenAccess=r.is_open_access,
        hasFullText=r.has_fulltext_xml,
        fullTextIds=r.fulltext_ids or None,
        inPMC=r.in_pmc,
        hasPdf=r.has_pdf,
        citedByCount=r.cited_by,
        hasReferences=r.has_references,
        fullTextLinks=[
            LinkOut(url=x.url, availability=x.availability, site=x.site, style=x.style) for x in r.links
        ]
        or None,
    )
