"""The PubMed and Europe PMC search sources' normalisation to the review's record shape, on real
recorded answers (skipped, with the reason, without the corpus) and on the generated ones."""

from __future__ import annotations

import json

from review_routes import epmc_copy, paper, pubmed_xml

from medlit.plugins.europepmc.parse import read_record
from medlit.plugins.europepmc.review_source import normalise as from_epmc
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
from medlit.plugins.ncbi.review_source import normalise as from_pubmed

from corpus import corpus_bytes


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
