"""Reports of one study (issue 54): which records of a set are linked (identity/links.py), the
matcher keeping a preprint and its journal article apart, PubMed's secondary-source ids as trial
links, each source's PRISMA route declared rather than guessed, and the writers carrying a trial
registration number."""

from __future__ import annotations

from medlit.core.plugin import SearchSource, SourceRecord, bibliography
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
from medlit.plugins.ncbi.review_source import normalise as pubmed_record
from medlit.plugins.review.identity.keys import as_data
from medlit.plugins.review.identity.links import Studies, StudyLink, registrations, union_of_links
from medlit.plugins.review.identity.matching import compare, normalize
from medlit.plugins.review.reporting.flow import routed_flow
from medlit.plugins.review.reporting.routes import declared, route
from medlit.plugins.review.store import SearchRow

TRIAL = {
    "kind": "report",
    "title": "Piloting treatment with intranasal oxytocin in Phelan-McDermid syndrome",
    "sources": ["clinicaltrials"],
    "study_links": ["nct:NCT02710084", "pmid:30000001"],
}
ARTICLE = {
    "kind": "article",
    "pmid": "30000001",
    "doi": "10.1000/a",
    "title": "Oxytocin in PMS",
    "sources": ["pubmed"],
}
CITING = {
    "kind": "article",
    "pmid": "30000002",
    "abstract": "Registered as NCT 02710084.",
    "sources": ["pubmed"],
}
PREPRINT = {
    "kind": "preprint",
    "doi": "10.1101/2024.01.01.1",
    "study_links": ["doi:10.1000/a"],
    "sources": ["x"],
}
ALONE = {
    "kind": "article",
    "pmid": "30000003",
    "abstract": "NCT027100845 is not an NCT number.",
    "sources": ["x"],
}


def studies() -> Studies:
    s = Studies(registers={"clinicaltrials"})
    for key, data in ((1, TRIAL), (2, ARTICLE), (3, CITING), (4, PREPRINT), (5, ALONE)):
        s.add(key, data)
    return s


def test_a_trial_links_its_referenced_articles_and_those_citing_its_number():
    s = studies()
    assert s.links(1) == [StudyLink(2, "article", "PMID 30000001"), StudyLink(3, "article", "NCT02710084")]
    assert s.links(3) == [StudyLink(1, "registration", "NCT02710084")]
    # the preprint names the article's DOI: linked both ways, and through the article to the trial
    assert s.links(2) == [
        StudyLink(1, "registration", "PMID 30000001"),
        StudyLink(4, "preprint", "DOI 10.1000/a"),
    ]
    assert s.links(4) == [StudyLink(2, "article", "DOI 10.1000/a")]
    assert [s.study(k) for k in (1, 2, 3, 4, 5)] == [1, 1, 1, 1, None]
    assert s.links(5) == []


def test_registration_numbers_come_from_the_links_and_the_text_in_canonical_form():
    assert registrations(TRIAL) == ["NCT02710084"]
    assert registrations(CITING) == ["NCT02710084"]
    assert registrations({"title": "nct00000102 and NCT00000102"}) == ["NCT00000102"]
    assert registrations(ALONE) == []  # nine digits: no NCT number
    assert union_of_links([{"study_links": ["b", "a"]}, {"study_links": ["a", "c"]}, {}]) == ["a", "b", "c"]


def test_the_matcher_keeps_a_preprint_and_its_journal_article_apart():
    same = {
        "title": "Airborne transmission of an avian influenza reassortant",
        "authors": ["Moss, K"],
        "year": 2024,
    }
    preprint = {
        **same,
        "kind": "preprint",
        "doi": "10.1101/2024.02.02.900001",
        "study_links": ["doi:10.5555/j.1"],
    }
    article = {**same, "kind": "article", "doi": "10.5555/j.1"}
    assert not compare(normalize(preprint), normalize(article)).same  # type: ignore[arg-type]


def test_a_source_record_keeps_its_study_links():
    rec = SourceRecord("clinicaltrials", "NCT02710084", title="T", study_links=("nct:NCT02710084", "pmid:1"))
    assert as_data(rec)["study_links"] == ["nct:NCT02710084", "pmid:1"]
    assert "study_links" not in as_data(SourceRecord("pubmed", "1", pmid="1"))


