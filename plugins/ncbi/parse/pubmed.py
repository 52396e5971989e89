"""Parse PubMed efetch XML (PubMed DTD: PubmedArticle and PubmedBookArticle) into records.

Pure functions, no I/O. Every optional element may be missing in real records (old citations,
in-process records, Bookshelf documents), so lookups return None/[] rather than raise; only a
document that is not PubMed XML at all raises ValueError.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

from lxml import etree

from medlit.core.plugin import identifiers, markup, rendering

from .pubmed_records import (
    AbstractSection,
    Author,
    Book,
    BookSection,
    Chemical,
    DataBank,
    Grant,
    Journal,
    MeshHeading,
    MeshQualifier,
    Notice,
    OtherAbstract,
    PartialDate,
    PubMedArticle,
    SupplementaryConcept,
)

__all__ = ["parse_pubmed_xml", "render_text"]

Element = etree._Element
log = logging.getLogger(__name__)

_RECORD_TAGS = {"PubmedArticle", "PubmedBookArticle"}
_SET_TAGS = {"PubmedArticleSet", "PubmedBookArticleSet"}

# ---------------------------------------------------------------------------------------------
# Inline markup and MathML -> readable plain text (MathML by core's flattener)
# ---------------------------------------------------------------------------------------------

# Marks that read fine unraised: trademark signs, footnote daggers.
_PLAIN_MARKS = set("®™©*†‡§#'′″")


def _script(text: str, sup: bool) -> str:
    """Superscript/subscript as Unicode when possible, else keep it legible."""
    t = "".join(text.split())
    if not t:
        return ""
    raised = rendering.to_superscript(t) if sup else rendering.to_subscript(t)
    if raised:
        return raised
    if t.isalpha() or set(t) <= _PLAIN_MARKS:
        return t  # ordinals (2nd), labels (Cmax), ®
    marker = "^" if sup else "_"
    return f"{marker}{t}" if t.isalnum() else f"{marker}({t})"


def _children_text(el: Element, render: Callable[[Element], str]) -> str:
    parts = [el.text or ""]
    for child in el:
        parts.append(render(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _inline(el: Element) -> str:
    name = markup.localname(el)
    if name == "math":
        return _math(el)
    if name in ("sup", "sub"):
        return _script(_children_text(el, _inline), sup=name == "sup")
    return _children_text(el, _inline)  # i, b, u and anything unexpected: keep the text


def _math(el: Element) -> str:
    # PubMed writes plain <sup>/<sub> as Unicode scripts (Ca²⁺), so formulas use them too.
    text = rendering.flatten_mathml(el, scripts="unicode")
    return f" {text} " if text else ""


# MathML padding must not leave gaps before punctuation.
_GAP = re.compile(r" ([,.;:)\]])")


def render_text(el: Element | None) -> str:
    """Text of a PubMed text element with inline markup/MathML rendered, whitespace collapsed."""
    if el is None:
        return ""
    if len(el):
        text = " ".join(_children_text(el, _inline).split())
    else:  # no markup inside (most elements): its own text is all there is
        own = el.text
        if not own:
            return ""
        text = " ".join(own.split())
    return _GAP.sub(r"\1", text) if _GAP.search(text) else text


# ---------------------------------------------------------------------------------------------
# Small lookup helpers
# ---------------------------------------------------------------------------------------------


def _opt(el: Element | None) -> str | None:
    text = render_text(el)
    return text or None


def _find_text(parent: Element | None, path: str) -> str | None:
    return None if parent is None else _opt(parent.find(path))


def _yes(el: Element | None, attr: str = "MajorTopicYN") -> bool:
    return el is not None and (el.get(attr) or "").upper() == "Y"


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def _int(text: str | None) -> int | None:
    # isdecimal, not isdigit: "²" and "①" are digits int() rejects. The length cap keeps clear of
    # int()'s 4300-digit limit (and of years/days/counts no record has).
    text = (text or "").strip()
    if text.isdecimal() and len(text) <= 18:
        return int(text)
    return None


_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")


def _date(el: Element | None) -> PartialDate | None:
    if el is None:
        return None
    medline = _find_text(el, "MedlineDate")
    year = _int(_find_text(el, "Year"))
    if year is None and medline and (m := _YEAR.search(medline)):
        year = int(m.group(1))
    month, day, season = _find_text(el, "Month"), _int(_find_text(el, "Day")), _find_text(el, "Season")
    if year is None and month is None and day is None and season is None and medline is None:
        return None
    return PartialDate(year=year, month=month, day=day, season=season, medlineDate=medline)


# ---------------------------------------------------------------------------------------------
# Authors and affiliations
# ---------------------------------------------------------------------------------------------


class _Affiliations:
    """Deduplicated affiliation strings shared by authors, investigators and editors."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self.items)
            self.items.append(text)
        return self._index[text]


