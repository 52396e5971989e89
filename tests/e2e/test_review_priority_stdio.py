"""End to end over MCP stdio: a model screens a review set the way the guide tells it to (the next
batch by priority, decided, until ``screeningEstimate.safeToStop``), with the server a subprocess
and a real MCP client. The set is 200 generated papers; the review is about migraine, and the
model includes the 20 papers whose first topic is migraine (``WORDS[n % 10]``, n = 9, 19, ...).
The calls come in quick succession, as a model's do: each is still its own batch for the
stopping test."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.types import TextContent

from medlit.testing import check_structured

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install, stdio_params

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PAPERS = 200
BASE = 30_000_000  # review_routes.paper: PMID = BASE + n
BATCH = 10


async def call(client: Client, tools: dict, name: str, args: dict):
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content
    check_structured(result.structured_content, tools[name].output_schema)
    return result


def include(record: dict) -> bool:
    return (int(record["pmid"]) - BASE) % 10 == 9


def mentions(record: dict) -> bool:
    n = int(record["pmid"]) - BASE
    return n % 10 == 9 or n // 10 % 10 == 9


async def test_a_model_screens_by_priority_until_safe_to_stop(fake, tmp_path):
    install(fake, Literature.build(pubmed=PAPERS, europepmc=0), set())
    async with Client(stdio_params(fake, tmp_path)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        await call(client, tools, "review_search", {"set": "mig", "queries": {"pubmed": PUBMED_QUERY}})
        ask = {"set": "mig", "order": "priority", "limit": BATCH, "criteria": "Trials in migraine"}
        pages, found = [], 0
        while True:
            result = await call(client, tools, "review_records", ask)
            page = result.structured_content
            pages.append(page)
            if page["screeningEstimate"]["safeToStop"] or not page["records"]:
                break
            text = "".join(c.text for c in result.content if isinstance(c, TextContent))
            assert "Screening estimate" in text and "not safe to stop yet" in text
            decisions = [
                {
                    "id": r["key"],
                    "stage": "title_abstract",
                    "decision": "include" if include(r) else "exclude",
                }
                for r in page["records"]
            ]
            found += sum(include(r) for r in page["records"])
            await call(client, tools, "review_screen", {"set": "mig", "decisions": decisions})
        prisma = (
            await call(client, tools, "review_prisma", {"set": "mig", "format": "json"})
        ).structured_content
        log = await client.read_resource("review://sets/mig/log")

    # before any decision, the criteria rank (papers on migraine, as first topic or second); from
    # the first include and exclude on, the model
    assert pages[0]["ranking"] == "similarity" and all(mentions(r) for r in pages[0]["records"])
    assert {p["ranking"] for p in pages[1:]} == {"classifier"}
    # every include is found in the first three batches
    assert found == 20 and sum(include(r) for p in pages[:3] for r in p["records"]) == 20
    # the stop: every include found, well before the last record, and said only then
    last = pages[-1]["screeningEstimate"]
    assert last["safeToStop"] is True and last["includesFound"] == 20
    assert last["screened"] < PAPERS - 20 and pages[-1]["records"]
    assert not any(p["screeningEstimate"]["safeToStop"] for p in pages[:-1])
    # the stopping rule and its figures in the PRISMA footnote and the search log (PRISMA-S)
    assert "safe to stop." in prisma["stopping"] and "Callaghan" in prisma["stopping"]
    text = log.contents[0].text
    assert f"{last['screened']} records screened" in text and "safe to stop." in text
