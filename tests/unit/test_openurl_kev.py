"""OpenURL 1.0 KEV links checked against the standard's key names (Z39.88-2004 journal and book
KEV matrices), UTF-8 percent-encoding round trips, and the resolver presets."""

from __future__ import annotations

from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest

from medlit.core.plugin import RecordMetadata
from medlit.plugins.openurl import kev, presets

# Written out from the registered KEV matrices, independently of the code under test.
JOURNAL_MATRIX = {
    "aulast", "aufirst", "auinit", "auinit1", "auinitm", "ausuffix", "au", "aucorp", "atitle", "title",
    "jtitle", "stitle", "date", "chron", "ssn", "quarter", "volume", "part", "issue", "spage", "epage",
    "pages", "artnum", "issn", "eissn", "isbn", "coden", "sici", "genre",
}  # fmt: skip
BOOK_MATRIX = {
    "aulast", "aufirst", "auinit", "auinit1", "auinitm", "ausuffix", "au", "aucorp", "btitle", "atitle",
    "title", "place", "pub", "date", "edition", "tpages", "series", "spage", "epage", "pages", "issn",
    "isbn", "bici", "genre",
}  # fmt: skip
CONTEXT_KEYS = {"url_ver", "url_ctx_fmt", "ctx_ver", "ctx_enc", "rfr_id", "rft_val_fmt", "rft_id"}
BASE = "https://resolver.example.edu/openurl"

ARTICLE = RecordMetadata(
    pmid="33533846",
    doi="10.1038/s41591-020-01203-4",
    kind="article",
    title="Mortality in patients with sepsis.",
    container_title="Nature medicine",
    container_abbrev="Nat Med",
    issn="1078-8956",
    eissn="1546-170X",
    date="2021-02",
    year=2021,
    volume="27",
    issue="2",
    first_page="224",
    last_page="31",
    authors=("Smith JA", "Jones B", "Brown C", "Green D"),
    first_author_family="Smith",
    first_author_given="John A",
)
CHAPTER = RecordMetadata(
    pmid="28613524",
    kind="chapter",
    title="Acute Kidney Injury",
    container_title="StatPearls",
    isbn="978-0-00-000000-2",
    publisher="StatPearls Publishing",
    date="2023-07-24",
    volume="3",
    issue="9",
    eissn="1234-5678",
    first_page="10",
    last_page="20",
    first_author_family="Goyal",
    first_author_given="A",
)


def query(url: str) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(url).query, keep_blank_values=True, strict_parsing=True)


def check_matrix(pairs: list[tuple[str, str]], matrix: set[str]) -> None:
    for key, value in pairs:
        assert value, f"{key} is empty"
        if key.startswith("rft."):
            assert key[4:] in matrix, f"{key} is not a key of this format's KEV matrix"
        else:
            assert key in CONTEXT_KEYS, f"{key} is not a ContextObject key"


def test_journal_article_uses_the_journal_matrix_and_both_ids():
    url = kev.link(BASE, kev.context_object(ARTICLE))
    pairs = query(url)
    check_matrix(pairs, JOURNAL_MATRIX)
    q = parse_qs(urlsplit(url).query)
    assert q["url_ver"] == ["Z39.88-2004"] and q["ctx_ver"] == ["Z39.88-2004"]
    assert q["url_ctx_fmt"] == ["info:ofi/fmt:kev:mtx:ctx"]
    assert q["ctx_enc"] == ["info:ofi/enc:UTF-8"]
    assert q["rft_val_fmt"] == ["info:ofi/fmt:kev:mtx:journal"]
    assert q["rfr_id"][0].startswith("info:sid/")
    # The PMID and the DOI are both there, as repeated rft_id keys: neither overwrites the other.
    assert q["rft_id"] == ["info:pmid/33533846", "info:doi/10.1038/s41591-020-01203-4"]
    assert q["rft.genre"] == ["article"]
    assert q["rft.atitle"] == ["Mortality in patients with sepsis"]  # PubMed's final period dropped
    assert q["rft.jtitle"] == ["Nature medicine"] and q["rft.stitle"] == ["Nat Med"]
    assert q["rft.issn"] == ["1078-8956"] and q["rft.eissn"] == ["1546-170X"]
    assert q["rft.date"] == ["2021-02"] and q["rft.volume"] == ["27"] and q["rft.issue"] == ["2"]
    # MEDLINE's abbreviated last page is written out.
    assert q["rft.spage"] == ["224"] and q["rft.epage"] == ["231"] and q["rft.pages"] == ["224-231"]
    assert q["rft.aulast"] == ["Smith"] and q["rft.aufirst"] == ["John A"]
    assert q["rft.au"] == ["Smith JA", "Jones B", "Brown C"]  # capped: a URL, not an author list
    assert "rft.btitle" not in q


