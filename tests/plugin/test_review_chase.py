"""Citation searching into a review set (``review_chase``) against the fake's citation graph: the
cost stated before anything is asked, the includes chased backward and forward through every
index, the works combined and deduplicated against the set as the two citation-searching
sources, each with foundVia and its seed counts, and a failing index reported as failed."""

from __future__ import annotations

import pytest

from medlit.testing import check_structured, tool_definitions

from support.citation_routes import Graph, Work
from support.citation_routes import install as install_graph
from support.review_routes import PUBMED_QUERY, Literature
from support.review_routes import install as install_literature

pytestmark = pytest.mark.anyio

NEW_REF = Work(
    "W900", pmid="40000001", doi="10.5555/ref.900", title="An older trial both seeds cite", year=2001
)
NEW_CITING = Work(
    "W901", pmid="40000002", doi="10.5555/cite.901", title="A later trial citing seed 0", year=2024
)


def graph_for(lit: Literature) -> Graph:
    papers = sorted({p.pmid: p for ps in lit.pubmed.values() for p in ps}.values(), key=lambda p: p.n)
    g = Graph()
    for p in papers:
        g.add(Work(f"W{100 + p.n}", pmid=p.pmid, doi=p.doi, title=p.title, year=p.year))
    g.works["W100"].refs = ["W900", "W101"]  # seed 0 cites the new reference and paper 1 (in the set)
    g.works["W102"].refs = ["W900"]  # seed 2 cites it too: two seeds
    g.add(NEW_REF)
    NEW_CITING.refs = ["W100"]
    g.add(NEW_CITING)
    return g


async def call(rt, tool, **args):
    out = await rt.call(tool, args)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == tool).output_schema
    check_structured(out.data, schema)
    return out.data


async def screened(rt) -> list[int]:
    await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
    records = (await call(rt, "review_records", set="s", limit=50))["records"]
    keys = sorted(r["key"] for r in records)
    await call(
        rt,
        "review_screen",
        set="s",
        decisions=[{"id": keys[i], "stage": "title_abstract", "decision": "include"} for i in (0, 2)],
    )
    return keys


@pytest.fixture
def chase_runtime(fake, review_runtime):
    lit = install_literature(fake, Literature.build(pubmed=6, europepmc=0))
    install_graph(fake, graph_for(lit))
    return review_runtime


async def test_estimate_then_chase_both_directions(chase_runtime, fake):
    async with chase_runtime() as rt:
        await screened(rt)
        before = len(fake.requests)
        estimate = await call(rt, "review_chase", set="s", action="estimate")
        assert len(fake.requests) == before  # nothing asked upstream
        assert estimate["seeds"] == 2 and estimate["seedsFrom"] == "title/abstract includes"
        planned = {(i["index"], i["direction"]): i for i in estimate["indexes"]}
        assert (
            planned[("pubmed", "backward")]["requests"] == 1 and planned[("pubmed", "backward")]["seeds"] == 2
        )
        assert planned[("europepmc", "forward")]["requests"] >= 2  # one request a seed
        assert ("crossref", "forward") not in planned and planned[("crossref", "backward")][
            "state"
        ] == "planned"
        assert (
            estimate["requests"] == sum(i["requests"] for i in estimate["indexes"])
            and estimate["seconds"] > 0
        )

        out = await call(rt, "review_chase", set="s")
        assert out["complete"] and not out["running"]
        states = {(i["index"], i["direction"]): i["state"] for i in out["indexes"]}
        assert set(states.values()) == {"answered"}, states
        assert out["added"]["Citation searching (backward)"] >= 2  # the new reference, and paper 1 again
        assert out["newRecords"] == 2  # W900 and W901; paper 1 was deduplicated into the set
        (step,) = out["steps"]
        assert step["new"] == 2
        top = out["top"][0]
        assert top["ids"]["pmid"] == NEW_REF.pmid and top["seedsCiting"] == 2 and top["seedsCited"] == 0
        indexes = {via[2] for via in top["foundVia"]}
        assert {"pubmed", "openalex", "europepmc", "icite", "crossref"} <= indexes
        citing = next(r for r in out["top"] if r["ids"].get("pmid") == NEW_CITING.pmid)
        assert citing["seedsCited"] == 1 and {v[1] for v in citing["foundVia"]} == {"forward"}

        records = (await call(rt, "review_records", set="s", limit=50))["records"]
        assert len(records) == 8
        chased = next(r for r in records if r.get("pmid") == NEW_REF.pmid)
        assert chased["seedsCiting"] == 2 and chased["seedsCited"] == 0
        assert {w[1] for w in chased["foundVia"]} == {"backward"} and len(chased["foundVia"]) >= 5
        # paper 1 was in the set already: seed 0's reference list found it too, and says so
        linked = {r["pmid"] for r in records if r.get("foundVia")}
        assert linked == {NEW_REF.pmid, NEW_CITING.pmid, "30000001"}
        status = await call(rt, "review_chase", set="s", action="status")
        assert status["newRecords"] == 2
        prisma = (await call(rt, "review_prisma", set="s"))["counts"]
        assert prisma["routes"]["Citation searching (backward)"] == "other"
        assert prisma["routes"]["Citation searching (forward)"] == "other"
        # PRISMA's other-methods column: identified per citation-searching source (paper 1 again
        # among the backward ones), and the two works only citation searching found
        other = prisma["otherMethods"]
        assert other["identified"] == {"Citation searching (backward)": 2, "Citation searching (forward)": 1}
        assert prisma["records"] == 8
        # screening what the chase found: the most seeds first (W900: two), then one seed each, in key order
        ordered = await call(rt, "review_records", set="s", order="seeds")
        assert [r["pmid"] for r in ordered["records"]] == [NEW_REF.pmid, "30000001", NEW_CITING.pmid]
        assert ordered["total"] == 3 and [r["seedsCiting"] + r["seedsCited"] for r in ordered["records"]] == [
            2,
            1,
            1,
        ]
        only = await call(rt, "review_records", set="s", order="seeds", undecided=True, offset=1, limit=1)
        assert only["total"] == 3 and [r["pmid"] for r in only["records"]] == ["30000001"]
    assert fake.rate_limited == []


async def test_given_seeds_and_a_failing_index(chase_runtime, fake):
    fake.fault("500", "icite", times=50)
    async with chase_runtime() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        out = await call(rt, "review_chase", set="s", seeds=["W100", "30000002"], directions=["backward"])
        states = {i["index"]: i for i in out["indexes"]}
        assert states["icite"]["state"] == "failed" and states["icite"]["error"]
        assert states["icite"]["failed"] == 1 and states["icite"]["seeds"] == 0
        assert states["openalex"]["state"] == "answered"
        assert out["newRecords"] == 1 and out["seedsFrom"] == "given"


async def test_seed_order_in_a_set_never_chased_says_so(chase_runtime):
    async with chase_runtime() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        out = await call(rt, "review_records", set="s", order="seeds")
        assert out["total"] == 0 and out["records"] == [] and "review_chase" in out["notice"]


async def test_a_set_without_includes_asks_for_seeds(chase_runtime):
    async with chase_runtime() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        out = await rt.call("review_chase", {"set": "s"})
        assert out.is_error and "no included records" in out.text
