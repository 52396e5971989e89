"""``medlit demo``: the bundled sample answers the README's first five minutes offline, and the
fake evaluates each query over its records (different queries, different answers)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from medlit.testing import FakeUpstream, host_for, mcp_client
from medlit.testing.demo import demo_env, install, matching

pytestmark = pytest.mark.anyio


def test_queries_are_evaluated_over_the_sample():
    def pmids(q: str) -> list[str]:
        return [r["pmid"] for r in matching(q)]

    wheeze = pmids("inhaled corticosteroids AND preschool wheeze")
    assert wheeze and set(wheeze) <= {"37100011", "37100012", "37100013"}
    assert pmids("remdesivir") == ["36156117"]
    assert pmids('"vitamin D*" AND randomized controlled trial[pt]') == ["28731372"]
    assert set(pmids("telomere OR remdesivir")) == {"27797938", "36156117"}
    assert "37100014" not in pmids("inhaled corticosteroids NOT growth")
    assert pmids("wheeze AND 2021[dp]") == ["37100011"]
    assert pmids("Moreau C[au]") == ["37100011"]
    assert pmids("no such words anywhere") == []


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_the_demo_answers_search_fetch_full_text_and_review_search(tmp_path):
    async with FakeUpstream(services=("ncbi", "idconv")) as fake:
        install(fake)
        host = host_for(env=demo_env(fake, tmp_path))
        async with mcp_client(host) as client:
            wheeze = await client.call_tool(
                "pubmed_search_articles", {"query": "inhaled corticosteroids AND preschool wheeze"}
            )
            other = await client.call_tool("pubmed_search_articles", {"query": "remdesivir"})
            assert not wheeze.is_error and not other.is_error
            found = wheeze.structured_content["pmids"]
            assert found and set(found) <= {"37100011", "37100012", "37100013"}
            assert other.structured_content["pmids"] == ["36156117"]

            fetched = await client.call_tool("pubmed_fetch_articles", {"pmids": ["36156117"]})
            assert "Remdesivir Resistance in Transplant Recipients" in _text(fetched)

            full = await client.call_tool("pubmed_fetch_fulltext", {"pmcids": ["PMC7100001"]})
            assert not full.is_error and "Sleep duration and recall" in _text(full)

            review = await client.call_tool(
                "review_search",
                {"set": "wheeze", "queries": {"pubmed": "preschool wheeze AND inhaled corticosteroids"}},
            )
            assert not review.is_error, _text(review)
            records = await client.call_tool("review_records", {"set": "wheeze", "responseFormat": "json"})
            keys = {r["pmid"] for r in records.structured_content["records"]}
            assert keys and keys <= {"37100011", "37100012", "37100013"}


@pytest.mark.e2e
async def test_medlit_demo_serves_over_stdio(tmp_path):
    """The command itself: a real stdio client searches the demo server."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDLIT_BASE_URL_")}
    env["XDG_DATA_HOME"] = env["XDG_CACHE_HOME"] = str(tmp_path)
    params = StdioServerParameters(command=sys.executable, args=["-m", "medlit", "demo"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = await session.call_tool("pubmed_search_articles", {"query": "telomere"})
        second = await session.call_tool("pubmed_search_articles", {"query": "pesticide"})
        assert first.structured_content["pmids"] == ["27797938"]
        assert second.structured_content["pmids"] == ["28775130"]
        assert "28775130" in second.content[0].text


@pytest.mark.e2e
def test_the_readme_first_five_minutes_run_through_medlit_demo(tmp_path):
    """Every `medlit call` line of the README's first five minutes, run as `medlit demo call`
    (step 2's article swapped for the sample's), answers without an error, in order."""
    import re
    import shlex
    import subprocess

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## The first five minutes", 1)[1].split("\n## ", 1)[0]
    lines = [m.strip() for m in re.findall(r"^\s*medlit call .+$", section, re.M)]
    assert len(lines) >= 7
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDLIT_BASE_URL_")}
    env["XDG_DATA_HOME"] = env["XDG_CACHE_HOME"] = str(tmp_path)
    outputs = []
    for line in lines:
        words = shlex.split(line.replace("PMC9575052", "PMC7100001"))
        done = subprocess.run(
            [sys.executable, "-m", "medlit", "demo", *words[1:]],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, (line, done.stdout[-500:], done.stderr[-500:])
        outputs.append(done.stdout)
    assert "37100012" in outputs[0]  # the randomised trial of the sample's wheeze records
    assert "Methods" in outputs[1]
    assert "3 records" in outputs[2] and "Stored: 1" in outputs[3]
