"""OpenAlex readers on real recorded works and lists (corpus) and on hand-written fixtures; the
page planner's promise of one request per window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medlit.plugins.openalex.client import PAGING_LIMIT, PER_PAGE_MAX, page_plan
from medlit.plugins.openalex.parse import doi_of, parse_list, parse_work, pmcid_of, pmid_of, work_id

from support.corpus import corpus_bytes, corpus_glob

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "openalex"


def load(rel: str):
    return json.loads(corpus_bytes(rel))


def test_real_work_with_every_identifier():
    w = parse_work(load("openalex/works/W2741809807_state_of_oa.json"))
    assert (w.id, w.pmid, w.pmcid, w.doi, w.year) == (
        "W2741809807",
        "29456894",
        "PMC5815332",
        "10.7717/peerj.4375",
        2018,
    )
    assert len(w.related_works) == 10 and w.referenced_works and len(w.referenced_works) == 45
    assert w.cited_by_count == 962 and w.referenced_works_count == 45


def test_real_sparse_work_with_a_null_title():
    w = parse_work(load("openalex/works/W4234567890_null_title.json"))
    assert (w.id, w.title, w.pmid, w.doi) == ("W4234567890", None, None, "10.4018/jnn.20180101")


def test_real_nature_work():
    w = parse_work(load("openalex/works/W2162348455_nature_biodiversity.json"))
    assert w.id == "W2162348455" and w.pmid == "10706275" and w.doi == "10.1038/35002501"


def test_every_real_list_parses():
    files = corpus_glob("openalex/works_list/*.json")
    if not files:
        pytest.skip("shared corpus not found")
    for path in files:
        page = parse_list(json.loads(path.read_bytes()))
        assert page.count is not None and page.count >= len(page.works), path.name
        assert all(w.id.startswith("W") for w in page.works), path.name


def test_real_cursor_pages():
    first = parse_list(load("openalex/works_list/works_filter_openalex_ids_cursor.json"))
    assert (
        first.next_cursor
        and first.count == 2
        and [w.id for w in first.works] == ["W3046863325", "W3045921891"]
    )
    last = parse_list(load("openalex/works_list/works_cursor_last_page_empty.json"))
    assert last.next_cursor is None and last.works == ()


def test_real_cited_by_list_maps_some_works_to_pmids():
    page = parse_list(load("openalex/works_list/works_filter_cited_by_large.json"))
    assert page.count == 38 and len(page.works) == 38
    assert sum(1 for w in page.works if w.pmid) == 6


def test_real_error_body_in_a_list_is_an_error():
    with pytest.raises(Exception) as info:
        parse_list(load("openalex/errors/works_400_invalid_filter_field.json"))
    assert info.value.reason == "openalex_upstream_error"


def test_fixture_work_and_list():
    w = parse_work(json.loads((FIXTURES / "work_pmid_29456894.json").read_text()))
    assert w.related_works[-1] == "W2000000001" and w.cited_by_count == 4
    page = parse_list(json.loads((FIXTURES / "works_cites_W2741809807.json").read_text()))
    assert [w.pmid for w in page.works] == ["38961234", None, "37990001", "36512345"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://openalex.org/W2741809807", "W2741809807"),
        ("W2741809807", "W2741809807"),
        ("https://openalex.org/works/w123", "W123"),
        ("https://openalex.org/A123", None),
        (None, None),
    ],
)
def test_work_id(value, expected):
    assert work_id(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://pubmed.ncbi.nlm.nih.gov/29456894", "29456894"),
        ("https://pubmed.ncbi.nlm.nih.gov/029456894/", "29456894"),
        ("https://www.ncbi.nlm.nih.gov/pubmed/123", "123"),
        ("29456894", "29456894"),
        (29456894, "29456894"),
        ("https://pubmed.ncbi.nlm.nih.gov/0", None),
        ("https://example.org/29456894", None),
        ("", None),
        (True, None),
    ],
)
def test_pmid_of(value, expected):
    assert pmid_of(value) == expected


def test_pmcid_and_doi():
    assert pmcid_of("https://www.ncbi.nlm.nih.gov/pmc/articles/5815332") == "PMC5815332"
    assert pmcid_of("PMC5815332") == "PMC5815332"
    assert pmcid_of("https://example.org/x") is None
    assert doi_of("https://doi.org/10.7717/PeerJ.4375") == "10.7717/peerj.4375"
    assert doi_of("not a doi") is None


@pytest.mark.parametrize("bad", [[], "x", {"id": "https://openalex.org/A1"}, {"ids": {}}])
def test_malformed_work_is_an_invalid_response(bad):
    with pytest.raises(Exception) as info:
        parse_work(bad)
    assert info.value.reason == "openalex_invalid_response"


def test_a_malformed_row_costs_only_itself():
    page = parse_list({"meta": {"count": 2}, "results": [{"id": "nope"}, {"id": "https://openalex.org/W1"}]})
    assert [w.id for w in page.works] == ["", "W1"]


def test_list_without_results_is_an_invalid_response():
    with pytest.raises(Exception) as info:
        parse_list({"meta": {}})
    assert info.value.reason == "openalex_invalid_response"


def test_every_window_of_up_to_100_rows_is_one_request_within_the_paging_limit():
    for limit in (1, 7, 20, 50, 99, 100):
        for offset in range(0, PAGING_LIMIT - limit + 1, 37):
            size, pages = page_plan(offset, limit)
            assert len(pages) == 1 and limit <= size <= PER_PAGE_MAX
            start = (pages[0] - 1) * size
            assert start <= offset and offset + limit <= start + size <= PAGING_LIMIT


def test_windows_past_the_paging_limit_need_cursors():
    assert page_plan(PAGING_LIMIT - 10, 20) is None
    assert page_plan(0, 100) == (100, [1])


def test_a_window_larger_than_a_page_takes_several():
    size, pages = page_plan(150, 450)
    assert size * len(pages) >= 450 and (pages[0] - 1) * size <= 150 and pages[-1] * size >= 600
