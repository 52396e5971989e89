"""The stopping rule after the knee through the tools (issue 51), on SQLite and on PostgreSQL
(skipped, with the reason, when no server is reachable): once the knee of the gain curve says the
ranked yield has fallen, review_records' priority page advises stopping on it as a heuristic
(safeToStop still false) and states both routes to the guarantee with their costs (records in
priority order for the ranked test, or a random sample); when the sample is the route (a record
without text holds the ranked test), it serves exactly the sample's records first, marked, and
screening them without an include makes safeToStop true on the sample's basis, as the PRISMA
footnote says.

The generated papers' first topic word is ``WORDS[n % 10]`` ("migraine" for n = 9, 19, ...): the
tests' includes are the migraine papers, 30 of 300."""

from __future__ import annotations

import functools

import pytest

from medlit.plugins.review.screening import knee

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install
from support.tool_calls import answered

pytestmark = pytest.mark.anyio

ENV = {"EUROPEPMC_ENABLED": "false", "UNPAYWALL_ENABLED": "false"}
PAPERS = 300
BASE = 30_000_000  # review_routes.paper: PMID = BASE + n


@pytest.fixture
def runtime_for(fake, review_runtime):
    install(fake, Literature.build(pubmed=PAPERS, europepmc=0), set())
    return functools.partial(review_runtime, **ENV)


async def call(rt, tool, **args):
    return (await answered(rt, tool, **args)).data


def item(key, decision):
    return {"id": key, "stage": "title_abstract", "decision": decision}


async def keys_by_n(rt, name: str) -> dict[int, int]:
    out: dict[int, int] = {}
    offset: int | None = 0
    while offset is not None:
        page = await call(rt, "review_records", set=name, limit=200, offset=offset, brief=True)
        out.update({int(r["pmid"]) - BASE: r["key"] for r in page["records"] if r.get("pmid")})
        offset = page.get("nextOffset")
    return out


TEXTLESS_RIS = "TY  - JOUR\nAU  - Doe, Jane\nPY  - 2001\nJO  - Headache\nDO  - 10.5555/no-text.1\nER  - \n"


async def knee_reached(rt, name: str) -> tuple[dict, int, int]:
    """Every include decided first, then a run of excludes long enough for the knee: the priority
    page (every undecided record), the records screened and those left."""
    keys = await keys_by_n(rt, name)
    includes = [n for n in keys if n % 10 == 9]
    await call(rt, "review_screen", set=name, decisions=[item(keys[n], "include") for n in includes])
    run = [n for n in keys if n % 10 != 9][: knee.TAIL + 10]
    await call(rt, "review_screen", set=name, decisions=[item(keys[n], "exclude") for n in run])
    page = await call(
        rt, "review_records", set=name, order="priority", limit=200, brief=True, maxResponseCharacters=200_000
    )
    assert len(keys) == PAPERS and not page.get("nextOffset")
    return page, len(includes) + len(run), PAPERS - len(includes) - len(run)


async def test_the_knee_advises_and_states_both_routes_to_the_guarantee(runtime_for):
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        page, screened, left = await knee_reached(rt, "s")
        text = (await rt.call("review_records", {"set": "s", "order": "priority", "limit": 5})).text
    est, sample = page["screeningEstimate"], page["screeningEstimate"]["sample"]
    assert (est["screened"], est["includesFound"], page["total"]) == (screened, 30, left) == (170, 30, 130)
    # the knee advises (a heuristic, said so), no guarantee yet
    assert est["stopBasis"] == "knee" and est["stopAdvised"] is True and est["safeToStop"] is False
    assert "heuristic" in est["advice"] and "no statistical guarantee" in est["advice"]
    assert "stopping advised on a heuristic" in text and "Advice (knee)" in text
    # the guarantee's two routes and their costs: with 30 found, two unseen among the 130 left would
    # break 95% recall; the ranked test reuses the 140 excludes read, so it is the cheaper and the
    # page goes on in priority order, no record marked sample
    assert 0.7 * left < sample["size"] < left and sample["toScreen"] == sample["size"]
    assert 0 < est["rankedToGo"] < sample["size"] and sample["servedFirst"] is False
    assert f"either {est['rankedToGo']:,} more records in priority order" in est["advice"]
    assert f"random sample of {sample['size']:,}" in est["advice"]
    assert not any(r.get("sample") for r in page["records"])


async def test_with_a_record_without_text_the_sample_is_served_first_and_guarantees(runtime_for):
    """A record without title/abstract text holds the ranked test and the knee (the ranking had no
    words for it); the random sample's urn holds it like any other record, so the sample is the
    route to the guarantee: served first, exactly its records, marked."""
    async with runtime_for() as rt:
        await call(rt, "review_search", set="t", queries={"pubmed": PUBMED_QUERY})
        await call(rt, "review_import", set="t", database="Embase", content=TEXTLESS_RIS, format="ris")
        page, _, left = await knee_reached(rt, "t")
        served = [r for r in page["records"] if r.get("sample")]
        await call(rt, "review_screen", set="t", decisions=[item(r["key"], "exclude") for r in served])
        after = await call(rt, "review_records", set="t", order="priority", limit=50, brief=True)
        prisma = await call(rt, "review_prisma", set="t", format="json")
    est, sample = page["screeningEstimate"], page["screeningEstimate"]["sample"]
    assert page["total"] == left + 1 and est["stopAdvised"] is False and est["stopBasis"] is None
    assert est["rankedToGo"] is None and sample["servedFirst"] is True
    assert "records without title/abstract text" in est["advice"]
    # exactly the sample's records are served, first, marked; the ranked ones follow
    assert len(served) == sample["size"] == sample["toScreen"] and page["records"][: len(served)] == served
    assert f"The first {sample['size']:,} record(s)" in page["notice"]
    # screened without an include, the sample gives the guarantee
    done = after["screeningEstimate"]
    assert done["safeToStop"] is True and done["stopBasis"] == "random sample"
    assert done["sample"]["toScreen"] == 0 and done["sample"]["screened"] == sample["size"]
    assert not any(r.get("sample") for r in after["records"])
    assert (
        "safe to stop. Basis: random sample." in prisma["stopping"] and "safe to stop" in prisma["stopping"]
    )
