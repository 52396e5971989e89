"""Europe PMC readers: plain text from markup, records from lite/core/idlist results (real corpus
answers and our fixtures), the service's classification of errors hidden in HTTP 200, sort keys,
lookup query shapes and citation paging arithmetic."""

from __future__ import annotations

import json

import pytest

from medlit.core.plugin import ArgumentError, MedlitError, Response
from medlit.plugins.europepmc import queries
from medlit.plugins.europepmc.inputs import parse_sort
from medlit.plugins.europepmc.models import snippet, to_hit, to_record
from medlit.plugins.europepmc.parse import EpmcRecord, plain_text, read_record
from medlit.plugins.europepmc.related import page_plan, row_pmid
from medlit.plugins.europepmc.service import ResultlessEnvelope, inspect

from support.corpus import corpus_bytes
from support.fake_upstream import FIXTURES


def fixture_records() -> dict[str, dict]:
    data = json.loads((FIXTURES / "europepmc" / "records.json").read_text())
    return {r["id"]: r for r in data["records"]}


def results(rel: str) -> list[dict]:
    return json.loads(corpus_bytes(f"europepmc/search/{rel}"))["resultList"]["result"]


# -- plain text ---------------------------------------------------------------------------------
def test_plain_text_strips_markup_decodes_entities_and_keeps_abstract_headings():
    raw = "<h4>Background</h4>CO<sub>2</sub> rose (p &lt; 0.05) in\u200b <i>vivo</i>.<h4>Methods:</h4>A &amp; B<br/>C"
    assert plain_text(raw) == "Background: CO2 rose (p < 0.05) in vivo.\n\nMethods: A & B\n\nC"
    assert plain_text("  <b></b> ") is None and plain_text(None) is None and plain_text(5) is None


def test_literal_angle_brackets_survive():
    assert plain_text("IC50 &gt; 10 µM and x &lt;y") == "IC50 > 10 µM and x <y"
    # Raw, as some answers send them: a comparison is text, not a tag to strip.
    assert plain_text("Dose <5 mg versus >10 mg in <i>E. coli</i>") == "Dose <5 mg versus >10 mg in E. coli"
    assert plain_text("c.7271T>G (age <\u200940 years)") == "c.7271T>G (age <\u200940 years)"


def test_entity_encoded_markup_is_stripped_like_raw_markup():
    # Europe PMC sends many titles with their markup entity-encoded (recorded answers below).
    assert plain_text("m&lt;sup&gt;6&lt;/sup&gt;A and &lt;i&gt;EZH2&lt;/i&gt;") == "m6A and EZH2"
    assert plain_text("&lt;h4&gt;Aims&lt;/h4&gt;p &amp;lt; 0.05&lt;br/&gt;x") == "Aims: p &lt; 0.05\n\nx"


@pytest.mark.parametrize("rel", ["aggregated_1000_results_lite_array.json", "searchPOST_cancer_synonym.json"])
def test_no_markup_reaches_titles_from_corpus(rel):
    data = json.loads(corpus_bytes(f"europepmc/search/{rel}"))
    rows = data if isinstance(data, list) else data["resultList"]["result"]
    assert "&lt;sup&gt;" in json.dumps(rows)  # the recording does carry encoded markup
    titles = [r.title for r in map(read_record, rows) if r and r.title]
    leftovers = [t for t in titles if any(tag in t for tag in ("<i>", "<sup>", "</sup>", "<sub>", "&lt;"))]
    assert titles and not leftovers


# -- records from real answers --------------------------------------------------------------------
def test_lite_records_from_corpus():
    recs = [read_record(r) for r in results("search_cancer_lite.json")]
    assert len(recs) == 25 and all(recs)
    first, second = recs[0], recs[1]
    assert (first.source, first.id, first.pmid, first.pmcid) == ("MED", "39709209", "39709209", None)
    assert first.doi == "10.1016/s0140-6736(24)02600-x" and first.journal == "Lancet"
    assert first.is_open_access is False and first.has_fulltext_xml is False
    assert first.issn == "0140-6736" and first.essn == "1474-547x"
    assert first.abstract is None and first.authors == []  # lite carries neither
    assert second.pmcid == "PMC12124214" and second.fulltext_ids == ["PMC12124214"]
    assert first.url == "https://europepmc.org/article/MED/39709209"


