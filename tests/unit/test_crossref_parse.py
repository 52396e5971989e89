"""Crossref's readers on the corpus's real recordings (skipped without the corpus) and on
hand-written answers for what the corpus lacks (``filter=updates:``, self-referencing notices)."""

from __future__ import annotations

import json

import pytest

from medlit.plugins.crossref.parse import (
    date_of,
    error_message,
    notices_of,
    parse_items,
    parse_single,
    parse_work,
    to_metadata,
    updates_of,
)
from medlit.plugins.crossref.service import concurrency, identify, pace_from

from support.corpus import corpus_bytes

W = "crossref/works/"


def load(rel: str):
    return json.loads(corpus_bytes(rel))


def test_wakefield_retraction_only_in_updated_by_from_retraction_watch():
    work = parse_single(load(W + "wakefield_1998_lancet_updated_by_rw_retraction.json"))
    assert work is not None and work.doi == "10.1016/s0140-6736(97)11096-0"
    m = work.metadata
    assert m.title and m.title.startswith("RETRACTED: Ileal-lymphoid-nodular hyperplasia")
    assert (m.volume, m.issue, m.first_page, m.last_page, m.year) == ("351", "9103", "637", "641", 1998)
    assert m.authors[0] == "Wakefield AJ" and m.container_title == "The Lancet" and m.kind == "article"
    got = {(n.type, n.doi, n.origin, n.date) for n in work.notices}
    assert got == {
        ("retraction", "10.1016/s0140-6736(10)60175-4", "retraction-watch", "2010-02-06"),
        ("correction", "10.1016/s0140-6736(04)15715-2", "retraction-watch", "2004-03-06"),
    }
    assert work.updates == []  # no update-to at all: the work is no notice itself


def test_mehra_both_fields_typed_differently_by_publisher_and_retraction_watch():
    work = parse_single(load(W + "mehra_2020_lancet_hcq_update_to_and_updated_by.json"))
    assert work is not None
    by_doi: dict[str, set[tuple[str, str]]] = {}
    for n in work.notices:
        by_doi.setdefault(n.doi or "", set()).add((n.label, n.origin))
    # the same notice: a retraction to Retraction Watch, an erratum to the publisher
    assert {("retraction", "retraction-watch"), ("erratum", "publisher")} <= by_doi[
        "10.1016/s0140-6736(20)31324-6"
    ]
    assert ("expression_of_concern", "retraction-watch") in by_doi["10.1016/s0140-6736(20)31290-3"]
    # the inverted publisher deposit (update-to on the article, naming its notices) counts for the article
    assert ("retraction", "publisher") in by_doi["10.1016/s0140-6736(20)31528-2"]
    assert len(by_doi) == 5
    assert work.metadata.volume is None and work.metadata.year == 2020


def test_clean_control_has_no_notices_and_reads_old_dates():
    work = parse_single(load(W + "watson_crick_1953_clean_control.json"))
    assert work is not None and work.notices == [] and work.updates == []
    m = work.metadata
    assert m.date == "1953-04-25" and m.first_author_family == "WATSON" and m.authors[0].startswith("WATSON")
    assert (m.volume, m.issue, m.first_page, m.last_page) == ("171", "4356", "737", "738")


def test_plos_correction_2026_and_the_2018_shape_without_it():
    new = parse_single(load(W + "pone_0033693_updated_by_correction_2026.json"))
    old = parse_single(load(W + "pone_0033693_2018_no_updated_by.json"))
    assert new is not None and old is not None
    assert [(n.type, n.origin) for n in new.notices] == [("correction", "publisher")]
    assert new.notices[0].doi and new.notices[0].doi.startswith("10.1371/annotation/")
    assert old.notices == [] and old.metadata.title == new.metadata.title
    assert new.metadata.first_page == "e33693" and new.metadata.last_page is None


def test_sparse_title_level_and_peer_review_records():
    sparse = parse_single(load(W + "ijo_00000353_sparse_record.json"))
    assert sparse is not None and sparse.metadata.authors and " " not in sparse.metadata.authors[0].strip()
    journal = parse_single(load(W + "journal_title_level_doi_10.1007_10452.json"))
    assert journal is not None and journal.metadata.year is None and journal.metadata.date is None
    assert journal.metadata.kind == "other" and journal.metadata.authors == ()
    review = parse_single(load(W + "peer_review_peerj_3819v0.1_reviews_2.json"))
    assert review is not None and review.metadata.kind == "other" and review.notices == []


def test_doi_filter_answer_is_out_of_request_order_with_zero_scores():
    works, total = parse_items(load("crossref/works_filter/filter_doi_three_dois_rows3.json"))
    assert total == 3
    assert works[0].doi == "10.1162/qss_a_00348"  # asked second
    assert {w.score for w in works} == {0.0}
    assert any(w.metadata.year is None for w in works)  # issued [[null]]


