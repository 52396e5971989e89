"""``identifiers.canonical`` and ``identifiers.find_doi``: the one "id or None" and the one "DOI in
free text", which replaced the copies in the review readers, the reference audit and the
Crossref, Unpaywall, Europe PMC and NCBI plugins (issue 49). Each copy's cases are kept here."""

from __future__ import annotations

import pytest

from medlit.core.plugin import identifiers


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("doi", "10.1000/ABC", "10.1000/abc"),
        ("doi", "https://doi.org/10.1000/abc", "10.1000/abc"),
        ("doi", "doi:10.1000/abc.", "10.1000/abc"),
        ("doi", "not a doi", None),
        ("doi", "12345", None),  # a PMID's shape
        ("doi", "", None),
        ("doi", "   ", None),
        ("doi", None, None),
        ("doi", ["10.1000/abc"], None),  # not a string: an upstream's odd JSON
        ("doi", True, None),
        ("pmid", 123, "123"),  # an int is read as its digits
        ("pmid", "PMID: 00123", "123"),
        ("pmid", "PMC123", None),
        ("pmcid", "pmc0123", "PMC123"),
        ("pmcid", "x", None),
    ],
)
def test_canonical_is_normalize_or_none(kind, value, expected) -> None:
    assert identifiers.canonical(kind, value) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the review readers' cases: notes, URLs, query strings, URL encoding
        ("doi: 10.1016/S0140-6736(21)00149-5.", "10.1016/s0140-6736(21)00149-5"),
        ("https://doi.org/10.1371/journal.pone.0000030", "10.1371/journal.pone.0000030"),
        ("info:doi/10.1371%2Fjournal.pone.0000030", "10.1371/journal.pone.0000030"),
        ("https://doi.org/10.1000/abc?utm_source=x", "10.1000/abc"),
        ("https://example.org/link?doi=10.1000/abc&volume=2#top", "10.1000/abc"),
        ("(see 10.1038/nature12373), and", "10.1038/nature12373"),
        ("10.1000/abc'", "10.1000/abc"),
        # the reference audit's: a DOI closing a sentence or a quotation, curly quotes too
        ("Nature. 2013;500:54. doi:10.1038/nature12373”", "10.1038/nature12373"),
        ("“10.1000/xyz’", "10.1000/xyz"),
        ("<10.1000/xyz>", "10.1000/xyz"),
        # Unpaywall's: a registrant with subdivisions, a page's text
        ("10.1000.10/abc", "10.1000.10/abc"),
        ('content="10.1093/ajcn/nqab123"', "10.1093/ajcn/nqab123"),
        # none
        ("ISBN 978-3-16-148410-0", None),
        ("version 10.2 of the tool", None),
        ("doi10.1000/abc", None),  # glued to a word: not a DOI that starts here
        ("", None),
        (None, None),
    ],
)
def test_find_doi(text, expected) -> None:
    assert identifiers.find_doi(text) == expected


def test_a_query_string_stays_when_the_text_is_no_link() -> None:
    """Outside a URL a "?" may belong to the DOI as registered (SICI-style DOIs hold odd marks)."""
    assert identifiers.find_doi("10.1000/a?b") == "10.1000/a?b"