def _first_children(el: Element) -> dict[object, Element]:
    """Each tag's first child element (what ``el.find(tag)`` gives), in one pass over ``el``."""
    first: dict[object, Element] = {}
    for child in el:
        first.setdefault(child.tag, child)
    return first


def _person(el: Element, affs: _Affiliations) -> Author:
    kids: dict[object, Element] = {}
    idents: list[Element] = []
    infos: list[Element] = []
    for child in el:  # one pass: each tag's first child, every Identifier and AffiliationInfo
        tag = child.tag
        if tag == "Identifier":
            idents.append(child)
        elif tag == "AffiliationInfo":
            infos.append(child)
        kids.setdefault(tag, child)
    orcid = None
    for ident in idents:
        if (ident.get("Source") or "").upper() == "ORCID":
            try:
                orcid = identifiers.normalize_orcid(markup.text_of(ident))
            except identifiers.IdentifierError:
                continue
            break
    indexes: list[int] = []
    for info in infos:
        text = _find_text(info, "Affiliation")
        if text:
            indexes.append(affs.add(text))
    return Author(
        lastName=_opt(kids.get("LastName")),
        foreName=_opt(kids.get("ForeName")) or _opt(kids.get("FirstName")),
        initials=_opt(kids.get("Initials")),
        suffix=_opt(kids.get("Suffix")),
        collectiveName=_opt(kids.get("CollectiveName")),
        orcid=orcid,
        affiliationIndexes=list(dict.fromkeys(indexes)),
        equalContrib=_yes(el, "EqualContrib"),
    )


def _people(lists: Iterable[Element], affs: _Affiliations, tag: str = "Author") -> list[Author]:
    people = [_person(a, affs) for lst in lists for a in lst.findall(tag)]
    # An entry with neither a name nor a group is noise (ValidYN="N" stubs), not an author.
    return [p for p in people if p.lastName or p.collectiveName or p.foreName]


def _author_lists(parent: Element | None, kind: str) -> list[Element]:
    if parent is None:
        return []
    return [lst for lst in parent.findall("AuthorList") if (lst.get("Type") or "authors") == kind]


# ---------------------------------------------------------------------------------------------
# Shared sections
# ---------------------------------------------------------------------------------------------


def _abstract(el: Element | None) -> tuple[str | None, list[AbstractSection]]:
    if el is None:
        return None, []
    sections = [
        AbstractSection(
            label=at.get("Label") or None,
            nlmCategory=at.get("NlmCategory") or None,
            text=render_text(at),
        )
        for at in el.findall("AbstractText")
    ]
    paragraphs = [f"{s.label}: {s.text}" if s.label else s.text for s in sections if s.text or s.label]
    return ("\n\n".join(paragraphs) or None), sections


def _other_abstracts(citation: Element | None) -> list[OtherAbstract]:
    out = []
    for el in [] if citation is None else citation.findall("OtherAbstract"):
        text, _ = _abstract(el)
        if text:
            out.append(OtherAbstract(language=el.get("Language"), type=el.get("Type"), text=text))
    return out


def _keywords(parent: Element | None) -> list[str]:
    if parent is None:
        return []
    return _dedupe(render_text(k) for k in parent.findall("KeywordList/Keyword"))