def test_book_chapter_uses_the_book_matrix():
    url = kev.link(BASE, kev.context_object(CHAPTER))
    pairs = query(url)
    check_matrix(pairs, BOOK_MATRIX)
    q = parse_qs(urlsplit(url).query)
    assert q["rft_val_fmt"] == ["info:ofi/fmt:kev:mtx:book"]
    assert q["rft.genre"] == ["bookitem"]
    assert q["rft.atitle"] == ["Acute Kidney Injury"] and q["rft.btitle"] == ["StatPearls"]
    assert q["rft.isbn"] == ["978-0-00-000000-2"] and q["rft.pub"] == ["StatPearls Publishing"]
    assert q["rft_id"] == ["info:pmid/28613524"]
    # Journal-only keys never leak into a book ContextObject.
    for key in ("rft.jtitle", "rft.volume", "rft.issue", "rft.eissn"):
        assert key not in q
    assert q["rft.auinit"] == ["A"] and "rft.aufirst" not in q  # initials go in auinit


def test_whole_book():
    meta = RecordMetadata(pmid="20301295", kind="book", title="GeneReviews", date="1993", isbn="0000000000")
    q = parse_qs(urlsplit(kev.link(BASE, kev.context_object(meta))).query)
    check_matrix(query(kev.link(BASE, kev.context_object(meta))), BOOK_MATRIX)
    assert q["rft.genre"] == ["book"] and q["rft.btitle"] == ["GeneReviews"] and "rft.atitle" not in q


def test_metadata_only_without_ids():
    meta = RecordMetadata(kind="article", title="A study", container_title="Lancet", year=1999)
    url = kev.link(BASE, kev.context_object(meta))
    q = parse_qs(urlsplit(url).query)
    assert "rft_id" not in q
    assert q["rft.date"] == ["1999"] and q["rft.jtitle"] == ["Lancet"]
    check_matrix(query(url), JOURNAL_MATRIX)


def test_non_ascii_round_trips():
    title = "Étude des protéines: 蛋白质研究 & «résultats» = 100% (α/β)"
    meta = RecordMetadata(
        kind="article",
        title=title,
        container_title="Revue médicale suisse",
        authors=("Ødegård K", "Nguyễn VA"),
        first_author_family="Ødegård",
        first_author_given="Kjersti",
    )
    url = kev.link(BASE, kev.context_object(meta))
    assert url.isascii() and " " not in url
    q = parse_qs(urlsplit(url).query)
    assert q["rft.atitle"] == [title]
    assert q["rft.aulast"] == ["Ødegård"] and q["rft.aufirst"] == ["Kjersti"]
    assert q["rft.au"] == ["Ødegård K", "Nguyễn VA"]
    assert "%C3%98deg%C3%A5rd" in url  # UTF-8, percent-encoded


def test_decomposed_unicode_is_normalised():
    meta = RecordMetadata(title="Mu\u0308ller", container_title="J")  # u + combining diaeresis
    q = parse_qs(urlsplit(kev.link(BASE, kev.context_object(meta))).query)
    assert q["rft.atitle"] == ["Müller"]


def test_values_cannot_inject_keys():
    meta = RecordMetadata(title="x&rft.issn=0000-0000#frag", container_title="a=b+c")
    url = kev.link(BASE, kev.context_object(meta))
    q = parse_qs(urlsplit(url).query)
    assert "rft.issn" not in q and not urlsplit(url).fragment
    assert q["rft.atitle"] == ["x&rft.issn=0000-0000#frag"] and q["rft.jtitle"] == ["a=b+c"]


def test_record_without_pages():
    meta = RecordMetadata(pmid="1", title="T", container_title="J", volume="3")
    q = parse_qs(urlsplit(kev.link(BASE, kev.context_object(meta))).query)
    for key in ("rft.spage", "rft.epage", "rft.pages"):
        assert key not in q
    assert q["rft.volume"] == ["3"]


@pytest.mark.parametrize(
    ("first", "last", "want"),
    [
        ("1234", "9", "1239"),
        ("224", "31", "231"),
        ("e123", None, None),
        ("100", "105", "105"),
        ("S1", "S9", "S9"),
    ],
)
def test_last_page_expansion(first, last, want):
    assert kev.last_page(first, last) == want


def test_single_page_has_no_range():
    meta = RecordMetadata(title="T", first_page="e1002", last_page=None)
    q = parse_qs(urlsplit(kev.link(BASE, kev.context_object(meta))).query)
    assert q["rft.spage"] == ["e1002"] and "rft.pages" not in q and "rft.epage" not in q


def test_malformed_date_falls_back_to_year():
    meta = RecordMetadata(title="T", date="2020 Spring", year=2020)
    q = parse_qs(urlsplit(kev.link(BASE, kev.context_object(meta))).query)
    assert q["rft.date"] == ["2020"]


