"""End to end: the Europe PMC plugin through real MCP client sessions against the loopback fake.

Over stdio (the server as a subprocess, ``python -m medlit serve``):

- ``pubmed_fetch_fulltext`` for a PMID whose PMC copy NCBI withholds (the PMC ID converter maps it
  to PMC11740262, whose efetch answer is front matter only) and for a PMCID with no PMID that
  NCBI's PMC does not return (PMC12634591): both come back as structured sections served by the
  Europe PMC tier from its ``fullTextXML`` (real Europe PMC JATS from the corpus), after one ID
  converter request, one PMC efetch and one Europe PMC search for both;
- a preprint found by ``pubmed_europepmc_search`` (abstract cut to a snippet) is fetched by
  ``{source, epmcId}`` with ``pubmed_europepmc_fetch``, complete abstract included.

In memory: with ``EUROPEPMC_ENABLED=false`` the plugin's tools are not listed and the full-text
report names the variable for the Europe PMC tier.
"""

from __future__ import annotations

import sys

import pytest
from aiohttp import web
from lxml import etree
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from medlit.testing import check_structured, host_for, mcp_client

from support.corpus import corpus_path
from support.environments import fake_env
from support.environments import server_env as support_env
from support.europepmc_routes import install as install_europepmc
from support.fake_upstream import FakeUpstream, Req, json_response, xml_response
from support.fulltext_routes import efetch_pmc, idconv
from support.fulltext_routes import install as install_pmc

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

WITHHELD_PMID = "39575583"  # in PMC as PMC11740262, front matter only there; open access at Europe PMC
NO_PMID_PMCID = "PMC12634591"  # a correction with no PMID; NCBI's efetch omits it
COVID_JATS = "europepmc/fullTextXML/long_covid_research_article.xml"
CORRECTION_JATS = "europepmc/fullTextXML/PMC12634591_correction.xml"


