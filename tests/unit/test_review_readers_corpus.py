"""Every export in the shared corpus (``exports/``, 49 files) read with the record count its
MANIFEST row states (nothing lost silently: entries + skipped == records), the format told from
its content, and the first record's title, first author, year and DOI as the file has them
(checked by hand against each file). Skips with a reason when the corpus is absent."""

from __future__ import annotations

import pytest

from medlit.plugins.review.readers import read

from support.corpus import corpus_bytes, export_counts

# path under exports/, format detected, first record: title start, first author, year, DOI.
SPOTS: list[tuple[str, str, str, str | None, int | None, str | None]] = [
    (
        "bibtex/scopus__synthesisr__Scopus_bib_example.bib",
        "bibtex",
        "Soil fauna diversity at different stages",
        "Li, W",
        2020,
        "10.1080/20964129.2020.1722034",
    ),
    (
        "bibtex/zotero__ASySD__zotero_export.bib",
        "bibtex",
        "Microangiography of the humeral condyle ",
        "Larsen, LJ",
        1999,
        None,
    ),
    (
        "csv/cochrane-central__citation-file-formatting__baseline_cochrane.csv",
        "csv",
        "The Incredible Years Therapeutic Dinosau",
        "Bywater, T",
        2011,
        "10.1186/1745-6215-12-39",
    ),
    (
        "csv/covidence__citation-file-formatting__baseline_covidence.csv",
        "csv",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "csv/ebsco-academicsearchpremier__citation-file-formatting__baseline_cinahl.csv",
        "csv",
        "Osteohistological insight into the growt",
        "Curry Rogers, Kristina",
        2024,
        "10.1371/journal.pone.0298242",
    ),
    (
        "csv/embase-excel__citation-file-formatting__baseline_excel.csv",
        "csv",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "csv/embase__citation-file-formatting__baseline_embase.csv",
        "csv",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "csv/googlescholar__citation-file-formatting__baseline_googlescholar.csv",
        "csv",
        "Did dinosaurs invent flowers? Dinosaur–a",
        "Barrett, Paul M",
        2001,
        None,
    ),
    (
        "csv/openalex__citation-file-formatting__baseline_openalex.csv",
        "csv",
        "A bioprovince for the Barremian–Aptian c",
        "Vicente, Alba",
        2024,
        "10.1016/j.cretres.2023.105752",
    ),
    (
        "csv/pubmed__citation-file-formatting__baseline_pubmed.csv",
        "csv",
        "Time lapse: A glimpse into prehistoric g",
        "Griffin, DK",
        2020,
        "10.1016/j.ejmg.2019.03.004",
    ),
    (
        "csv/rayyan__citation-file-formatting__baseline_rayyan.csv",
        "csv",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "csv/scopus__citation-file-formatting__baseline_scopus.csv",
        "csv",
        "Global latitudinal gradients and the evo",
        "Wilson, Lauren N",
        2024,
        "10.1038/s41467-024-46843-2",
    ),
    (
        "csv/zotero__citation-file-formatting__baseline_zotero.csv",
        "csv",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "endnote-xml/endnote15__jabref__EndnoteXmlImporterTestArticle2.xml",
        "endnote_xml",
        "An ecological basis for reforestation of",
        "Chapman, A. G",
        1937,
        None,
    ),
    (
        "nbib/pubmed__citation-file-formatting__baseline_pubmed.ris",
        "medline",
        "Time lapse: A glimpse into prehistoric g",
        "Griffin, Darren K",
        2020,
        "10.1016/j.ejmg.2019.03.004",
    ),
    (
        "nbib/pubmed__synthesisr__PubMed_example.txt",
        "medline",
        "Differences in nitrate and phosphorus ex",
        "Neilen, Amanda D",
        2017,
        "10.1016/j.scitotenv.2017.04.075",
    ),
    (
        "nbib/pubmed__synthesisr__res_synth_methods.txt",
        "medline",
        "Risk-Of-Bias VISualization (robvis): an ",
        "McGuinness, Luke A",
        2020,
        "10.1002/jrsm.1411",
    ),
    (
        "ris/cochrane-central__citation-file-formatting__baseline_cochrane_endnote.ris",
        "ris",
        "The Incredible Years Therapeutic Dinosau",
        "Bywater, T",
        2011,
        "10.1186/1745-6215-12-39",
    ),
    (
        "ris/cochrane-central__citation-file-formatting__baseline_cochrane_refman.ris",
        "ris",
        "The Incredible Years Therapeutic Dinosau",
        "Bywater, T",
        2011,
        "10.1186/1745-6215-12-39",
    ),
    (
        "ris/covidence__citation-file-formatting__baseline_covidence_endnote.ris",
        "ris",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "ris/covidence__citation-file-formatting__baseline_covidence_mendeley.ris",
        "ris",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "ris/dimensions-endnote__synthesisr__citesource_issue_24.ris",
        "ris",
        "Effects of artificial light on bird move",
        "Adams, Carrie Ann",
        2021,
        "10.1186/s13750-021-00246-8",
    ),
    (
        "ris/ebsco-academicsearchpremier__citation-file-formatting__baseline_cinahl.ris",
        "ris",
        "Osteohistological insight into the growt",
        "Curry Rogers, Kristina",
        2024,
        "10.1371/journal.pone.0298242",
    ),
    (
        "ris/ebsco-academicsearchpremier__synthesisr__ASP_ris_example.ris",
        "ris",
        "“Living on the edge”: The role of field ",
        "Rodríguez-Pastor, Ruth",
        2016,
        "10.1016/j.agee.2016.06.041",
    ),
    (
        "ris/embase__citation-file-formatting__baseline_embase.ris",
        "ris",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "ris/endnote-embase__citation-file-formatting__baseline_endnote.ris",
        "ris",
        "Description of a new specimen of Haploca",
        "Boisvert, C",
        2024,
        "10.1002/ar.25520",
    ),
    (
        "ris/endnote-pubmed__ASySD__ris_export.txt",
        "ris",
        "Altered metabolism of familial Alzheimer",
        "Wagner, Lamb B. T. Call L. M. Slunt H. H. Bardel K. A. Lawler A. M. Eckman C. B. Younkin S. G. Holtz G",
        1997,
        "10.1093/hmg/6.9.1535",
    ),
    (
        "ris/eppireviewer__citation-file-formatting__baseline_eppireviewer.ris",
        "ris",
        "A juvenile bird with possible crown-grou",
        "Brownstein, C D",
        2024,
        "10.1186/s12862-024-02210-9",
    ),
    (
        "ris/googlescholar__citation-file-formatting__baseline_googlescholar.ris",
        "ris",
        "Did dinosaurs invent flowers? Dinosaur–a",
        "Barrett, Paul M",
        2001,
        None,
    ),
    (
        "ris/ieeexplore__jabref__IEEEImport1.txt",
        "ris",
        "Improving Urban Road Extraction in High-",
        "Gamba, P",
        2006,
        None,
    ),
    (
        "ris/mendeley-embase__citation-file-formatting__baseline_mendeley.ris",
        "ris",
        "Description of a new specimen of Haploca",
        "Boisvert, C",
        2024,
        "10.1002/ar.25520",
    ),
    (
        "ris/openalex__citation-file-formatting__baseline_openalex.ris",
        "ris",
        "A bioprovince for the Barremian–Aptian c",
        "Vicente, Alba",
        2024,
        "10.1016/j.cretres.2023.105752",
    ),
    (
        "ris/ovid-cababstracts__synthesisr__Ovid_ris_example.ris",
        "ris",
        "Detection of retention trees on clearcut",
        "Holmstrom, E",
        2020,
        "10.4236/ojf.2020.101008",
    ),
    (
        "ris/ovid-eric__citation-file-formatting__baseline_eric_ovid.ris",
        "ris",
        "Creationism and the Dinosaur Boom.",
        "Stokes, William Lee",
        1989,
        None,
    ),
    (
        "ris/ovid-psycinfo__citation-file-formatting__baseline_psychInfo_ovid.ris",
        "ris",
        "DINOSAUR: An integrated cognitive-behavi",
        "Keefer, Amy",
        2021,
        "10.1186/s11689-021-09396-9",
    ),
    (
        "ris/rayyan__citation-file-formatting__baseline_rayyan.ris",
        "ris",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "ris/refworks__citation-file-formatting__baseline_refworks.ris",
        "ris",
        "Description of a new specimen of Haploca",
        "Boisvert, C",
        2024,
        "10.1002/ar.25520",
    ),
    (
        "ris/sciencedirect__jabref__RisImporterTestScience.ris",
        "ris",
        "Phase separation and ω transformation in",
        "Ghosh, Chanchal",
        2016,
        "10.1016/j.actamat.2016.09.028",
    ),
    (
        "ris/scopus__ASySD__scopus.ris",
        "ris",
        "Development and Validation of a Robust a",
        "Furlanello, T",
        2025,
        "10.3390/ani15010003",
    ),
    (
        "ris/scopus__synthesisr__Scopus_ris_example.ris",
        "ris",
        "Soil fauna diversity at different stages",
        "Li, W",
        2020,
        "10.1080/20964129.2020.1722034",
    ),
    (
        "ris/wos__ASySD__wos_test.ris",
        "ris",
        "Microangiography of the humeral condyle ",
        "Larsen, LJ",
        1999,
        None,
    ),
    (
        "ris/zotero-embase__citation-file-formatting__baseline_zotero.ris",
        "ris",
        "Cellular structure of dinosaur scales re",
        "Yang, Z",
        2024,
        "10.1038/s41467-024-48400-3",
    ),
    (
        "tsv/refworks__citation-file-formatting__baseline_refworks.tsv",
        "tsv",
        "The effect of intra-arterial angiotensin",
        "van den Hoven",
        2014,
        "10.1016/j.jvir.2013.12.293",
    ),
    (
        "wos-txt/inspec-isi__jabref__IsiImporterTestInspec.isi",
        "wos",
        "Second harmonic generation of continuous",
        "Degl'Innocenti, R",
        2006,
        None,
    ),
    (
        "wos-txt/medline-isi__jabref__IsiImporterTestMedline.isi",
        "wos",
        "Effects of modafinil on cognitive perfor",
        "Wesensten, Nancy J",
        2006,
        None,
    ),
    (
        "wos-txt/wos-zoologicalrecord__synthesisr__zoorec.txt",
        "wos",
        "Nest site selection and nest survival of",
        "Stillman, Andrew N",
        2019,
        None,
    ),
    (
        "wos-txt/wos__rispy__example_wos.ris",
        "wos",
        "Interactions stabilizing the structure o",
        "Parkes-Loach, PS",
        2004,
        "10.1021/bi049798f",
    ),
    (
        "wos-txt/wos__synthesisr__WoS_ciw_example.ciw",
        "wos",
        "Soil fauna diversity at different stages",
        "Li, Wei",
        2020,
        "10.1080/20964129.2020.1722034",
    ),
    (
        "wos-txt/wos__synthesisr__WoS_txt_example.txt",
        "wos",
        "Soil fauna diversity at different stages",
        "Li, Wei",
        2020,
        "10.1080/20964129.2020.1722034",
    ),
]