def test_bibliographic_answers_keep_rank_and_score():
    works, _ = parse_items(
        load("crossref/works_query_bibliographic/unstructured_ref_cermine_match_rows5.json")
    )
    assert works[0].doi == "10.1007/s10032-015-0249-8" and works[0].score == pytest.approx(167.67, abs=0.01)
    assert [w.score for w in works] == sorted((w.score for w in works), reverse=True)
    near, _ = parse_items(
        load("crossref/works_query_bibliographic/unstructured_ref_wrong_volume_nomatch_rows5.json")
    )
    assert near[0].score == pytest.approx(127.5, abs=0.01) and near[0].metadata.volume == "18"


def test_error_bodies_are_worded_from_their_json_or_text():
    assert (
        error_message(corpus_bytes("crossref/errors/works_404_resource_not_found.txt"))
        == "Resource not found."
    )
    msg = error_message(load("crossref/errors/works_400_validation_failure_query_with_doi.json"))
    assert msg.startswith("validation-failure:") and "field query parameters" in msg and "query.*" in msg
    cursor = error_message(load("crossref/errors/works_cursor_404_resource_failure_json.json"))
    assert cursor.startswith("resource-failure:") and "invalid" in cursor
    crash = error_message(load("crossref/errors/works_cursor_500_exception_stacktrace.json"))
    assert crash.startswith("exception:") and "stack" not in crash and len(crash) < 300


# -- hand-written: what the corpus lacks ---------------------------------------------------------------


def test_filter_updates_notice_names_what_it_updates():
    notice = {
        "DOI": "10.5555/NOTICE.1",
        "type": "journal-article",
        "title": ["Retraction notice"],
        "update-to": [
            {
                "DOI": "10.5555/Target.1",
                "type": "retraction",
                "source": "publisher",
                "updated": {"date-parts": [[2021, 3, 4]]},
            },
            {"DOI": "10.5555/target.2", "type": "partial_retraction", "updated": {"date-parts": [[2021]]}},
            {"DOI": "10.5555/target.3", "type": "some_future_type"},
        ],
    }
    got = updates_of(notice, "10.5555/notice.1")
    assert [(t, n.type, n.label, n.doi, n.date) for t, n in got] == [
        ("10.5555/target.1", "retraction", "retraction", "10.5555/notice.1", "2021-03-04"),
        ("10.5555/target.2", "partial_retraction", "partial_retraction", "10.5555/notice.1", "2021"),
    ]
    # the notice itself carries none: its update-to is about other records
    assert notices_of(notice, "10.5555/notice.1") == []


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("retraction", "retraction"),
        ("correction", "correction"),
        ("erratum", "erratum"),
        ("expression_of_concern", "expression_of_concern"),
        ("withdrawal", "withdrawal"),
        ("removal", "withdrawal"),
        ("partial_retraction", "partial_retraction"),  # not a correction, nor the whole work retracted
        ("new_version", "correction"),
        ("corrigendum", "correction"),
    ],
)
def test_every_crossref_update_type_folds_onto_the_six(label, kind):
    work = {"DOI": "10.5555/a", "updated-by": [{"DOI": "10.5555/n", "type": label, "source": "publisher"}]}
    (n,) = notices_of(work, "10.5555/a")
    assert (n.type, n.label) == (kind, label)


def test_a_record_naming_itself_as_its_new_version_is_no_notice():
    work = {
        "DOI": "10.5555/self",
        "update-to": [{"DOI": "10.5555/SELF", "type": "new_version"}],
        "updated-by": [
            {"DOI": "10.5555/self", "type": "new_version"},
            {"DOI": "10.5555/self", "type": "retraction"},
        ],
    }
    got = notices_of(work, "10.5555/self")
    assert [(n.type, n.doi) for n in got] == [("retraction", "10.5555/self")]


def test_malformed_items_and_dates_are_tolerated():
    assert date_of({"date-parts": [[None]]}) is None and date_of({"date-parts": [[2020, 13]]}) == "2020"
    assert date_of("2020") is None and date_of({"date-parts": [["2019", "2", "32"]]}) == "2019-02"
    assert parse_work({"title": ["no DOI"]}) is None and parse_work("x") is None
    m = to_metadata({"title": [], "author": [{"name": "The Consortium"}], "page": "e1234"}, "10.5555/x")
    assert m.title is None and m.authors == ("The Consortium",) and m.first_page == "e1234"
    with pytest.raises(ValueError):
        parse_items({"status": "ok", "message": {"items": "nope"}})


def test_pacing_follows_the_announced_rate_and_the_pool_sets_concurrency():
    assert pace_from({"X-Rate-Limit-Limit": "50", "X-Rate-Limit-Interval": "1s"}) == 50.0
    assert pace_from({"x-rate-limit-limit": "100", "x-rate-limit-interval": "2s"}) == 50.0
    assert pace_from({"x-rate-limit-limit": "5", "x-rate-limit-interval": "500ms"}) == 10.0
    assert pace_from({"x-rate-limit-limit": "50"}) is None
    assert pace_from({"x-rate-limit-limit": "lots", "x-rate-limit-interval": "1s"}) is None
    assert identify({"CROSSREF_EMAIL": "me@example.org"}) == {"mailto": "me@example.org"}
    assert identify({"CROSSREF_EMAIL": None}) == {}
    assert concurrency({"CROSSREF_EMAIL": "me@example.org"}) == 3 and concurrency({}) == 1
