"""The review import readers on hand-written snippets, one per quirk of the formats as the
databases and reference managers write them (the corpus files are in
test_review_readers_corpus.py)."""

from __future__ import annotations

import json

import pytest

from medlit.core.bibliography.read import decode_latex, person, split_people
from medlit.plugins.review.readers import Entry, ReadError, ReadResult, Skipped, detect, read
from medlit.plugins.review.readers import decode as decode_module


def _read(text: str, filename: str | None = None, encoding: str = "utf-8") -> ReadResult:
    return read(text.encode(encoding), filename=filename)


def _only(result: ReadResult) -> Entry:
    assert not result.skipped, result.skipped
    assert len(result.entries) == 1, result.entries
    return result.entries[0]


RIS = """TY  - JOUR
ID  - 12
TI  - A trial of
  something long
AU  - Smith, John A.
AU  - TAX 325 Study Group
T2  - The Journal of Things
J2  - J. Things
PY  - 2019/05/03/
VL  - 7
IS  - 2
SP  - 123
EP  - 129
DO  - 10.1000/ABC.1
SN  - 1234-5678 (Print)
SN  - 978-0-12-345678-9
KW  - alpha
beta
AB  - An abstract.
LA  - English
ER  -
"""


# --- decoding ---------------------------------------------------------------------------------


def test_ris_basic_fields() -> None:
    entry = _only(_read(RIS))
    data = entry.data
    assert entry.position == 1 and entry.input_id == "12" and entry.database is None
    assert data["kind"] == "article"
    assert data["title"] == "A trial of something long"  # continuation line appended
    assert data["authors"] == ["Smith, John A", "TAX 325 Study Group"]
    assert data["journal"] == "The Journal of Things" and data["journal_abbrev"] == "J. Things"
    assert data["year"] == 2019 and data["volume"] == "7" and data["issue"] == "2"
    assert data["pages"] == "123-129"
    assert data["doi"] == "10.1000/abc.1"
    assert data["issn"] == ["1234-5678"] and data["isbn"] == ["9780123456789"]
    assert data["keywords"] == ["alpha", "beta"]  # an untagged line after KW is another keyword
    assert data["abstract"] == "An abstract." and data["language"] == "English"


def test_utf8_bom_and_crlf() -> None:
    result = read(b"\xef\xbb\xbf" + RIS.replace("\n", "\r\n").encode())
    assert result.format == "ris"
    assert _only(result).data["title"] == "A trial of something long"


def test_cr_only_line_endings() -> None:
    result = read(RIS.replace("\n", "\r").encode())
    assert _only(result).data["pages"] == "123-129"


def test_utf16_with_bom() -> None:
    result = read(RIS.replace("Smith", "Müller").encode("utf-16"))
    assert "UTF-16 decoded" in result.notices
    assert _only(result).data["authors"][0] == "Müller, John A"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_told_by_nuls(codec: str) -> None:
    result = read(RIS.encode(codec))
    assert "UTF-16 decoded" in result.notices
    assert _only(result).data["title"] == "A trial of something long"


def test_cp1252_fallback_with_notice() -> None:
    result = read(RIS.replace("Smith", "Zoë – Smith").encode("cp1252"))
    assert any("Windows-1252" in n for n in result.notices)
    assert _only(result).data["authors"][0] == "Zoë – Smith, John A"


# --- RIS quirks --------------------------------------------------------------------------------


def test_two_spaces_after_hyphen_and_provider_banners() -> None:
    text = (
        'Record #1 of 2\nProvider: John Wiley & Sons, Ltd.\nContent: text/plain; charset="UTF-8"\n\n'
        "TY  -  JOUR\nAN  -  CN-001\nTI  -  First\nC3  -  PUBMED 21314913\nER  -  \n\n"
        "Record #2 of 2\nProvider: John Wiley & Sons, Ltd.\n\n"
        "TY  -  JOUR\nAN  -  CN-002\nTI  -  Second\nER  -  \n"
    )
    result = _read(text)
    assert [e.data["title"] for e in result.entries] == ["First", "Second"]
    assert [e.input_id for e in result.entries] == ["CN-001", "CN-002"]
    assert result.entries[0].data["pmid"] == "21314913"
    assert "2 provider banner(s) between records ignored" in result.notices


