"""Every dialect reviewers bring (issue 55): each database's RIS keeps its PMID and accession number
in a tag of its own (Embase ``C5``/``U2``, Scopus ``C2`` and the EID in its link, Cochrane ``C3``),
and three tagged formats besides RIS are read: Ovid's own tagged output from several Ovid
databases (``.ovd``, ``.cgi``, ``.txt``), EndNote's refer (``.enw``) and RefWorks' tagged format.
The fixtures under ``tests/fixtures/exports`` are built from the formats' documentation and public
examples (their origins in that folder's MANIFEST.tsv). Every record is counted once: entries
plus skipped equal the records the file holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from medlit.plugins.review.readers import read

from support.corpus import corpus_bytes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "exports"

# file, format, records, then per record: input id, database, pmid, doi, year, journal, volume,
# issue, pages, first author
EXPECTED = {
    "ovid_tagged_embase.ovd": (
        "ovid_tagged",
        [
            (
                "2029880245",
                "Embase",
                "38773066",
                "10.1038/s41467-024-48400-3",
                2024,
                "Nature Communications",
                "15",
                "1",
                "4063",
                "Yang, Z",
            ),
            (
                "621381829",
                "Embase",
                None,
                "10.1186/s12919-018-0099-8",
                2018,
                "BMC Proceedings",
                None,
                None,
                None,
                "Behan, L",
            ),
        ],
    ),
    "ovid_tagged_biosis.txt": (
        "ovid_tagged",
        [
            (
                "PREV200400473722",
                "BIOSIS Previews",
                None,
                None,
                2004,
                "Forest Ecology & Management",
                "201",
                "2-3",
                "327-334",
                "Werner, S. M",
            ),
            (
                "PREV200400474164",
                "BIOSIS Previews",
                None,
                None,
                2004,
                "Official Gazette of the United States Patent & Trademark Office Patents",
                "1288",
                "3",
                None,
                "Walsdorf, Neill B",
            ),
        ],
    ),
    "ovid_tagged_psycinfo.cgi": (
        "ovid_tagged",
        [
            (
                "2021-94054-001",
                "APA PsycInfo",
                "34537008",
                "10.1186/s11689-021-09396-9",
                2021,
                "Journal of Neurodevelopmental Disorders",
                "13",
                "1",
                "40",
                "Keefer, Amy",
            ),
            (
                "2020-12345-001",
                "APA PsycInfo",
                None,
                None,
                2020,
                "Journal of Child Psychology",
                "61",
                "4",
                "400-410",
                "Doe, Jane",
            ),
        ],
    ),
    "ovid_tagged_zoorec.txt": (
        "ovid_tagged",
        [
            (
                "ZOOR15501003588",
                "Zoological Record",
                None,
                "10.1002/ar.25520",
                2024,
                "Anatomical Record",
                "307",
                "7",
                "2345-2360",
                "Wedel, Mathew J",
            ),
        ],
    ),
    "endnote_tagged.enw": (
        "refer",
        [
            (
                "38773066",
                "PubMed",
                "38773066",
                "10.1038/s41467-024-48400-3",
                2024,
                "Nature Communications",
                "15",
                "1",
                "4063",
                "Yang, Zixiao",
            ),
            (
                None,
                None,
                None,
                None,
                2019,
                "Handbook of Systematic Reviews",
                None,
                None,
                "101-120",
                "Smith, John",
            ),
            (
                None,
                None,
                None,
                "10.1186/s12916-020-01234-5",
                2020,
                "BMC Medicine",
                None,
                None,
                None,
                "Roe, R",
            ),
        ],
    ),
    "refworks_tagged.txt": (
        "refworks",
        [
            (
                "38773066",
                "MEDLINE",
                "38773066",
                "10.1038/s41467-024-48400-3",
                2024,
                "Nature Communications",
                "15",
                "1",
                "4063",
                "Yang, Z",
            ),
            (
                "880",
                None,
                "31234567",
                None,
                2019,
                "Handbook of Systematic Reviews",
                None,
                None,
                "101-120",
                "Smith, John",
            ),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tagged_formats_are_detected_and_read(name: str) -> None:
    fmt, rows = EXPECTED[name]
    result = read((FIXTURES / name).read_bytes(), name)
    assert result.format == fmt
    assert result.skipped == []
    assert len(result.entries) == len(rows)
    for entry, row in zip(result.entries, rows, strict=True):
        d = entry.data
        got = (
            entry.input_id,
            entry.database,
            d.get("pmid"),
            d.get("doi"),
            d.get("year"),
            d.get("journal"),
            d.get("volume"),
            d.get("issue"),
            d.get("pages"),
            (d.get("authors") or [None])[0],
        )
        assert got == row


def test_tagged_formats_are_told_apart_without_a_file_name() -> None:
    for name, (fmt, _) in EXPECTED.items():
        assert read((FIXTURES / name).read_bytes()).format == fmt


def test_refer_keeps_multiline_keywords_and_abstract_and_book_parts() -> None:
    result = read((FIXTURES / "endnote_tagged.enw").read_bytes())
    first, chapter, _ = (e.data for e in result.entries)
    assert first["keywords"] == ["dinosaur", "evolution"]
    assert first["abstract"].startswith("Fossil feathers") and "vertebrates." in first["abstract"]
    assert chapter["kind"] == "chapter" and chapter["editors"] == ["Doe, Jane"]
    assert chapter["publisher"] == "Wiley" and chapter["isbn"] == ["9781119536628"]


def test_ovid_tagged_record_with_a_blank_line_inside_is_one_record() -> None:
    result = read((FIXTURES / "ovid_tagged_psycinfo.cgi").read_bytes())
    assert len(result.entries) + len(result.skipped) == 2
    assert result.entries[0].data["publication_types"] == ["Journal; Peer Reviewed Journal"]


def test_embase_ris_gives_its_pmids_and_accession_numbers() -> None:
    raw = corpus_bytes("exports/ris/embase__citation-file-formatting__baseline_embase.ris")
    result = read(raw, "embase.ris")
    assert len(result.entries) == 10
    assert all(e.data.get("pmid") for e in result.entries)
    assert result.entries[0].data["pmid"] == "38773066"
    assert result.entries[0].input_id == "L2029880245"


def test_scopus_ris_gives_c2_as_the_pmid_and_the_eid_as_its_id() -> None:
    raw = corpus_bytes("exports/ris/scopus__ASySD__scopus.ris")
    result = read(raw, "scopus.ris")
    by_id = {e.input_id: e.data.get("pmid") for e in result.entries}
    assert by_id["2-s2.0-85214459603"] is None
    assert by_id["2-s2.0-85214320386"] == "39549413"


RIS_DIALECTS = {
    # Embase through embase.com: C5 the PMID, U2 the accession
    "embase": (
        "TY  - JOUR\nDB  - Embase\nDB  - Medline\nU2  - L644585435\nC5  - 38906957\nT1  - A\nER  - \n",
        "38906957",
        "L644585435",
    ),
    # EndNote holding an Embase record: the accession in a note, EndNote's own number in ID
    "endnote-embase": (
        "TY  - JOUR\nDB  - Embase\nDB  - Medline\nID  - 889\nN1  - L2030246463\nTI  - A\nER  - \n",
        None,
        "889",
    ),
    # Scopus: C2 the PMID
    "scopus": (
        "TY  - JOUR\nDB  - Scopus\nC2  - 39549413\nUR  - https://www.scopus.com/inward/record.uri?eid=2-s2.0-85214320386&x=1\n"
        "TI  - A\nER  - \n",
        "39549413",
        "2-s2.0-85214320386",
    ),
    # EBSCOhost MEDLINE: AN the PMID; CINAHL: AN the accession only
    "ebsco-medline": (
        "TY  - JOUR\nDB  - cmedm\nDP  - EBSCOhost\nAN  - 31234567\nTI  - A\nER  - \n",
        "31234567",
        "31234567",
    ),
    "ebsco-cinahl": (
        "TY  - JOUR\nDB  - cin20\nDP  - EBSCOhost\nAN  - 141234567\nTI  - A\nER  - \n",
        None,
        "141234567",
    ),
    # Ovid MEDLINE RIS: ID the PMID; Ovid PsycInfo: ID the accession
    "ovid-medline": (
        "TY  - JOUR\nDB  - Ovid MEDLINE(R) ALL\nID  - 31234567\nT1  - A\nER  - \n",
        "31234567",
        "31234567",
    ),
    "ovid-psycinfo": (
        "TY  - JOUR\nDB  - APA PsycInfo <2021>\nID  - 2021-94054-001\nT1  - A\nER  - \n",
        None,
        "2021-94054-001",
    ),
    # Web of Science: AN the UT, PM the PMID
    "wos": (
        "TY  - JOUR\nAN  - WOS:000082252000006\nPM  - 10534205\nTI  - A\nER  - \n",
        "10534205",
        "WOS:000082252000006",
    ),
    # ProQuest: AN its document id, the PMID in a note
    "proquest": (
        "TY  - JOUR\nDB  - ProQuest Central\nAN  - 2345678901\nN1  - PMID: 31234567\nTI  - A\nER  - \n",
        "31234567",
        "2345678901",
    ),
    # Cochrane CENTRAL: C3 names the PubMed and Embase ids
    "cochrane": (
        "TY  - JOUR\nAN  - CN-02677909\nC3  - PUBMED 38407106,EMBASE 643589775\nTI  - A\nER  - \n",
        "38407106",
        "CN-02677909",
    ),
    # Zotero from PubMed: AN the PMID, DB PubMed
    "zotero-pubmed": ("TY  - JOUR\nDB  - PubMed\nAN  - 38407106\nTI  - A\nER  - \n", "38407106", "38407106"),
}


@pytest.mark.parametrize("name", sorted(RIS_DIALECTS))
def test_each_ris_dialect_gives_its_pmid_and_accession(name: str) -> None:
    text, pmid, accession = RIS_DIALECTS[name]
    result = read(text.encode(), "x.ris")
    assert result.format == "ris" and len(result.entries) == 1
    assert result.entries[0].data.get("pmid") == pmid
    assert result.entries[0].input_id == accession


def test_ris_records_numbered_in_angle_brackets_are_counted_once() -> None:
    text = "<1. >\nTY  - JOUR\nT1  - First\nER  - \n\n<2. >\nTY  - JOUR\nT1  - Second\nER  - \n"
    result = read(text.encode(), "ovid.ris")
    assert result.format == "ris"
    assert [e.data["title"] for e in result.entries] == ["First", "Second"]
    assert result.skipped == []