def _grants(parent: Element | None) -> list[Grant]:
    if parent is None:
        return []
    return [
        Grant(
            grantId=_find_text(g, "GrantID"),
            acronym=_find_text(g, "Acronym"),
            agency=_find_text(g, "Agency"),
            country=_find_text(g, "Country"),
        )
        for g in parent.findall("GrantList/Grant")
    ]


def _article_ids(id_list: Element | None) -> dict[str, str]:
    ids: dict[str, str] = {}
    for aid in [] if id_list is None else id_list.findall("ArticleId"):
        kind, value = (aid.get("IdType") or "").lower(), markup.text_of(aid)
        if kind and value:
            ids.setdefault(kind, value)
    return ids


def _elocations(parent: Element | None) -> dict[str, str]:
    locs: dict[str, str] = {}
    for el in [] if parent is None else parent.findall("ELocationID"):
        kind, value = (el.get("EIdType") or "").lower(), markup.text_of(el)
        if kind and value and (el.get("ValidYN") or "Y").upper() == "Y":
            locs.setdefault(kind, value)
    return locs


def _pmcid(value: str | None) -> str | None:
    return identifiers.canonical("pmcid", value)


def _reference_count(lists: list[Element]) -> int | None:
    if not lists:
        return None
    return sum(len(lst.findall(".//Reference")) for lst in lists)


def _sections(parent: Element | None) -> list[BookSection]:
    out = []
    for sec in [] if parent is None else parent.findall("Section"):
        kids = _first_children(sec)
        title = _opt(kids.get("SectionTitle"))
        if title:
            out.append(
                BookSection(
                    title=title,
                    locationLabel=_opt(kids.get("LocationLabel")),
                    sections=_sections(sec),
                )
            )
    return out


# ---------------------------------------------------------------------------------------------
# Journal articles (PubmedArticle)
# ---------------------------------------------------------------------------------------------


def _expand_end_page(start: str, end: str) -> str:
    """MEDLINE abbreviates end pages (7196-9 means 7196-7199)."""
    ms, me = re.fullmatch(r"(\D*)(\d+)", start), re.fullmatch(r"(\D*)(\d+)", end)
    if not ms or not me:
        return end
    prefix = me.group(1) or ms.group(1)
    s_num, e_num = ms.group(2), me.group(2)
    if len(e_num) < len(s_num):
        e_num = s_num[: len(s_num) - len(e_num)] + e_num
    return prefix + e_num


def split_pages(pages: str | None) -> tuple[str | None, str | None]:
    """First page range of a MedlinePgn value as (start, full end)."""
    if not pages:
        return None, None
    first = re.split(r"[,;]", pages)[0].strip()
    parts = [p.strip() for p in re.split(r"\s*[-–—]\s*", first, maxsplit=1)]
    start = parts[0] or None
    end = _expand_end_page(parts[0], parts[1]) if len(parts) > 1 and parts[1] else None
    return start, end


def _journal(article: Element, medline_info: Element | None, elocs: dict[str, str]) -> Journal:
    j = article.find("Journal")
    issue = j.find("JournalIssue") if j is not None else None
    issn_el = j.find("ISSN") if j is not None else None
    pages = _find_text(article, "Pagination/MedlinePgn")
    start, end = split_pages(pages)
    start = _find_text(article, "Pagination/StartPage") or start
    end = _find_text(article, "Pagination/EndPage") or end
    if not pages and start:
        pages = f"{start}-{end}" if end else start
    issn_type = issn_el.get("IssnType") if issn_el is not None else None
    return Journal(
        title=_find_text(j, "Title"),
        isoAbbreviation=_find_text(j, "ISOAbbreviation"),
        medlineTa=_find_text(medline_info, "MedlineTA"),
        issn=_opt(issn_el),
        issnType=issn_type,
        eIssn=_opt(issn_el) if (issn_type or "").lower() == "electronic" else None,
        volume=_find_text(issue, "Volume"),
        issue=_find_text(issue, "Issue"),
        pages=pages,
        startPage=start,
        endPage=end,
        elocationId=elocs.get("pii") or elocs.get("doi"),
    )