def test_ovid_numbered_headers_and_bare_er() -> None:
    text = (
        "1. \nTY  - JOUR\nTI  - One\nER  -\nLink to the Ovid Full Text\n \n<2>\nTY  - JOUR\nTI  - Two\nER  -"
    )
    result = _read(text)
    assert [e.data["title"] for e in result.entries] == ["One", "Two"]
    assert [e.position for e in result.entries] == [1, 2]


def test_one_space_after_hyphen_and_blank_lines_inside_a_record() -> None:
    text = "TY - JOUR\n\nTI - Spaced\n\nAU - Gamba, P.\n\nER - \n"
    assert _only(_read(text)).data == {"kind": "article", "title": "Spaced", "authors": ["Gamba, P"]}


def test_tag_glued_onto_previous_line() -> None:
    # Rayyan writes U2 onto the UR line.
    text = "TY  - JOUR\nTI  - Glued\nUR  - https://www.embase.com/x?id=L1&from=export     U2  - L2029880245\nER  - \n"
    data = _only(_read(text)).data
    assert data["url"] == "https://www.embase.com/x?id=L1&from=export"


def test_record_without_ty_and_missing_er_at_end() -> None:
    result = _read("AU  - Boisvert, C\nTI  - No type\nER  -\nAU  - Other, A\nTI  - Last one\n")
    assert [e.data["title"] for e in result.entries] == ["No type", "Last one"]


@pytest.mark.parametrize(
    ("ty", "kind"),
    [
        ("JOUR", "article"),
        ("JFULL", "article"),
        ("ABST", "article"),
        ("EJOUR", "article"),
        ("BOOK", "book"),
        ("EBOOK", "book"),
        ("CHAP", "chapter"),
        ("ECHAP", "chapter"),
        ("CONF", "conference"),
        ("CPAPER", "conference"),
        ("THES", "thesis"),
        ("RPRT", "report"),
        ("UNPB", "preprint"),
        ("GEN", "other"),
    ],
)
def test_ty_to_kind(ty: str, kind: str) -> None:
    data = _only(_read(f"TY  - {ty}\nTI  - T\nER  - \n")).data
    assert data["kind"] == kind
    if kind == "other":
        assert data["publication_types"] == [ty]


def test_chapter_with_book_title_and_editors() -> None:
    text = (
        "TY  - CHAP\nTI  - The chapter\nAU  - Writer, A.\nA2  - Editor, B.\nED  - Editor, C.\n"
        "BT  - The Book\nPB  - Springer\nCY  - Berlin\nSN  - 9783161484100\nPY  - 2001\nER  - \n"
    )
    data = _only(_read(text)).data
    assert data["kind"] == "chapter" and data["journal"] == "The Book"
    assert data["editors"] == ["Editor, B", "Editor, C"]
    assert data["publisher"] == "Springer" and data["place"] == "Berlin"
    assert data["isbn"] == ["9783161484100"] and "issn" not in data


def test_accession_number_is_a_pmid_only_for_medline() -> None:
    medline = _only(
        _read("TY  - JOUR\nTI  - A\nAN  - 31234567\nDB  - MEDLINE\nKW  - *Asthma/drug therapy\nER  - \n")
    )
    assert medline.data["pmid"] == "31234567" and medline.database == "MEDLINE"
    assert medline.data["mesh"] == ["*Asthma/drug therapy"] and "keywords" not in medline.data
    embase = _only(_read("TY  - JOUR\nTI  - A\nAN  - 31234567\nDB  - Embase\nKW  - *asthma\nER  - \n"))
    assert "pmid" not in embase.data and embase.data["keywords"] == ["*asthma"]
    assert embase.input_id == "31234567"


def test_ids_in_notes_and_urls() -> None:
    text = (
        "TY  - JOUR\nTI  - A\nUR  - https://doi.org/10.1016/J.X.2020.01.002\n"
        "N1  - PMID: 30922926\nN1  - PMCID: PMC7026692\nER  - \n"
    )
    data = _only(_read(text)).data
    assert data["doi"] == "10.1016/j.x.2020.01.002"
    assert data["pmid"] == "30922926" and data["pmcid"] == "PMC7026692"
    data = _only(_read("TY  - JOUR\nTI  - A\nN1  - doi: 10.1186/s12862-024-02210-9.\nER  - \n")).data
    assert data["doi"] == "10.1186/s12862-024-02210-9"
    data = _only(_read("TY  - JOUR\nTI  - A\nL2  - http://dx.doi.org/10.1002/ar.25520\nER  - \n")).data
    assert data["doi"] == "10.1002/ar.25520"