def test_core_records_from_corpus():
    recs = [read_record(r) for r in results("search_oa_cancer_cited_core_pagesize10.json")]
    r = recs[0]
    assert r.pmcid == "PMC12311175" and r.has_fulltext_xml is True and r.fulltext_id == "PMC12311175"
    assert r.abstract.startswith("Immune evasion represents") and len(r.abstract) > 1000
    assert r.license == "cc by" and r.cited_by == 10
    assert (
        r.journal == "Signal Transduct Target Ther"
        and r.journal_title == "Signal transduction and targeted therapy"
    )
    assert r.authors[0].orcid == "0000-0003-3442-7216" and len(r.authors[1].affiliations) == 4
    assert ("Neoplasms", True) in r.mesh and "review-article" in r.pub_types
    assert any(link.site == "Europe_PMC" for link in r.links)
    hit = to_hit(r)
    assert (
        hit.abstractTruncated is True
        and len(hit.abstractSnippet) <= 401
        and hit.abstractSnippet.endswith("…")
    )
    full = to_record(r)
    assert full.abstract == r.abstract and full.journal.abbreviation == "Signal Transduct Target Ther"


def test_idlist_and_post_records_from_corpus():
    ids = [read_record(r) for r in results("search_cancer_idlist.json")]
    assert ids[1].fulltext_ids == ["PMC12124214"] and ids[1].is_open_access is None
    assert ids[1].has_fulltext_xml is None  # idlist says nothing about open access
    posted = [read_record(r) for r in results("searchPOST_cancer_synonym.json")]
    assert all(p.source and p.id for p in posted) and posted[0].has_fulltext_xml is True


def test_preprint_and_pmc_records_in_the_aggregated_corpus_array():
    rows = json.loads(corpus_bytes("europepmc/search/aggregated_1000_results_lite_array.json"))
    recs = [read_record(r) for r in rows]
    assert all(recs)
    ppr = [r for r in recs if r.source == "PPR"]
    pmc = [r for r in recs if r.source == "PMC"]
    assert ppr and pmc
    oa_ppr = next(r for r in ppr if r.fulltext_ids)
    assert oa_ppr.fulltext_id == oa_ppr.id and oa_ppr.pmid is None and oa_ppr.publisher
    assert all(r.pmcid == r.id for r in pmc)  # a PMC-source record's id is its PMCID


# -- records from our fixtures (no corpus needed) -----------------------------------------------
def test_preprint_fixture_record():
    r = read_record(fixture_records()["PPR900001"])
    assert r.title == "Airborne transmission of an avian influenza reassortant between ferrets"
    assert r.publisher == "bioRxiv" and r.pmid is None and r.pmcid is None
    assert r.has_fulltext_xml is True and r.fulltext_id == "PPR900001"
    assert r.authors[0].orcid == "0000-0002-1825-0097" and r.authors[0].affiliations
    assert r.abstract.startswith("Background: Avian influenza") and "outbreaks & in farmed" in r.abstract
    assert to_hit(r).journal == "bioRxiv"  # a preprint's server stands in for the journal


def test_record_without_id_or_source_is_skipped_and_odd_values_tolerated():
    assert read_record({"source": "MED"}) is None and read_record({"id": "1"}) is None
    r = read_record(
        {"id": "0123", "source": "med", "doi": "not a doi", "citedByCount": "x", "isOpenAccess": "?"}
    )
    assert (r.source, r.pmid, r.doi, r.cited_by, r.is_open_access, r.has_fulltext_xml) == (
        "MED",
        "123",
        None,
        None,
        None,
        None,
    )


def test_fulltext_id_prefers_a_pmcid():
    r = EpmcRecord(source="MED", id="1", pmcid="PMC5", fulltext_ids=["PPR9", "PMC5"], is_open_access=True)
    assert r.fulltext_id == "PMC5"
    assert EpmcRecord(source="MED", id="1", pmcid="PMC5", is_open_access=True).fulltext_id == "PMC5"
    assert EpmcRecord(source="MED", id="1", is_open_access=True).has_fulltext_xml is False


def test_snippet_cuts_at_a_word():
    assert snippet("short") == ("short", False) and snippet(None) == (None, None)
    text, cut = snippet("word " * 200, 50)
    assert cut and text.endswith("…") and len(text) <= 51 and "wor…" not in text


# -- errors hidden in HTTP 200 ---------------------------------------------------------------------
def resp(body: dict | bytes, path: str = "search") -> Response:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Response(200, f"http://127.0.0.1:1/europepmc/{path}", {"Content-Type": "application/json"}, data)