def _mesh(citation: Element) -> list[MeshHeading]:
    out = []
    for mh in citation.findall("MeshHeadingList/MeshHeading"):
        desc = mh.find("DescriptorName")
        name = render_text(desc)
        if desc is None or not name:
            continue
        quals = [
            MeshQualifier(name=qname, ui=q.get("UI"), majorTopic=_yes(q))
            for q in mh.findall("QualifierName")
            if (qname := render_text(q))
        ]
        out.append(MeshHeading(descriptor=name, ui=desc.get("UI"), majorTopic=_yes(desc), qualifiers=quals))
    return out


def _suppl(citation: Element) -> list[SupplementaryConcept]:
    return [
        SupplementaryConcept(name=name, ui=s.get("UI"), type=s.get("Type"))
        for s in citation.findall("SupplMeshList/SupplMeshName")
        if (name := render_text(s))
    ]


def _chemicals(citation: Element) -> list[Chemical]:
    out = []
    for chem in citation.findall("ChemicalList/Chemical"):
        name_el = chem.find("NameOfSubstance")
        name = render_text(name_el)
        if name_el is not None and name:
            out.append(
                Chemical(
                    name=name,
                    ui=name_el.get("UI"),
                    registryNumber=_find_text(chem, "RegistryNumber"),
                )
            )
    return out


def _databanks(article: Element) -> list[DataBank]:
    return [
        DataBank(
            name=_find_text(db, "DataBankName") or "",
            accessionNumbers=_dedupe(
                markup.text_of(a) for a in db.findall("AccessionNumberList/AccessionNumber")
            ),
        )
        for db in article.findall("DataBankList/DataBank")
        if _find_text(db, "DataBankName")
    ]


def _comments(citation: Element) -> tuple[list[Notice], int]:
    notices, cites = [], 0
    for cc in citation.findall("CommentsCorrectionsList/CommentsCorrections"):
        ref_type = cc.get("RefType") or ""
        if ref_type == "Cites":
            cites += 1
            continue
        notices.append(
            Notice(
                type=ref_type or "Unknown",
                pmid=_find_text(cc, "PMID"),
                refSource=_find_text(cc, "RefSource"),
                note=_find_text(cc, "Note"),
            )
        )
    return notices, cites


def _is_retracted(types: list[str], notices: list[Notice]) -> bool:
    return "retracted publication" in {t.lower() for t in types} or any(
        n.type == "RetractionIn" for n in notices
    )


def _with_people_affiliations(count: int, read_investigators: bool, /, **fields: Any) -> PubMedArticle:
    """The record; read with investigators, it remembers how many affiliations came before theirs
    (see :meth:`PubMedArticle.narrowed`)."""
    out = PubMedArticle(**fields)
    if read_investigators:
        out._people_affiliations = count
    return out


def _journal_article(rec: Element, investigators: bool, grants: bool) -> PubMedArticle:
    citation = rec.find("MedlineCitation")
    assert citation is not None  # _records skips a PubmedArticle without one
    article = citation.find("Article")
    if article is None:
        article = etree.Element("Article")  # an empty stand-in keeps every lookup total
    pubmed_data = rec.find("PubmedData")
    ids = _article_ids(pubmed_data.find("ArticleIdList") if pubmed_data is not None else None)
    elocs = _elocations(article)
    affs = _Affiliations()
    authors = _people(_author_lists(article, "authors"), affs)
    people_affs = len(affs.items)
    invs = _people(citation.findall("InvestigatorList"), affs, "Investigator") if investigators else []
    abstract, sections = _abstract(article.find("Abstract"))
    types = _dedupe(render_text(p) for p in article.findall("PublicationTypeList/PublicationType"))
    notices, cites = _comments(citation)
    ref_lists = pubmed_data.findall("ReferenceList") if pubmed_data is not None else []
    ref_count = _reference_count(ref_lists)
    if ref_count is None:
        ref_count = cites or _int(_find_text(citation, "NumberOfReferences"))
    issue = article.find("Journal/JournalIssue")
    return _with_people_affiliations(
        people_affs,
        investigators,
        pmid=_find_text(citation, "PMID") or ids.get("pubmed") or "",
        recordType="journal-article",
        title=_find_text(article, "ArticleTitle"),
        vernacularTitle=_find_text(article, "VernacularTitle"),
        abstract=abstract,
        abstractSections=sections,
        otherAbstracts=_other_abstracts(citation),
        authors=authors,
        affiliations=affs.items,
        investigators=invs,
        journal=_journal(article, citation.find("MedlineJournalInfo"), elocs),
        pubDate=_date(issue.find("PubDate") if issue is not None else None),
        articleDate=_date(article.find("ArticleDate")),
        doi=ids.get("doi") or elocs.get("doi"),
        pmcid=_pmcid(ids.get("pmc") or ids.get("pmcid")),
        pii=ids.get("pii") or elocs.get("pii"),
        mesh=_mesh(citation),
        supplementaryConcepts=_suppl(citation),
        chemicals=_chemicals(citation),
        keywords=_keywords(citation),
        publicationTypes=types,
        language=_dedupe(markup.text_of(lang) for lang in article.findall("Language")),
        grants=_grants(article) if grants else None,
        databanks=_databanks(article),
        notices=notices,
        isRetracted=_is_retracted(types, notices),
        coiStatement=_find_text(citation, "CoiStatement"),
        referenceCount=ref_count,
    )