@pytest.mark.parametrize(
    ("value", "year"),
    [
        ("2019///", 2019),
        ("2019/05/03", 2019),
        ("2019 May", 2019),
        ("May 2019", 2019),
        ("n.d.", None),
        ("0999", None),
    ],
)
def test_year_forms(value: str, year: int | None) -> None:
    data = _only(_read(f"TY  - JOUR\nTI  - A\nY1  - {value}\nER  - \n")).data
    assert data.get("year") == year


def test_scopus_issn_suffix_and_endnote_packed_issns() -> None:
    data = _only(
        _read("TY  - JOUR\nTI  - A\nSN  - 20964129 (ISSN) \nSN  - 0964-6906 (Print)0964-6906\nER  - \n")
    ).data
    assert data["issn"] == ["2096-4129", "0964-6906"]


def test_full_title_beats_abbreviation_in_any_order() -> None:
    data = _only(_read("TY  - JOUR\nTI  - A\nT2  - Nat. Commun.\nJF  - Nature Communications\nER  - \n")).data
    assert data["journal"] == "Nature Communications" and data["journal_abbrev"] == "Nat. Commun."


def test_empty_record_is_skipped_with_position_and_title_only_record_kept() -> None:
    result = _read(
        "TY  - JOUR\nTI  - Kept\nER  - \nTY  - JOUR\nID  - 7\nPY  - 2020\nER  - \nTY  - JOUR\nTI  - Also\nER  - \n"
    )
    assert [e.position for e in result.entries] == [1, 3]
    assert result.skipped == [Skipped(2, "7", "no title, authors or identifier")]
    assert result.entries[0].data == {"kind": "article", "title": "Kept"}


# --- MEDLINE -------------------------------------------------------------------------------------

MEDLINE = """
PMID- 30922926
OWN - NLM
STAT- MEDLINE
IS  - 1878-0849 (Electronic)
IS  - 1769-7212 (Linking)
VI  - 63
IP  - 2
DP  - 2020 Feb
TI  - Time lapse: A glimpse into
      prehistoric genomics.
PG  - 103640
LID - S1769-7212(18)30640-3 [pii]
LID - 10.1016/j.ejmg.2019.03.004 [doi]
AB  - Genomics.
FAU - Griffin, Darren K
AU  - Griffin DK
FAU - O'Connor, Rebecca E
AU  - O'Connor RE
CN  - Dinosaur Genomics Consortium
LA  - eng
PT  - Journal Article
PT  - Review
TA  - Eur J Med Genet
JT  - European journal of medical genetics
MH  - Animals
MH  - Birds/*genetics
OT  - Chromosome
PMC - PMC7026692

PMID- 1
TI  - Second
"""


def test_medline_record() -> None:
    result = _read(MEDLINE, "pubmed.nbib")
    assert result.format == "medline"
    first = result.entries[0]
    assert first.input_id == "30922926" and first.position == 1
    assert first.data == {
        "kind": "article",
        "title": "Time lapse: A glimpse into prehistoric genomics.",
        "authors": ["Griffin, Darren K", "O'Connor, Rebecca E", "Dinosaur Genomics Consortium"],
        "journal": "European journal of medical genetics",
        "journal_abbrev": "Eur J Med Genet",
        "issn": ["1878-0849", "1769-7212"],
        "year": 2020,
        "volume": "63",
        "issue": "2",
        "pages": "103640",
        "abstract": "Genomics.",
        "mesh": ["Animals", "Birds/*genetics"],
        "keywords": ["Chromosome"],
        "publication_types": ["Journal Article", "Review"],
        "language": "eng",
        "pmid": "30922926",
        "doi": "10.1016/j.ejmg.2019.03.004",
        "pmcid": "PMC7026692",
    }
    assert result.entries[1].data["title"] == "Second"


def test_medline_saved_as_ris_is_still_medline() -> None:
    assert _read(MEDLINE, "export.ris").format == "medline"


def test_medline_book_chapter() -> None:
    text = (
        "PMID- 20301295\nBTI - GeneReviews(R)\nTI  - Alpha-Thalassemia\nFED - Adam, Margaret P\n"
        "FAU - Tamary, Hannah\nPB  - University of Washington, Seattle\nPL  - Seattle (WA)\nDP  - 1993\n"
        "PT  - Review\nPT  - Book Chapter\n"
    )
    data = _only(_read(text)).data
    assert data["kind"] == "chapter" and data["journal"] == "GeneReviews(R)"
    assert data["editors"] == ["Adam, Margaret P"] and data["place"] == "Seattle (WA)"


