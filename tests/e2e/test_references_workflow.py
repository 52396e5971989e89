"""End to end: pubmed_verify_references through a real MCP client over stdio against the loopback
fake (PubMed and Crossref from tests/support/reference_library.py, Wakefield's and Mehra's Crossref records
from the corpus when present).

One session audits the 30-reference list mixing exact, garbled, invented, chimera and retracted
references and gets each class right with its evidence; a work only Crossref knows is verified by
its DOI. A second session with ``CROSSREF_ENABLED=false`` still verifies against PubMed and says
Crossref was not asked.
"""

from __future__ import annotations

import sys

import pytest
from mcp import Client, StdioServerParameters

from medlit.testing import check_structured

from support import reference_library as lib
from support.environments import server_env
from support.fake_upstream import FakeUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOOL = "pubmed_verify_references"


def params(fake: FakeUpstream, **extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake, **extra)
    )


async def test_thirty_references_over_stdio_each_class_right(fake):
    lib.install(fake)
    async with Client(params(fake, CROSSREF_EMAIL="audit@example.org")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        tool = tools[TOOL]
        assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is True
        assert "crossref" in tool.description and "ncbi" in tool.description

        result = await client.call_tool(TOOL, {"references": [r for r, _, _ in lib.MIXED]})
        assert not result.is_error, result.content
        data = result.structured_content
        check_structured(data, tool.output_schema)
        results = data["results"]
        bad = []
        for (_, want, extra), r in zip(lib.MIXED, results, strict=True):
            fields = {d["field"] for d in r.get("discrepancies", [])}
            ok = r["match"] == want and r["evidence"]["asked"]
            if extra == "chimera":
                ok = ok and r.get("chimera") is True
            elif extra in ("retraction", "erratum"):
                ok = ok and any(n["type"] == extra for n in r["notices"])
            elif extra:
                ok = ok and extra in fields
            if want in ("verified", "mismatch"):
                ok = ok and r["record"] and r["evidence"]["agreed"]
            if want == "ambiguous":
                ok = ok and len(r["candidates"]) >= 2
            if not ok:
                bad.append((r["index"], want, extra, r["match"], sorted(fields)))
        assert bad == []
        s = data["summary"]
        assert (s["verified"], s["mismatch"], s["ambiguous"], s["not_found"], s["retracted"]) == (
            14,
            10,
            1,
            5,
            3,
        )

        # the text table keeps the order given; the retracted are marked, not moved up
        text = result.content[0].text
        assert "verified 14 · mismatch 10 · ambiguous 1 · not found 5 · retracted 3" in text
        rows = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
        assert [int(row.split("|")[1]) for row in rows] == list(range(1, 31))
        assert all("| !!! |" in rows[i - 1] and "RETRACTION" in rows[i - 1] for i in (23, 24, 25))

        # a work only Crossref knows, verified by its DOI alone
        only = await client.call_tool(TOOL, {"references": [{"doi": "10.1007/s10032-015-0249-8"}]})
        (r,) = only.structured_content["results"]
        assert r["match"] == "verified" and r["evidence"]["agreed"] == ["crossref"]
        assert r["record"]["title"].startswith("CERMINE") and not r["record"].get("pmid")

        # refused input costs no request
        before = len(fake.requests)
        refused = await client.call_tool(TOOL, {"references": ["ok reference text here"] * 101})
        assert refused.is_error and len(fake.requests) == before
    crossref = fake.of("crossref")
    assert crossref and all(q.params.get("mailto") == "audit@example.org" for q in crossref)
    assert fake.rate_limited == []


async def test_crossref_switched_off_pubmed_only_and_said(fake):
    lib.install(fake)
    refs = [lib.MIXED[0][0], lib.MIXED[22][0], lib.MIXED[14][0], "doi:10.1007/s10032-015-0249-8"]
    async with Client(params(fake, CROSSREF_ENABLED="false")) as client:
        tool = {t.name: t for t in (await client.list_tools()).tools}[TOOL]
        assert "crossref" not in tool.description.split("Matchers:")[1].split(";")[0]  # its hooks never ran
        result = await client.call_tool(TOOL, {"references": refs})
        assert not result.is_error, result.content
        data = result.structured_content
        check_structured(data, tool.output_schema)
    watson, wakefield, invented, cermine = data["results"]
    assert watson["match"] == "verified" and wakefield["match"] == "verified"
    assert any(n["type"] == "retraction" and n["source"].startswith("ncbi") for n in wakefield["notices"])
    assert invented["match"] == "not_found" and "not found by ncbi" in invented["evidence"]["note"]
    assert cermine["match"] == "not_found" and "not asked: crossref" in cermine["evidence"]["note"]
    assert "Not asked: crossref (switched off: CROSSREF_ENABLED=true enables it)" in data["notice"]
    assert all(p["provider"] != "crossref" for p in data["providers"])
    assert fake.of("crossref") == []
