"""Exports a reference manager reads whole: varied records (an indexed article with MeSH and group
authors, a GeneReviews chapter, a whole book, a record with only a DOI) written in every format
and read back by two independent readers each (tests/support/review_readers.py): no field the record
holds is lost, books stay books, group authors stay whole, Rayyan's columns carry the ids."""

from __future__ import annotations

from typing import Any

import pytest

from medlit.plugins.review import exports as X
from medlit.plugins.review.record import RecordData

from support.review_readers import FULL_READERS

ARTICLE: RecordData = {
    "kind": "article",
    "pmid": "31000001",
    "pmcid": "PMC7000001",
    "doi": "10.1000/cu2o.7196",
    "title": "Cu₂O nanocubes & inhaled steroids in children: the TAX 325 trial",
    "authors": ["Müller, Sören", "O'Brien, Seán", "TAX 325 Study Group", "Task and Finish Group"],
    "journal": "The Journal of synthetic medicine",
    "journal_abbrev": "J Synth Med",
    "issn": ["1234-5678", "8765-4321"],
    "year": 2021,
    "volume": "12",
    "issue": "3",
    "pages": "7196-7199",
    "abstract": "BACKGROUND: Asthma is common. METHODS: A trial. RESULTS: It worked. CONCLUSIONS: Use it.",
    "keywords": ["asthma", "nanocubes"],
    "mesh": ["*Asthma/drug therapy", "Child, Preschool", "Humans"],
    "publication_types": ["Journal Article", "Randomized Controlled Trial"],
    "language": "eng",
}
CHAPTER: RecordData = {
    "kind": "chapter",
    "pmid": "20301382",
    "title": "Single Large-Scale Mitochondrial DNA Deletion Syndromes",
    "authors": ["Goldstein, Amy", "Falk, Marni J"],
    "editors": ["Adam, Margaret P", "Feldman, Jerry"],
    "journal": "GeneReviews®",
    "publisher": "University of Washington, Seattle",
    "place": "Seattle (WA)",
    "isbn": ["9780000000001"],
    "year": 1993,
    "abstract": "Clinical characteristics: single deletions.",
    "keywords": ["Pearson Syndrome"],
    "publication_types": ["Review"],
    "language": "eng",
    "url": "https://www.ncbi.nlm.nih.gov/books/NBK1203/",
}
BOOK: RecordData = {
    "kind": "book",
    "pmid": "26468569",
    "doi": "10.17226/21775",
    "title": "Application of Modern Toxicology Approaches for Predicting Acute Toxicity",
    "authors": ["Committee on Toxicology", "Board on Life Sciences"],
    "publisher": "National Academies Press (US)",
    "place": "Washington (DC)",
    "isbn": ["9780309376662"],
    "year": 2015,
    "url": "https://www.ncbi.nlm.nih.gov/books/NBK321423/",
}
DOI_ONLY: RecordData = {"doi": "10.5555/only.doi", "title": "A record known by its DOI alone"}
RECORDS: list[dict[str, Any]] = [
    {**r, "key": i + 1, "sources": ["pubmed", "embase"]}
    for i, r in enumerate([ARTICLE, CHAPTER, BOOK, DOI_ONLY])
]

# What each format cannot carry at all, by design (no column or tag for it).
CANNOT: dict[str, set[str]] = {
    "rayyan_csv": {"kind", "editors", "journal_abbrev"},  # Rayyan reads only its 15 columns
}


def expected(rec: dict[str, Any], fmt: str) -> dict[str, Any]:
    want: dict[str, Any] = {
        "kind": rec.get("kind"),
        "title": rec.get("title"),
        "authors": rec.get("authors"),
        "editors": rec.get("editors"),
        "journal": rec.get("journal"),
        "journal_abbrev": rec.get("journal_abbrev"),
        "issn": rec.get("issn"),
        "isbn": rec.get("isbn"),
        "publisher": rec.get("publisher"),
        "place": rec.get("place"),
        "year": str(rec["year"]) if rec.get("year") else None,
        "volume": rec.get("volume"),
        "issue": rec.get("issue"),
        "pages": rec.get("pages"),
        "abstract": rec.get("abstract"),
        "terms": set(rec.get("keywords", []) + rec.get("mesh", [])),
        "pmid": rec.get("pmid"),
        "pmcid": rec.get("pmcid"),
        "doi": rec.get("doi"),
        "url": rec.get("url"),
        "language": rec.get("language"),
    }
    if fmt == "rayyan_csv" and want["authors"]:
        # Rayyan splits its authors column at " and ": a group's own "and" is written "&".
        want["authors"] = [a if "," in a else a.replace(" and ", " & ") for a in want["authors"]]
    return {k: v for k, v in want.items() if v not in (None, [], set()) and k not in CANNOT.get(fmt, set())}


