"""Citation formatters: expected strings written by hand from the APA 7, MLA 9 and NLM guides."""

from __future__ import annotations

import pytest

from medlit.plugins.ncbi.citation_styles import STYLES, cite_key, format_citation
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
from medlit.plugins.ncbi.parse.pubmed_records import Author, Journal, Notice, PartialDate, PubMedArticle

from support.corpus import corpus_bytes

EFETCH = "ncbi/efetch_pubmed/"


def _corpus(name: str) -> PubMedArticle:
    return parse_pubmed_xml(corpus_bytes(EFETCH + name))[0]


def _article(**overrides) -> PubMedArticle:
    base = {
        "pmid": "123",
        "title": "Effects of X on Y.",
        "authors": [
            Author(lastName="Smith", foreName="John A", initials="JA"),
            Author(lastName="Doe", foreName="Jane", initials="J"),
        ],
        "journal": Journal(
            title="Journal of testing",
            isoAbbreviation="J Test",
            medlineTa="J Test",
            issn="1234-5678",
            volume="12",
            issue="3",
            pages="45-67",
            startPage="45",
            endPage="67",
        ),
        "pubDate": PartialDate(year=2020, month="Mar", day=5),
        "doi": "10.1000/xyz123",
        "language": ["eng"],
    }
    base.update(overrides)
    return PubMedArticle(**base)


def _people(n: int) -> list[Author]:
    return [Author(lastName=f"Author{i}", foreName="Ann", initials="A") for i in range(1, n + 1)]


# --- journal article ---------------------------------------------------------------------------


def test_journal_article_all_styles() -> None:
    a = _article()
    assert format_citation(a, "apa") == (
        "Smith, J. A., & Doe, J. (2020). Effects of X on Y. Journal of Testing, 12(3), 45–67. "
        "https://doi.org/10.1000/xyz123"
    )
    assert format_citation(a, "mla") == (
        'Smith, John A., and Jane Doe. "Effects of X on Y." Journal of Testing, vol. 12, no. 3, '
        "5 Mar. 2020, pp. 45-67. https://doi.org/10.1000/xyz123."
    )
    assert format_citation(a, "vancouver") == (
        "Smith JA, Doe J. Effects of X on Y. J Test. 2020 Mar 5;12(3):45-67. doi: 10.1000/xyz123. PMID: 123."
    )
    assert format_citation(a, "bibtex") == "\n".join(
        [
            "@article{Smith2020Effects,",
            "  author = {Smith, John A. and Doe, Jane},",
            "  title = {Effects of X on Y},",
            "  journal = {Journal of Testing},",
            "  shortjournal = {J Test},",
            "  year = {2020},",
            "  month = mar,",
            "  volume = {12},",
            "  number = {3},",
            "  pages = {45--67},",
            "  issn = {1234-5678},",
            "  doi = {10.1000/xyz123},",
            "  pmid = {123},",
            "  eprint = {123},",
            "  eprinttype = {pubmed},",
            "  language = {eng},",
            "}",
        ]
    )
    ris = format_citation(a, "ris").splitlines()
    assert ris[0] == "TY  - JOUR" and ris[-1] == "ER  - "
    for line in [
        "AU  - Smith, John A.",
        "AU  - Doe, Jane",
        "TI  - Effects of X on Y",
        "T2  - Journal of Testing",
    ]:
        assert line in ris
    for line in ["VL  - 12", "IS  - 3", "SP  - 45", "EP  - 67", "PY  - 2020", "DA  - 2020/03/05/"]:
        assert line in ris
    assert "DO  - 10.1000/xyz123" in ris and "AN  - 123" in ris


def test_real_article_with_pmcid_and_collective_member() -> None:
    a = _corpus("pubmed_29963580_reflist.xml")
    assert format_citation(a, "vancouver") == (
        "Guo F, Capaldi D, Kirby M, Sheikh K, Svenningsen S, McCormack DG, et al. Development of a pulmonary "
        "imaging biomarker pipeline for phenotyping of chronic lung disease. J Med Imaging (Bellingham). "
        "2018 Apr;5(2):026002. doi: 10.1117/1.JMI.5.2.026002. PMID: 29963580; PMCID: PMC6022861."
    )
    apa = format_citation(a, "apa")
    assert apa.startswith("Guo, F., Capaldi, D., Kirby, M.,")
    assert ", & Canadian Respiratory Research Network. (2018)." in apa
    assert "Journal of Medical Imaging, 5(2), 026002. https://doi.org/10.1117/1.JMI.5.2.026002" in apa
    assert format_citation(a, "mla").startswith('Guo, Fumin, et al. "Development of a pulmonary')