def test_control_characters_and_long_values_are_cleaned():
    meta = RecordMetadata(title="A\x00B\u200b\nC " + "word " * 200)
    q = parse_qs(urlsplit(kev.link(BASE, kev.context_object(meta))).query)
    assert q["rft.atitle"][0].startswith("A B C word") and len(q["rft.atitle"][0]) <= kev.MAX_VALUE


def test_invisible_characters_inside_words_are_removed_not_spaced():
    # A soft hyphen or zero-width space splits no word a reader sees: the resolver must get it whole.
    meta = RecordMetadata(
        title="\u200bImmuno\u00adtherapy of cancer\u2060s", container_title="\ufeffLan\u200dcet"
    )
    q = parse_qs(urlsplit(kev.link(BASE, kev.context_object(meta))).query)
    assert q["rft.atitle"] == ["Immunotherapy of cancers"] and q["rft.jtitle"] == ["Lancet"]


def test_base_query_is_kept_and_fragment_dropped():
    url = kev.link(
        "https://x.primo.exlibrisgroup.com/discovery/openurl?institution=I&vid=I:V#top", [("a", "b")]
    )
    assert url == "https://x.primo.exlibrisgroup.com/discovery/openurl?institution=I&vid=I:V&a=b"
    assert (
        kev.link("https://sfx.example.edu/sfx_local?", [("a", "b")])
        == "https://sfx.example.edu/sfx_local?a=b"
    )
    assert kev.link("https://ab12.search.serialssolutions.com", [("a", "b")]) == (
        "https://ab12.search.serialssolutions.com/?a=b"
    )


# -- presets ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "config", "want"),
    [
        (
            "sfx",
            {"OPENURL_HOST": "sfx.example.edu", "OPENURL_INSTITUTION": "sfx_local"},
            "https://sfx.example.edu/sfx_local",
        ),
        ("360link", {"OPENURL_INSTITUTION": "AB1CD2EF3G"}, "https://ab1cd2ef3g.search.serialssolutions.com/"),
        (
            "alma",
            {"OPENURL_HOST": "https://na01.alma.exlibrisgroup.com/", "OPENURL_INSTITUTION": "01UNIV_INST"},
            "https://na01.alma.exlibrisgroup.com/view/uresolver/01UNIV_INST/openurl",
        ),
        (
            "primo",
            {
                "OPENURL_HOST": "u.primo.exlibrisgroup.com",
                "OPENURL_INSTITUTION": "01U_INST",
                "OPENURL_VIEW": "01U_INST:MAIN",
            },
            "https://u.primo.exlibrisgroup.com/discovery/openurl?institution=01U_INST&vid=01U_INST:MAIN",
        ),
        (
            "ebsco",
            {"OPENURL_INSTITUTION": "s1234567"},
            "https://resolver.ebscohost.com/openurl?custid=s1234567&groupid=main",
        ),
        ("worldcat", {"OPENURL_INSTITUTION": "univ"}, "https://univ.on.worldcat.org/atoztitles/link"),
    ],
)
def test_presets_build_their_base_url(name, config, want):
    config = {"OPENURL_PRESET": name, **config}
    assert presets.check(config) is None
    assert presets.resolver_base(config) == want
    assert presets.describe(config) == presets.PRESETS[name].product


def test_preset_missing_codes_say_what_to_set():
    hint = presets.check({"OPENURL_PRESET": "primo", "OPENURL_HOST": "u.primo.exlibrisgroup.com"})
    assert "OPENURL_INSTITUTION" in hint and "OPENURL_VIEW" in hint and "OPENURL_HOST" not in hint
    assert presets.resolver_base({"OPENURL_PRESET": "primo"}) is None
    assert "OPENURL_RESOLVER" in presets.check({}) and "OPENURL_PRESET" in presets.check({})


@pytest.mark.parametrize(
    "config",
    [
        {"OPENURL_PRESET": "nosuch"},
        {"OPENURL_PRESET": "360link", "OPENURL_INSTITUTION": "bad.label"},
        {"OPENURL_PRESET": "sfx", "OPENURL_HOST": "evil.example/path?x", "OPENURL_INSTITUTION": "sfx_local"},
        {"OPENURL_PRESET": "alma", "OPENURL_HOST": "h.example", "OPENURL_INSTITUTION": "a/b"},
        {"OPENURL_RESOLVER": "javascript:alert(1)"},
        {"OPENURL_RESOLVER": "https://user:pw@resolver.example.edu/openurl"},
    ],
)
def test_malformed_configuration_is_refused(config):
    with pytest.raises(ValueError):
        presets.check(config)


def test_resolver_url_wins_over_a_preset():
    config = {"OPENURL_RESOLVER": "https://r.example.edu/openurl?x=1", "OPENURL_PRESET": "360link"}
    assert presets.check(config) is None
    assert presets.resolver_base(config) == "https://r.example.edu/openurl?x=1"
    assert presets.describe(config) == "r.example.edu"
