"""The stopping rule's random sample through the tools (issue 51), on SQLite and on PostgreSQL
(skipped, with the reason, when no server is reachable): once the knee of the gain curve says the
ranked yield has fallen, review_records' priority page advises stopping on it as a heuristic
(safeToStop still false), states the random sample a guarantee costs and serves exactly those
records first, marked; screening them without an include makes safeToStop true on the sample's
basis, and the PRISMA footnote says so.

The generated papers' first topic word is ``WORDS[n % 10]`` ("migraine" for n = 9, 19, ...): the
tests' includes are the migraine papers, 30 of 300."""

from __future__ import annotations

import functools

import pytest

from medlit.plugins.review.screening import knee
from medlit.testing import check_structured, tool_definitions

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install

pytestmark = pytest.mark.anyio

ENV = {"EUROPEPMC_ENABLED": "false", "UNPAYWALL_ENABLED": "false"}
PAPERS = 300
BASE = 30_000_000  # review_routes.paper: PMID = BASE + n


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


def item(key, decision):
    return {"id": key, "stage": "title_abstract", "decision": decision}


async def keys_by_n(rt) -> dict[int, int]:
    out: dict[int, int] = {}
    offset: int | None = 0
    while offset is not None:
        page = await call(rt, "review_records", set="s", limit=200, offset=offset, brief=True)
        out.update({int(r["pmid"]) - BASE: r["key"] for r in page["records"]})
        offset = page.get("nextOffset")
    return out


async def test_the_knee_advises_and_the_random_sample_is_served_then_guarantees(runtime_for):
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = await keys_by_n(rt)
        includes = [n for n in keys if n % 10 == 9]
        # every include first, then a run of excludes long enough for the knee
        await call(rt, "review_screen", set="s", decisions=[item(keys[n], "include") for n in includes])
        run = [n for n in keys if n % 10 != 9][: knee.TAIL + 10]
        await call(rt, "review_screen", set="s", decisions=[item(keys[n], "exclude") for n in run])
        page = await call(
            rt,
            "review_records",
            set="s",
            order="priority",
            limit=200,
            brief=True,
            maxResponseCharacters=200_000,
        )
        text = (await rt.call("review_records", {"set": "s", "order": "priority", "limit": 5})).text
        est = page["screeningEstimate"]
        sample = est["sample"]
        served = [r for r in page["records"] if r.get("sample")]
        await call(rt, "review_screen", set="s", decisions=[item(r["key"], "exclude") for r in served])
        after = await call(rt, "review_records", set="s", order="priority", limit=50, brief=True)
        prisma = await call(rt, "review_prisma", set="s", format="json")
    # the knee advises (a heuristic, said so), no guarantee yet
    screened, left = len(includes) + len(run), len(keys) - len(includes) - len(run)
    assert len(keys) == PAPERS and page["total"] == left and not page.get("nextOffset")
    assert (est["screened"], est["includesFound"]) == (screened, len(includes)) == (170, 30)
    assert est["stopBasis"] == "knee" and est["stopAdvised"] is True and est["safeToStop"] is False
    assert "heuristic" in est["advice"] and "no statistical guarantee" in est["advice"]
    assert "stopping advised on a heuristic" in text and "Advice (knee)" in text
    # the guarantee's cost: with 30 found, two unseen among the 130 left would break 95% recall, so
    # the sample must cover most of them; stated in records, and why
    assert 0.7 * left < sample["size"] < left and sample["toScreen"] == sample["size"]
    assert (sample["screened"], sample["includes"]) == (0, 0)
    assert f"random sample of {sample['size']:,}" in est["advice"]
    # exactly those records are served, first, marked; the ranked ones follow
    assert len(served) == sample["size"] and page["records"][: len(served)] == served
    assert all(not r.get("sample") for r in page["records"][len(served) :])
    assert f"The first {sample['size']:,} record(s)" in page["notice"]
    # screened without an include, the sample gives the guarantee
    done = after["screeningEstimate"]
    assert done["safeToStop"] is True and done["stopBasis"] == "random sample"
    assert done["sample"]["toScreen"] == 0 and done["sample"]["screened"] == sample["size"]
    assert not any(r.get("sample") for r in after["records"])
    assert "basis: random sample" in prisma["stopping"] and "safe to stop" in prisma["stopping"]