def test_mla_page_abbreviation_and_single_page() -> None:
    j = _article().journal
    wide = _article(journal=j.model_copy(update={"pages": "398-401", "startPage": "398", "endPage": "401"}))
    assert "pp. 398-401." in format_citation(wide, "mla")
    short = _article(journal=j.model_copy(update={"pages": "7196-9", "startPage": "7196", "endPage": "7199"}))
    assert "pp. 7196-99." in format_citation(short, "mla")
    assert "7196–7199." in format_citation(short, "apa")
    assert ":7196-9." in format_citation(short, "vancouver")  # NLM keeps MEDLINE pagination


def test_article_number_instead_of_pages() -> None:
    j = Journal(title="PloS one", medlineTa="PLoS One", volume="14", issue="9", elocationId="e0221829")
    a = _article(journal=j, doi="10.1371/journal.pone.0221829", pubDate=PartialDate(year=2019, month="Sep"))
    assert (
        "PloS One, 14(9), Article e0221829. https://doi.org/10.1371/journal.pone.0221829"
        in format_citation(a, "apa")
    )
    assert "PLoS One. 2019 Sep;14(9):e0221829. doi:" in format_citation(a, "vancouver")
    assert "vol. 14, no. 9, Sept. 2019, article e0221829." in format_citation(a, "mla")
    assert "pages = {e0221829}," in format_citation(a, "bibtex")
    assert "SP  - e0221829" in format_citation(a, "ris")


def test_many_authors() -> None:
    a = _article(authors=_people(25))
    apa = format_citation(a, "apa")
    assert "Author19, A., . . . Author25, A. (2020)." in apa and "Author20" not in apa
    assert format_citation(a, "vancouver").startswith(
        "Author1 A, Author2 A, Author3 A, Author4 A, Author5 A, Author6 A, et al. Effects"
    )
    assert format_citation(a, "mla").startswith('Author1, Ann, et al. "Effects')
    three = format_citation(_article(authors=_people(3)), "apa")
    assert three.startswith("Author1, A., Author2, A., & Author3, A. (2020).")
    seven = format_citation(_article(authors=_people(7)), "vancouver")
    assert "Author6 A, et al." in seven and "Author7" not in seven
    six = format_citation(_article(authors=_people(6)), "vancouver")
    assert "Author6 A. Effects" in six


def test_474_authors_apa_and_vancouver() -> None:
    a = _corpus("pubmed_26430984_474_authors_huge.xml")
    apa = format_citation(a, "apa")
    assert apa.count(". . .") == 1 and ". . . Belle Collaboration. (2015)." in apa
    assert format_citation(a, "vancouver").count(", ") < 12


def test_no_author() -> None:
    a = _article(authors=[])
    assert format_citation(a, "apa").startswith("Effects of X on Y. (2020). Journal of Testing,")
    assert format_citation(a, "mla").startswith('"Effects of X on Y." Journal of Testing,')
    assert format_citation(a, "vancouver").startswith("Effects of X on Y. J Test. 2020")
    assert cite_key(a) == "Anon2020Effects"


def test_name_details() -> None:
    people = [
        Author(lastName="Dupont", foreName="Jean-Pierre", initials="JP"),
        Author(lastName="King", foreName="Martin L", initials="ML", suffix="Jr"),
    ]
    a = _article(authors=people)
    assert format_citation(a, "apa").startswith("Dupont, J.-P., & King, M. L., Jr. (2020).")
    assert format_citation(a, "vancouver").startswith("Dupont JP, King ML Jr. Effects")
    assert format_citation(a, "mla").startswith("Dupont, Jean-Pierre, and Martin L. King, Jr. ")
    assert "author = {Dupont, Jean-Pierre and King, Jr, Martin L.}" in format_citation(a, "bibtex")
    ris = format_citation(a, "ris")
    assert "AU  - Dupont, Jean-Pierre\n" in ris and "AU  - King, Martin L., Jr\n" in ris