# ---------------------------------------------------------------------------------------------
# Bookshelf documents (PubmedBookArticle)
# ---------------------------------------------------------------------------------------------


def _book(book_el: Element | None, affs: _Affiliations) -> Book:
    if book_el is None:
        return Book()
    return Book(
        title=_find_text(book_el, "BookTitle"),
        doi=_elocations(book_el).get("doi"),
        publisher=_find_text(book_el, "Publisher/PublisherName"),
        publisherLocation=_find_text(book_el, "Publisher/PublisherLocation"),
        edition=_find_text(book_el, "Edition"),
        collectionTitle=_find_text(book_el, "CollectionTitle"),
        volume=_find_text(book_el, "Volume"),
        volumeTitle=_find_text(book_el, "VolumeTitle"),
        editors=_people(_author_lists(book_el, "editors"), affs),
        isbn=_dedupe(markup.text_of(i) for i in book_el.findall("Isbn")),
        beginningDate=_date(book_el.find("BeginningDate")),
        endingDate=_date(book_el.find("EndingDate")),
        medium=_find_text(book_el, "Medium"),
        reportNumber=_find_text(book_el, "ReportNumber"),
    )


def _book_article(rec: Element, investigators: bool, grants: bool) -> PubMedArticle:
    doc = rec.find("BookDocument")
    assert doc is not None  # _records skips a PubmedBookArticle without one
    book_el = doc.find("Book")
    book_data = rec.find("PubmedBookData")
    ids = _article_ids(doc.find("ArticleIdList"))
    if book_data is not None:
        for kind, value in _article_ids(book_data.find("ArticleIdList")).items():
            ids.setdefault(kind, value)
    chapter = _find_text(doc, "ArticleTitle")
    # BookDocument/ArticleIdList identifies the document (the chapter, or the whole book); the
    # Book's own ELocationID/Isbn identify the containing book. A chapter never inherits the book's
    # DOI; a whole-book record is that book, so its DOI may come from either place.
    # (The DTD gives BookDocument no ELocationID; read one anyway should a record carry it.)
    elocs = _elocations(doc) if chapter else {**_elocations(book_el), **_elocations(doc)}
    affs = _Affiliations()
    # Chapter authors sit on the BookDocument; a whole book's authors may sit on the Book.
    authors = _people(_author_lists(doc, "authors"), affs) or _people(_author_lists(book_el, "authors"), affs)
    book = _book(book_el, affs)
    extra_editors = _people(_author_lists(doc, "editors"), affs)
    if extra_editors:
        book = book.model_copy(update={"editors": [*book.editors, *extra_editors]})
    people_affs = len(affs.items)
    inv_lists = [
        *doc.findall("InvestigatorList"),
        *([] if book_el is None else book_el.findall("InvestigatorList")),
    ]
    invs = _people(inv_lists, affs, "Investigator") if investigators else []
    abstract, sections = _abstract(doc.find("Abstract"))
    types = _dedupe(render_text(p) for p in doc.findall("PublicationType"))
    return _with_people_affiliations(
        people_affs,
        investigators,
        pmid=_find_text(doc, "PMID") or ids.get("pubmed") or "",
        recordType="book-chapter" if chapter else "book",
        title=chapter or book.title,
        vernacularTitle=_find_text(doc, "VernacularTitle"),
        abstract=abstract,
        abstractSections=sections,
        authors=authors,
        affiliations=affs.items,
        investigators=invs,
        pubDate=_date(book_el.find("PubDate") if book_el is not None else None),
        doi=ids.get("doi") or elocs.get("doi"),
        pmcid=_pmcid(ids.get("pmc") or ids.get("pmcid")),
        pii=ids.get("pii") or elocs.get("pii"),
        bookAccession=ids.get("bookaccession"),
        keywords=_keywords(doc),
        publicationTypes=types,
        language=_dedupe(markup.text_of(lang) for lang in doc.findall("Language")),
        grants=_grants(doc) if grants else None,
        isRetracted=_is_retracted(types, []),
        referenceCount=_reference_count(doc.findall("ReferenceList")),
        book=book,
        chapterTitle=chapter,
        sections=_sections(doc.find("Sections")),
        locationLabel=_find_text(doc, "LocationLabel"),
        contributionDate=_date(doc.find("ContributionDate")),
        dateRevised=_date(doc.find("DateRevised")),
    )


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------