PUBMED = b"""<?xml version="1.0"?>
<PubmedArticleSet><PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">30000002</PMID>
<Article PubModel="Print"><Journal><Title>Test Journal</Title></Journal><ArticleTitle>A trial.</ArticleTitle>
<DataBankList CompleteYN="Y">
<DataBank><DataBankName>ClinicalTrials.gov</DataBankName><AccessionNumberList>
<AccessionNumber>NCT02710084</AccessionNumber><AccessionNumber>nct1525901</AccessionNumber></AccessionNumberList></DataBank>
<DataBank><DataBankName>GENBANK</DataBankName><AccessionNumberList><AccessionNumber>AB123456</AccessionNumber>
</AccessionNumberList></DataBank></DataBankList></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>"""


def test_pubmeds_secondary_source_ids_become_trial_links():
    [article] = parse_pubmed_xml(PUBMED)
    assert pubmed_record(article).study_links == ("nct:NCT02710084", "nct:NCT01525901")


def _source(name: str, kind: str) -> SearchSource:
    async def run(q, ctx):  # pragma: no cover - never run
        raise AssertionError

    return SearchSource(name=name, title=name, run=run, kind=kind)  # type: ignore[arg-type]


def _imported(source: str, kind: str | None) -> SearchRow:
    options = {"import": {"fileName": "f.ris", "sourceKind": kind}}
    return SearchRow(1, 1, 1, source, "", "2026-12-07", None, 1, 1, None, "complete", None, "", options)


def test_a_declared_kind_wins_over_the_label():
    kinds = declared([_source("clinicaltrials", "register"), _source("pubmed", "database")])
    assert route("clinicaltrials") == "database"  # the label alone does not name a register
    assert route("clinicaltrials", kinds) == "register" and route("pubmed", kinds) == "database"
    assert route("ClinicalTrials.gov", kinds) == "register"  # not declared: read from the label
    f = routed_flow([1, 2], {}, {}, {"clinicaltrials": 1, "pubmed": 1}, 0, kinds=kinds)
    assert f.routes == {"clinicaltrials": "register", "pubmed": "database"}


def test_an_imported_file_named_as_a_register_counts_as_one():
    kinds = declared([], [_imported("Hospital trials list", "register"), _imported("Embase", None)])
    assert kinds == {"Hospital trials list": "register"}
    assert route("Hospital trials list", kinds) == "register" and route("Embase", kinds) == "database"


def test_the_writers_carry_a_trial_registration_number():
    rec = bibliography.Record(
        title="A trial", pmid="30000002", registry_ids=("NCT02710084", "ISRCTN12345678")
    )
    ris = bibliography.ris(rec)
    assert "N1  - Trial registration: ClinicalTrials.gov NCT02710084" in ris
    assert "N1  - Trial registration: ISRCTN ISRCTN12345678" in ris
    nbib = bibliography.medline(rec)
    assert "SI  - ClinicalTrials.gov/NCT02710084" in nbib and "SI  - ISRCTN/ISRCTN12345678" in nbib
    xml = "".join(bibliography.endnote_xml([(1, rec)]))
    assert "Trial registration: ClinicalTrials.gov NCT02710084" in xml
    assert "Trial registration" not in bibliography.ris(bibliography.Record(title="No trial"))


def test_a_registration_written_by_each_writer_is_read_back_as_a_study_link():
    """A round trip keeps a trial's registration (issue 54): MEDLINE's SI, and the note RIS and
    EndNote XML carry it in; the ISRCTN number (no link kind for it) is left out."""
    from medlit.plugins.review.readers import read

    rec = bibliography.Record(
        title="A trial", pmid="30000002", registry_ids=("NCT02710084", "ISRCTN12345678")
    )
    written = {
        "medline": bibliography.medline(rec),
        "ris": bibliography.ris(rec),
        "endnote_xml": "".join(bibliography.endnote_xml([(1, rec)])),
    }
    for fmt, text in written.items():
        (entry,) = read(text.encode(), format=fmt).entries
        assert entry.data.get("study_links") == ["nct:NCT02710084"], fmt
    rayyan = "key,title,notes\n1,A trial,PMID: 30000002 | Trial registration: NCT02710084 | Keywords: x\n"
    (entry,) = read(rayyan.encode(), format="csv").entries
    assert entry.data.get("study_links") == ["nct:NCT02710084"]
    # a note merely mentioning a trial is no registration of this record
    other = "TY  - JOUR\nTI  - A review\nN1  - Compared with NCT01234567\nER  - \n"
    (entry,) = read(other.encode(), format="ris").entries
    assert "study_links" not in entry.data
