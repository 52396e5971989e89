"""PubMed efetch XML parser: real recorded records plus hand-written edge cases."""

from __future__ import annotations

import pytest

from medlit.core.xml import parse_xml
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml, render_text

from support.corpus import corpus_bytes, corpus_glob

EFETCH = "ncbi/efetch_pubmed/"


def _one(name: str, **kw) -> object:
    records = parse_pubmed_xml(corpus_bytes(EFETCH + name), **kw)
    assert len(records) == 1
    return records[0]


def _by_pmid(name: str, pmid: str, **kw):
    return next(a for a in parse_pubmed_xml(corpus_bytes(EFETCH + name), **kw) if a.pmid == pmid)


@pytest.mark.parametrize("path", corpus_glob(EFETCH + "*.xml"), ids=lambda p: p.name)
def test_every_recorded_pubmed_xml_parses(path) -> None:
    records = parse_pubmed_xml(path.read_bytes(), include_investigators=True, include_grants=True)
    for a in records:
        assert a.pmid.isdigit()
        assert a.recordType in ("journal-article", "book", "book-chapter")
        a.model_dump_json()  # serialisable


def test_retracted_fragment_root_without_declaration() -> None:
    a = _one("pubmed_10066780_retracted_publication_fragment.xml")
    assert a.pmid == "10066780"
    assert a.isRetracted
    assert "Retracted Publication" in a.publicationTypes
    assert [(n.type, n.pmid) for n in a.notices] == [("ErratumIn", None), ("RetractionIn", "11905463")]
    assert a.notices[0].refSource == "J Biol Chem 1999 May 7;274(19):13728"
    assert a.journal.volume == "274" and a.journal.issue == "11"
    assert (a.journal.pages, a.journal.startPage, a.journal.endPage) == ("7196-9", "7196", "7199")
    assert (a.pubDate.year, a.pubDate.month, a.pubDate.day) == (1999, "Mar", 12)
    assert a.grants is None  # not asked for
    assert [c.name for c in a.chemicals][:2] == ["CCAAT-Enhancer-Binding Proteins", "DNA-Binding Proteins"]
    dna = next(m for m in a.mesh if m.descriptor == "DNA-Binding Proteins")
    assert dna.ui == "D004268" and not dna.majorTopic
    assert [(q.name, q.ui, q.majorTopic) for q in dna.qualifiers] == [("metabolism", "Q000378", True)]
    assert next(m for m in a.mesh if m.descriptor == "Transcription, Genetic").majorTopic


def test_grants_only_when_asked() -> None:
    a = _one("pubmed_10066780_retracted_publication_fragment.xml", include_grants=True)
    assert [g.grantId for g in a.grants] == ["P30-DK50306", "R01-DK46704"]
    assert a.grants[0].agency == "NIDDK NIH HHS" and a.grants[0].country == "United States"


def test_baseline_retractions_and_deletecitation() -> None:
    records = parse_pubmed_xml(
        corpus_bytes(EFETCH + "pubmed_baseline2019_excerpt_retractions_deletecitation.xml")
    )
    assert [a.pmid for a in records] == ["8655018", "8863847", "11543891", "9634358", "11600210"]
    by = {a.pmid: a for a in records}
    assert by["8655018"].isRetracted and by["8655018"].language == ["pol"]
    assert (
        by["8655018"].title
        == "[Effect of fetal and neonatal growth on the occurrence of some diseases in adults]."
    )
    retraction = next(n for n in by["8863847"].notices if n.type == "RetractionIn")
    assert retraction.pmid == "9499167"
    assert retraction.refSource == "Wu D, Yang CM, Lau YT, Chen JC. Mol Pharmacol. 1998 Feb;53(2):346"
    # A retraction notice is not itself retracted.
    notice = by["11600210"]
    assert not notice.isRetracted and notice.publicationTypes == ["Retraction of Publication"]
    assert [(n.type, n.pmid) for n in notice.notices] == [("RetractionOf", "11543891")]
    erratum = next(n for n in by["9634358"].notices if n.type == "ErratumIn")
    assert erratum.note == "Whitely RJ [corrected to Whitley RJ]"