# --- Web of Science -------------------------------------------------------------------------------

WOS = """FN Clarivate Analytics Web of Science
VR 1.0
PT J
AU Li, W
   Dou, Z
AF Li, Wei
   Dou, Zhiguo
TI Soil fauna diversity at different stages of reed restoration in a
   lakeshore wetland
SO ECOSYSTEM HEALTH AND SUSTAINABILITY
DE Environmental factors; Lake Taihu; lakeshore
   wetland
SN 2096-4129
EI 2332-8878
PY 2020
VL 6
BP 10
EP 19
DI 10.1080/20964129.2020.1722034
PM 32000000
J9 ECOSYST HEALTH SUST
DT Article
UT WOS:000514379300001
ER

PT J
TI Medline one
AU Joffe, Hadine; Hall, Janet E
UT MEDLINE:16735938
ER

EF"""


def test_wos_plain_text() -> None:
    result = _read(WOS)
    assert result.format == "wos"
    first, second = result.entries
    assert first.input_id == "WOS:000514379300001" and first.database == "WOS"
    assert first.data["authors"] == ["Li, Wei", "Dou, Zhiguo"]  # AF preferred
    assert (
        first.data["title"]
        == "Soil fauna diversity at different stages of reed restoration in a lakeshore wetland"
    )
    assert first.data["keywords"] == ["Environmental factors", "Lake Taihu", "lakeshore wetland"]
    assert first.data["issn"] == ["2096-4129", "2332-8878"] and first.data["pages"] == "10-19"
    assert first.data["journal_abbrev"] == "ECOSYST HEALTH SUST" and first.data["pmid"] == "32000000"
    assert second.data["authors"] == ["Joffe, Hadine", "Hall, Janet E"] and second.data["pmid"] == "16735938"


def test_wos_tab_delimited() -> None:
    header = "PT\tAU\tAF\tTI\tSO\tPY\tVL\tDI\tUT"
    row = "J\tLi, W; Dou, Z\tLi, Wei; Dou, Zhiguo\tA title\tJOURNAL\t2020\t6\t10.1080/X1\tWOS:1"
    result = _read(f"{header}\n{row}\n")
    assert result.format == "wos_tab"
    entry = _only(result)
    assert entry.data["authors"] == ["Li, Wei", "Dou, Zhiguo"] and entry.input_id == "WOS:1"
    assert entry.data["doi"] == "10.1080/x1"


# --- EndNote XML ---------------------------------------------------------------------------------

ENDNOTE = """<?xml version="1.0" encoding="UTF-8" ?><xml><records>
<record><database name="My.enl">My.enl</database><rec-number>13264</rec-number>
<ref-type name="Journal Article">17</ref-type>
<contributors><authors><author><style face="normal">Chapman, A. G.</style></author>
<author><style>TAX 325 Study Group</style></author></authors></contributors>
<titles><title><style face="normal">An ecological </style><style face="italic">basis</style></title>
<secondary-title><style>Ecology</style></secondary-title></titles>
<periodical><full-title>Ecology</full-title><abbr-1>Ecol.</abbr-1></periodical>
<pages>93-105</pages><volume>18</volume><number>1</number>
<dates><year>1937</year></dates><isbn>0012-9658</isbn>
<electronic-resource-num>10.2307/1932019</electronic-resource-num>
<accession-num>12345678</accession-num><remote-database-name>PubMed</remote-database-name>
<urls><related-urls><url>https://example.org/x</url></related-urls></urls>
</record>
<record><rec-number>2</rec-number><ref-type name="Book Section">5</ref-type>
<titles><title>Chapter</title><secondary-title>The Book</secondary-title></titles></record>
</records></xml>"""


