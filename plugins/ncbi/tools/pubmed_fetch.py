"""pubmed_fetch_articles: up to 200 fully parsed PubMed records (journal articles and Bookshelf)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator

from medlit.core.plugin import ToolContext, ToolInput, ToolOutput, outputs, rendering

from ..client import fetch_pubmed
from ..inputs import Pmids, check_pmids, pmids_field
from ..parse.pubmed_records import Author, PartialDate, PubMedArticle, RecordType
from ..render import pmc_url, pubmed_url

MAX_PMIDS = 200
RESPONSE_MAX = 10_000_000  # maxResponseCharacters: omitted means no ceiling at all
DOI_SHAPE = re.compile(r"10\.\d{4,9}/")


class FetchArticlesInput(ToolInput):
    pmids: Pmids = pmids_field(MAX_PMIDS, "to fetch")
    includeMesh: bool = Field(True, description="MeSH headings, supplementary concepts, chemicals.")
    includeGrants: bool = Field(False, description="The grant list.")
    includeInvestigators: bool = Field(
        False, description="A collective author's members (consortia list thousands)."
    )
    maxResponseCharacters: int | None = Field(
        None,
        ge=1,
        le=RESPONSE_MAX,
        description="Ceiling on the articles' JSON size, default none; later articles are deferred whole. "
        "Example: 60000.",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("pmids", mode="before")
    @classmethod
    def _pmids(cls, v: Any) -> list[str]:
        return check_pmids(v, MAX_PMIDS)


# ----------------------------------------------------------------------------- output records


class DateOut(ToolOutput):
    year: int | None = None
    month: str | None = Field(None, description="Month as NCBI writes it ('Mar' or '03')")
    day: int | None = None
    season: str | None = None
    medlineDate: str | None = Field(
        None, description="Free-form date kept verbatim, e.g. '2000 Spring', '1998 Dec-1999 Jan'"
    )


class ArticleDateOut(DateOut):
    dateType: str = Field(
        description="'Electronic' (ArticleDate), or 'ContributionDate' / 'DateRevised' on Bookshelf records"
    )


class PersonOut(ToolOutput):
    lastName: str | None = None
    firstName: str | None = Field(None, description="Given name(s) as NCBI writes them (ForeName)")
    initials: str | None = None
    suffix: str | None = Field(None, description="Generational suffix verbatim, e.g. 'Jr'")
    collectiveName: str | None = Field(
        None,
        description="Group author name; its members are in `investigators` when includeInvestigators is set",
    )
    orcid: str | None = Field(None, description="Bare ORCID iD, e.g. '0000-0002-1825-0097'")
    affiliationIndices: list[int] | None = Field(
        None, description="Indexes into the article's `affiliations`"
    )
    equalContrib: bool | None = None


class JournalOut(ToolOutput):
    title: str | None = None
    isoAbbreviation: str | None = None
    medlineTa: str | None = Field(None, description="MEDLINE title abbreviation (used by Vancouver)")
    issn: str | None = Field(None, description="ISSN (print or electronic as typed in issnType)")
    issnType: str | None = None
    eIssn: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = Field(None, description="Page range as written, e.g. '48-55'")
    elocationId: str | None = Field(
        None,
        description="Electronic locator from ELocationID: the publisher's article number (pii), else the DOI when "
        "that is the only locator, e.g. 'e0221829'",
    )
    elocationIdType: str | None = Field(
        None, description="What `elocationId` holds, from NCBI's EIdType: 'pii' or 'doi'"
    )
    publicationDate: DateOut | None = None


class QualifierOut(ToolOutput):
    qualifierName: str
    qualifierUi: str | None = None
    isMajorTopic: bool


class MeshTermOut(ToolOutput):
    descriptorName: str
    descriptorUi: str | None = None
    isMajorTopic: bool = Field(
        description="True when the descriptor or one of its qualifiers is a major topic"
    )
    qualifiers: list[QualifierOut] = Field(default_factory=list)


class ConceptOut(ToolOutput):
    name: str
    ui: str | None = None
    type: str | None = Field(None, description="Supplementary concept type, e.g. 'Disease', 'Protocol'")


class ChemicalOut(ToolOutput):
    name: str
    ui: str | None = None
    registryNumber: str | None = None


class GrantOut(ToolOutput):
    grantId: str | None = None
    acronym: str | None = None
    agency: str | None = None
    country: str | None = None


class DataBankOut(ToolOutput):
    name: str = Field(description="Databank or registry, e.g. 'ClinicalTrials.gov', 'GENBANK', 'PDB'")
    accessionNumbers: list[str] = Field(default_factory=list, description="Accessions, e.g. ['NCT03951753']")


class LinkedRecordOut(ToolOutput):
    refType: str = Field(
        description="NCBI RefType, e.g. 'RetractionIn', 'ErratumIn', 'ExpressionOfConcernIn', 'CommentOn', 'UpdateIn'"
    )
    refSource: str | None = Field(None, description="Citation of the linked record as NCBI writes it")
    pmid: str | None = Field(None, description="PMID of the linked record (absent for many errata)")
    note: str | None = None


class AbstractSectionOut(ToolOutput):
    label: str | None = Field(None, description="Section label, e.g. 'METHODS'")
    nlmCategory: str | None = Field(
        None, description="NLM category: BACKGROUND, OBJECTIVE, METHODS, RESULTS, CONCLUSIONS"
    )
    text: str | None = Field(
        None,
        description="The section's text, given only when it cannot be read from `abstractText` (where section "
        "i is paragraph i, 'LABEL: text')",
    )


class OtherAbstractOut(ToolOutput):
    language: str | None = None
    type: str | None = None
    text: str


class BookSectionOut(ToolOutput):
    title: str
    locationLabel: str | None = None


class BookOut(ToolOutput):
    title: str | None = Field(None, description="Book title, e.g. 'GeneReviews®'")
    accession: str | None = Field(None, description="NCBI Bookshelf accession, e.g. 'NBK1116'")
    doi: str | None = Field(
        None,
        description="The book's own DOI, from Book/ELocationID EIdType='doi', e.g. '10.17226/21775'. Distinct "
        "from the record-level `doi`, which is the chapter's on a 'book-chapter': a chapter never inherits this one",
    )
    bookshelfUrl: str | None = None
    publisher: str | None = None
    publisherLocation: str | None = None
    edition: str | None = None
    collectionTitle: str | None = None
    volume: str | None = None
    editors: list[PersonOut] = Field(
        default_factory=list, description="The book's editors (never in `authors`)"
    )
    isbns: list[str] = Field(
        default_factory=list,
        description="The book's own ISBNs (every Book/Isbn, verbatim; often a print and an electronic one); "
        "[] for most Bookshelf titles, which carry none",
    )
    pubDate: DateOut | None = None
    beginningDate: str | None = Field(
        None, description="First year of a continuously updated book, e.g. '1993'"
    )
    endingDate: str | None = None
    medium: str | None = None
    reportNumber: str | None = None


class ArticleOut(ToolOutput):
    pmid: str
    recordType: RecordType = Field(
        description="'journal-article' (PubmedArticle), 'book-chapter' or 'book' (PubmedBookArticle, NCBI "
        "Bookshelf); `journalInfo` only on journal articles, `book` only on the other two"
    )
    title: str | None = Field(
        None, description="Title with inline markup rendered as text (chapter title on chapters)"
    )
    vernacularTitle: str | None = Field(None, description="Original-language title of a non-English record")
    abstractText: str | None = Field(
        None, description="Whole abstract; structured sections as 'LABEL: text' paragraphs, MathML linearised"
    )
    abstractSections: list[AbstractSectionOut] | None = Field(
        None,
        description="A structured abstract's sections in order: section i is paragraph i of `abstractText` "
        "(paragraphs split on blank lines), after its 'LABEL: '",
    )
    otherAbstracts: list[OtherAbstractOut] | None = None
    authors: list[PersonOut] = Field(default_factory=list)
    affiliations: list[str] = Field(
        default_factory=list, description="Deduplicated, referenced by affiliationIndices"
    )
    investigators: list[PersonOut] | None = Field(None, description="Only with includeInvestigators")
    journalInfo: JournalOut | None = None
    book: BookOut | None = None
    articleDates: list[ArticleDateOut] | None = None
    doi: str | None = Field(None, description="DOI as NCBI reports it (case not normalised)")
    pmcId: str | None = None
    pii: str | None = None
    pubmedUrl: str
    pmcUrl: str | None = None
    languages: list[str] = Field(default_factory=list, description="Three-letter codes, e.g. ['eng']")
    publicationTypes: list[str] = Field(default_factory=list)
    isRetracted: bool = Field(
        description="Retracted: a RetractionIn link or the 'Retracted Publication' type"
    )
    commentsCorrections: list[LinkedRecordOut] | None = Field(
        None,
        description="Linked notices (retraction, errata, comments, updates...); 'Cites' entries excluded",
    )
    meshTerms: list[MeshTermOut] | None = None
    supplementaryConcepts: list[ConceptOut] | None = None
    chemicals: list[ChemicalOut] | None = None
    keywords: list[str] | None = None
    grantList: list[GrantOut] | None = Field(
        None, description="Only with includeGrants; [] when none are listed"
    )
    dataBanks: list[DataBankOut] | None = Field(
        None,
        description="Trial registrations and data deposits; search others citing one with '<accession>[si]'",
    )
    coiStatement: str | None = None
    referenceCount: int | None = None
    bookSections: list[BookSectionOut] | None = None


class ArticlesDeferred(outputs.DeferredIds):
    """Continuation state for articles `maxResponseCharacters` withheld (same shape as pubmed_fetch_fulltext)."""

    ids: list[str] = Field(description="PMIDs withheld, in response order: re-call with these as `pmids`")


class FetchArticlesOutput(ToolOutput):
    articles: list[ArticleOut]
    totalReturned: int
    unavailablePmids: list[str] = Field(
        default_factory=list,
        description="PMIDs PubMed returned no record for (it omits unknown PMIDs silently); never deferred",
    )
    deferred: ArticlesDeferred | None = Field(
        None, description="Articles withheld by maxResponseCharacters: re-call with deferred.ids to get them"
    )
    truncated: bool | None = Field(
        None, description="True when maxResponseCharacters withheld at least one article (see `deferred`)"
    )
    notice: str | None = None


# ----------------------------------------------------------------------------- mapping


def _date(d: PartialDate | None) -> DateOut | None:
    return DateOut(**d.model_dump()) if d is not None else None


def _adate(d: PartialDate | None, kind: str) -> ArticleDateOut | None:
    return ArticleDateOut(dateType=kind, **d.model_dump()) if d is not None else None


def _person(p: Author) -> PersonOut:
    return PersonOut(
        lastName=p.lastName,
        firstName=p.foreName,
        initials=p.initials,
        suffix=p.suffix,
        collectiveName=p.collectiveName,
        orcid=p.orcid,
        affiliationIndices=p.affiliationIndexes or None,
        equalContrib=p.equalContrib or None,
    )


def _year_text(d: PartialDate | None) -> str | None:
    if d is None:
        return None
    return str(d.year) if d.year else d.medlineDate


def _elocation_type(value: str | None) -> str | None:
    # The parser takes ELocationID EIdType="pii", else EIdType="doi"; a DOI always reads '10.<digits>/...'.
    if not value:
        return None
    return "doi" if DOI_SHAPE.match(value) else "pii"


def _abstract_text(a: PubMedArticle) -> str | None:
    if a.abstractSections and any(s.label for s in a.abstractSections):
        return "\n\n".join(f"{s.label}: {s.text}" if s.label else s.text for s in a.abstractSections)
    return a.abstract


def _abstract_sections(a: PubMedArticle) -> list[AbstractSectionOut] | None:
    """The sections of a structured abstract. Their text is ``abstractText`` again, paragraph by
    paragraph (8% of a 57-record answer, checked by every client), so it is left out when the
    paragraphs give it back exactly; a text with a blank line of its own would not, and stays."""
    if not any(s.label for s in a.abstractSections):
        return None
    text = _abstract_text(a) or ""
    paragraphs = text.split("\n\n")
    readable = len(paragraphs) == len(a.abstractSections) and all(
        p == (f"{s.label}: {s.text}" if s.label else s.text)
        for p, s in zip(paragraphs, a.abstractSections, strict=True)
    )
    return [
        AbstractSectionOut(label=s.label, nlmCategory=s.nlmCategory, text=None if readable else s.text)
        for s in a.abstractSections
    ]


def _dates_out(a: PubMedArticle) -> list[ArticleDateOut] | None:
    dates = [
        d
        for d in (
            _adate(a.articleDate, "Electronic"),
            _adate(a.contributionDate, "ContributionDate"),
            _adate(a.dateRevised, "DateRevised"),
        )
        if d is not None
    ]
    return dates or None


def _book_out(a: PubMedArticle) -> BookOut | None:
    b = a.book
    if b is None:
        return None
    return BookOut(
        title=b.title,
        accession=a.bookAccession,
        doi=b.doi,
        bookshelfUrl=f"https://www.ncbi.nlm.nih.gov/books/{a.bookAccession}/" if a.bookAccession else None,
        publisher=b.publisher,
        publisherLocation=b.publisherLocation,
        edition=b.edition,
        collectionTitle=b.collectionTitle,
        volume=b.volume,
        editors=[_person(e) for e in b.editors],
        isbns=b.isbn,
        pubDate=_date(a.pubDate),
        beginningDate=_year_text(b.beginningDate),
        endingDate=_year_text(b.endingDate),
        medium=b.medium,
        reportNumber=b.reportNumber,
    )


def _journal_out(a: PubMedArticle) -> JournalOut | None:
    """The journal of a journal article; a book or chapter has none."""
    j = a.journal
    if j is None or a.recordType != "journal-article":
        return None
    return JournalOut(
        title=j.title,
        isoAbbreviation=j.isoAbbreviation,
        medlineTa=j.medlineTa,
        issn=j.issn,
        issnType=j.issnType,
        eIssn=j.eIssn,
        volume=j.volume,
        issue=j.issue,
        pages=j.pages,
        elocationId=j.elocationId,
        elocationIdType=_elocation_type(j.elocationId),
        publicationDate=_date(a.pubDate),
    )


def _mesh_out(a: PubMedArticle) -> dict[str, Any]:
    """MeSH headings, supplementary concepts and chemicals: the fields ``includeMesh`` governs."""
    mesh_terms = [
        MeshTermOut(
            descriptorName=m.descriptor,
            descriptorUi=m.ui,
            isMajorTopic=m.majorTopic or any(q.majorTopic for q in m.qualifiers),
            qualifiers=[
                QualifierOut(qualifierName=q.name, qualifierUi=q.ui, isMajorTopic=q.majorTopic)
                for q in m.qualifiers
            ],
        )
        for m in a.mesh
    ]
    return {
        "meshTerms": mesh_terms or None,
        "supplementaryConcepts": [ConceptOut(**c.model_dump()) for c in a.supplementaryConcepts] or None,
        "chemicals": [ChemicalOut(**c.model_dump()) for c in a.chemicals] or None,
    }


_NO_MESH: dict[str, Any] = {"meshTerms": None, "supplementaryConcepts": None, "chemicals": None}


def to_output(a: PubMedArticle, args: FetchArticlesInput) -> ArticleOut:
    return ArticleOut(
        pmid=a.pmid,
        recordType=a.recordType,
        title=a.title,
        vernacularTitle=a.vernacularTitle,
        abstractText=_abstract_text(a),
        abstractSections=_abstract_sections(a),
        otherAbstracts=[OtherAbstractOut(**o.model_dump()) for o in a.otherAbstracts] or None,
        authors=[_person(p) for p in a.authors],
        affiliations=a.affiliations,
        investigators=[_person(p) for p in a.investigators]
        if args.includeInvestigators and a.investigators
        else None,
        journalInfo=_journal_out(a),
        book=_book_out(a),
        articleDates=_dates_out(a),
        doi=a.doi,
        pmcId=a.pmcid,
        pii=a.pii,
        pubmedUrl=pubmed_url(a.pmid),
        pmcUrl=pmc_url(a.pmcid) if a.pmcid else None,
        languages=a.language,
        publicationTypes=a.publicationTypes,
        isRetracted=a.isRetracted,
        commentsCorrections=[
            LinkedRecordOut(refType=n.type, refSource=n.refSource, pmid=n.pmid, note=n.note)
            for n in a.notices
        ]
        or None,
        **(_mesh_out(a) if args.includeMesh else _NO_MESH),
        keywords=a.keywords or None,
        grantList=[GrantOut(**g.model_dump()) for g in a.grants]
        if args.includeGrants and a.grants is not None
        else None,
        dataBanks=[DataBankOut(**d.model_dump()) for d in a.databanks] or None,
        coiStatement=a.coiStatement,
        referenceCount=a.referenceCount,
        bookSections=[BookSectionOut(title=s.title, locationLabel=s.locationLabel) for s in a.sections]
        or None,
    )


# ----------------------------------------------------------------------------- handler


async def fetch_articles(args: FetchArticlesInput, ctx: ToolContext) -> FetchArticlesOutput:
    records, unavailable = await fetch_pubmed(
        ctx, args.pmids, investigators=args.includeInvestigators, grants=args.includeGrants
    )
    articles = [to_output(a, args) for a in records]
    split = outputs.apply_budget(articles, args.maxResponseCharacters, lambda a: a.pmid, outputs.json_size)
    notices = []
    if not articles:
        notices.append(
            "PubMed returned no record for any requested PMID. Check the ids, or find articles with "
            "pubmed_search_articles (DOIs and PMC IDs: pubmed_convert_ids)."
        )
    elif unavailable:
        notices.append(f"PubMed returned nothing for {len(unavailable)} PMID(s): see unavailablePmids.")
    if split.deferred is not None:
        notices.append(
            f"maxResponseCharacters={args.maxResponseCharacters:,} kept {len(split.kept)} article(s) "
            f"({split.used:,} characters); {split.deferred.count} deferred whole. Call pubmed_fetch_articles again "
            f"with pmids=deferred.ids (the next one needs maxResponseCharacters >= "
            f"{split.deferred.nextItemCharacters:,})."
        )
    deferred = ArticlesDeferred.from_split(split, args.maxResponseCharacters)
    return FetchArticlesOutput(
        articles=split.kept,
        totalReturned=len(split.kept),
        unavailablePmids=unavailable,
        deferred=deferred,
        truncated=True if deferred is not None else None,
        notice=" ".join(notices) or None,
    )


def _names(people: list[PersonOut], limit: int = 10, noun: str = "authors") -> str:
    names = [p.collectiveName or " ".join(x for x in (p.lastName, p.initials) if x) for p in people]
    text = ", ".join(n for n in names[:limit] if n)
    return text + (f", et al. ({len(names)} {noun})" if len(names) > limit else "")


def _journal_line(j: JournalOut) -> str:
    """'Journal: Lancet. 2020 Jan 4;395(10219):12-20 S0140-...' in the MEDLINE citation's order."""
    d = j.publicationDate
    when = (d.medlineDate or " ".join(str(x) for x in (d.year, d.month, d.day) if x)) if d else ""
    loc = "".join(
        [
            f";{j.volume}" if j.volume else "",
            f"({j.issue})" if j.issue else "",
            f":{j.pages}" if j.pages else "",
        ]
    )
    return f"Journal: {(j.isoAbbreviation or j.title or '').rstrip('.')}. {when}{loc}" + (
        f" {j.elocationId}" if j.elocationId else ""
    )


