"""Screening in priority order (issue 34) against the fake, on SQLite and on PostgreSQL (skipped,
with the reason, when no server is reachable): the ranking puts the includes' kind first once an
include and an exclude are known, ranks by the criteria before that (and says when nothing tells
the records apart), ranks the same whatever reviewer, order or replica the same decisions came
through, survives a restart, and every priority page
carries the stopping estimate, which does not allow stopping early. The search log and the PRISMA
diagram carry the stopping rule.

The generated papers' first topic word is ``WORDS[n % 10]`` ("migraine" for n = 9, 19, ...): the
tests' includes are the migraine papers."""

from __future__ import annotations

import functools

import pytest

from medlit.plugins.review.screening import priority
from medlit.testing import check_structured, tool_definitions

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install

pytestmark = pytest.mark.anyio

ENV = {"EUROPEPMC_ENABLED": "false", "UNPAYWALL_ENABLED": "false"}
PAPERS = 100
BASE = 30_000_000  # review_routes.paper: PMID = BASE + n


def n_of(record) -> int:
    return int(record["pmid"]) - BASE


def migraine(record) -> bool:
    return n_of(record) % 10 == 9


@pytest.fixture
def runtime_for(fake, review_runtime):
    install(fake, Literature.build(pubmed=PAPERS, europepmc=0), set())
    return functools.partial(review_runtime, **ENV)


async def call(rt, tool, **args):
    out = await rt.call(tool, args)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == tool).output_schema
    check_structured(out.data, schema)
    return out.data


async def by_n(rt, name="s"):
    records = (await call(rt, "review_records", set=name, limit=200))["records"]
    return {n_of(r): r["key"] for r in records if r.get("pmid")}


