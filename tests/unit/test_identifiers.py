# The URLs below are identifier spellings the normalisers parse, never fetched: every test may
# connect to loopback only (tests/conftest.py no_network).
import pytest

from medlit.core.identifiers import (
    IdentifierError,
    classify,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
    parse_list,
    split_packed,
)


@pytest.mark.parametrize(
    "raw",
    [
        "PMC9575052",
        "pmc9575052",
        "PMC09575052",
        " PMC9575052 ",
        "9575052",
        "PMCID: PMC9575052",
        "PMC9575052.1",
        "https://pmc.ncbi.nlm.nih.gov/articles/PMC9575052/",
        "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC9575052",
        "PMC9575052\u200b",
    ],
)
def test_pmcid_spellings(raw):
    assert normalize_pmcid(raw) == "PMC9575052"


@pytest.mark.parametrize("raw", ["", "PMC", "PMC0", "PMCabc", "10.1/x", "PMC12345678901", "PMC1,PMC2"])
def test_bad_pmcids(raw):
    with pytest.raises(IdentifierError):
        normalize_pmcid(raw)


def test_bare_digits_need_a_known_type():
    with pytest.raises(IdentifierError):
        normalize_pmcid("123", allow_bare=False)
    assert classify("123").kind == "pmid"


@pytest.mark.parametrize(
    "raw",
    ["33533846", "033533846", "PMID: 33533846", "pmid:33533846", "https://pubmed.ncbi.nlm.nih.gov/33533846/"],
)
def test_pmid_spellings(raw):
    assert normalize_pmid(raw) == "33533846"


@pytest.mark.parametrize(
    ("raw", "hint"),
    [("PMC123", "pmcids"), ("10.1038/x", "dois"), ("abc", "digits"), ("0", "does not exist"), ("", "digits")],
)
def test_bad_pmids_say_how_to_fix(raw, hint):
    with pytest.raises(IdentifierError, match=hint):
        normalize_pmid(raw)


@pytest.mark.parametrize(
    "raw",
    [
        "10.1038/S41586-020-2649-2",
        "doi:10.1038/s41586-020-2649-2",
        "DOI: 10.1038/s41586-020-2649-2",
        "https://doi.org/10.1038/s41586-020-2649-2",
        "http://dx.doi.org/10.1038/s41586-020-2649-2",
        "https://doi.org/10.1038%2Fs41586-020-2649-2",
        "10.1038/s41586-020-2649-2.",
    ],
)
def test_doi_spellings(raw):
    assert normalize_doi(raw) == "10.1038/s41586-020-2649-2"


def test_doi_keeps_unusual_suffixes():
    assert normalize_doi("10.1002/(SICI)1097-4636(199606)31:2<179::AID-JBM5>3.0.CO;2-J") == (
        "10.1002/(sici)1097-4636(199606)31:2<179::aid-jbm5>3.0.co;2-j"
    )


@pytest.mark.parametrize(("raw", "hint"), [("PMC123", "pmcids"), ("12345", "pmids"), ("nature paper", "DOI")])
def test_bad_dois(raw, hint):
    with pytest.raises(IdentifierError, match=hint):
        normalize_doi(raw)


def test_classify():
    assert (classify("PMC5").kind, classify("PMC5").value) == ("pmcid", "PMC5")
    assert (classify("doi:10.1000/X").kind, classify("doi:10.1000/X").value) == ("doi", "10.1000/x")
    assert classify("https://doi.org/10.1000/x").kind == "doi"
    assert (classify("00042").kind, classify("00042").value) == ("pmid", "42")
    with pytest.raises(IdentifierError, match="PubMed ID, PMC ID or DOI"):
        classify("hello")


def test_split_packed():
    assert split_packed("pmid", "1, 2;3 4|5") == ["1", "2", "3", "4", "5"]
    assert split_packed("pmcid", "PMC1 PMC2") == ["PMC1", "PMC2"]
    assert split_packed("pmid", "PMID: 1, PMID: 2") == ["PMID:1", "PMID:2"]
    assert split_packed("doi", "10.1/a, 10.2/b") == ["10.1/a", "10.2/b"]
    assert split_packed("doi", "10.1/a,b") == ["10.1/a,b"]  # a comma inside a DOI stays
    assert split_packed("doi", "doi:10.1/a; https://doi.org/10.2/b") == [
        "doi:10.1/a",
        "https://doi.org/10.2/b",
    ]
    assert split_packed("pmid", "[1, 2]") == ["1", "2"]


def test_parse_list():
    ids = parse_list("pmid", ["1, 2", "0003", "", 4])
    assert [i.value for i in ids] == ["1", "2", "3", "4"]
    assert parse_list("pmcid", "PMC1 PMC2")[1].value == "PMC2"
    assert parse_list("doi", None) == []
    with pytest.raises(IdentifierError) as err:
        parse_list("pmid", ["1", "x", "PMC2"])
    assert "'x'" in str(err.value) and "pmcids" in str(err.value)
    with pytest.raises(IdentifierError):
        parse_list("pmid", [True])
    with pytest.raises(IdentifierError):
        parse_list("pmid", {"a": 1})


def test_europepmc_article_url_is_a_pmcid():
    ident = classify("https://europepmc.org/article/PMC/PMC0123")
    assert (ident.kind, ident.value) == ("pmcid", "PMC123")