def test_errmsg_in_200_is_refused_input():
    body = (FIXTURES / "europepmc" / "search_errmsg_200.json").read_bytes()
    with pytest.raises(MedlitError) as info:
        inspect(resp(body))
    assert info.value.reason == "europepmc_bad_request" and not info.value.retryable
    assert "unbalanced parentheses" in info.value.message


def test_transient_errmsg_is_retryable():
    with pytest.raises(MedlitError) as info:
        inspect(resp({"errMsg": "Search timed out, please try again later"}))
    assert info.value.reason == "europepmc_unreachable" and info.value.retryable


def test_resultless_search_envelope_is_not_an_empty_result():
    body = (FIXTURES / "europepmc" / "search_resultless.json").read_bytes()
    with pytest.raises(ResultlessEnvelope) as info:
        inspect(resp(body, "searchPOST"))
    assert info.value.reason == "europepmc_invalid_response" and not info.value.retryable


def test_real_empty_results_pass():
    inspect(resp(corpus_bytes("europepmc/search/search_no_results.json")))
    inspect(resp(corpus_bytes("europepmc/search/search_ext_id_not_found_v5.json")))
    inspect(
        resp(
            corpus_bytes("europepmc/citations/citations_MED_20098740_empty_v4.json"), "MED/20098740/citations"
        )
    )


def test_empty_lists_and_other_bodies_pass():
    inspect(resp({"version": "6.9", "hitCount": 0, "resultList": {"result": []}}))
    inspect(resp({"hitCount": 0, "request": {}}, "MED/1/citations"))  # no citations, no list
    inspect(resp(b"<article/>", "PMC1/fullTextXML"))
    with pytest.raises(MedlitError):
        inspect(resp({"hitCount": 5, "request": {}}, "MED/1/references"))


# -- sort keys, query shapes, paging ---------------------------------------------------------------
def test_sort_keys():
    assert parse_sort("cited desc") == "CITED desc"
    assert parse_sort(" PUB_YEAR  DESC , auth_first asc") == "PUB_YEAR desc,AUTH_FIRST asc"
    assert parse_sort("relevance") is None and parse_sort("") is None and parse_sort(None) is None
    assert parse_sort("TITLE asc") == "TITLE asc"  # undocumented: sent, judged by the answer
    for bad in ("CITED", "CITED down", "CITED desc,", "CITED desc extra", "desc"):
        with pytest.raises(ArgumentError):
            parse_sort(bad)


def test_lookup_query_shapes():
    assert queries.pmid_clause("123") == "(EXT_ID:123 AND SRC:MED)"  # unquoted: quoted matches nothing
    assert queries.pmcid_clause("pmc9") == "(PMCID:PMC9)"
    assert queries.doi_clause('10.1/a"b') == '(DOI:"10.1/a\\"b")'
    assert queries.record_clause("PMC", "PMC9") == "(PMCID:PMC9)"
    assert queries.record_clause("PPR", "PPR1") == "(EXT_ID:PPR1 AND SRC:PPR)"
    assert queries.any_of(["(a)", "(b)", "(a)"]) == "(a) OR (b)"
    assert queries.with_sources("x y", ["PPR", "MED"]) == "(x y) AND (SRC:MED OR SRC:PPR)"


@pytest.mark.parametrize(
    ("offset", "limit", "plan"),
    [
        (0, 20, (20, 1, 1)),
        (20, 20, (20, 2, 2)),
        (10, 20, (30, 1, 1)),  # one page of 30 rather than two of 20
        (990, 20, (22, 46, 46)),
        (995, 20, (29, 35, 35)),
        (5500, 1000, (1000, 6, 7)),  # no page of at most 1,000 covers it: consecutive pages
    ],
)
def test_page_plan(offset, limit, plan):
    size, first, last = page_plan(offset, limit)
    assert (size, first, last) == plan
    assert (first - 1) * size <= offset and last * size >= offset + limit


def test_row_pmid():
    assert row_pmid({"id": "0042", "source": "MED"}) == "42"
    assert row_pmid({"id": "PPR1", "source": "PPR"}) is None
    assert row_pmid({"id": "PMC1", "source": "PMC", "pmid": "77"}) == "77"
    assert row_pmid({"match": "N", "title": "unmatched"}) is None
