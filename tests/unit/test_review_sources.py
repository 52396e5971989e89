"""The PubMed and Europe PMC search sources' normalisation to the review's record shape, on real
recorded answers (skipped, with the reason, without the corpus) and on the generated ones."""

from __future__ import annotations

import json

from medlit.plugins.europepmc.parse import read_record
from medlit.plugins.europepmc.review_source import normalise as from_epmc
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
from medlit.plugins.ncbi.review_source import normalise as from_pubmed

from support.corpus import corpus_bytes
from support.review_routes import epmc_copy, paper, pubmed_xml


def test_pubmed_records_from_the_corpus():
    body = corpus_bytes("ncbi/efetch_pubmed/pubmed_11748933_11700088.xml")
    first, second = (from_pubmed(a) for a in parse_pubmed_xml(body))
    assert (first.source, first.source_id, first.pmid) == ("pubmed", "11748933", "11748933")
    assert first.doi == "10.1006/cryo.2001.2328" and first.year == 2001
    assert first.authors[:2] == ("Taddei, A R", "Barbato, F") and first.journal == "Cryobiology"
    assert (first.volume, first.issue, first.pages) == ("42", "4", "244-255")  # MEDLINE's 244-55 expanded
    assert first.abstract and first.abstract.startswith("This study subdivides")
    assert first.language == "eng" and "Journal Article" in first.publication_types
    assert second.pmid == "11700088" and second.pages == "117-123"


def test_europepmc_core_records_from_the_corpus():
    data = json.loads(corpus_bytes("europepmc/search/search_oa_cancer_cited_core_pagesize10.json"))
    records = [from_epmc(r) for r in (read_record(x) for x in data["resultList"]["result"]) if r]
    assert len(records) == 10
    first = records[0]
    assert (first.source, first.source_id, first.pmid, first.pmcid) == (
        "europepmc",
        "MED:40739089",
        "40739089",
        "PMC12311175",
    )
    assert first.doi == "10.1038/s41392-025-02280-1" and first.year == 2025
    assert first.authors == ("Tufail, Muhammad", "Jiang, Can-Hua", "Li, Ning")
    assert first.journal == "Signal transduction and targeted therapy" and first.abstract
    assert all(r.title and r.source_id for r in records)


def test_generated_records_normalise_alike_from_both_sources():
    p = paper(0)
    (pm,) = (
        from_pubmed(a)
        for a in parse_pubmed_xml(f"<PubmedArticleSet>{pubmed_xml(p)}</PubmedArticleSet>".encode())
    )
    ep = from_epmc(read_record(epmc_copy(p, "pmid")))
    for field in ("pmid", "pmcid", "doi", "title", "year", "authors"):
        assert getattr(pm, field) == getattr(ep, field), field
    assert pm.authors[0] == "Müller, Anna B"
    collective = from_epmc(read_record({"id": "1", "source": "MED", "authorString": "Smith J, Doe AB."}))
    assert collective.authors == ("Smith, J", "Doe, AB")


def test_pubmed_sources_carry_what_exports_need():
    body = corpus_bytes("ncbi/efetch_pubmed/pubmed_27797938.xml")
    (rec,) = (from_pubmed(a) for a in parse_pubmed_xml(body))
    assert rec.kind == "article" and rec.journal == "Gut" and rec.journal_abbrev == "Gut"
    assert rec.issn == ("1468-3288",) and rec.keywords == ("PANCREATIC CANCER",)
    # MEDLINE's own spelling: a star before each major topic, qualifiers after slashes.
    assert "Adenocarcinoma/*epidemiology/*genetics" in rec.mesh and "*Telomere Shortening" in rec.mesh
    assert "Humans" in rec.mesh


def test_pubmed_genereviews_chapter_is_a_chapter_of_its_book():
    body = corpus_bytes("ncbi/efetch_pubmed/pubmed_20301382_book_chapter_genereviews.xml")
    (rec,) = (from_pubmed(a) for a in parse_pubmed_xml(body))
    assert rec.kind == "chapter" and rec.journal == "GeneReviews®"
    assert rec.publisher == "University of Washington, Seattle" and rec.place == "Seattle (WA)"
    assert rec.editors[0] == "Adam, Margaret P" and len(rec.editors) == 8
    assert rec.url == "https://www.ncbi.nlm.nih.gov/books/NBK1203/"


def test_pubmed_whole_book_is_a_book():
    body = corpus_bytes("ncbi/efetch_pubmed/pubmed_26468569_book_whole.xml")
    (rec,) = (from_pubmed(a) for a in parse_pubmed_xml(body))
    assert rec.kind == "book" and rec.journal is None and rec.isbn == ("9780309376662",)
    assert rec.publisher == "National Academies Press (US)" and rec.place == "Washington (DC)"


def test_europepmc_sources_carry_mesh_abbreviation_and_issns():
    data = json.loads(corpus_bytes("europepmc/search/search_oa_cancer_cited_core_pagesize10.json"))
    rec = from_epmc(read_record(data["resultList"]["result"][0]))
    assert rec.kind == "article" and rec.journal == "Signal transduction and targeted therapy"
    assert rec.journal_abbrev == "Signal Transduct Target Ther" and rec.issn == ("2095-9907", "2059-3635")
    assert "*Neoplasms/genetics/immunology/pathology/therapy" in rec.mesh and "Humans" in rec.mesh


def test_europepmc_genereviews_chapter():
    data = json.loads(corpus_bytes("europepmc/search/aggregated_1000_results_lite_array.json"))
    raw = next(
        x for x in data if (x.get("bookOrReportDetails") or {}).get("comprisingTitle") == "GeneReviews®"
    )
    rec = from_epmc(read_record(raw))
    assert rec.kind == "chapter" and rec.journal == "GeneReviews®"
    assert rec.publisher and rec.publisher.startswith("University of Washington")
    assert rec.url and rec.url.startswith("https://www.ncbi.nlm.nih.gov/books/NBK")
