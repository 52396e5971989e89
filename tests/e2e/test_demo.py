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

    assert pmids("mesenchymal stem cells AND knee AND randomized[tiab]") == ["24286801", "22019234"]
    assert pmids("remdesivir") == ["36156117"]
    assert pmids('"vitamin D*" AND randomized controlled trial[pt]') == ["28731372"]
    assert set(pmids("telomere OR remdesivir")) == {"27797938", "36156117"}
    assert "24286801" not in pmids("mesenchymal AND knee NOT osteotomy")
    assert "24286801" in pmids("mesenchymal AND knee")
    assert pmids("stem cells AND 2013[dp] AND varus") == ["24286801"]
    assert pmids("Wong KL[au]") == ["24286801"]
    assert pmids("no such words anywhere") == []
    # Europe PMC's fields, as its search and lookups send them
    assert pmids("(EXT_ID:24286801 AND SRC:MED)") == ["24286801"]
    assert pmids("(PMCID:PMC5608867)") == ["28405917"]
    assert pmids('(DOI:"10.1002/STEM.2475")') == ["27507787"]
    assert pmids('TITLE:"stem cells" AND PUB_YEAR:[2015 TO 2017]') == ["29552470", "27507787", "27474386"]


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_the_demo_answers_search_fetch_full_text_and_review_search(tmp_path):
    async with FakeUpstream(services=("ncbi", "idconv")) as fake:
        install(fake)
        host = host_for(env=demo_env(fake, tmp_path))
        async with mcp_client(host) as client:
            knee = await client.call_tool(
                "pubmed_search_articles", {"query": "mesenchymal stem cells AND knee AND randomized[tiab]"}
            )
            other = await client.call_tool("pubmed_search_articles", {"query": "remdesivir"})
            assert not knee.is_error and not other.is_error
            assert knee.structured_content["pmids"] == ["24286801", "22019234"]
            assert other.structured_content["pmids"] == ["36156117"]

            fetched = await client.call_tool("pubmed_fetch_articles", {"pmids": ["36156117", "24286801"]})
            assert "Remdesivir Resistance in Transplant Recipients" in _text(fetched)
            assert "high tibial osteotomy" in _text(fetched).lower()  # the abstract, recorded

            full = await client.call_tool("pubmed_fetch_fulltext", {"pmcids": ["PMC5608867"]})
            assert not full.is_error and "Methods and Materials" in _text(full)
            review = await client.call_tool(
                "review_search",
                {
                    "set": "knee",
                    "queries": {"pubmed": "mesenchymal stem cells AND knee AND cartilage defects"},
                },
            )
            assert not review.is_error, _text(review)
            records = await client.call_tool("review_records", {"set": "knee", "responseFormat": "json"})
            keys = {r["pmid"] for r in records.structured_content["records"]}
            assert len(keys) == 9 and "24286801" in keys


async def test_the_demo_answers_europe_pmc_icite_and_elink_from_the_same_records(tmp_path):
    async with FakeUpstream(services=("ncbi", "idconv")) as fake:
        install(fake)
        host = host_for(env=demo_env(fake, tmp_path))
        async with mcp_client(host) as client:
            epmc = await client.call_tool("pubmed_europepmc_search", {"query": 'TITLE:"stem cells" AND knee'})
            assert not epmc.is_error, _text(epmc)
            assert "Wharton's Jelly" in _text(epmc) and "PMC5852271" in _text(epmc)

            citing = await client.call_tool(
                "pubmed_find_related",
                {"pmid": "17656639", "relationship": "cited_by", "responseFormat": "json"},
            )
            pmids = {a["pmid"] for a in citing.structured_content["articles"]}
            assert pmids == {"24286801", "21862278", "22309371", "21505986"}
            similar = await client.call_tool("pubmed_find_related", {"pmid": "24286801"})
            assert not similar.is_error and "Mesenchymal" in _text(similar)

            metrics = await client.call_tool("pubmed_fetch_citation_metrics", {"pmids": ["17656639"]})
            assert not metrics.is_error and "| 290 |" in _text(metrics)  # OpenAlex's recorded count

            # Europe PMC's full-text tier answers from the sample when PMC does not
            fake.fault("503", "ncbi", "efetch.fcgi", times=5)
            full = await client.call_tool("pubmed_fetch_fulltext", {"pmcids": ["PMC2329613"]})
            assert not full.is_error and "europepmc: hit" in _text(full)
            assert "Oral Health Impact Profile" in _text(full)