def test_endnote_xml() -> None:
    result = _read(ENDNOTE, "lib.xml")
    assert result.format == "endnote_xml"
    first, second = result.entries
    assert first.input_id == "13264" and first.database == "PubMed"
    assert first.data["title"] == "An ecological basis"
    assert first.data["authors"] == ["Chapman, A. G", "TAX 325 Study Group"]
    assert first.data["journal"] == "Ecology" and first.data["journal_abbrev"] == "Ecol."
    assert (first.data["year"], first.data["volume"], first.data["issue"], first.data["pages"]) == (
        1937,
        "18",
        "1",
        "93-105",
    )
    assert first.data["doi"] == "10.2307/1932019" and first.data["pmid"] == "12345678"
    assert first.data["issn"] == ["0012-9658"] and first.data["url"] == "https://example.org/x"
    assert second.data["kind"] == "chapter" and second.data["journal"] == "The Book"


def test_endnote_xml_entity_bomb_and_dtd_refused() -> None:
    bomb = '<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><xml><records><record><titles><title>&b;</title></titles></record></records></xml>'
    with pytest.raises(ReadError) as caught:
        _read(bomb)
    assert caught.value.reason == "refused"
    dtd = (
        '<?xml version="1.0"?><!DOCTYPE xml SYSTEM "http://example.org/x.dtd"><xml><records></records></xml>'
    )
    with pytest.raises(ReadError) as caught:
        _read(dtd)
    assert caught.value.reason == "refused"


def test_endnote_xml_broken_is_a_read_error() -> None:
    with pytest.raises(ReadError) as caught:
        _read("<xml><records><record><titles><title>cut")
    assert caught.value.reason == "malformed"


# --- BibTeX --------------------------------------------------------------------------------------

BIBTEX = r"""
@article{good1,
  author = {M{\"u}ller, J{\"o}rg and Garc\'{\i}a, Ana and {TAX 325 Study Group}},
  title = {{Cocker} Spaniels \& dogs --- a {\'e}tude},
  journal = {Vet J},
  year = {2019},
  pages = {12--19},
  doi = {https://doi.org/10.1000/XYZ},
  issn = {1234-5678},
  keywords = {dogs, spaniels},
  note = {PMID: 31234567},
}
@article{broken, title = {Unclosed, year = 2020
@book{good2, title = "A Book", author = "Jane Doe", publisher = {Pub}, year = 2001, isbn = {978-3-16-148410-0}}
@incollection{good3, title = {A Chapter}, booktitle = {The Book}, editor = {Smith, A.}, year = 2002}
"""


def test_bibtex_entries_and_malformed_entry_skipped_with_position() -> None:
    result = _read(BIBTEX)
    assert result.format == "bibtex"
    assert [e.input_id for e in result.entries] == ["good1", "good2", "good3"]
    assert [e.position for e in result.entries] == [1, 3, 4]
    assert result.skipped == [Skipped(2, "broken", "malformed BibTeX entry")]
    first = result.entries[0].data
    assert first["authors"] == ["Müller, Jörg", "García, Ana", "TAX 325 Study Group"]
    assert first["title"] == "Cocker Spaniels & dogs — a étude"
    assert first["pages"] == "12-19" and first["doi"] == "10.1000/xyz" and first["pmid"] == "31234567"
    assert first["keywords"] == ["dogs", "spaniels"] and first["issn"] == ["1234-5678"]
    book = result.entries[1].data
    assert book["kind"] == "book" and book["authors"] == ["Doe, Jane"] and book["isbn"] == ["9783161484100"]
    chapter = result.entries[2].data
    assert (
        chapter["kind"] == "chapter"
        and chapter["journal"] == "The Book"
        and chapter["editors"] == ["Smith, A"]
    )


def test_latex_decoding_table() -> None:
    assert (
        decode_latex(r"{\"u}ber \'e \`a \^o \~n \c{c} \v{s} \ss{} {\o} \& 50\% a--b")
        == "über é à ô ñ ç š ß ø & 50% a–b"
    )


# --- CSL-JSON ------------------------------------------------------------------------------------


def test_csl_json_list_and_items_object() -> None:
    item = {
        "id": "k1",
        "type": "paper-conference",
        "title": "Talk",
        "author": [{"family": "Doe", "given": "J."}, {"literal": "WHO Working Group"}],
        "container-title": "Proceedings of X",
        "container-title-short": "Proc X",
        "issued": {"date-parts": [[2021, 5]]},
        "DOI": "10.1234/ABC",
        "PMID": "123",
        "ISSN": ["1234-5678"],
        "page": "1-2",
    }
    for payload in ([item, "junk"], {"items": [item, "junk"]}):
        result = _read(json.dumps(payload))
        assert result.format == "csljson"
        entry = result.entries[0]
        assert entry.input_id == "k1" and entry.data["kind"] == "conference"
        assert entry.data["authors"] == ["Doe, J", "WHO Working Group"]
        assert entry.data["journal"] == "Proceedings of X" and entry.data["journal_abbrev"] == "Proc X"
        assert (
            entry.data["year"] == 2021 and entry.data["doi"] == "10.1234/abc" and entry.data["pmid"] == "123"
        )
        assert result.skipped == [Skipped(2, None, "not a CSL-JSON item (an object was expected)")]