_manifest_counts = export_counts


def test_every_manifest_export_has_a_spot_check() -> None:
    counts = _manifest_counts()
    if not counts:
        pytest.skip("shared corpus not found (set MEDLIT_CORPUS or place it at ../shared/corpus)")
    assert sorted(counts) == sorted(spot[0] for spot in SPOTS)
    assert len(counts) == 49


@pytest.mark.parametrize(("path", "fmt", "title", "author", "year", "doi"), SPOTS, ids=[s[0] for s in SPOTS])
def test_corpus_export(
    path: str, fmt: str, title: str, author: str | None, year: int | None, doi: str | None
) -> None:
    raw = corpus_bytes(f"exports/{path}")
    expected = _manifest_counts()[path]
    result = read(raw, filename=path.rsplit("/", 1)[1])
    assert result.format == fmt
    assert len(result.entries) + len(result.skipped) == expected
    assert [e.position for e in result.entries] + [s.position for s in result.skipped] != []
    positions = sorted([e.position for e in result.entries] + [s.position for s in result.skipped])
    assert positions == list(range(1, expected + 1))
    first = result.entries[0].data
    assert first.get("title", "").startswith(title)
    assert (first.get("authors") or [None])[0] == author
    assert first.get("year") == year
    assert first.get("doi") == doi
    # Every record read has a title (these exports all give one) and a kind.
    assert all(e.data.get("title") and e.data.get("kind") for e in result.entries)


