"""pubmed_europepmc_fetch against the fake of tests/support/europepmc_routes.py (hand-written records):
one search for every pair, complete abstracts, notFound, PMC pairs answered by MED records,
maxResponseCharacters deferral, input checks."""

from __future__ import annotations

import pytest

from medlit.testing import check_structured, tool_definitions

from support.europepmc_routes import install

pytestmark = pytest.mark.anyio

TOOL = "pubmed_europepmc_fetch"


async def fetch(rt, **args):
    out = await rt.call(TOOL, args)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == TOOL).output_schema
    check_structured(out.data, schema)
    return out


async def test_records_in_one_request_with_complete_abstracts(rt, fake):
    epmc = install(fake)
    out = await fetch(
        rt,
        records=[
            {"source": "PPR", "epmcId": "PPR900001"},
            {"source": "PMC", "epmcId": "pmc11740262"},  # a PubMed-indexed article: its MED record answers
            {"source": "PAT", "epmcId": "EP3000001"},
            {"source": "MED", "epmcId": "99999999"},
            {"source": "PPR", "epmcId": "ppr900001"},  # the first pair again
        ],
    )
    reqs = fake.of("europepmc", "search")
    assert len(fake.requests) == 1 and len(reqs) == 1
    assert reqs[0].params["resultType"] == "core"
    assert epmc.queries == [
        "(EXT_ID:PPR900001 AND SRC:PPR) OR (PMCID:PMC11740262) OR (EXT_ID:EP3000001 AND SRC:PAT) OR "
        "(EXT_ID:99999999 AND SRC:MED)"
    ]
    d = out.data
    assert [(r["source"], r["epmcId"]) for r in d["records"]] == [
        ("PPR", "PPR900001"),
        ("MED", "39575583"),
        ("PAT", "EP3000001"),
    ]
    assert d["notFound"] == [{"source": "MED", "epmcId": "99999999"}] and "notFound" in d["notice"]
    ppr = d["records"][0]
    assert len(ppr["abstract"]) > 400 and ppr["abstract"].endswith("in farmed mammals.")
    assert "\n\nMethods: We inoculated" in ppr["abstract"]
    assert ppr["publisher"] == "bioRxiv" and ppr["hasFullText"] is True and ppr["license"] == "cc by"
    assert ppr["authors"][0]["orcid"] == "0000-0002-1825-0097"
    assert ppr["fullTextLinks"][0]["url"] == "https://doi.org/10.1101/2024.02.02.900001"
    assert d["records"][1]["pmcId"] == "PMC11740262"
    assert "### PPR PPR900001" in out.text and "untrusted-data" in out.text


async def test_twenty_five_records_one_request(rt, fake):
    records = [
        {
            "id": str(5000 + i),
            "source": "MED",
            "pmid": str(5000 + i),
            "title": f"Record {i}",
            "abstractText": "x" * 900,
        }
        for i in range(25)
    ]
    install(fake, records)
    out = await fetch(rt, records=[{"source": "MED", "epmcId": r["id"]} for r in records])
    assert out.data["totalReturned"] == 25 and len(fake.requests) == 1
    assert int(fake.requests[0].params["pageSize"]) >= 25


async def test_budget_defers_whole_records(rt, fake):
    install(fake)
    pairs = [
        {"source": "PPR", "epmcId": "PPR900001"},
        {"source": "MED", "epmcId": "30000010"},
        {"source": "MED", "epmcId": "30000001"},
    ]
    out = await fetch(rt, records=pairs, maxResponseCharacters=800)
    d = out.data
    assert [r["epmcId"] for r in d["records"]] == ["PPR900001"]  # the first always comes back
    assert d["truncated"] is True
    assert d["deferred"]["records"] == [
        {"source": "MED", "epmcId": "30000010"},
        {"source": "MED", "epmcId": "30000001"},
    ]
    assert d["deferred"]["deferredCount"] == 2 and d["deferred"]["nextDeferredCharacters"] > 0
    again = await fetch(rt, records=d["deferred"]["records"])
    assert [r["epmcId"] for r in again.data["records"]] == ["30000010", "30000001"]


@pytest.mark.parametrize(
    "records",
    [
        [],
        [{"source": "MED", "epmcId": "1 OR 2"}],
        [{"source": "XYZ", "epmcId": "1"}],
        [{"source": "MED"}],
        [{"source": "MED", "epmcId": str(i)} for i in range(26)],
    ],
)
async def test_bad_records_are_refused(rt, fake, records):
    out = await rt.call(TOOL, {"records": records})
    assert out.is_error and out.error.reason == "invalid_argument"
    assert fake.requests == []


async def test_one_record_sent_bare_is_accepted(rt, fake):
    install(fake)
    out = await fetch(rt, records={"source": "MED", "epmcId": "30000001"})
    assert out.data["records"][0]["hasFullText"] is False
