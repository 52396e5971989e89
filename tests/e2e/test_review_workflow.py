"""End to end over MCP stdio: a review set across PubMed and Europe PMC created with progress
notifications, paged, exported and the export read back through ``resources/read`` (re-read with
rispy), the search log read as a resource, then a re-run that finds nothing new. Then a
5,000-record import killed mid-way (SIGKILL to the server) and resumed by a new server: no stored
record lost, the import goes on from its last stored cursor."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from medlit.testing import check_structured

from support.fake_upstream import FakeUpstream
from support.review_routes import EPMC_QUERY, PUBMED_QUERY, Literature, efetch, install
from support.review_stores import LONG_WORK
from support.screening_routes import review_env

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def server_env(fake: FakeUpstream, tmp: Path) -> dict[str, str]:
    return review_env(fake, tmp, MEDLIT_EUROPEPMC_RATE="200")


def params(fake: FakeUpstream, tmp: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake, tmp)
    )


async def call(client: Client, tools: dict, name: str, args: dict, progress=None) -> dict:
    result = await client.call_tool(name, args, progress_callback=progress)
    assert not result.is_error, result.content
    check_structured(result.structured_content, tools[name].output_schema)
    return result


async def test_create_page_export_read_and_rerun_over_stdio(fake, tmp_path):
    import rispy

    install(
        fake,
        Literature.build(pubmed=700, europepmc=300, shared={"pmid": 100, "doi": 20, "pmcid": 10, "title": 5}),
    )
    queries = {"pubmed": PUBMED_QUERY, "europepmc": EPMC_QUERY}
    seen: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total))

    async with Client(params(fake, tmp_path)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"review_search", "review_records", "review_export", "review_sets"} <= set(tools)
        assert tools["review_sets"].annotations.destructive_hint is True
        assert (
            "pubmed" in tools["review_search"].description
            and "europepmc" in tools["review_search"].description
        )

        made = (
            await call(client, tools, "review_search", {"set": "kids", "queries": queries}, progress)
        ).structured_content
        assert made["complete"] and made["identified"] == 1000 and made["unique"] == made["total"] == 865
        assert made["duplicatesByRule"] == {"pmid": 100, "doi": 20, "pmcid": 10, "title": 5, "manual": 0}
        assert seen and any(total == 700 or total == 1000 or total == 300 for _, total in seen)

        page1 = (
            await call(client, tools, "review_records", {"set": "kids", "limit": 200})
        ).structured_content
        page2 = (
            await call(
                client, tools, "review_records", {"set": "kids", "offset": page1["nextOffset"], "limit": 200}
            )
        ).structured_content
        assert page1["total"] == 865 and 0 < len(page1["records"]) == page1["nextOffset"] <= 200
        assert page2["offset"] == page1["nextOffset"]
        assert not {r["key"] for r in page1["records"]} & {r["key"] for r in page2["records"]}

        exported = await call(client, tools, "review_export", {"set": "kids", "format": "ris"})
        links = [c for c in exported.content if c.type == "resource_link"]
        assert [link.uri for link in links] == [
            exported.structured_content["uri"],
            exported.structured_content["logUri"],
        ]
        assert links[0].mime_type == "application/x-research-info-systems"
        read = await client.read_resource(links[0].uri)
        entries = rispy.loads(read.contents[0].text)
        assert len(entries) == 865 and all(e.get("title") for e in entries)
        assert sum(1 for e in entries if e.get("doi")) >= 700

        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert {"review://sets/{set}/log", "review://exports/{file}"} <= templates
        log = (await client.read_resource("review://sets/kids/log")).contents[0].text
        assert PUBMED_QUERY in log and EPMC_QUERY in log and "Duplicates removed: 135" in log

        again = (
            await call(client, tools, "review_search", {"set": "kids", "queries": queries})
        ).structured_content
        assert again["new"] == 0 and again["total"] == 865 and again["complete"]

        listed = (await call(client, tools, "review_sets", {})).structured_content
        assert [(s["set"], s["total"], s["runs"]) for s in listed["sets"]] == [("kids", 865, 2)]
    assert fake.rate_limited == []


# -- kill and resume --------------------------------------------------------------------------------


def stored(db: Path) -> tuple[int, int, int, str | None]:
    """(records, hits, the search's fetched count, its cursor) as committed in the store."""
    if not db.exists():
        return 0, 0, 0, None
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        records = conn.execute("SELECT COUNT(*) FROM review_records").fetchone()[0]
        hits = conn.execute("SELECT COUNT(*) FROM review_hits").fetchone()[0]
        row = conn.execute("SELECT fetched, cursor FROM review_searches ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.OperationalError:  # tables not made yet
        return 0, 0, 0, None
    finally:
        conn.close()
    return records, hits, (row[0] if row else 0), (row[1] if row else None)


async def send(proc: asyncio.subprocess.Process, message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    await proc.stdin.drain()


@LONG_WORK  # 5,000 records imported through a server process: minutes on a loaded machine
async def test_killed_import_loses_nothing_and_resumes(fake, tmp_path):
    lit = install(fake, Literature.build(pubmed=5000, europepmc=0))
    pages = efetch(lit)
    killed = asyncio.Event()

    async def held_efetch(req):
        # The first three pages are served; the fourth is held until the server has been killed,
        # so the kill lands mid-import however fast or loaded the machine is (no clock decides).
        if int(req.params["retstart"]) >= 1500:
            await killed.wait()
        return pages(req)

    fake.route("ncbi", "efetch.fcgi", held_efetch)
    db = tmp_path / "review.db"
    env = server_env(fake, tmp_path)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "medlit",
        "serve",
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
        )
        await proc.stdout.readline()
        await send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        await send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "review_search",
                    "arguments": {"set": "big", "queries": {"pubmed": PUBMED_QUERY}},
                },
            },
        )
        while stored(db)[2] < 1500:  # the three pages served, each committed with its cursor
            await asyncio.sleep(0.05)
        proc.kill()  # SIGKILL: no cleanup runs
        await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        killed.set()
    records, hits, fetched, cursor = stored(db)
    assert fetched == 1500, fetched
    assert records == hits == fetched and cursor  # every committed batch whole, with its cursor
    before = len(fake.of("ncbi", "efetch.fcgi"))

    async with Client(params(fake, tmp_path)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        state = (await call(client, tools, "review_sets", {})).structured_content["sets"][0]
        assert state["set"] == "big" and state["total"] == fetched and not state["complete"]
        resumed = (await call(client, tools, "review_search", {"set": "big"})).structured_content
        while resumed["running"]:  # not expected at this size, but a slow machine may need a second call
            resumed = (await call(client, tools, "review_search", {"set": "big"})).structured_content
    assert resumed["complete"] and resumed["total"] == 5000 and resumed["unique"] == 5000
    assert resumed["sources"][0]["fetched"] == resumed["sources"][0]["found"] == 5000
    after = fake.of("ncbi", "efetch.fcgi")[before:]
    assert int(after[0].params["retstart"]) == fetched  # resumed at the stored cursor, nothing fetched twice
    assert sum(int(r.params["retmax"]) for r in after) == 5000 - fetched
    assert stored(db)[:2] == (5000, 5000)