def test_genereviews_chapter() -> None:
    a = _one("pubmed_20301382_book_chapter_genereviews.xml")
    assert a.recordType == "book-chapter"
    assert a.title == a.chapterTitle == "Single Large-Scale Mitochondrial DNA Deletion Syndromes"
    assert a.bookAccession == "NBK1203" and a.journal is None
    assert [(p.lastName, p.initials) for p in a.authors] == [("Goldstein", "A"), ("Falk", "MJ")]
    assert a.authors[0].affiliationIndexes == a.authors[1].affiliationIndexes == [0]
    assert len(a.affiliations) == 1  # deduplicated
    book = a.book
    assert book.title == "GeneReviews®"
    assert (book.publisher, book.publisherLocation, book.medium) == (
        "University of Washington, Seattle",
        "Seattle (WA)",
        "Internet",
    )
    assert [e.lastName for e in book.editors][:3] == ["Adam", "Feldman", "Mirzaa"] and len(book.editors) == 8
    assert (book.beginningDate.year, book.endingDate.year, a.pubDate.year) == (1993, 2024, 1993)
    assert (a.contributionDate.year, a.dateRevised.year) == (2003, 2023)
    assert [s.label for s in a.abstractSections] == [
        "CLINICAL CHARACTERISTICS",
        "DIAGNOSIS/TESTING",
        "MANAGEMENT",
        "GENETIC COUNSELING",
    ]
    assert a.abstract.startswith("CLINICAL CHARACTERISTICS: Single large-scale")
    assert "\n\nDIAGNOSIS/TESTING: " in a.abstract
    assert a.keywords.count("SLSMDS") == 1
    assert a.sections[1].title == "GeneReview Scope"
    assert a.referenceCount == 37
    assert a.doi is None and book.doi is None and book.isbn == []  # GeneReviews carries neither


def test_whole_book_with_collective_authors_on_book() -> None:
    a = _one("pubmed_26468569_book_whole.xml")
    assert a.recordType == "book" and a.chapterTitle is None
    assert a.title == a.book.title
    assert a.title.startswith("Application of Modern Toxicology Approaches")
    assert len(a.authors) == 6 and all(p.collectiveName for p in a.authors)
    # A line break inside CollectiveName is whitespace, not content.
    assert a.authors[0].collectiveName == (
        "Committee on Predictive-Toxicology Approaches for Military Assessments of Acute Exposures"
    )
    assert (a.doi, a.bookAccession, a.book.isbn) == ("10.17226/21775", "NBK321423", ["9780309376662"])
    assert a.book.doi == "10.17226/21775"  # Book/ELocationID: the book's own DOI
    assert a.book.publisher == "National Academies Press (US)"
    assert (a.pubDate.year, a.pubDate.month, a.pubDate.day) == (2015, "09", 1)
    chapter1 = next(s for s in a.sections if s.title == "Introduction")
    assert chapter1.locationLabel == "1"


def test_474_author_record() -> None:
    a = _one("pubmed_26430984_474_authors_huge.xml")
    assert len(a.authors) == 474
    collective = [p.collectiveName for p in a.authors if p.collectiveName]
    assert collective == ["BaBar Collaboration", "Belle Collaboration"]
    assert sum(1 for p in a.authors if p.lastName) == 472
    assert a.authors[0].lastName == "Abdesselam"
    # Affiliations are shared, so far fewer strings than authors.
    assert 0 < len(a.affiliations) < 474
    assert all(i < len(a.affiliations) for p in a.authors for i in p.affiliationIndexes)


@pytest.mark.parametrize(
    ("name", "group", "count"),
    [
        (
            "pubmed_34843274_collective.xml",
            "Guideline Development Panel for the Treatment of Depressive Disorders",
            1,
        ),
        ("pubmed_23435529_collective_structabs.xml", "TAX 325 Study Group", 15),
    ],
)
def test_collective_authors(name: str, group: str, count: int) -> None:
    a = _one(name)
    assert len(a.authors) == count
    assert group in [p.collectiveName for p in a.authors]
    member = next(p for p in a.authors if p.collectiveName == group)
    assert member.lastName is None and member.initials is None