def test_medline_date_and_season() -> None:
    a = _article(pubDate=PartialDate(year=1998, medlineDate="1998 Dec-1999 Jan"))
    assert "J Test. 1998 Dec-1999 Jan;12(3)" in format_citation(a, "vancouver")
    assert "(1998)." in format_citation(a, "apa")
    spring = _article(pubDate=PartialDate(year=2000, season="Spring"))
    assert "J Test. 2000 Spring;12(3)" in format_citation(spring, "vancouver")
    assert "no. 3, Spring 2000, pp." in format_citation(spring, "mla")


def test_non_english_title() -> None:
    a = _corpus("pubmed_38048813_nonenglish_noabs.xml")
    assert format_citation(a, "apa") == (
        "Zipfel, S., Stengel, A., Erschens, R., Becker, R., & Giel, K. (2023). A Broader Scope – "
        "Bio-psycho-soziale Medizin im globalen Fokus [A Broader Scope - Bio-Psycho-Social Medicine In "
        "Global Focus]. Psychotherapie, Psychosomatik, Medizinische Psychologie, 73(12), 487–488. "
        "https://doi.org/10.1055/a-2189-0166"
    )
    assert "2023 Dec;73(12):487-488. German. doi: 10.1055/a-2189-0166." in format_citation(a, "vancouver")


# --- BibTeX specifics --------------------------------------------------------------------------


def test_bibtex_escapes_and_keeps_utf8() -> None:
    a = _article(
        title="P&L of 50% {braces} $x$ #1 snake_case.",
        authors=[Author(lastName="Müller-Łukasz", foreName="Jörg", initials="J")],
    )
    bib = format_citation(a, "bibtex")
    assert bib.startswith("@article{MullerLukasz2020PL,")
    assert r"title = {P\&L of 50\% \{braces\} \$x\$ \#1 snake\_case}," in bib
    assert "author = {Müller-Łukasz, Jörg}," in bib
    assert cite_key(a) == cite_key(a.model_copy())  # stable


def test_bibtex_collective_author_is_braced() -> None:
    a = _corpus("pubmed_34843274_collective.xml")
    bib = format_citation(a, "bibtex")
    assert bib.startswith("@article{Guideline2022Summary,")
    assert "  author = {{Guideline Development Panel for the Treatment of Depressive Disorders}}," in bib


# --- collective author -------------------------------------------------------------------------


def test_collective_author_all_styles() -> None:
    a = _corpus("pubmed_34843274_collective.xml")
    assert format_citation(a, "apa") == (
        "Guideline Development Panel for the Treatment of Depressive Disorders. (2022). Summary of the clinical "
        "practice guideline for the treatment of depression across three age cohorts. The American "
        "Psychologist, 77(6), 770–780. https://doi.org/10.1037/amp0000904"
    )
    assert format_citation(a, "mla") == (
        'Guideline Development Panel for the Treatment of Depressive Disorders. "Summary of the clinical '
        'practice guideline for the treatment of depression across three age cohorts." The American '
        "Psychologist, vol. 77, no. 6, Sept. 2022, pp. 770-80. https://doi.org/10.1037/amp0000904."
    )
    assert format_citation(a, "vancouver") == (
        "Guideline Development Panel for the Treatment of Depressive Disorders. Summary of the clinical "
        "practice guideline for the treatment of depression across three age cohorts. Am Psychol. "
        "2022 Sep;77(6):770-780. doi: 10.1037/amp0000904. PMID: 34843274."
    )
    assert "AU  - Guideline Development Panel for the Treatment of Depressive Disorders" in format_citation(
        a, "ris"
    )


def test_collective_whole_book() -> None:
    a = _corpus("pubmed_26468569_book_whole.xml")
    assert format_citation(a, "vancouver").endswith(
        "; The National Academies of Sciences, Engineering, and Medicine. Application of Modern Toxicology "
        "Approaches for Predicting Acute Toxicity for Chemical Defense. Washington (DC): National Academies "
        "Press (US); 2015. doi: 10.17226/21775. PMID: 26468569."
    )
    assert format_citation(a, "apa").endswith(
        "(2015). Application of Modern Toxicology Approaches for Predicting Acute Toxicity for Chemical "
        "Defense. National Academies Press (US). https://doi.org/10.17226/21775"
    )
    assert format_citation(a, "mla").startswith(
        "Committee on Predictive-Toxicology Approaches for Military Assessments of Acute Exposures, et al. "
    )
    assert format_citation(a, "bibtex").startswith("@book{Committee2015Application,")
    assert "TY  - BOOK" in format_citation(a, "ris")


