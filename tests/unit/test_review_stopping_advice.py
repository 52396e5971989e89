"""The advised stop (issue 51; plugins/review/screening/stopping_advice.py): the knee of the gain
curve confirmed by a run of excludes long beside the records left and by the ranked test at 60%
confidence. A review whose model misses includes for hundreds of records is not advised to stop
where the knee alone would have; one whose includes are found is, without a guarantee."""

from __future__ import annotations

from medlit.plugins.review.screening import knee, stopping, stopping_advice


def flags_of(total: int, includes: list[int], read: int) -> list[bool]:
    """The include flags of the first ``read`` records in priority order (includes at those places)."""
    at = set(includes)
    return [i in at for i in range(min(read, total))]


def batches_of(flags: list[bool]) -> list[list[bool]]:
    """Two records to start, then pages of 10, as a review is screened."""
    return [flags[:2]] + [flags[i : i + 10] for i in range(2, len(flags), 10)]


def first_advice(total: int, includes: list[int]) -> int | None:
    """Records read at the end of the first page where stopping is advised (``None``: never)."""
    flags = flags_of(total, includes, total)
    read = 0
    for page in batches_of(flags):
        read += len(page)
        if read >= total:
            return None
        p = stopping.ranked_test(total, batches_of(flags[:read])).p_value
        if stopping_advice.advised(flags[:read], total - read, p):
            return read
    return None


# a simulated run on SkeletalMuscleRelaxants (Cohen et al.; 1,643 records, 9 includes): the model
# found 4 in its first 116 records, then one at 553 and the last four after 1,000
HARD = (1643, [0, 53, 109, 115, 553, 1019, 1126, 1195, 1203])
# ProtonPumpInhibitors (1,333 records, 51 includes): 40 found by 306, the next at 503
STRAGGLING = (
    1333,
    [
        *(0, 3, 4, 7, 9, 10, 11, 14, 19, 20, 21, 25, 27, 30, 31, 33, 34, 35, 36, 38, 40, 42, 44, 47, 49),
        *(52, 54, 55, 69, 70, 72, 74, 77, 158, 162, 164, 172, 215, 260, 305, 503, 556, 581, 585, 597),
        *(616, 642, 661, 668, 704, 709),
    ],
)
# ADHD (851 records, 20 includes): 19 found by 167, the last at 354
EASY = (851, [0, 2, 9, 12, 13, 15, 18, 19, 22, 25, 30, 33, 34, 46, 80, 89, 90, 132, 166, 354])


def recall_at(review: tuple[int, list[int]], read: int | None) -> float:
    total, includes = review
    return sum(1 for i in includes if i < (total if read is None else read)) / len(includes)


def test_a_hard_review_is_not_advised_to_stop_where_the_knee_alone_would():
    for total, includes in (HARD, STRAGGLING):
        flags = flags_of(total, includes, total)
        alone = knee.first(batches_of(flags))
        # the knee alone fired after 4 of 9 includes, and after 40 of 51
        assert alone is not None and recall_at((total, includes), alone) < 0.8
        at = first_advice(total, includes)
        assert at is None or recall_at((total, includes), at) >= 0.95, (total, at)


def test_a_review_whose_includes_are_found_is_advised_without_a_guarantee():
    total, includes = EASY
    at = first_advice(total, includes)
    assert at is not None and recall_at(EASY, at) >= 0.95
    flags = flags_of(total, includes, at)
    e = stopping.estimate(total, batches_of(flags))
    assert e.advised and e.basis == "knee" and not e.safe_to_stop
    assert "no statistical guarantee" in e.advice and f"{stopping_advice.LEFT_SHARE:.0%}" in e.advice
    # the ranked route's cost is stated even before the sample is offered
    assert e.ranked_to_go is not None and e.ranked_to_go > 0
    assert f"screen {e.ranked_to_go:,} more records in priority order" in e.advice


def test_the_run_must_be_long_beside_the_records_left():
    # 20 includes, then 150 excludes: the knee fires and the run is long enough among 400 records
    # (230 left), not among 2,000 (1,830 left, of which 15% is 275); the ranked test near 60% confidence
    flags = [True] * 20 + [False] * 150
    short = stopping.ranked_test(400, [flags]).p_value
    long = stopping.ranked_test(2000, [flags]).p_value
    assert knee.fires(flags, knee.RATIO, knee.MIN_SCREENED, stopping_advice.RUN)
    assert stopping_advice.advised(flags, 230, short)
    assert not stopping_advice.advised(flags, 1830, long)
    # the same run with a p-value at the level, or shorter than the least run: not advised
    assert not stopping_advice.advised(flags, 230, stopping_advice.LEVEL)
    assert not stopping_advice.advised(flags[: 20 + stopping_advice.RUN - 10], 230, short)


def test_the_run_of_excludes_counts_from_the_last_include():
    assert stopping_advice.run_of_excludes([True, False, False]) == 2
    assert stopping_advice.run_of_excludes([False, True]) == 0
    assert stopping_advice.run_of_excludes([False] * 3) == 3


def test_an_include_found_by_the_sample_restarts_the_run():
    # 20 includes, then 400 excludes in priority order of 1,000: advised on the knee; the sample is
    # offered (drawn from the records unscreened when the knee fired at 150)
    history = [[True] * 10] * 2 + [[False] * 10] * 40
    keys = stopping.Keys(range(1000), range(420), "set:1")
    before = stopping.estimate(1000, history, keys=keys)
    assert before.advised and before.basis == "knee" and before.sample_size > 0
    # a page of the sample read (its records in draw order), its first record an include: evidence
    # against the advice's assumption, so the run starts again from it
    page = list(before.sample_keys[:10])
    after = stopping.estimate(
        1000,
        [*history, [True] + [False] * 9],
        keys=stopping.Keys(range(1000), [*range(420), *page], "set:1"),
    )
    assert after.sample_includes == 1 and not after.advised and after.basis is None