def test_investigators_only_when_asked() -> None:
    name = "pubmed_baseline2019_excerpt_investigators_otherabstract_mathml.xml"
    assert _by_pmid(name, "18719013").investigators == []
    a = _by_pmid(name, "18719013", include_investigators=True)
    assert len(a.investigators) == 37
    assert (a.investigators[0].lastName, a.investigators[-1].lastName) == ("Abdalla", "Rose")
    assert len(a.authors) == 10


def test_other_abstract_and_medline_date() -> None:
    name = "pubmed_baseline2019_excerpt_investigators_otherabstract_mathml.xml"
    a = _by_pmid(name, "11243089")
    assert a.otherAbstracts[0].language == "eng"
    assert a.otherAbstracts[0].text.startswith("This document presents a cross-sectional survey")
    assert a.pubDate.medlineDate == "1999 Jan-Mar" and a.pubDate.year == 1999 and a.pubDate.month is None


def test_mathml_is_linearised() -> None:
    a = _one("pubmed_29963580_reflist.xml")
    assert "inhaled ³He/¹²⁹Xe MRI ventilation" in a.abstract
    assert "ultrashort echo-time ¹H MRI proton density" in a.abstract
    assert "mml" not in a.abstract
    assert a.referenceCount == 49
    assert a.authors[-1].collectiveName == "Canadian Respiratory Research Network"
    capaldi = next(p for p in a.authors if p.lastName == "Capaldi")
    assert capaldi.orcid == "0000-0002-4590-7461"  # given as https://orcid.org/...
    assert a.pmcid == "PMC6022861"
    assert a.journal.pages == "026002" and a.journal.elocationId == "10.1117/1.JMI.5.2.026002"

    b = _by_pmid("pubmed_baseline2019_excerpt_investigators_otherabstract_mathml.xml", "29869631")
    assert "R_pre² = 0.9513" in b.abstract


def test_inline_markup_title() -> None:
    a = _one("pubmed_27933116_title_inline_markup.xml")
    assert (
        a.title
        == "Phoenix dactylifera mediated green synthesis of Cu₂O particles for arsenite uptake from water."
    )


def test_season_date() -> None:
    a = parse_pubmed_xml(corpus_bytes(EFETCH + "pubmed_12091962_9997_abstract.xml"))[0]
    assert a.pmid == "12091962"
    assert (a.pubDate.year, a.pubDate.season, a.pubDate.month) == (1990, "Spring", None)
    assert a.journal.pages == "113-25" and a.journal.endPage == "125"


def test_vernacular_title() -> None:
    a = _one("pubmed_38048813_nonenglish_noabs.xml")
    assert a.title == "[A Broader Scope - Bio-Psycho-Social Medicine In Global Focus]."
    assert a.vernacularTitle == "A Broader Scope – Bio-psycho-soziale Medizin im globalen Fokus."
    assert a.language == ["ger"] and a.abstract is None and a.abstractSections == []
    assert (a.articleDate.year, a.articleDate.month, a.articleDate.day) == (2023, "12", 4)
    assert a.journal.eIssn == "1439-1058"


def test_erratum_comment_update_links() -> None:
    erratum = _one("pubmed_35649368_erratum_in.xml").notices
    assert [(n.type, n.pmid) for n in erratum] == [("ErratumIn", "35767954")]
    comment = _one("pubmed_34529508_comment_on.xml").notices
    assert [(n.type, n.pmid) for n in comment] == [("CommentOn", "34473563")]
    update = _one("pubmed_36156117_update_in.xml").notices
    assert [(n.type, n.pmid) for n in update] == [("UpdateOf", "35794888")]
    published_erratum = _one("pubmed_38962805_published_erratum2.xml")
    assert [(n.type, n.pmid) for n in published_erratum.notices] == [("ErratumFor", "38446048")]
    assert published_erratum.authors == [] and not published_erratum.isRetracted
    # Cites are the bibliography, not notices.
    a = _one("pubmed_27797938.xml")
    assert [n.type for n in a.notices] == ["CommentIn"] and a.referenceCount == 48


def test_equal_contrib_and_orcid() -> None:
    a = _one("pubmed_38147649_erratum_in_equalcontrib.xml")
    assert [(p.lastName, p.equalContrib) for p in a.authors[:3]] == [
        ("Ritz", False),
        ("Brocka", True),
        ("Butler", True),
    ]
    assert a.authors[0].orcid == "0000-0002-7367-292X"


