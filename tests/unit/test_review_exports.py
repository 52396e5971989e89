"""Every review export format written from hand-written records and re-read with an independent
reader (tests/support/review_readers.py): titles, DOIs and authors intact, special characters included;
file names from set names never leave the export directory."""

from __future__ import annotations

import pytest

from medlit.plugins.review import exports as X

from support.review_readers import READERS

RECORDS = [
    {
        "key": 1,
        "pmid": "123",
        "pmcid": "PMC9",
        "doi": "10.1000/a_b(c)",
        "title": "Müller's trial of 5% saline & #hashtags in {braces}_x",
        "authors": ["Müller, Anna B", "O'Brien, Seán", "WHO Collaborative Group"],
        "journal": "J Synth & Med",
        "year": 2021,
        "volume": "12",
        "issue": "3",
        "pages": "101-109",
        "abstract": "Background " * 40 + "end.",
        "publication_types": ["Journal Article", "Randomized Controlled Trial"],
        "language": "eng",
        "sources": ["pubmed", "europepmc"],
        "url": "https://example.org/123",
    },
    {
        "key": 2,
        "title": "A preprint without identifiers",
        "authors": [],
        "year": None,
        "publication_types": ["Preprint"],
        "sources": ["europepmc"],
    },
]


@pytest.mark.parametrize("fmt", sorted(X.FORMATS))
def test_every_format_reads_back(fmt):
    text = X.render(fmt, RECORDS)
    back = READERS[fmt](text)
    assert len(back) == 2
    first, second = back
    assert first["title"] == RECORDS[0]["title"]
    assert first["doi"].lower() == RECORDS[0]["doi"]
    assert first["authors"] == RECORDS[0]["authors"]
    assert str(first["year"]) == "2021"
    assert second["title"] == "A preprint without identifiers" and not second["doi"] and not second["authors"]


def test_medline_wraps_long_fields_and_keeps_them_whole():
    text = X.render("nbib", RECORDS)
    assert all(len(line) <= 88 for line in text.splitlines())
    back = READERS["nbib"](text)
    assert back[0]["abstract"] == RECORDS[0]["abstract"] and back[0]["pmid"] == "123"
    assert "AU  - Müller AB" in text and "CN  - WHO Collaborative Group" in text


def test_csljson_renders_with_a_citation_style():
    back = READERS["csljson"](X.render("csljson", RECORDS))
    assert any("Müller" in r and "https://doi.org/10.1000/a_b(c)" in r for r in back[0]["rendered"])


def test_file_names_stay_in_the_export_directory(tmp_path):
    assert X.file_stem("../../etc/passwd") == "etc_passwd"
    assert X.file_stem("Asthma kids 2024") == "Asthma_kids_2024"
    assert X.file_stem("///") == "set"
    assert X.target(tmp_path, "a.ris").parent == tmp_path.resolve()
    for bad in ("../a.ris", "sub/a.ris", "/etc/passwd"):
        with pytest.raises(ValueError):
            X.target(tmp_path, bad)


def test_writes_are_atomic(tmp_path):
    path = tmp_path / "x.csv"

    def broken(fh):
        fh.write("partial")
        raise RuntimeError("disk gone")

    with pytest.raises(RuntimeError):
        X.write_atomic(path, broken)
    assert not path.exists() and not list(tmp_path.iterdir())