def _book_line(b: BookOut) -> str:
    eds = f" Editors: {_names(b.editors, 5, 'editors')}." if b.editors else ""
    book_ids = [f"DOI {b.doi}" if b.doi else "", *(f"ISBN {i}" for i in b.isbns), b.accession or ""]
    return f"Book: {b.title or ''}. {b.publisherLocation or ''}: {b.publisher or ''}.{eds} " + "; ".join(
        i for i in book_ids if i
    )


def _citation_lines(a: ArticleOut) -> list[str]:
    """Title, authors, where it appeared and its ids."""
    body = [f"Title: {a.title or '(no title)'}"]
    if a.vernacularTitle:
        body.append(f"Original title: {a.vernacularTitle}")
    if a.authors:
        body.append(f"Authors: {_names(a.authors)}")
    if a.journalInfo:
        body.append(_journal_line(a.journalInfo))
    if a.book:
        body.append(_book_line(a.book))
    ids = [f"DOI {a.doi}" if a.doi else "", a.pmcId or ""]
    if any(ids):
        body.append("IDs: " + "; ".join(i for i in ids if i))
    return body


def _indexing_lines(a: ArticleOut) -> list[str]:
    """Types, linked comments and corrections, data banks, MeSH and keywords."""
    body: list[str] = []
    if a.publicationTypes:
        body.append("Types: " + ", ".join(a.publicationTypes))
    for n in a.commentsCorrections or []:
        body.append(f"{n.refType}: {n.refSource or ''}" + (f" (PMID {n.pmid})" if n.pmid else ""))
    if a.dataBanks:
        body.append(
            "Data banks: " + "; ".join(f"{d.name} {', '.join(d.accessionNumbers)}" for d in a.dataBanks)
        )
    if a.meshTerms:
        body.append(
            "MeSH: " + "; ".join(m.descriptorName + ("*" if m.isMajorTopic else "") for m in a.meshTerms)
        )
    if a.keywords:
        body.append("Keywords: " + "; ".join(a.keywords))
    return body


def _article_md(a: ArticleOut) -> str:
    head = [f"### PMID {a.pmid} ({a.recordType})"]
    if a.isRetracted:
        head.append("**RETRACTED** — see commentsCorrections before citing.")
    body = [*_citation_lines(a), *_indexing_lines(a), "", a.abstractText or "(no abstract)"]
    return "\n".join(head) + "\n" + rendering.fence("\n".join(body), f"pubmed-{a.pmid}")


def render_fetch(out: FetchArticlesOutput, args: FetchArticlesInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "pubmed-efetch")
    lines = [f"**{out.totalReturned} PubMed record(s)** of {len(args.pmids)} requested."]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    if out.unavailablePmids:
        lines.append("Unavailable: " + ", ".join(out.unavailablePmids))
    if out.deferred:
        lines.append("Deferred: " + ", ".join(out.deferred.ids))
    lines += ["", *(_article_md(a) + "\n" for a in out.articles)]
    return "\n".join(lines)