def test_databank_accessions() -> None:
    a = _by_pmid("pubmed_6records_science2008_databank.xml", "19008416")
    assert [(d.name, d.accessionNumbers) for d in a.databanks] == [("GEO", ["GSE13286"])]


def test_coi_and_structured_abstract() -> None:
    a = _one("pubmed_28731372_grants_coi.xml", include_grants=True)
    assert a.coiStatement.startswith("Declaration of Conflicting Interests")
    assert a.abstractSections[0].label == "BACKGROUND"
    assert a.grants[0].grantId == "J 3545"


def test_empty_set() -> None:
    assert parse_pubmed_xml(corpus_bytes(EFETCH + "pubmed_37909814_empty_set.xml")) == []


# ---------------------------------------------------------------------------------------------
# Hand-written edge cases
# ---------------------------------------------------------------------------------------------


def _wrap(citation: str, pubmed_data: str = "") -> bytes:
    return (
        f"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID>{citation}</MedlineCitation>"
        f"{pubmed_data}</PubmedArticle></PubmedArticleSet>"
    ).encode()


def test_missing_everything() -> None:
    [a] = parse_pubmed_xml(_wrap(""))
    assert a.pmid == "1" and a.title is None and a.authors == [] and a.pubDate is None
    assert a.journal is not None and a.journal.title is None
    assert a.referenceCount is None and not a.isRetracted and a.grants is None


def test_empty_article_elements() -> None:
    xml = _wrap(
        "<Article><Journal><JournalIssue><PubDate/></JournalIssue></Journal><ArticleTitle/>"
        "<Abstract><AbstractText/></Abstract><AuthorList><Author/></AuthorList></Article>"
    )
    [a] = parse_pubmed_xml(xml, include_grants=True, include_investigators=True)
    assert a.title is None and a.abstract is None and a.authors == [] and a.grants == []


def test_orcid_shapes_and_affiliations() -> None:
    xml = _wrap(
        "<Article><AuthorList>"
        '<Author EqualContrib="Y"><LastName>Müller</LastName><ForeName>Jörg</ForeName><Initials>J</Initials>'
        "<Suffix>Jr</Suffix>"
        '<Identifier Source="ORCID">http://orcid.org/0000-0002-1825-009x</Identifier>'
        "<AffiliationInfo><Affiliation>Lab A.</Affiliation></AffiliationInfo>"
        "<AffiliationInfo><Affiliation>Lab B.</Affiliation></AffiliationInfo></Author>"
        '<Author><LastName>Li</LastName><Identifier Source="ORCID">0000000218250097</Identifier>'
        "<AffiliationInfo><Affiliation>Lab B.</Affiliation></AffiliationInfo></Author>"
        '<Author><LastName>Bad</LastName><Identifier Source="ORCID">not-an-orcid</Identifier></Author>'
        "</AuthorList></Article>"
    )
    [a] = parse_pubmed_xml(xml)
    first, second, third = a.authors
    assert (first.orcid, second.orcid, third.orcid) == ("0000-0002-1825-009X", "0000-0002-1825-0097", None)
    assert first.equalContrib and first.suffix == "Jr" and first.lastName == "Müller"
    assert a.affiliations == ["Lab A.", "Lab B."]
    assert (first.affiliationIndexes, second.affiliationIndexes) == ([0, 1], [1])


