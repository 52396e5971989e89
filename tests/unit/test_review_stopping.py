"""The stopping rule beside the ranked test (issue 51; plugins/review/screening/stopping.py, knee.py,
stopping_sample.py): the knee of the gain curve advises, never guarantees; from the first time it
fires, the random sample of the records then unscreened is stated (its size, its records, the
same on every call) and its verdict turns safeToStop true only when it rejects 'recall < 95%'."""

from __future__ import annotations

import random

from medlit.plugins.review.screening import knee, stopping, stopping_sample

FEW = [[True] * 10] * 2  # 20 includes first, then excludes


def keys_for(total: int, batches: list[list[bool]], seed: str = "set:1") -> stopping.Keys:
    screened = sum(len(b) for b in batches)
    return stopping.Keys(list(range(total)), list(range(screened)), seed)


def test_the_knee_waits_for_its_run_of_excludes():
    # 20 includes, then excludes: the knee is at 20; it may fire only after TAIL excludes in a row
    for excludes in range(0, knee.TAIL, 10):
        assert knee.first(FEW + [[False] * 10] * (excludes // 10)) is None
    assert knee.first(FEW + [[False] * 10] * (knee.TAIL // 10)) == 20 + knee.TAIL
    # an include every 50 records keeps the yield up: never fires, however long it goes on
    steady = [[True] + [False] * 49] * 40
    assert knee.first([[True] * 10, *steady]) is None


def test_the_knee_advises_without_a_guarantee_and_states_the_sample():
    history = FEW + [[False] * 10] * 40  # 420 screened of 1,000; the knee fired at 150
    bare = stopping.estimate(1000, history)
    assert bare.advised and bare.basis == "knee" and not bare.safe_to_stop
    assert bare.p_value is not None and bare.p_value >= 0.05 and "heuristic" in bare.advice
    e = stopping.estimate(1000, history, keys=keys_for(1000, history))
    assert e.basis == "knee" and not e.safe_to_stop and e.sample_size > 0
    # the sample is drawn from the 850 records unscreened when the knee fired, some of them since
    # screened in priority order (they count as sample records already decided)
    urn = set(range(150, 1000))
    assert (
        set(e.sample_keys) <= urn - set(range(420))
        and len(e.sample_keys) == e.sample_size - e.sample_screened
    )
    # two includes unseen among 850 break 95% recall; a sample finds neither with p < 0.04 (the
    # level spent on a sample without include) only from about 0.8 of the urn: the answer states the cost
    assert 0.75 * 850 < e.sample_size < 0.85 * 850
    assert f"{e.sample_size:,}" in e.advice and "no assumption about the ranking" in e.advice
    # the same records on every call, and another set draws others
    assert stopping.estimate(1000, history, keys=keys_for(1000, history)).sample_keys == e.sample_keys
    assert (
        stopping.estimate(1000, history, keys=keys_for(1000, history, "set:2")).sample_keys != e.sample_keys
    )


def test_screening_the_sample_without_an_include_gives_the_guarantee():
    history = FEW + [[False] * 10] * 13  # the knee fires at 150
    first = stopping.estimate(1000, history, keys=keys_for(1000, history))
    todo = list(first.sample_keys)
    screened = list(range(150))
    batches = [list(b) for b in history]
    for i in range(0, len(todo), 10):  # served first, 10 a page, all excludes
        # the run of 130 excludes in priority order is long beside the 850 left, but the ranked test
        # is far from 60% confidence: the knee fired (the sample is offered), no advice yet
        during = stopping.estimate(1000, batches, keys=stopping.Keys(range(1000), screened, "set:1"))
        assert during.basis is None and not during.advised and "not yet advised" in during.advice
        page = todo[i : i + 10]
        screened += page
        batches.append([False] * len(page))
    done = stopping.estimate(1000, batches, keys=stopping.Keys(range(1000), screened, "set:1"))
    assert done.safe_to_stop and done.basis == "random sample" and not done.sample_keys
    assert done.screened == 150 + first.sample_size and done.sample_screened == first.sample_size


def test_an_include_in_the_sample_makes_it_larger_and_holds_the_stop():
    history = FEW + [[False] * 10] * 13
    first = stopping.estimate(1000, history, keys=keys_for(1000, history))
    one = first.sample_keys[0]
    batches = [*history, [True]]
    grown = stopping.estimate(1000, batches, keys=stopping.Keys(range(1000), [*range(150), one], "set:1"))
    assert grown.sample_includes == 1 and grown.sample_size > first.sample_size and not grown.safe_to_stop
    assert "made it larger" in grown.advice


def test_a_record_without_text_holds_the_knee_but_not_the_sample():
    history = FEW + [[False] * 10] * 13
    held = stopping.estimate(1000, history, unranked=1, keys=keys_for(1000, history))
    assert not held.advised and held.basis is None and held.sample_size > 0
    assert "records without title/abstract text" in held.advice


def test_before_the_knee_no_sample_is_asked_for():
    history = FEW + [[False] * 10] * 5
    e = stopping.estimate(1000, history, keys=keys_for(1000, history))
    assert not e.advised and e.sample_size == 0 and e.sample_keys == () and e.advice.startswith("Not yet")


def test_the_ranked_test_still_stops_on_its_own():
    # many includes found, then a long run of excludes: the test rejects before any sample
    history = [[True] * 10] * 10 + [[False] * 10] * 40
    e = stopping.estimate(1000, history, keys=keys_for(1000, history))
    assert e.safe_to_stop and e.basis == "ranked test" and e.advised


def test_the_sample_test_keeps_its_level_when_recall_is_below_95_percent():
    # 20 includes found before the knee and two left among 850 (recall 20/22 < 95%), placed at
    # random: the guaranteed stop (the whole sample screened, no include in it) comes in at most
    # 4% of placements (the level spent on k = 0)
    size = stopping_sample.size_needed(850, 20, 20, 0)
    rng = random.Random(7)
    wrong = 0
    trials = 2000
    for _ in range(trials):
        missed = set(rng.sample(range(850), 2))
        drawn = set(rng.sample(range(850), size))
        wrong += not (missed & drawn)
    assert wrong / trials <= 0.04 + 0.015
    assert (
        stopping_sample.p_value(850, 20, 20, size, 0)
        < 0.04
        <= stopping_sample.p_value(850, 20, 20, size - 1, 0)
    )


def test_the_levels_add_up_to_five_percent():
    assert abs(sum(stopping_sample.level(k) for k in range(60)) - 0.05) < 1e-12


def test_the_draw_order_is_fixed_and_blind_to_labels():
    a = stopping_sample.order("set:1", list(range(50)))
    assert a == stopping_sample.order("set:1", list(reversed(range(50)))) and sorted(a) == list(range(50))
    assert a != list(range(50))


def test_an_include_read_in_the_sample_keeps_counting_when_more_are_found_elsewhere():
    # the first sample record is an include; then three more includes turn up among the other
    # records (screened by priority): a larger null hypothesis asks for a smaller sample, but the
    # sample never shrinks below what was read of it, so its include still counts (when it did,
    # a simulated run stopped 'guaranteed' at 78% recall)
    history = FEW + [[False] * 10] * 13
    first = stopping.estimate(1000, history, keys=keys_for(1000, history))
    one = first.sample_keys[0]
    elsewhere = [k for k in range(150, 1000) if k not in first.sample_keys][:3]
    screened = [*range(150), one, *elsewhere]
    batches = [*history, [True], [True] * 3]
    e = stopping.estimate(1000, batches, keys=stopping.Keys(range(1000), screened, "set:1"))
    assert e.sample_includes == 1 and e.includes_found == 24 and not e.safe_to_stop
    assert e.sample_keys[0] == first.sample_keys[1]  # the draw goes on where it stopped


def test_the_cheaper_route_is_served_and_a_begun_sample_stays_first():
    history = FEW + [[False] * 10] * 13  # the knee fires at 150, 850 left
    ranked = stopping.estimate(1000, history, keys=keys_for(1000, history))
    # the ranked test reuses the 130 excludes read: cheaper than the sample, served first
    assert ranked.ranked_to_go is not None and ranked.ranked_to_go < len(ranked.sample_keys)
    assert not ranked.sample_first and f"either {ranked.ranked_to_go:,} more records" in ranked.advice
    # a record without text holds the ranked test: the sample is the route
    held = stopping.estimate(1000, history, unranked=1, keys=keys_for(1000, history))
    assert held.sample_first and held.ranked_to_go is None
    # a page of the sample read, the record without text decided since: the sample stays first
    page = list(held.sample_keys[: stopping.SAMPLE_BEGUN])
    screened = [*range(150), *page]
    later = stopping.estimate(
        1000, [*history, [False] * len(page)], keys=stopping.Keys(range(1000), screened, "set:1")
    )
    assert (
        later.sample_first
        and later.ranked_to_go is not None
        and later.sample_keys[0] == held.sample_keys[len(page)]
    )