# --- CSV / TSV -----------------------------------------------------------------------------------


def test_excel_semicolon_csv_with_preamble_and_multiline_cell() -> None:
    text = (
        "\ufeffSEARCH QUERY;dinosaur:ti;;;\n-----------;;;;\n;;;;\n"
        "Title;Author Names;Publication Year;Abstract;Medline PMID\n"
        'A title;Yang Z., Jiang B.;2024;"line one\nline two; still";38773066\n'
    )
    result = _read(text)
    assert result.format == "csv"
    entry = _only(result)
    assert entry.data["authors"] == ["Yang, Z", "Jiang, B"]
    assert entry.data["abstract"] == "line one\nline two; still" and entry.data["pmid"] == "38773066"
    assert "3 line(s) before the header skipped" in result.notices


def test_pubmed_csv_authors_and_ids() -> None:
    text = (
        "PMID,Title,Authors,Citation,Journal/Book,Publication Year,PMCID,DOI\n"
        '"30922926","Time lapse","Griffin DK, Larkin DM, O\'Connor RE.","Eur J Med Genet. 2020","Eur J Med Genet","2020","PMC7026692","10.1016/j.ejmg.2019.03.004"\n'
    )
    entry = _only(_read(text))
    assert entry.input_id == "30922926"
    assert entry.data["authors"] == ["Griffin, DK", "Larkin, DM", "O'Connor, RE"]
    assert entry.data["pmcid"] == "PMC7026692" and entry.data["journal"] == "Eur J Med Genet"


def test_zotero_csv_extra_pmid_and_item_type() -> None:
    text = '"Key","Item Type","Publication Year","Author","Title","Extra"\n"K1","bookSection","2020","Doe, Jane; Roe, R.","T","PMID: 555"\n'
    entry = _only(_read(text))
    assert (
        entry.data["kind"] == "chapter"
        and entry.data["pmid"] == "555"
        and entry.data["authors"] == ["Doe, Jane", "Roe, R"]
    )


def test_tsv_detected() -> None:
    result = _read("Title\tAuthors\tYear\nA\tDoe, J\t2001\n", "x.txt")
    assert result.format == "tsv" and _only(result).data["year"] == 2001


def test_csv_without_title_column_names_its_columns() -> None:
    with pytest.raises(ReadError) as caught:
        _read("id,name,score\n1,a,2\n")
    assert caught.value.reason == "no_title_column"
    assert "id, name, score" in caught.value.message


def test_csv_blank_rows_are_not_records_and_empty_row_skipped() -> None:
    result = _read("Title,Year,Notes\nOne,2001,\n,,\n,2002,just a note\n")
    assert [e.data["title"] for e in result.entries] == ["One"]
    assert result.skipped == [Skipped(2, None, "no title, authors or identifier")]


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("Smith, John A.", "Smith, John A"),
        ("Holmstrom, E.", "Holmstrom, E"),
        ("Griffin DK", "Griffin, DK"),
        ("Wilson L.N.", "Wilson, L.N"),
        ("Brownstein C D", "Brownstein, C D"),
        ("TAX 325 Study Group", "TAX 325 Study Group"),
        ("Wilson, Lauren N. (58975547800)", "Wilson, Lauren N"),
        ("van den Hoven,null", "van den Hoven"),
        ("Pérez-de la Fuente, Ricardo", "Pérez-de la Fuente, Ricardo"),
        ("Smith, Jr.", "Smith, Jr."),
        ("A. Smith", "Smith, A"),
        ("J.-P. van Dam", "van Dam, J.-P"),
        ("World Health Organization", "World Health Organization"),
    ],
)
def test_person_names(raw: str, name: str) -> None:
    assert person(raw) == name