def test_elocation_only_and_ids() -> None:
    xml = _wrap(
        '<Article><Journal><ISSN IssnType="Electronic">1932-6203</ISSN><JournalIssue><Volume>14</Volume>'
        "<Issue>9</Issue><PubDate><Year>2019</Year></PubDate></JournalIssue><Title>PloS one</Title></Journal>"
        '<ArticleTitle>X.</ArticleTitle><ELocationID EIdType="pii" ValidYN="Y">e0221829</ELocationID>'
        '<ELocationID EIdType="doi" ValidYN="Y">10.1371/journal.pone.0221829</ELocationID></Article>',
        '<PubmedData><ArticleIdList><ArticleId IdType="pubmed">1</ArticleId>'
        '<ArticleId IdType="pmc">PMC6719858</ArticleId></ArticleIdList>'
        '<ReferenceList><Reference><Citation>a</Citation><ArticleIdList><ArticleId IdType="doi">10.1/x'
        "</ArticleId></ArticleIdList></Reference><Reference><Citation>b</Citation></Reference>"
        "</ReferenceList></PubmedData>",
    )
    [a] = parse_pubmed_xml(xml)
    assert a.journal.pages is None and a.journal.elocationId == "e0221829"
    assert a.doi == "10.1371/journal.pone.0221829"  # not the reference's DOI
    assert (a.pii, a.pmcid, a.referenceCount) == ("e0221829", "PMC6719858", 2)
    assert (a.journal.issn, a.journal.issnType, a.journal.eIssn) == ("1932-6203", "Electronic", "1932-6203")


def test_medline_date_range_and_pages() -> None:
    xml = _wrap(
        "<Article><Journal><JournalIssue><PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate>"
        "</JournalIssue></Journal><Pagination><MedlinePgn>S1-5, 12</MedlinePgn></Pagination></Article>"
    )
    [a] = parse_pubmed_xml(xml)
    assert (a.pubDate.medlineDate, a.pubDate.year) == ("1998 Dec-1999 Jan", 1998)
    assert (a.journal.startPage, a.journal.endPage) == ("S1", "S5")


def test_inline_markup_and_mathml_rendering() -> None:
    el = parse_xml(
        b'<ArticleTitle xmlns:mml="http://www.w3.org/1998/Math/MathML">CD4<sup>+</sup> T<sub>reg</sub> '
        b"<i>in vivo</i>, 10<sup>-6</sup> M, 2<sup>nd</sup> <b>Ca</b><sup>2+</sup> "
        b"<mml:math><mml:msup><mml:mi>x</mml:mi><mml:mrow><mml:mi>a</mml:mi><mml:mo>+</mml:mo>"
        b"<mml:mi>b</mml:mi></mml:mrow></mml:msup></mml:math>, "
        b"<mml:math><mml:mfrac><mml:mn>1</mml:mn><mml:mn>2</mml:mn></mml:mfrac></mml:math>.</ArticleTitle>"
    )
    # Fractions group both sides (core's one MathML flattener): "(1)/(2)" next to other tokens
    # never reads as another number.
    assert render_text(el) == "CD4⁺ Treg in vivo, 10⁻⁶ M, 2nd Ca²⁺ x^(a+b), (1)/(2)."


def test_structured_abstract_labels() -> None:
    xml = _wrap(
        '<Article><Abstract><AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">One.</AbstractText>'
        '<AbstractText Label="RESULTS" NlmCategory="RESULTS">Two <i>x</i>.</AbstractText></Abstract></Article>'
    )
    [a] = parse_pubmed_xml(xml)
    assert a.abstract == "BACKGROUND: One.\n\nRESULTS: Two x."
    assert a.abstractSections[1].nlmCategory == "RESULTS"


def test_bare_book_article_root_and_retracted_type() -> None:
    xml = (
        b"<PubmedBookArticle><BookDocument><PMID>5</PMID><Book><BookTitle>B</BookTitle></Book>"
        b"<PublicationType>Retracted Publication</PublicationType></BookDocument></PubmedBookArticle>"
    )
    [a] = parse_pubmed_xml(xml)
    assert (a.recordType, a.title, a.isRetracted) == ("book", "B", True)


_CHAPTER_IN_BOOK_WITH_IDS = (
    b"<PubmedArticleSet><PubmedBookArticle><BookDocument><PMID>30000001</PMID><ArticleIdList>"
    b'<ArticleId IdType="bookaccession">NBK500001</ArticleId>{chapter_doi}</ArticleIdList>'
    b"<Book><Publisher><PublisherName>P</PublisherName></Publisher><BookTitle>The Book</BookTitle>"
    b"<PubDate><Year>2020</Year></PubDate><Isbn>9780000000002</Isbn><Isbn>0123456789</Isbn>"
    b'<ELocationID EIdType="doi" ValidYN="Y">10.1000/book.2020</ELocationID></Book>'
    b"<ArticleTitle>Chapter 3</ArticleTitle></BookDocument></PubmedBookArticle></PubmedArticleSet>"
)


