"""A set's settings and blind dual screening through the tools, on SQLite and PostgreSQL: criteria
and highlight terms stored with the set and shared by its reviewers (ranking uses the stored
criteria), blind screening enforced by the server (each reviewer sees only their own decisions,
no conflict is reported or listed) until it is turned off, then the conflicts and the agreement
(percent and Cohen's kappa) per pair of reviewers."""

from __future__ import annotations

import pytest

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install
from support.tool_calls import answered, refused

pytestmark = pytest.mark.anyio


@pytest.fixture
def runtime(fake, review_runtime):
    install(fake, Literature.build(pubmed=40, europepmc=0), set())
    return review_runtime(EUROPEPMC_ENABLED="false", UNPAYWALL_ENABLED="false")


def decide(keys, decisions):
    return [{"id": k, "stage": "title_abstract", "decision": d} for k, d in zip(keys, decisions, strict=True)]


async def test_settings_are_stored_with_the_set_and_changed_field_by_field(runtime):
    async with runtime as rt:
        await answered(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        unranked = await answered(rt, "review_records", set="s", order="priority", undecided=True)
        assert unranked.data["ranking"] == "none"  # neither query nor criteria words rank these yet
        empty = await answered(rt, "review_sets", action="settings", set="s")
        assert empty.data["settings"] == {
            "criteria": "",
            "includeTerms": [],
            "excludeTerms": [],
            "blind": False,
        }
        await answered(
            rt,
            "review_sets",
            action="settings",
            set="s",
            criteria="Insulin in children",
            includeTerms=[" steroid", "trial", "steroid"],
        )
        changed = await answered(rt, "review_sets", action="settings", set="s", excludeTerms=["erratum"])
        assert changed.data["settings"] == {
            "criteria": "Insulin in children",
            "includeTerms": ["steroid", "trial"],
            "excludeTerms": ["erratum"],
            "blind": False,
        }
        assert "Inclusion terms: steroid, trial" in changed.text and "Insulin in children" in changed.text
        ranked = await answered(rt, "review_records", set="s", order="priority", undecided=True)
        assert ranked.data["ranking"] == "similarity", ranked.data.get("notice")  # the stored criteria
        assert "insulin" in ranked.data["records"][0]["title"]
        err = await refused(rt, "review_sets", action="settings", set="absent", blind=True)
        assert err.kind == "unknown_set"


async def test_blind_screening_hides_each_reviewers_decisions_until_turned_off(runtime):
    async with runtime as rt:
        await answered(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = [r["key"] for r in (await answered(rt, "review_records", set="s", limit=10)).data["records"]]
        await answered(rt, "review_sets", action="settings", set="s", blind=True)
        alice = ["include", "include", "exclude", "exclude", "include", "exclude"]
        bob = ["include", "exclude", "exclude", "exclude", "exclude", "exclude"]
        await answered(rt, "review_screen", set="s", reviewer="alice", decisions=decide(keys[:6], alice))
        second = await answered(rt, "review_screen", set="s", reviewer="bob", decisions=decide(keys[:6], bob))
        assert second.data["conflicts"] == [] and second.data["conflictsInSet"] is None
        assert "blind" in second.data["notice"]

        seen = await answered(rt, "review_records", set="s", reviewer="bob", limit=10)
        shown = {d["reviewer"] for r in seen.data["records"] for d in r["decisions"] or []}
        assert shown == {"bob"}
        anyone = await answered(rt, "review_records", set="s", limit=10)
        assert not any(r.get("decisions") for r in anyone.data["records"])
        for args in ({"conflicts": True}, {"decision": "include"}):
            err = await refused(rt, "review_records", set="s", **args)
            assert err.kind == "blinded" and "blind=false" in err.recovery and not err.retryable
        mine = await answered(rt, "review_records", set="s", reviewer="bob", decision="include")
        assert [r["key"] for r in mine.data["records"]] == [keys[0]]
        queue = await answered(
            rt, "review_records", set="s", reviewer="bob", undecided=True, order="priority"
        )
        assert set(keys[:6]).isdisjoint(r["key"] for r in queue.data["records"])

        await answered(rt, "review_sets", action="settings", set="s", blind=False)
        listed = await answered(rt, "review_records", set="s", conflicts=True)
        assert [r["key"] for r in listed.data["records"]] == [keys[1], keys[4]]
        (pair,) = listed.data["agreement"]
        # 4 of 6 agree; chance: alice 3/6 include, bob 1/6 include -> pe = (3*1 + 3*5) / 36 = 0.5
        assert pair == {
            "reviewers": ["alice", "bob"],
            "both": 6,
            "agreed": 4,
            "percent": 66.7,
            "kappa": 0.333,
        }
        assert "Cohen's kappa 0.33" in listed.text