_MANDATORY = {"PubmedArticle": "MedlineCitation", "PubmedBookArticle": "BookDocument"}


def _complete(rec: Element) -> bool:
    """False (logged at debug) for a record missing its mandatory wrapper: it carries no citation."""
    wrapper = _MANDATORY[markup.localname(rec)]
    if rec.find(wrapper) is not None:
        return True
    ids = _article_ids(rec.find("PubmedData/ArticleIdList")) or _article_ids(
        rec.find("PubmedBookData/ArticleIdList")
    )
    log.debug(
        "skipping a %s without %s (PMID %s)", markup.localname(rec), wrapper, ids.get("pubmed", "unknown")
    )
    return False


def _records(root: Element) -> list[Element]:
    name = markup.localname(root)
    if name in _RECORD_TAGS:
        return [root] if _complete(root) else []
    if name in _SET_TAGS:
        # DeleteCitation (baseline/update files) lists withdrawn PMIDs: not records.
        return [child for child in root if markup.localname(child) in _RECORD_TAGS and _complete(child)]
    error = root.find(".//ERROR")
    if error is not None:
        raise ValueError(f"NCBI returned an error instead of PubMed XML: {markup.text_of(error)[:200]}")
    raise ValueError(f"not PubMed XML: root element <{name}>, expected <PubmedArticleSet> or <PubmedArticle>")


def parse_pubmed_xml(
    data: bytes | Element, *, include_investigators: bool = False, include_grants: bool = False
) -> list[PubMedArticle]:
    """Parse an efetch ``db=pubmed retmode=xml`` body into records (an empty set gives []).

    ``data`` is the body, or its root element already parsed by the hardened parser (a
    ``Response.xml()`` the service's inspector read first: one parse per answer); the tree is
    only read. A record without its mandatory wrapper (a PubmedArticle with no MedlineCitation, a
    PubmedBookArticle with no BookDocument) carries no citation: it is skipped, not fatal, so the
    rest of the batch still parses and its PMID reads as unavailable. Raises ValueError when the
    body is not well-formed XML or not PubMed XML.
    """
    if isinstance(data, (bytes, str)):
        if not data or not data.strip():
            raise ValueError("empty response body: not PubMed XML")
        try:
            root = markup.parse_xml(data)
        except etree.XMLSyntaxError as exc:
            raise ValueError(f"not well-formed XML: {exc}") from exc
    else:
        root = data
    out = []
    for rec in _records(root):
        if markup.localname(rec) == "PubmedBookArticle":
            out.append(_book_article(rec, include_investigators, include_grants))
        else:
            out.append(_journal_article(rec, include_investigators, include_grants))
    return out