def test_split_people_forms() -> None:
    assert split_people("Yang, Z.; Jiang, B.") == ["Yang, Z", "Jiang, B"]
    assert split_people("Yang, Z. and Jiang, B.") == ["Yang, Z", "Jiang, B"]
    assert split_people("Smith, John") == ["Smith, John"]
    assert split_people("Paul M. Barrett|Ludwig van Beethoven", given_first=True) == [
        "Barrett, Paul M",
        "van Beethoven, Ludwig",
    ]
    assert split_people("Barrett, Paul M; Willis, Katherine J; ") == [
        "Barrett, Paul M",
        "Willis, Katherine J",
    ]


# --- detection and hostile input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        (RIS, "ris"),
        (MEDLINE, "medline"),
        (WOS, "wos"),
        (ENDNOTE, "endnote_xml"),
        (BIBTEX, "bibtex"),
        ('[{"title": "x"}]', "csljson"),
        ("Title,Year\nx,2001\n", "csv"),
        ("Title\tYear\nx\t2001\n", "tsv"),
        ("<1>\nTitle\n  A title\nAuthors\n  Doe, J\n", "ovid"),
        ("just some prose, nothing more", "csv"),
        ("just some prose", None),
    ],
)
def test_detect(text: str, fmt: str | None) -> None:
    assert detect(text) == fmt


def test_ovid_field_labelled_export() -> None:
    text = (
        "<1>\nUnique Identifier\n  31234567\nTitle\n  A labelled\n  title\nAuthors\n  Doe J\n  Roe R\n"
        "Source\n  Lancet. 2019; 393(10170):100-110\nDatabase\n  Ovid MEDLINE(R)\n"
        "Digital Object Identifier\n  https://dx.doi.org/10.1016/S0140-6736(19)30001-1\n\n<2>\nTitle\n  Second\n"
    )
    result = _read(text)
    assert result.format == "ovid"
    first = result.entries[0]
    assert first.data["title"] == "A labelled title" and first.data["authors"] == ["Doe, J", "Roe, R"]
    assert first.data["pmid"] == "31234567" and first.data["doi"] == "10.1016/s0140-6736(19)30001-1"
    assert first.data["year"] == 2019 and first.database == "Ovid MEDLINE(R)"
    assert result.entries[1].data["title"] == "Second"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "unsupported"),
        (b"PK\x03\x04\x14\x00", "unsupported"),
        (bytes(range(256)) * 64, "undecodable"),
        (b"\x00\x01\x02\x03" * 1000, "undecodable"),
        (b"hello world, nothing bibliographic", "no_title_column"),
        (b"a" * 50_000_000, "unknown_format"),
    ],
)
def test_hostile_input_is_a_read_error(raw: bytes, reason: str) -> None:
    with pytest.raises(ReadError) as caught:
        read(raw)
    assert caught.value.reason == reason


def test_too_large_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decode_module, "MAX_BYTES", 100)
    with pytest.raises(ReadError) as caught:
        read(RIS.encode())
    assert caught.value.reason == "too_large"


def test_unknown_format_name_refused() -> None:
    with pytest.raises(ReadError):
        read(RIS.encode(), format="docx")


def test_field_caps_cut_with_notice() -> None:
    authors = "".join(f"AU  - Person{i}, A\n" for i in range(5005))
    text = f"TY  - JOUR\nTI  - {'t' * 3000}\nAB  - {'a' * 100_050}\n{authors}ER  - \n"
    result = _read(text)
    data = _only(result).data
    assert len(data["title"]) == 2000 and len(data["abstract"]) == 100_000 and len(data["authors"]) == 5000
    assert len(result.notices) == 3 and all("cut" in n for n in result.notices)


def test_a_50mb_ris_line_is_cut_not_a_crash() -> None:
    result = read(b"TY  - JOUR\nTI  - " + b"x" * 50_000_000 + b"\nER  - \n")
    assert len(_only(result).data["title"]) == 2000


def test_deeply_nested_json_is_a_read_error() -> None:
    with pytest.raises(ReadError) as caught:
        read(b"[" * 200_000)
    assert caught.value.reason == "malformed"


def test_csv_cell_longer_than_the_csv_module_default_is_read() -> None:
    # Scopus "References" cells can pass the csv module's 128 KB default limit.
    text = f'Title,References,Abstract\nLong one,"{"r" * 200_000}","{"a" * 150_000}"\n'
    result = _read(text)
    data = _only(result).data
    assert data["title"] == "Long one" and len(data["abstract"]) == 100_000
    assert result.notices == ["1 record(s) had an abstract over 100,000 characters: cut"]


