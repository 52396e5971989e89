"""The shared readers of ``bibliography.read`` (issue 49): each gives its format's units with the
syntax undone and nothing lost, whatever plugin reads them."""

from __future__ import annotations

import pytest

from medlit.core.plugin import bibliography

read = bibliography.read


def test_ris_records_as_tag_value_pairs() -> None:
    text = (
        "Record #1 of 2\n"
        "TY  - JOUR\nAU  - Smith, J\n  Jones, K\nTI  - A title\nwrapped on\nKW  - one\nER  - \n\n"
        "TY  -  BOOK\nTI  - Second\n"
    )
    banners = [0]
    records = list(read.ris(text, banners))
    assert records == [
        [("TY", "JOUR"), ("AU", "Smith, J"), ("AU", "Jones, K"), ("TI", "A title wrapped on"), ("KW", "one")],
        [("TY", "BOOK"), ("TI", "Second")],
    ]
    assert banners == [1]


def test_medline_records_split_on_blank_lines_and_pmid() -> None:
    text = "PMID- 1\nTI  - A long\n      title\nFAU - Smith, John\nPMID- 2\nTI  - Next\n\n\nPMID- 3\n"
    assert list(read.medline(text)) == [
        [("PMID", "1"), ("TI", "A long title"), ("FAU", "Smith, John")],
        [("PMID", "2"), ("TI", "Next")],
        [("PMID", "3")],
    ]


def test_bibtex_entries_failures_and_recovered_duplicates() -> None:
    text = (
        "@string{j = {Journal}}\n"
        '@article{Key1, author = {M{\\"u}ller, A. and {WHO Group}}, title = {T}}\n'
        "@article{Broken, title = {no closing brace\n"
        "@article{Key2, title = {One}, title = {Two}}\n"
    )
    entries = read.bibtex(text)
    first = entries[0]
    assert isinstance(first, read.BibEntry) and (first.type, first.key, first.recovered) == (
        "article",
        "Key1",
        False,
    )
    assert [read.decode_latex(n) for n in read.split_names(first.fields["author"])] == [
        "Müller, A.",
        "WHO Group",
    ]
    assert any(isinstance(e, read.BibFailure) for e in entries)
    recovered = [e for e in entries if isinstance(e, read.BibEntry) and e.recovered]
    assert recovered and recovered[0].key == "Key2" and recovered[0].fields["title"] in ("One", "Two")


def test_endnote_xml_records_and_their_styled_values() -> None:
    text = (
        '<?xml version="1.0" encoding="UTF-16"?><xml><records><record><titles><title>'
        '<style face="normal">Split </style><style face="bold">title</style></title></titles>'
        "<keywords><keyword>a</keyword><keyword> </keyword><keyword>b</keyword></keywords>"
        "</record></records></xml>"
    )
    (record,) = read.endnote_xml(text)
    assert read.text_of(record.find("titles/title")) == "Split title"
    assert read.texts_of(record, "keywords/keyword") == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('<!DOCTYPE x [<!ENTITY a "b">]><xml><records/></xml>', "refused"),
        ("<xml><records><record></records>", "malformed"),
    ],
)
def test_endnote_xml_unreadable(text: str, reason: str) -> None:
    with pytest.raises(read.Unreadable) as caught:
        read.endnote_xml(text)
    assert caught.value.reason == reason


def test_csljson_items() -> None:
    assert read.csljson('[{"title": "A"}]') == [{"title": "A"}]
    assert read.csljson('{"items": [{"title": "A"}]}') == [{"title": "A"}]
    assert read.csljson('{"type": "book", "title": "B"}') == [{"type": "book", "title": "B"}]
    with pytest.raises(read.Unreadable) as caught:
        read.csljson("{not json")
    assert caught.value.reason == "malformed"
    with pytest.raises(read.Unreadable) as caught:
        read.csljson('{"unrelated": 1}')
    assert caught.value.reason == "unknown_format"


def test_what_is_written_is_read_back() -> None:
    """Each writer's output, read by the same format's reader, gives the record's fields back."""
    record = bibliography.Record(
        kind="article",
        title="A study of things",
        authors=(bibliography.Name("Müller", "Anna"), bibliography.Name(literal="WHO Group")),
        container_title="Journal of Things",
        container_abbrev="J Things",
        year=2020,
        volume="3",
        issue="2",
        pages="10-20",
        first_page="10",
        last_page="20",
        doi="10.1000/abc",
        pmid="123",
        keywords=("k1",),
        subjects=("Humans",),
        genres=("Journal Article",),
    )
    ris = dict(read.ris(bibliography.ris(record)).__next__())
    assert (ris["TI"], ris["DO"], ris["AN"], ris["PY"]) == ("A study of things", "10.1000/abc", "123", "2020")
    (medline,) = read.medline(bibliography.medline(record))
    tags = {tag: value for tag, value in reversed(medline)}
    assert (tags["TI"], tags["FAU"], tags["CN"], tags["MH"], tags["OT"], tags["PT"]) == (
        "A study of things",
        "Müller, Anna",
        "WHO Group",
        "Humans",
        "k1",
        "Journal Article",
    )
    (entry,) = read.bibtex(bibliography.bibtex(record, "Key"))
    assert isinstance(entry, read.BibEntry) and entry.fields["doi"] == "10.1000/abc"
    assert [read.decode_latex(n) for n in read.split_names(entry.fields["author"])] == [
        "Müller, Anna",
        "WHO Group",
    ]
    (element,) = read.endnote_xml("".join(bibliography.endnote_xml([(7, record)])))
    assert read.text_of(element.find("rec-number")) == "7"
    assert read.texts_of(element, "contributors/authors/author") == ["Müller, Anna", "WHO Group,"]
    (item,) = read.csljson("".join(bibliography.csljson([record])))
    assert isinstance(item, dict) and item["DOI"] == "10.1000/abc" and item["keyword"] == "k1; Humans"