# --- book chapter (GeneReviews) ----------------------------------------------------------------


def test_genereviews_chapter_all_styles() -> None:
    a = _corpus("pubmed_20301382_book_chapter_genereviews.xml")
    assert format_citation(a, "vancouver") == (
        "Goldstein A, Falk MJ. Single Large-Scale Mitochondrial DNA Deletion Syndromes. 2003 Dec 17 "
        "[Updated 2023 Sep 28]. In: Adam MP, Feldman J, Mirzaa GM, Pagon RA, Wallace SE, Bean LJH, et al, "
        "editors. GeneReviews® [Internet]. Seattle (WA): University of Washington, Seattle; 1993-2024. "
        "PMID: 20301382."
    )
    assert format_citation(a, "apa") == (
        "Goldstein, A., & Falk, M. J. (2023). Single Large-Scale Mitochondrial DNA Deletion Syndromes. "
        "In M. P. Adam, J. Feldman, G. M. Mirzaa, R. A. Pagon, S. E. Wallace, L. J. H. Bean, K. W. Gripp, "
        "& A. Amemiya (Eds.), GeneReviews®. University of Washington, Seattle. "
        "https://www.ncbi.nlm.nih.gov/books/NBK1203/"
    )
    assert format_citation(a, "mla") == (
        'Goldstein, Amy, and Marni J. Falk. "Single Large-Scale Mitochondrial DNA Deletion Syndromes." '
        "GeneReviews®, edited by Margaret P. Adam et al., University of Washington, Seattle, 2023. "
        "https://www.ncbi.nlm.nih.gov/books/NBK1203/."
    )
    bib = format_citation(a, "bibtex")
    assert bib.startswith("@incollection{Goldstein2023Single,")
    for line in [
        "  booktitle = {GeneReviews®},",
        "  publisher = {University of Washington, Seattle},",
        "  address = {Seattle (WA)},",
        "  url = {https://www.ncbi.nlm.nih.gov/books/NBK1203/},",
    ]:
        assert line in bib.splitlines()
    assert "editor = {Adam, Margaret P. and Feldman, Jerry and" in bib
    ris = format_citation(a, "ris").splitlines()
    assert ris[0] == "TY  - CHAP"
    assert "T2  - GeneReviews®" in ris and "A2  - Adam, Margaret P." in ris and "CY  - Seattle (WA)" in ris


def test_editors_only_book() -> None:
    a = _corpus("pubmed_20301295_book_chapter_large.xml")
    assert format_citation(a, "vancouver") == (
        "Pagon RA, Bird TD, Dolan CR, Stephens K, Adam MP, editors. GeneReviews™ [Internet]. "
        "Seattle (WA): University of Washington, Seattle; 1993. PMID: 20301295."
    )
    assert format_citation(a, "apa").startswith(
        "Pagon, R. A., Bird, T. D., Dolan, C. R., Stephens, K., & Adam, M. P. (Eds.). (1993). GeneReviews™."
    )
    assert format_citation(a, "mla").startswith("Pagon, Roberta A., et al., editors. GeneReviews™.")
    assert "  editor = {Pagon, Roberta A. and" in format_citation(a, "bibtex")


# --- retraction / erratum / expression of concern ----------------------------------------------


def test_retracted_article_real_record() -> None:
    a = _corpus("pubmed_10066780_retracted_publication_fragment.xml")
    assert format_citation(a, "vancouver") == (
        "Last Name FN. CREB-binding [corrected] protein interacts with the homeodomain protein Cdx2 and "
        "enhances transcriptional activity. J Biol Chem. 1999 Mar 12;274(11):7196-9. Erratum in: J Biol Chem "
        "1999 May 7;274(19):13728. Retraction in: J Biol Chem. 2001 Mar 30;276(13):10576. PMID: 10066780."
    )
    note = "[Erratum; see J Biol Chem 1999 May 7;274(19):13728; Retracted; see PMID 11905463]"
    assert format_citation(a, "apa").endswith(
        "The Journal of Biological Chemistry, 274(11), 7196–7199. " + note
    )
    assert format_citation(a, "mla").endswith("pp. 7196-99. " + note)
    assert "  note = {Erratum; see J Biol Chem 1999 May 7;274(19):13728; Retracted; see PMID 11905463}," in (
        format_citation(a, "bibtex")
    )
    ris = format_citation(a, "ris").splitlines()
    assert "N1  - Retracted; see PMID 11905463" in ris