CASES = [(fmt, reader) for fmt, readers in FULL_READERS.items() for reader in readers]


@pytest.mark.parametrize(("fmt", "reader"), CASES, ids=[f"{f}-{r.__name__}" for f, r in CASES])
def test_no_field_the_record_holds_is_lost(fmt, reader):
    back = reader(X.render(fmt, RECORDS))
    assert len(back) == len(RECORDS)
    for rec, got in zip(RECORDS, back, strict=True):
        for name, value in expected(rec, fmt).items():
            if name == "url":
                assert value in got.get("urls", []), (rec["key"], name)
            else:
                assert got.get(name) == value, (rec["key"], name, got.get(name))


URL_CASES = [(f, r) for f, r in CASES if f in ("ris", "rayyan_csv")]


@pytest.mark.parametrize(("fmt", "reader"), URL_CASES, ids=[f"{f}-{r.__name__}" for f, r in URL_CASES])
def test_pmids_reach_readers_that_look_only_at_urls(fmt, reader):
    # citation-js maps no RIS AN: the PubMed page in UR (and a "PMID: n" note) carries it.
    back = reader(X.render(fmt, RECORDS))
    assert "https://pubmed.ncbi.nlm.nih.gov/31000001/" in back[0]["urls"]


def test_group_authors_stay_whole_in_endnote_xml():
    # EndNote's own convention: a trailing comma marks a corporate author it must not invert.
    xml = X.render("endnote_xml", RECORDS)
    assert ">TAX 325 Study Group,</style>" in xml and ">Task and Finish Group,</style>" in xml


def test_group_authors_stay_whole_in_bibtex():
    text = X.render("bibtex", RECORDS)
    assert "{TAX 325 Study Group} and {Task and Finish Group}" in text
    from pybtex.database import parse_string

    entry = next(iter(parse_string(text, "bibtex").entries.values()))
    groups = entry.persons["author"][2:]
    # pybtex reads each braced group as one person whose last name is the whole group.
    assert [(p.first_names, p.last_names) for p in groups] == [
        ([], ["{TAX 325 Study Group}"]),
        ([], ["{Task and Finish Group}"]),
    ]


def test_books_and_chapters_are_typed_in_every_format():
    ris = X.render("ris", RECORDS).split("\n\n")
    assert ris[1].startswith("TY  - CHAP") and ris[2].startswith("TY  - BOOK")
    assert (
        "T2  - GeneReviews®" in ris[1]
        and "A2  - Adam, Margaret P" in ris[1]
        and "SN  - 9780000000001" in ris[1]
    )
    bib = X.render("bibtex", RECORDS)
    assert "@incollection{Goldstein1993Single," in bib and "@book{Committee2015Application," in bib
    csl = X.render("csljson", RECORDS)
    assert '"type": "chapter"' in csl and '"type": "book"' in csl
    xml = X.render("endnote_xml", RECORDS)
    assert '<ref-type name="Book Section">5</ref-type>' in xml and '<ref-type name="Book">6</ref-type>' in xml
    assert '<ref-type name="Journal Article">17</ref-type>' in xml
    nbib = X.render("nbib", RECORDS).split("\n\n")
    assert "BTI - GeneReviews®" in nbib[1] and "FED - Adam, Margaret P" in nbib[1]
    assert "PB  - University of Washington, Seattle" in nbib[1] and "ISBN- 9780000000001" in nbib[1]


def test_nbib_carries_mesh_and_the_journal_abbreviation():
    first = X.render("nbib", RECORDS).split("\n\n")[0].splitlines()
    for line in (
        "MH  - *Asthma/drug therapy",
        "MH  - Child, Preschool",
        "OT  - asthma",
        "TA  - J Synth Med",
        "JT  - The Journal of synthetic medicine",
        "IS  - 1234-5678",
    ):
        assert line in first


def test_ris_keywords_are_keywords_and_mesh_not_publication_types():
    first = X.render("ris", RECORDS).split("\n\n")[0].splitlines()
    assert "KW  - *Asthma/drug therapy" in first and "KW  - asthma" in first
    assert "KW  - Journal Article" not in first
    assert "N1  - PMID: 31000001" in first and "AN  - 31000001" in first