def migraine_papers_lead(records) -> bool:
    """Whether the eight undecided papers *on* migraine ("of migraine & ...") lead every paper that
    does not mention it (those "of ... & migraine", n // 10 == 9, may come between), once 9 and 19
    are included."""
    ranked = [n_of(r) for r in records]
    first_other = next(i for i, n in enumerate(ranked) if n % 10 != 9 and n // 10 != 9)
    return sorted(n for n in ranked[:first_other] if n % 10 == 9) == [29, 39, 49, 59, 69, 79, 89, 99]


def item(key, decision):
    return {"id": key, "stage": "title_abstract", "decision": decision}


async def test_decisions_move_the_includes_kind_first(runtime_for):
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = await by_n(rt)
        before = await call(rt, "review_records", set="s", order="priority", limit=9)
        decided = [item(keys[9], "include"), item(keys[19], "include")]
        decided += [item(keys[n], "exclude") for n in (0, 1, 11)]
        await call(rt, "review_screen", set="s", decisions=decided)
        after = await call(rt, "review_records", set="s", order="priority", limit=12)
        key_order = await call(rt, "review_records", set="s", undecided=True, limit=8)
    # before any decision the query's words are all there is, and every paper carries them
    # ("synthetic trial"): they tell no record from another, so the page says it is not ranked
    assert before["ranking"] == "none" and "Cannot rank yet" in before["notice"]
    assert [r.get("score") for r in before["records"]] == [None] * 9
    assert [r["key"] for r in before["records"]] == sorted(keys.values())[:9]
    assert after["ranking"] == "classifier" and after["total"] == PAPERS - 5
    # the eight other papers on migraine lead, each with a score, best first
    assert migraine_papers_lead(after["records"])
    scores = [r["score"] for r in after["records"]]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    # in key order the first eight undecided records hold none of them
    assert not any(migraine(r) for r in key_order["records"])


async def test_criteria_rank_before_any_decision(runtime_for):
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        out = await call(
            rt, "review_records", set="s", order="priority", limit=10, criteria="Trials of migraine treatment"
        )
    assert out["ranking"] == "similarity" and "and criteria" in out["notice"]
    assert all(migraine(r) for r in out["records"])


async def test_reviewers_and_order_of_the_same_decisions_rank_the_same(runtime_for):
    async with runtime_for() as rt:
        for name in ("one", "two"):
            await call(rt, "review_search", set=name, queries={"pubmed": PUBMED_QUERY})
        one, two = await by_n(rt, "one"), await by_n(rt, "two")
        # set one: one reviewer, includes first
        await call(
            rt,
            "review_screen",
            set="one",
            decisions=[item(one[9], "include"), item(one[19], "include"), item(one[0], "exclude")],
        )
        await call(rt, "review_screen", set="one", decisions=[item(one[3], "exclude")])
        # set two: the same reconciled decisions from two reviewers, in another order, one of them
        # a conflict a final decision settles the same way
        await call(rt, "review_screen", set="two", reviewer="Dr Lee", decisions=[item(two[3], "exclude")])
        await call(
            rt,
            "review_screen",
            set="two",
            reviewer="model",
            decisions=[item(two[0], "exclude"), item(two[19], "include"), item(two[9], "exclude")],
        )
        await call(rt, "review_screen", set="two", reviewer="Dr Lee", decisions=[item(two[9], "include")])
        await call(rt, "review_screen", set="two", reviewer="final", decisions=[item(two[9], "include")])
        a = await call(rt, "review_records", set="one", order="priority", limit=200)
        b = await call(rt, "review_records", set="two", order="priority", limit=200)
    assert [(n_of(r), r["score"]) for r in a["records"]] == [(n_of(r), r["score"]) for r in b["records"]]
    assert a["total"] == b["total"] == PAPERS - 4


async def test_the_ranking_survives_a_restart(runtime_for):
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = await by_n(rt)
        await call(
            rt, "review_screen", set="s", decisions=[item(keys[29], "include"), item(keys[4], "exclude")]
        )
        first = await call(rt, "review_records", set="s", order="priority", limit=50)
    priority._CACHE.clear()  # a new process: nothing of the features kept
    async with runtime_for() as rt:
        again = await call(rt, "review_records", set="s", order="priority", limit=50)
    assert [(r["key"], r["score"]) for r in again["records"]] == [
        (r["key"], r["score"]) for r in first["records"]
    ]
    assert again["screeningEstimate"] == first["screeningEstimate"]


async def test_two_replicas_on_one_store_rank_alike(runtime_for):
    """Two servers on the same store (PostgreSQL for a fleet), each taking some of the decisions
    and each with features of its own: both rank the set the same, scores included."""
    async with runtime_for() as one, runtime_for() as two:
        await call(one, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = await by_n(two)
        # the decisions of test_decisions_move_the_includes_kind_first, split between the two
        await call(
            one, "review_screen", set="s", decisions=[item(keys[9], "include"), item(keys[0], "exclude")]
        )
        await call(
            two,
            "review_screen",
            set="s",
            decisions=[item(keys[19], "include"), item(keys[1], "exclude"), item(keys[11], "exclude")],
        )
        priority._CACHE.clear()
        a = await call(one, "review_records", set="s", order="priority", limit=200)
        priority._CACHE.clear()  # the second replica fits its own features, as another process would
        b = await call(two, "review_records", set="s", order="priority", limit=200)
    assert a["ranking"] == b["ranking"] == "classifier"
    assert a["screeningEstimate"]["screened"] == b["screeningEstimate"]["screened"] == 5
    assert [(r["key"], r["score"]) for r in a["records"]] == [(r["key"], r["score"]) for r in b["records"]]
    assert migraine_papers_lead(a["records"])  # both replicas' decisions counted


async def test_every_priority_page_carries_the_estimate_and_early_is_not_safe(runtime_for):
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = await by_n(rt)
        empty = await call(rt, "review_records", set="s", order="priority", limit=5)
        await call(
            rt,
            "review_screen",
            set="s",
            decisions=[item(keys[9], "include"), item(keys[0], "exclude"), item(keys[1], "maybe")],
        )
        page = await call(rt, "review_records", set="s", order="priority", limit=5)
        keyed = await call(rt, "review_records", set="s", limit=5)
        svg = await call(rt, "review_prisma", set="s", format="json")
        log, err = await rt.read_resource("review://sets/s/log")
    assert err is None
    assert empty["screeningEstimate"]["screened"] == 0 and empty["screeningEstimate"]["safeToStop"] is False
    est = page["screeningEstimate"]
    # the maybe counts as an include until it is settled (the cautious side)
    assert (est["screened"], est["includesFound"], est["safeToStop"]) == (3, 2, False)
    assert est["remainingIncludes"]["upper95"] >= est["remainingIncludes"]["estimate"] >= 0
    assert est["pValue"] > 0.05 and "Callaghan" in est["method"]
    assert 0 < est["recallEstimate"] <= 1
    assert keyed.get("screeningEstimate") is None and keyed.get("ranking") is None
    assert "Stopping rule" in svg["stopping"] and "not yet safe to stop" in svg["stopping"]
    assert "## Title/abstract screening and its stopping rule" in log and "3 records screened" in log


async def test_priority_refuses_filters_it_cannot_honour(runtime_for):
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        out = await rt.call("review_records", {"set": "s", "order": "priority", "decision": "include"})
    assert out.is_error and "order='priority'" in out.text


TEXTLESS_RIS = "TY  - JOUR\nAU  - Doe, Jane\nPY  - 2001\nJO  - Headache\nDO  - 10.5555/no-text.1\nER  - \n"


async def test_a_record_without_text_holds_the_stop_until_it_is_decided(runtime_for):
    """The same screening, with and without one imported record that has no title or abstract: it
    is safe to stop without it; with it, not until it is decided (the bench's Opiods fault). The
    calls follow each other within a second or so: each is still a batch of its own, in the order
    made (stamped to the microsecond), or the includes would not come first."""
    async with runtime_for() as rt:
        for name in ("plain", "with"):
            await call(rt, "review_search", set=name, queries={"pubmed": PUBMED_QUERY})
        await call(rt, "review_import", set="with", database="Embase", content=TEXTLESS_RIS, format="ris")
        pages = {}
        for name in ("plain", "with"):
            keys = await by_n(rt, name)
            # every include first, then 88 of the 90 excludes in four batches: two papers left
            await call(
                rt, "review_screen", set=name, decisions=[item(keys[n], "include") for n in range(9, 100, 10)]
            )
            others = [n for n in range(PAPERS) if n % 10 != 9][:88]
            for i in range(0, 88, 22):
                batch = [item(keys[n], "exclude") for n in others[i : i + 22]]
                await call(rt, "review_screen", set=name, decisions=batch)
            pages[name] = await call(rt, "review_records", set=name, order="priority", limit=10)
        textless = next(r["key"] for r in pages["with"]["records"] if not r.get("pmid"))
        await call(rt, "review_screen", set="with", decisions=[item(textless, "exclude")])
        decided = await call(rt, "review_records", set="with", order="priority", limit=10)
    plain, held = pages["plain"]["screeningEstimate"], pages["with"]["screeningEstimate"]
    assert plain["safeToStop"] is True and (plain["screened"], plain["includesFound"]) == (98, 10)
    assert held["safeToStop"] is False and (held["screened"], held["includesFound"]) == (98, 10)
    assert held["remainingIncludes"]["upper95"] >= 1
    assert "1 record(s) without title/abstract text" in pages["with"]["notice"]
    # in the tail (30 excludes in a row), the record without text comes first, unscored
    first, *others = pages["with"]["records"]
    assert pages["with"]["total"] == 3 and first["key"] == textless and first.get("score") is None
    assert all(r.get("score") is not None for r in others) and "listed first" in pages["with"]["notice"]
    assert decided["screeningEstimate"]["safeToStop"] is True and decided["total"] == 2


async def test_features_are_fitted_after_the_import_not_on_the_first_priority_page(runtime_for, monkeypatch):
    """A set whose records changed (an import done, a merge ruled) has its ranking features fitted
    in the background, so the first priority page does not pay for them (tens of seconds near the
    record cap); a page asked for meanwhile waits for that fit instead of making its own."""
    import asyncio

    from medlit.plugins.review.screening import ranking

    monkeypatch.setattr(ranking, "WARM_MIN_RECORDS", 10)  # the fake's 100 papers count as large
    fits: list[int] = []
    real_fit = priority.fit
    monkeypatch.setattr(priority, "fit", lambda texts: fits.append(len(texts)) or real_fit(texts))

    async def fitted(n: int) -> None:  # wait until the background has made n fits (60 s at most)
        for _ in range(1200):
            if len(fits) >= n:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{len(fits)} fit(s) after 60 s, {n} expected")

    priority._CACHE.clear()
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        await fitted(1)  # nobody asked for a ranking: the import's end did
        keys = await by_n(rt)
        await call(
            rt, "review_screen", set="s", decisions=[item(keys[9], "include"), item(keys[0], "exclude")]
        )
        warm = await call(rt, "review_records", set="s", order="priority", limit=20)
        assert fits == [PAPERS]  # the page used the warmed features
        await call(rt, "review_merge", set="s", action="join", keys=[keys[1], keys[2]])
        await fitted(2)  # the merge changed the records: fitted again, in the background
        assert fits == [PAPERS, PAPERS - 1]
        again = await call(rt, "review_records", set="s", order="priority", limit=20)
        assert len(fits) == 2
    assert warm["ranking"] == again["ranking"] == "classifier"
    priority._CACHE.clear()  # the warmed features rank as a cold fit does
    async with runtime_for() as rt:
        cold = await call(rt, "review_records", set="s", order="priority", limit=20)
    assert [(r["key"], r["score"]) for r in cold["records"]] == [
        (r["key"], r["score"]) for r in again["records"]
    ]


async def test_the_tail_follows_the_stored_order_of_screening(runtime_for, monkeypatch):
    """rank_set tells the model whether screening is in its tail (no include among the last 30
    records screened), from the decisions' stored order: one review_screen call is one batch."""
    seen: list[bool] = []
    real_ranked = priority.ranked  # (every ranking: over features fitted now or known already)

    def spy(feats, labels, candidates, topic="", tail=False):
        seen.append(tail)
        return real_ranked(feats, labels, candidates, topic, tail)

    monkeypatch.setattr(priority, "ranked", spy)
    plain = [n for n in range(PAPERS) if n % 10 != 9]
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = await by_n(rt)
        await call(
            rt, "review_screen", set="s", decisions=[item(keys[9], "include"), item(keys[0], "exclude")]
        )
        await call(rt, "review_screen", set="s", decisions=[item(keys[n], "exclude") for n in plain[1:31]])
        await call(rt, "review_records", set="s", order="priority", limit=5)  # 30 after the start: not yet
        await call(rt, "review_screen", set="s", decisions=[item(keys[plain[31]], "exclude")])
        await call(rt, "review_records", set="s", order="priority", limit=5)  # 31: the tail
        await call(rt, "review_screen", set="s", decisions=[item(keys[19], "include")])
        await call(rt, "review_records", set="s", order="priority", limit=5)  # an include: out of it
    assert seen == [False, True, False]
