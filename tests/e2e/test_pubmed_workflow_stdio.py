"""End to end: the PubMed research workflow through a real MCP client over stdio, counting upstream requests.

pubmed_search_articles (20 PMIDs with 20 brief summaries) -> pubmed_fetch_articles of those 20 ->
pubmed_format_citations of the same 20. The server runs as a subprocess (``python -m medlit serve``)
pointed at the loopback fake, which serves every PubMed XML record in the shared corpus
(tests/support/pubmed_fakes.py). Search + summaries + fetch must cost exactly three NCBI requests
(one esearch, one batched esummary, one batched efetch); formatting the same 20 costs nothing more:
the records just fetched are reused from the server's short-lived record cache.
``tests/plugin/test_pubmed_workflow.py`` runs the same flow in memory;
``benchmarks/bench_pubmed.py`` times it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin"))

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from medlit.testing import check_structured

from support.environments import server_env
from support.fake_upstream import FakeUpstream
from support.pubmed_fakes import corpus_present, install

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

QUERY = "mitochondria"
N = 20
STYLES = ["apa", "vancouver", "bibtex", "ris", "mla"]

# The fake's esearch answer (tests/fixtures/ncbi/pubmed_esearch.json): 20 of 1,234, in this order.
PMIDS = [
    "27797938",
    "28775130",
    "38147649",
    "35649368",
    "26430984",
    "20301382",
    "26468569",
    "10066780",
    "34843274",
    "29963580",
    "38048813",
    "27933116",
    "19008416",
    "36156117",
    "34529508",
    "28731372",
    "38534005",
    "23435529",
    "21813367",
    "22351513",
]
BOOK_CHAPTER, BOOK, RETRACTED, COLLECTIVE, HUGE = "20301382", "26468569", "10066780", "34843274", "26430984"
ERRATA = {"38147649", "35649368", "21813367", RETRACTED}  # records carrying an ErratumIn link


async def test_pubmed_workflow_over_stdio(fake: FakeUpstream):
    if not corpus_present():
        pytest.skip("shared corpus not present")
    install(fake)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "medlit", "serve"],
        env=server_env(fake, MEDLIT_LOG_LEVEL="WARNING"),
    )
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}

        async def call(name: str, args: dict) -> dict:
            result = await client.call_tool(name, args)
            assert not result.is_error, result.content
            check_structured(result.structured_content, tools[name].output_schema)
            assert any(isinstance(b, TextContent) and b.text for b in result.content)
            return result.structured_content

        # 1. search with brief summaries of every returned record (one batched esummary)
        found = await call("pubmed_search_articles", {"query": QUERY, "maxResults": N, "summaryCount": N})
        assert found["pmids"] == PMIDS and found["totalCount"] == 1234
        assert found["offset"] == 0 and found["nextOffset"] == N and "notice" not in found
        assert found["effectiveQuery"] == QUERY
        assert found["queryTranslation"] == '"mitochondria"[MeSH Terms] OR "mitochondria"[All Fields]'
        assert found["searchUrl"] == "https://pubmed.ncbi.nlm.nih.gov/?term=mitochondria"
        summaries = {s["pmid"]: s for s in found["summaries"]}
        assert [s["pmid"] for s in found["summaries"]] == PMIDS
        first = summaries[PMIDS[0]]
        assert first["title"].startswith("Leucocyte telomere length") and first["source"] == "Gut"
        assert first["year"] == 2017 and first["pmcId"] == "PMC5442267"
        assert first["doi"] == "10.1136/gutjnl-2016-312510"
        assert len(fake.of("ncbi")) == 2  # esearch + esummary

        # 2. fetch the 20 full records in one efetch
        fetched = await call("pubmed_fetch_articles", {"pmids": found["pmids"]})
        assert fetched["totalReturned"] == N and "unavailablePmids" not in fetched
        assert "deferred" not in fetched and "notice" not in fetched  # null and empty fields are left out
        articles = {a["pmid"]: a for a in fetched["articles"]}
        assert [a["pmid"] for a in fetched["articles"]] == PMIDS
        for pmid, a in articles.items():
            assert a["title"] and a["pubmedUrl"] == f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
            if summaries[pmid].get("doi") and a.get("doi"):
                assert a["doi"].lower() == summaries[pmid]["doi"].lower(), pmid
        a = articles[PMIDS[0]]
        assert a["recordType"] == "journal-article" and a["doi"] == "10.1136/gutjnl-2016-312510"
        journal = a["journalInfo"]
        assert (journal["isoAbbreviation"], journal["volume"], journal["issue"]) == ("Gut", "66", "6")
        assert journal["pages"] == "1116-1122" and a["authors"][0]["lastName"] == "Bao"
        assert len(a["authors"]) == 22 and a["abstractText"]
        chapter = articles[BOOK_CHAPTER]
        assert chapter["recordType"] == "book-chapter" and "journalInfo" not in chapter
        assert chapter["book"]["title"] == "GeneReviews®" and chapter["book"]["accession"] == "NBK1203"
        book = articles[BOOK]
        assert book["recordType"] == "book" and book["book"]["accession"] == "NBK321423"
        assert book["doi"] == "10.17226/21775"
        retracted = articles[RETRACTED]
        assert retracted["isRetracted"] is True
        assert {c["refType"] for c in retracted["commentsCorrections"]} == {"ErratumIn", "RetractionIn"}
        assert articles[COLLECTIVE]["authors"][0]["collectiveName"] == (
            "Guideline Development Panel for the Treatment of Depressive Disorders"
        )
        assert len(articles[HUGE]["authors"]) == 474
        assert sum(a["isRetracted"] for a in fetched["articles"]) == 1

        # The upstream side so far: exactly three NCBI requests, each batched over the 20 PMIDs.
        ncbi = fake.of("ncbi")
        assert [r.path for r in ncbi] == ["esearch.fcgi", "esummary.fcgi", "efetch.fcgi"]
        search, summary, efetch = ncbi
        assert search.params["db"] == "pubmed" and search.params["term"] == QUERY
        assert int(search.params["retmax"]) == N and "id" not in search.params
        assert summary.params["db"] == "pubmed" and summary.ids() == PMIDS
        assert efetch.params["db"] == "pubmed" and efetch.params["retmode"] == "xml" and efetch.ids() == PMIDS

        # 3. format all 20 in five styles: served from the records just fetched
        formatted = await call("pubmed_format_citations", {"pmids": found["pmids"], "format": STYLES})
        assert formatted["totalSubmitted"] == formatted["totalFormatted"] == N
        assert "unavailablePmids" not in formatted and "notice" not in formatted
        cites = {c["pmid"]: c for c in formatted["citations"]}
        assert [c["pmid"] for c in formatted["citations"]] == PMIDS
        for pmid, c in cites.items():
            assert set(c["citations"]) == set(STYLES) and all(c["citations"].values()), pmid
            assert c["recordType"] == articles[pmid]["recordType"], pmid
            assert c["isRetracted"] == articles[pmid]["isRetracted"], pmid
            kinds = {n["refType"] for n in c.get("notices") or []}
            assert ("ErratumIn" in kinds) == (pmid in ERRATA), (pmid, kinds)
        gut = cites[PMIDS[0]]["citations"]
        assert gut["apa"].startswith("Bao, Y., Prescott, J., Yuan, C.,")
        assert "(2017)" in gut["apa"]
        assert "Gut, 66(6), 1116–1122. https://doi.org/10.1136/gutjnl-2016-312510" in gut["apa"]
        assert gut["vancouver"].startswith("Bao Y, Prescott J, Yuan C, Zhang M, Kraft P, Babic A, et al.")
        assert "Gut. 2017 Jun;66(6):1116-1122." in gut["vancouver"]
        assert gut["bibtex"].startswith("@article{") and "doi = {10.1136/gutjnl-2016-312510}" in gut["bibtex"]
        assert gut["ris"].startswith("TY  - JOUR") and "DO  - 10.1136/gutjnl-2016-312510" in gut["ris"]
        assert cites[BOOK_CHAPTER]["citations"]["bibtex"].startswith("@incollection{")
        assert cites[BOOK_CHAPTER]["citations"]["ris"].startswith("TY  - CHAP")
        assert cites[BOOK]["citations"]["ris"].startswith("TY  - BOOK")
        retracted_cite = cites[RETRACTED]
        assert retracted_cite["isRetracted"] is True
        assert {n["refType"] for n in retracted_cite["notices"]} == {"ErratumIn", "RetractionIn"}
        assert "Retracted; see PMID 11905463" in retracted_cite["citations"]["apa"]
        assert cites[COLLECTIVE]["citations"]["apa"].startswith(
            "Guideline Development Panel for the Treatment of Depressive Disorders. (2022)."
        )

        # Formatting reused the fetched records: nothing else went upstream.
        assert [r.path for r in fake.requests] == ["esearch.fcgi", "esummary.fcgi", "efetch.fcgi"]
        assert not fake.rate_limited