def test_ris_ty_outside_the_mapping_is_other_with_its_type_kept() -> None:
    data = _only(_read("TY  - MGZN\nTI  - A magazine piece\nER  - \n")).data
    assert data["kind"] == "other" and data["publication_types"] == ["MGZN"]


def test_ris_authors_packed_on_one_line() -> None:
    data = _only(_read("TY  - JOUR\nTI  - A\nAU  - Smith, J.; Jones, K.\nER  - \n")).data
    assert data["authors"] == ["Smith, J", "Jones, K"]


def test_wos_tab_delimited_utf16_as_wos_writes_it() -> None:
    text = "PT\tAU\tTI\tSO\tPY\tUT\t\nJ\tLi, W; Dou, Z\tA title\tJOURNAL\t2020\tWOS:1\t\n"
    result = read(text.encode("utf-16"))
    assert result.format == "wos_tab" and "UTF-16 decoded" in result.notices
    assert _only(result).data["authors"] == ["Li, W", "Dou, Z"]


def test_ieee_style_csv() -> None:
    text = (
        '"Document Title","Authors","Publication Title","Publication Year","Start Page","End Page","ISSN","ISBNs","DOI","IEEE Terms"\n'
        '"Road extraction","P. Gamba; F. Dell\'Acqua","IEEE GRSL","2006","387","391","1545-598X","978-1-4244-1234-5","10.1109/LGRS.2006.1","Roads;Filtering"\n'
    )
    data = _only(_read(text)).data
    assert data["authors"] == ["Gamba, P", "Dell'Acqua, F"]
    assert data["pages"] == "387-391" and data["issn"] == ["1545-598X"] and data["isbn"] == ["9781424412345"]
    assert data["keywords"] == ["Roads", "Filtering"] and data["doi"] == "10.1109/lgrs.2006.1"


def test_endnote_xml_in_utf16_with_its_declaration() -> None:
    text = ENDNOTE.replace('encoding="UTF-8"', 'encoding="UTF-16"')
    result = read(text.encode("utf-16"))
    assert result.format == "endnote_xml" and len(result.entries) == 2


def test_ovid_medlars_style_export() -> None:
    text = (
        "<1>\nUI  - 31234567\nAU  - Doe J.\nTI  - An Ovid record\nSO  - Lancet. 2019 Jan 5;393(10166):100-10.\n"
        "DO  - https://dx.doi.org/10.1016/S0140-6736(18)32000-1\n\n<2>\nUI  - 31234568\nTI  - Second\nSO  - BMJ. 2018;360:k1.\n"
    )
    result = _read(text)
    assert result.format == "medline"
    first = result.entries[0]
    assert first.input_id == "31234567" and first.data["pmid"] == "31234567"
    assert first.data["journal"] == "Lancet" and first.data["year"] == 2019
    assert first.data["authors"] == ["Doe, J"] and first.data["doi"] == "10.1016/s0140-6736(18)32000-1"
    assert result.entries[1].data["year"] == 2018


def test_ovid_m1_references_give_no_ids() -> None:
    text = (
        "TY  - JOUR\nTI  - Own\nM1  - Carleton, R.N. (2016). Into the unknown. J Anxiety Disord., 39, 30-43 "
        "https://pubmed.ncbi.nlm.nih.gov/26945765 https://dx.doi.org/10.1016/j.janxdis.2016.02.007\nER  - \n"
    )
    data = _only(_read(text)).data
    assert "doi" not in data and "pmid" not in data


def test_dimensions_style_csv_with_a_preamble_line() -> None:
    text = (
        '"About the data: Exported on Dec 02, 2026. Criteria: dinosaur."\n'
        '"Rank","Publication ID","DOI","PMID","PMCID","Title","Source title","PubYear","Pagination","Authors"\n'
        '"1","pub.1143865007","10.1186/s13750-021-00246-8","","","Effects of light","Environmental Evidence","2021","37","Adams, Carrie Ann; Bayne, Erin"\n'
    )
    result = _read(text)
    entry = _only(result)
    assert entry.input_id == "pub.1143865007" and entry.data["pages"] == "37" and entry.data["year"] == 2021
    assert entry.data["authors"] == ["Adams, Carrie Ann", "Bayne, Erin"]
    assert "1 line(s) before the header skipped" in result.notices