def test_format_told_by_content_not_extension() -> None:
    # A MEDLINE file saved as .ris and WoS plain text saved as .ris.
    assert (
        read(
            corpus_bytes("exports/nbib/pubmed__citation-file-formatting__baseline_pubmed.ris"), "x.ris"
        ).format
        == "medline"
    )
    assert read(corpus_bytes("exports/wos-txt/wos__rispy__example_wos.ris"), "x.ris").format == "wos"
    assert read(corpus_bytes("exports/ris/endnote-pubmed__ASySD__ris_export.txt"), None).format == "ris"


def test_corpus_quirks_spot_values() -> None:
    """Values behind the corpus quirks the MANIFEST names."""
    cochrane = read(
        corpus_bytes("exports/ris/cochrane-central__citation-file-formatting__baseline_cochrane_endnote.ris")
    )
    assert cochrane.entries[0].input_id == "CN-00778158" and cochrane.entries[0].data["pmid"] == "21314913"
    wos_ris = read(corpus_bytes("exports/ris/wos__ASySD__wos_test.ris"))  # CR-only, BOM
    assert wos_ris.entries[0].input_id == "WOS:000082252000006"
    assert (
        wos_ris.entries[0]
        .data["abstract"]
        .startswith("The purpose of this study was to evaluate the blood supply")
    )
    endnote = read(corpus_bytes("exports/ris/endnote-embase__citation-file-formatting__baseline_endnote.ris"))
    assert endnote.entries[0].database == "Embase" and endnote.entries[0].input_id == "889"
    assert endnote.entries[0].data["issn"] == ["1932-8494", "1932-8486"]
    rayyan = read(corpus_bytes("exports/ris/rayyan__citation-file-formatting__baseline_rayyan.ris"))
    assert (
        rayyan.entries[0].data["url"]
        == "https://www.embase.com/search/results?subaction=viewrecord&id=L2029880245&from=export"
    )
    scopus = read(corpus_bytes("exports/csv/scopus__citation-file-formatting__baseline_scopus.csv"))
    assert scopus.entries[0].data["pmid"] == "38580657" and scopus.entries[0].input_id == "2-s2.0-85189760133"
    assert scopus.entries[0].data["journal_abbrev"] == "Nat. Commun."
    pubmed = read(corpus_bytes("exports/nbib/pubmed__citation-file-formatting__baseline_pubmed.ris"))
    assert (
        pubmed.entries[0].data["pmcid"] == "PMC7026692" and "Birds/genetics" in pubmed.entries[0].data["mesh"]
    )
    refworks = read(corpus_bytes("exports/tsv/refworks__citation-file-formatting__baseline_refworks.tsv"))
    assert refworks.entries[0].data["authors"][:2] == ["van den Hoven", "Smits, Maarten L. J"]
    zotero = read(corpus_bytes("exports/bibtex/zotero__ASySD__zotero_export.bib"))
    assert zotero.entries[0].input_id == "larsen_microangiography_1999"
    assert (
        zotero.entries[0].data["title"]
        == "Microangiography of the humeral condyle in Cocker Spaniel and non-Cocker Spaniel dogs"
    )
    ovid = read(
        corpus_bytes("exports/ris/ovid-psycinfo__citation-file-formatting__baseline_psychInfo_ovid.ris")
    )
    assert ovid.entries[0].database == "APA PsycInfo"
    # The references in M1 cite other works' PMIDs; the record has none of its own.
    assert "pmid" not in ovid.entries[0].data
