"""Living searches: ``review_search`` with ``update`` re-runs the set's searches as a new run,
counts what is new since the last run, keeps every decision, and flags an earlier include the
searches no longer retrieve."""

from __future__ import annotations

import pytest

from medlit.testing import check_structured, tool_definitions

from support.review_routes import PUBMED_QUERY, Literature, install, paper

pytestmark = pytest.mark.anyio


def month_later(rt) -> None:
    """The PubMed source keeps a query's History handle for 30 minutes: a month later it is gone."""
    rt.context("ncbi").keep("ncbi.review.history", dict).clear()


async def call(rt, tool, **args):
    out = await rt.call(tool, args)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == tool).output_schema
    check_structured(out.data, schema)
    return out.data


async def test_an_update_adds_what_is_new_keeps_decisions_and_flags_a_dropped_include(fake, review_runtime):
    lit = install(fake, Literature.build(pubmed=6, europepmc=0))
    papers = lit.pubmed[PUBMED_QUERY]
    async with review_runtime() as rt:
        first = await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        assert first["total"] == 6
        records = (await call(rt, "review_records", set="s", limit=50))["records"]
        key_of = {r["pmid"]: r["key"] for r in records}
        kept, dropped = key_of[papers[0].pmid], key_of[papers[1].pmid]
        decisions = [{"id": k, "stage": "title_abstract", "decision": "include"} for k in (kept, dropped)]
        decisions.append({"id": key_of[papers[2].pmid], "stage": "title_abstract", "decision": "exclude"})
        await call(rt, "review_screen", set="s", decisions=decisions)

        # a month later: two new records published, and the revised search no longer finds paper 1
        lit.pubmed[PUBMED_QUERY] = [p for p in papers if p is not papers[1]] + [paper(100), paper(101)]
        month_later(rt)
        updated = await call(rt, "review_search", set="s", update=True)

        assert updated["complete"] and updated["new"] == 2 and updated["total"] == 8
        assert updated["sources"][0]["run"] == 2 and updated["sources"][0]["found"] == 7
        assert updated["droppedIncludes"] == [dropped]
        included = await call(rt, "review_records", set="s", decision="include")
        assert sorted(r["key"] for r in included["records"]) == sorted([kept, dropped])
        excluded = await call(rt, "review_records", set="s", decision="exclude")
        assert [r["key"] for r in excluded["records"]] == [key_of[papers[2].pmid]]

        month_later(rt)
        again = await call(rt, "review_search", set="s", update=True)  # nothing new since
        assert again["new"] == 0 and again["sources"][0]["run"] == 3 and again["droppedIncludes"] == [dropped]


async def test_an_update_needs_searches_and_takes_no_queries(fake, review_runtime):
    install(fake, Literature.build(pubmed=3, europepmc=0))
    async with review_runtime() as rt:
        missing = await rt.call("review_search", {"set": "none", "update": True})
        assert missing.is_error
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        both = await rt.call("review_search", {"set": "s", "update": True, "queries": {"pubmed": "x"}})
        assert both.is_error and "no queries" in both.text


async def test_prisma_counts_the_latest_update_run_or_the_whole_history(fake, review_runtime):
    lit = install(fake, Literature.build(pubmed=5, europepmc=0))
    papers = lit.pubmed[PUBMED_QUERY]
    async with review_runtime() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        key_of = {r["pmid"]: r["key"] for r in (await call(rt, "review_records", set="s"))["records"]}
        first = key_of[papers[0].pmid]
        await call(
            rt,
            "review_screen",
            set="s",
            decisions=[
                {"id": first, "stage": "title_abstract", "decision": "include"},
                {"id": first, "stage": "full_text", "decision": "include"},
                *(
                    {"id": key_of[p.pmid], "stage": "title_abstract", "decision": "exclude"}
                    for p in papers[1:]
                ),
            ],
        )
        lit.pubmed[PUBMED_QUERY] = [*papers, paper(100), paper(101)]
        month_later(rt)
        await call(rt, "review_search", set="s", update=True)
        new = {r["pmid"]: r["key"] for r in (await call(rt, "review_records", set="s", offset=5))["records"]}
        await call(
            rt,
            "review_screen",
            set="s",
            decisions=[
                {"id": new[paper(100).pmid], "stage": "title_abstract", "decision": "include"},
                {"id": new[paper(100).pmid], "stage": "full_text", "decision": "include"},
                {"id": new[paper(101).pmid], "stage": "title_abstract", "decision": "exclude"},
            ],
        )

        whole = await call(rt, "review_prisma", set="s")
        assert whole["counts"]["identified"] == {"pubmed": 7} and whole["counts"]["records"] == 7
        assert whole["counts"]["included"] == 2 and whole.get("latestRun") is None

        latest = await call(rt, "review_prisma", set="s", run="latest")
        c = latest["counts"]
        assert c["identified"] == {"pubmed": 7} and c["duplicatesRemoved"] == 5 and c["records"] == 2
        assert (c["screened"], c["excluded"], c["sought"], c["included"]) == (2, 1, 1, 1)
        assert latest["latestRun"].startswith("run 2 of ") and latest["previouslyIncluded"] == 1
        svg = await rt.call("review_prisma", {"set": "s", "run": "latest", "format": "svg"})
        drawn = open(svg.data["path"], encoding="utf-8").read()
        assert "update run 2 of" in drawn and "studies included in earlier runs: 1" in drawn
        assert "Studies included in earlier runs: 1." in svg.text