def test_chapter_doi_and_book_doi_kept_apart() -> None:
    chapter_doi = b'<ArticleId IdType="doi">10.1000/book.2020.ch3</ArticleId>'
    [a] = parse_pubmed_xml(_CHAPTER_IN_BOOK_WITH_IDS.replace(b"{chapter_doi}", chapter_doi))
    assert a.recordType == "book-chapter"
    assert a.doi == "10.1000/book.2020.ch3"  # BookDocument/ArticleIdList: the chapter's DOI
    assert a.book.doi == "10.1000/book.2020"  # Book/ELocationID: the book's own
    assert a.book.isbn == ["9780000000002", "0123456789"]  # verbatim, leading zero kept


def test_chapter_does_not_inherit_the_book_doi() -> None:
    [a] = parse_pubmed_xml(_CHAPTER_IN_BOOK_WITH_IDS.replace(b"{chapter_doi}", b""))
    assert a.recordType == "book-chapter" and a.doi is None and a.pii is None
    assert a.book.doi == "10.1000/book.2020"


def test_whole_book_doi_falls_back_to_the_book_elocation() -> None:
    xml = _CHAPTER_IN_BOOK_WITH_IDS.replace(b"{chapter_doi}", b"").replace(
        b"<ArticleTitle>Chapter 3</ArticleTitle>", b""
    )
    [a] = parse_pubmed_xml(xml)
    assert a.recordType == "book" and a.doi == a.book.doi == "10.1000/book.2020"


def test_record_without_its_wrapper_is_skipped_not_fatal(caplog) -> None:
    xml = (
        b"<PubmedArticleSet>"
        b"<PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>One</ArticleTitle></Article>"
        b"</MedlineCitation></PubmedArticle>"
        b'<PubmedArticle><PubmedData><ArticleIdList><ArticleId IdType="pubmed">2</ArticleId>'
        b"</ArticleIdList></PubmedData></PubmedArticle>"
        b'<PubmedBookArticle><PubmedBookData><ArticleIdList><ArticleId IdType="pubmed">3</ArticleId>'
        b"</ArticleIdList></PubmedBookData></PubmedBookArticle>"
        b"<PubmedBookArticle><BookDocument><PMID>4</PMID><Book><BookTitle>B</BookTitle></Book>"
        b"</BookDocument></PubmedBookArticle>"
        b"</PubmedArticleSet>"
    )
    with caplog.at_level("DEBUG", logger="medlit.plugins.ncbi.parse.pubmed"):
        records = parse_pubmed_xml(xml)
    assert [(a.pmid, a.recordType, a.title) for a in records] == [
        ("1", "journal-article", "One"),
        ("4", "book", "B"),
    ]
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "without MedlineCitation (PMID 2)" in logged and "without BookDocument (PMID 3)" in logged
    # A bare record root missing its wrapper is an empty answer, not an error.
    assert parse_pubmed_xml(b"<PubmedArticle><PubmedData/></PubmedArticle>") == []


def test_wrapperless_record_next_to_a_real_corpus_record() -> None:
    real = corpus_bytes(EFETCH + "pubmed_20301382_book_chapter_genereviews.xml")
    broken = b"<PubmedArticle><PubmedData/></PubmedArticle></PubmedArticleSet>"
    records = parse_pubmed_xml(real.replace(b"</PubmedArticleSet>", broken))
    assert [a.pmid for a in records] == ["20301382"]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   ",
        b'<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet>',
        b"<html><body>Error</body></html>",
        b"<eSearchResult><Count>1</Count></eSearchResult>",
        b"<eFetchResult><ERROR>Status: Timeout</ERROR></eFetchResult>",
        b"<PubmedArticleSet><PubmedArticle>",
    ],
)
def test_non_pubmed_input_raises_value_error(data: bytes) -> None:
    with pytest.raises(ValueError):
        parse_pubmed_xml(data)


def test_entity_declarations_refused() -> None:
    bomb = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><PubmedArticleSet>&a;</PubmedArticleSet>'
    with pytest.raises(ValueError):
        parse_pubmed_xml(bomb)