def front_matter_only(path) -> bytes:
    """The corpus article as NCBI's PMC serves a publisher-restricted one: no <body>, no <back>."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    root = etree.fromstring(path.read_bytes(), parser)
    for tag in ("body", "back"):
        for el in root.findall(tag):
            root.remove(el)
    return etree.tostring(root)


def install(fake: FakeUpstream) -> None:
    covid = corpus_path(COVID_JATS)
    corpus_path(CORRECTION_JATS)
    install_pmc(fake)
    install_europepmc(fake)
    restricted = front_matter_only(covid)

    def converter(req: Req) -> web.Response:
        if req.params["ids"] != WITHHELD_PMID:
            return idconv(req)
        record = {
            "requested-id": WITHHELD_PMID,
            "pmid": WITHHELD_PMID,
            "pmcid": "PMC11740262",
            "doi": "10.1002/ana.27128",
        }
        return json_response({"status": "ok", "records": [record]})

    def efetch(req: Req) -> web.Response:
        if "11740262" not in req.ids():
            return efetch_pmc(req)
        return xml_response(b"<?xml version='1.0'?>\n<pmc-articleset>" + restricted + b"</pmc-articleset>")

    fake.route("idconv", "", converter)
    fake.route("ncbi", "efetch.fcgi", efetch)


def server_env(fake: FakeUpstream, **extra: str) -> dict[str, str]:
    # Unpaywall is switched off: the report ends with the Europe PMC tier's outcome.
    return support_env(fake, UNPAYWALL_ENABLED="false", **extra)


async def call(client: Client, tools: dict, name: str, args: dict) -> dict:
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content
    check_structured(result.structured_content, tools[name].output_schema)
    assert any(isinstance(b, TextContent) and b.text for b in result.content)
    return result.structured_content


async def test_withheld_and_pmid_less_articles_and_a_preprint_over_stdio(fake):
    install(fake)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake)
    )
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("pubmed_europepmc_search", "pubmed_europepmc_fetch"):
            assert tools[name].annotations.read_only_hint is True
        assert "europepmc" in tools["pubmed_fetch_fulltext"].description

        # -- full text NCBI's PMC does not serve, from Europe PMC
        data = await call(
            client, tools, "pubmed_fetch_fulltext", {"pmids": [WITHHELD_PMID], "pmcids": [NO_PMID_PMCID]}
        )
        assert [(r.service, r.path) for r in fake.requests if r.service != "europepmc"] == [
            ("idconv", ""),
            ("ncbi", "efetch.fcgi"),
        ]
        epmc = [r.path for r in fake.of("europepmc")]
        assert epmc[0] == "search" and sorted(epmc[1:]) == [
            "PMC11740262/fullTextXML",
            "PMC12634591/fullTextXML",
        ]
        (search,) = fake.of("europepmc", "search")
        assert search.params["query"] == (  # a clause per id each article carries, one search for both
            '(PMCID:PMC12634591) OR (PMCID:PMC11740262) OR (EXT_ID:39575583 AND SRC:MED) OR (DOI:"10.1002/ana.27128")'
        )
        assert not fake.rate_limited

        arts = {a["pmcId"]: a for a in data["articles"]}
        assert set(arts) == {"PMC11740262", NO_PMID_PMCID} and not data.get("unavailable")
        covid, correction = arts["PMC11740262"], arts[NO_PMID_PMCID]
        assert covid["viaSource"] == correction["viaSource"] == "europepmc"
        for art in (covid, correction):  # the served article carries its tier report
            steps = [(t["tier"], t["outcome"]) for t in art["triedTiers"]]
            assert steps[-1] == ("europepmc", "hit") and steps[0][0] in ("idconv", "pmc")
            assert ("pmc", "hit") not in steps
        assert covid["source"] == "europepmc" and covid["pmid"] == WITHHELD_PMID
        assert covid["sourceIds"] == {"epmcId": WITHHELD_PMID, "epmcSource": "MED"}
        assert covid["title"].startswith("Neurologic Manifestations of Long COVID")
        assert len(covid["sections"]) > 5 and all(
            s["text"] or s.get("subsections") for s in covid["sections"]
        )
        assert correction.get("pmid") is None
        assert correction["sourceIds"] == {"epmcId": NO_PMID_PMCID, "epmcSource": "PMC"}
        assert correction["title"].startswith("Correction:") and correction["tables"]

        # -- a preprint: found by search, fetched whole by {source, epmcId}
        fake.requests.clear()
        found = await call(
            client, tools, "pubmed_europepmc_search", {"query": "ferrets transmission", "sources": ["PPR"]}
        )
        (hit,) = found["hits"]
        assert (hit["source"], hit["epmcId"], hit["abstractTruncated"]) == ("PPR", "PPR900001", True)
        assert found.get("nextCursorMark") is None
        records = await call(
            client,
            tools,
            "pubmed_europepmc_fetch",
            {"records": [{"source": hit["source"], "epmcId": hit["epmcId"]}]},
        )
        (rec,) = records["records"]
        flat = " ".join(rec["abstract"].split())  # the snippet folds the abstract's paragraphs
        assert flat.startswith(hit["abstractSnippet"].rstrip("…"))
        assert len(rec["abstract"]) > len(hit["abstractSnippet"]) and rec["abstract"].endswith(
            "in farmed mammals."
        )
        assert [(r.service, r.path) for r in fake.requests] == [
            ("europepmc", "search"),
            ("europepmc", "search"),
        ]


async def test_switched_off_in_memory(fake):
    install(fake)
    host = host_for(env=fake_env(fake, EUROPEPMC_ENABLED="false", UNPAYWALL_ENABLED="false"))
    async with mcp_client(host) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "pubmed_fetch_fulltext" in names
        assert not names & {"pubmed_europepmc_search", "pubmed_europepmc_fetch"}
        result = await client.call_tool("pubmed_fetch_fulltext", {"pmcids": [NO_PMID_PMCID]})
        assert not result.is_error, result.content
        (entry,) = result.structured_content["unavailable"]
        assert all(t["tier"] != "europepmc" for t in entry["triedTiers"])  # its tier is not in the chain
        assert "europepmc (EUROPEPMC_ENABLED=true enables it)" in result.structured_content["notice"]
    assert fake.of("europepmc") == []