def test_rayyan_csv_columns_and_ids():
    text = X.render("rayyan_csv", RECORDS)
    assert text.splitlines()[0] == ",".join(X.RAYYAN_COLUMNS)
    rows = {r["title"]: r for r in FULL_READERS["rayyan_csv"][0](text)}
    assert (
        rows[ARTICLE["title"]]["pmid"] == "31000001" and rows[ARTICLE["title"]]["doi"] == "10.1000/cu2o.7196"
    )
    # A record without a PMID is linked by its DOI.
    assert rows[DOI_ONLY["title"]]["urls"] == ["https://doi.org/10.5555/only.doi"]


# citation-js (npm), the reader Zotero's web tools and many static sites use, when installed:
# CITATION_JS_DIR names a directory with node_modules/@citation-js/{core,plugin-ris,plugin-bibtex}.
_CITATION_JS = """
const { Cite } = require('@citation-js/core');
require('@citation-js/plugin-ris'); require('@citation-js/plugin-bibtex');
let text = ''; process.stdin.on('data', c => text += c);
process.stdin.on('end', () => process.stdout.write(JSON.stringify(new Cite(text).data)));
"""


def _citation_js(text: str) -> list[dict[str, Any]]:
    import json
    import os
    import shutil
    import subprocess
    from pathlib import Path

    where = os.environ.get("CITATION_JS_DIR")
    if not where or not (Path(where) / "node_modules/@citation-js/core").is_dir() or not shutil.which("node"):
        pytest.skip("citation-js not installed (set CITATION_JS_DIR to a directory with it in node_modules)")
    done = subprocess.run(
        ["node", "-e", _CITATION_JS], input=text, capture_output=True, text=True, cwd=where, check=True
    )
    items: list[dict[str, Any]] = json.loads(done.stdout)
    return items


@pytest.mark.parametrize("fmt", ["ris", "bibtex"])
def test_citation_js_reads_groups_books_and_pmids(fmt):
    items = _citation_js(X.render(fmt, RECORDS))
    article, chapter, book, _ = items
    groups = [a.get("literal") or a.get("family") for a in article["author"][2:]]
    assert groups == ["TAX 325 Study Group", "Task and Finish Group"]
    assert (chapter["type"], book["type"]) == ("chapter", "book")
    assert chapter["container-title"] == "GeneReviews®" and chapter["editor"][0]["family"] == "Adam"
    assert chapter["ISBN"] == "9780000000001" and chapter["publisher-place"] == "Seattle (WA)"
    assert article["container-title-short"] == "J Synth Med"
    if fmt == "bibtex":
        assert article["PMID"] == "31000001"
    else:  # citation-js maps no RIS tag to PMID: the PubMed page and the note carry it
        assert article["URL"] == "https://pubmed.ncbi.nlm.nih.gov/31000001/"
        assert "PMID: 31000001" in article["note"]


def _from_pubmed_corpus() -> list[dict[str, Any]]:
    from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
    from medlit.plugins.ncbi.review_source import normalise
    from medlit.plugins.review.identity.keys import as_data

    from support.corpus import corpus_bytes

    out = []
    for name in (
        "pubmed_27797938.xml",  # an indexed article: MeSH, keywords, PMCID
        "pubmed_34843274_collective.xml",  # a group author only
        "pubmed_20301382_book_chapter_genereviews.xml",  # a GeneReviews chapter, eight editors
        "pubmed_26468569_book_whole.xml",  # a whole book
    ):
        for article in parse_pubmed_xml(corpus_bytes(f"ncbi/efetch_pubmed/{name}")):
            out.append({**as_data(normalise(article)), "key": len(out) + 1})
    return out


@pytest.mark.parametrize(("fmt", "reader"), CASES, ids=[f"{f}-{r.__name__}" for f, r in CASES])
def test_real_pubmed_records_survive_every_format(fmt, reader):
    records = _from_pubmed_corpus()
    back = reader(X.render(fmt, records))
    for rec, got in zip(records, back, strict=True):
        for name, value in expected(rec, fmt).items():
            if name == "url":
                assert value in got.get("urls", []), (rec["key"], name)
            elif name == "abstract":  # paragraphs may be joined by a format that keeps one line
                assert " ".join(got.get(name, "").split()) == " ".join(value.split()), (rec["key"], name)
            else:
                assert got.get(name) == value, (rec["key"], name, got.get(name))