def test_retracted_constructed_all_styles() -> None:
    a = _article(
        isRetracted=True,
        publicationTypes=["Journal Article", "Retracted Publication"],
        notices=[
            Notice(type="ExpressionOfConcernIn", pmid="200", refSource="J Test. 2021 Jan;13(1):1"),
            Notice(type="RetractionIn", pmid="300", refSource="J Test. 2022 Feb;14(2):2"),
            Notice(type="CommentIn", pmid="400", refSource="J Test. 2020;12(4):9"),
        ],
    )
    assert format_citation(a, "apa") == (
        "Smith, J. A., & Doe, J. (2020). Effects of X on Y. Journal of Testing, 12(3), 45–67. "
        "https://doi.org/10.1000/xyz123 [Expression of concern; see PMID 200; Retracted; see PMID 300]"
    )
    assert format_citation(a, "mla").endswith(
        "https://doi.org/10.1000/xyz123. [Expression of concern; see PMID 200; Retracted; see PMID 300]"
    )
    assert format_citation(a, "vancouver") == (
        "Smith JA, Doe J. Effects of X on Y. J Test. 2020 Mar 5;12(3):45-67. doi: 10.1000/xyz123. "
        "Expression of Concern in: J Test. 2021 Jan;13(1):1. Retraction in: J Test. 2022 Feb;14(2):2. "
        "PMID: 123."
    )
    assert "  note = {Expression of concern; see PMID 200; Retracted; see PMID 300}," in format_citation(
        a, "bibtex"
    )
    ris = format_citation(a, "ris").splitlines()
    assert ["N1  - Expression of concern; see PMID 200", "N1  - Retracted; see PMID 300"] == [
        line for line in ris if line.startswith("N1")
    ]


def test_retracted_by_publication_type_only() -> None:
    a = _article(isRetracted=True, publicationTypes=["Retracted Publication"])
    assert format_citation(a, "apa").endswith(" [Retracted]")
    assert format_citation(a, "vancouver").endswith("Retracted publication. PMID: 123.")
    assert "note = {Retracted}" in format_citation(a, "bibtex")


def test_retraction_notice_and_erratum_record() -> None:
    records = parse_pubmed_xml(
        corpus_bytes(EFETCH + "pubmed_baseline2019_excerpt_retractions_deletecitation.xml")
    )
    notice = next(a for a in records if a.pmid == "11600210")
    assert "Retraction of: Arnaiz-Villena A," in format_citation(notice, "vancouver")
    assert format_citation(notice, "apa").endswith("[Retraction of PMID 11543891]")
    erratum = _corpus("pubmed_38962805_published_erratum2.xml")
    assert "Erratum for: AIDS Care. 2024 Jul;36(sup1):24-35. doi: 10.1080/09540121.2024.2308745." in (
        format_citation(erratum, "vancouver")
    )


# --- every style, every record shape -----------------------------------------------------------


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(
    "name",
    [
        "pubmed_10066780_retracted_publication_fragment.xml",
        "pubmed_20301382_book_chapter_genereviews.xml",
        "pubmed_26468569_book_whole.xml",
        "pubmed_34843274_collective.xml",
        "pubmed_38962805_published_erratum2.xml",
        "pubmed_12091962_9997_abstract.xml",
    ],
)
def test_every_style_renders(name: str, style: str) -> None:
    text = format_citation(_corpus(name), style)
    assert text and "None" not in text and "  ." not in text and ".." not in text.replace(". . .", "")


def test_minimal_record_every_style() -> None:
    bare = PubMedArticle(pmid="9")
    for style in STYLES:
        assert format_citation(bare, style)
    assert format_citation(bare, "vancouver") == "PMID: 9."


def test_unknown_style() -> None:
    with pytest.raises(ValueError, match="apa"):
        format_citation(_article(), "chicago")
    assert format_citation(_article(), "NLM") == format_citation(_article(), "vancouver")
    assert format_citation(_article(), "APA7") == format_citation(_article(), "apa")
    assert format_citation(_article(), "mla9") == format_citation(_article(), "mla")
