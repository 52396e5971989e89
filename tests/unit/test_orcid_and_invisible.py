"""Core's ORCID normaliser and invisible-character set, which the readers and plugins share."""

from __future__ import annotations

import pytest

from medlit.core.identifiers import IdentifierError, normalize_orcid, normalize_pmid, split_packed
from medlit.core.jats.reader import read_jats
from medlit.core.text import strip_invisible
from medlit.plugins.ncbi.inputs import has_term


@pytest.mark.parametrize(
    "value",
    [
        "0000-0002-1825-0097",
        "https://orcid.org/0000-0002-1825-0097",
        "http://orcid.org/0000-0002-1825-0097/",
        "ORCID: 0000 0002 1825 0097",
        "0000000218250097",
        "\u200b0000-0002-1825-0097",
    ],
)
def test_orcid_spellings(value: str) -> None:
    assert normalize_orcid(value) == "0000-0002-1825-0097"


def test_orcid_check_character_x_and_refusals() -> None:
    assert normalize_orcid("https://orcid.org/0000-0002-9079-593x") == "0000-0002-9079-593X"
    for bad in ("", "0000-0002-1825", "12345", "0000-0002-1825-00971"):
        with pytest.raises(IdentifierError):
            normalize_orcid(bad)


def test_jats_reader_uses_the_same_orcid_normaliser() -> None:
    xml = (
        b"<article><front><article-meta><contrib-group><contrib contrib-type='author'>"
        b"<contrib-id contrib-id-type='orcid'>https://orcid.org/000000021825009X</contrib-id>"
        b"<name><surname>Carberry</surname><given-names>J</given-names></name></contrib>"
        b"</contrib-group></article-meta></front></article>"
    )
    [article] = read_jats(xml)
    assert article.authors[0].orcid == "0000-0002-1825-009X"


def test_invisible_characters_go_white_space_stays() -> None:
    # zero-width space, joiners, direction marks and embeddings, word joiner, invisible times,
    # BOM, soft hyphen, Mongolian vowel separator: gone
    assert strip_invisible("he\u200bart\u200d \u202adis\u202cease\u2062\ufeff\u00ad\u180e") == "heart disease"
    # line/paragraph separators and the narrow no-break space part words: they are white space
    assert strip_invisible("heart\u2028failure\u202fmap").split() == ["heart", "failure", "map"]
    assert split_packed("pmid", "123\u2028456") == ["123", "456"]
    assert normalize_pmid("\u200b\u2063123\ufeff") == "123"
    assert not has_term("\u200b\u2060 (\u202a) \u180e") and has_term("asthma\u200b")
