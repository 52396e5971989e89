"""Percent agreement and Cohen's kappa between reviewers (plugins/review/screening/agreement.py)."""

from __future__ import annotations

from medlit.plugins.review.screening.agreement import agreement
from medlit.plugins.review.store import Decision


def d(record: int, reviewer: str, decision: str, stage: str = "title_abstract") -> Decision:
    return Decision(record, stage, reviewer, decision, None, None, "2026-01-01T00:00:00Z")


def test_kappa_of_a_textbook_table():
    # 50 records: both include 20, both exclude 15, a-include/b-exclude 5, a-exclude/b-include 10
    table = [("include", "include")] * 20 + [("exclude", "exclude")] * 15
    table += [("include", "exclude")] * 5 + [("exclude", "include")] * 10
    rows = [d(i, "a", x) for i, (x, _) in enumerate(table)] + [d(i, "b", y) for i, (_, y) in enumerate(table)]
    (pair,) = agreement(rows, "title_abstract")
    # po = 0.7; pe = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = 0.4
    assert (pair.reviewers, pair.both, pair.agreed, pair.percent, pair.kappa) == (
        ("a", "b"),
        50,
        35,
        70.0,
        0.4,
    )


def test_only_records_both_decided_at_the_stage_count_and_final_is_no_reviewer():
    rows = [
        d(1, "a", "include"),
        d(1, "b", "include"),
        d(2, "a", "exclude"),  # b never decided 2
        d(3, "b", "exclude", "full_text"),
        d(3, "a", "include", "full_text"),
        d(1, "final", "exclude"),
    ]
    (pair,) = agreement(rows, "title_abstract")
    assert (pair.both, pair.agreed, pair.percent) == (1, 1, 100.0)
    assert pair.kappa is None  # one category only: chance agreement is total, kappa undefined
    (full,) = agreement(rows, "full_text")
    assert (full.both, full.agreed, full.kappa) == (1, 0, 0.0)  # agreement no better than chance


def test_three_reviewers_give_three_pairs_and_no_overlap_gives_none():
    rows = [d(1, r, "include") for r in ("c", "a", "b")] + [d(2, "a", "exclude"), d(2, "b", "include")]
    assert [p.reviewers for p in agreement(rows, "title_abstract")] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert agreement([d(1, "a", "include"), d(2, "b", "include")], "title_abstract") == []