def readme_calls() -> list[tuple[str, dict]]:
    """The README's first five minutes: each ``medlit call TOOL ARGUMENTS`` line, in order."""
    import json
    import re
    import shlex

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## The first five minutes", 1)[1].split("\n## ", 1)[0]
    lines = [shlex.split(m.strip()) for m in re.findall(r"^\s*medlit call .+$", section, re.M)]
    return [(words[2], json.loads(words[3])) for words in lines]


@pytest.mark.e2e
async def test_medlit_demo_serves_over_stdio(tmp_path):
    """The command itself: a real stdio client searches the demo server, then walks the README's
    first five minutes in order as a host's model would (the review family enabled first through
    medlit_toolsets, as the default list says), every answer from the sample."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEDLIT_BASE_URL_", "MEDLIT_TOOLSETS"))}
    env["XDG_DATA_HOME"] = env["XDG_CACHE_HOME"] = str(tmp_path)
    params = StdioServerParameters(command=sys.executable, args=["-m", "medlit", "demo"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = await session.call_tool("pubmed_search_articles", {"query": "telomere"})
        second = await session.call_tool("pubmed_search_articles", {"query": "pesticide"})
        assert first.structured_content["pmids"] == ["27797938"]
        assert second.structured_content["pmids"] == ["28775130"]
        assert "28775130" in second.content[0].text

        enabled = await session.call_tool("medlit_toolsets", {"action": "enable", "toolset": "review"})
        assert not enabled.is_error, enabled.content
        texts = []
        for tool, arguments in readme_calls():
            answer = await session.call_tool(tool, arguments)
            text = "".join(getattr(c, "text", "") for c in answer.content)
            assert not answer.is_error, (tool, text[:500])
            texts.append(text)
    assert "24286801" in texts[0] and "Methods" in texts[1] and "24286801" in texts[2]
    assert "| 290 |" in texts[3] and "9 records" in texts[4] and "1 merged" in texts[5]
    assert "PRISMA 2020 flow: knee" in texts[-1]


@pytest.mark.e2e
def test_the_readme_first_five_minutes_run_through_medlit_demo(tmp_path):
    """Every `medlit call` line of the README's first five minutes, run as `medlit demo call`,
    answers from the sample without an error, in order; then the bundled export, by path."""
    import json
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
        words = shlex.split(line)
        done = subprocess.run(
            [sys.executable, "-m", "medlit", "demo", *words[1:]],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, (line, done.stdout[-500:], done.stderr[-500:])
        outputs.append(done.stdout)
    assert "24286801" in outputs[0]  # the randomised trial of the sample's knee records
    assert "Methods" in outputs[1]
    assert "24286801" in outputs[2] and "| 290 |" in outputs[3]  # citing articles, their count
    assert "9 records" in outputs[4] and "Stored: 1 (0 new, 1 merged" in outputs[5]
    assert "34948119" in outputs[6] and "1 decision" in outputs[7] and "PRISMA 2020 flow: knee" in outputs[8]
    export = Path(tmp_path) / "medlit-mcp" / "demo" / "imports" / "openalex_export.ris"
    args = {"set": "knee", "database": "OpenAlex", "path": str(export)}
    done = subprocess.run(
        [sys.executable, "-m", "medlit", "demo", "call", "review_import", json.dumps(args)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and "Stored: 8 (5 new, 3 merged" in done.stdout, done.stdout
