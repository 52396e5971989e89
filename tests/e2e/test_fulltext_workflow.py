"""End to end: pubmed_fetch_fulltext through a real MCP client over stdio, counting upstream requests.

The server runs as a subprocess (``python -m medlit serve``) pointed at the loopback fake, which
serves efetch db=pmc from real corpus JATS and the PMC ID converter from
tests/fixtures/ncbi/idconv_*.json (handlers in tests/support/fulltext_routes.py). One call mixes PMCIDs,
PMIDs and DOIs in assorted spellings, ids naming the same article, a PMID and a DOI with no PMC
copy and a publisher-restricted PMC record (front matter only), and must cost exactly one
ID-converter request and one PMC efetch. ``benchmarks/bench_fulltext.py`` times the same path.
"""

from __future__ import annotations

import sys

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from medlit.testing import check_structured

from support.environments import server_env as support_env
from support.fake_upstream import FakeUpstream
from support.fulltext_routes import install, require_corpus

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOOL = "pubmed_fetch_fulltext"

ARGS = {
    # PMC5608867 in lower case; PMC9999001 is in PMC with front matter only (publisher-restricted)
    "pmcids": ["PMC3166277", "pmc5608867", "PMC9999001", "PMC3299399"],
    # 22416237 names PMC3299399 again; 17927775 has no PMC copy
    "pmids": ["22416237", "PMID: 17927775"],
    # the first in URL form and upper case (-> PMC3531190); the last has no PMC copy
    "dois": [
        "https://doi.org/10.1093/NAR/GKS1195",
        "10.1371/journal.pone.0046493",
        "10.1101/2024.01.01.123456",
    ],
}

# pmcId -> (pmid, doi, title prefix, section titles that must appear, in this order)
EXPECTED = {
    "PMC3166277": (
        "21810267",
        "10.1186/1471-2180-11-174",
        "Factors influencing lysis time stochasticity in bacteriophage",
        ["Background", "Results", "Discussion", "Conclusions"],
    ),
    "PMC5608867": (
        "28405917",
        "10.1007/s12529-016-9630-3",
        "Key Intervention Characteristics in e-Health",
        ["Introduction", "Methods and Materials", "Results", "Discussion", "Conclusion"],
    ),
    "PMC3299399": (
        "22416237",
        "10.3389/fpsyt.2012.00018",
        "The Effects of Psychosis Risk Variants on Brain Connectivity",
        ["Introduction", "Methods", "Results", "Discussion"],
    ),
    "PMC3531190": (
        "23193287",
        "10.1093/nar/gks1195",
        "GenBank",
        ["INTRODUCTION", "RECENT DEVELOPMENTS", "CITING GENBANK", "FUNDING"],
    ),
    "PMC3460867": (
        "23029536",
        "10.1371/journal.pone.0046493",
        "MmPPOX Inhibits Mycobacterium tuberculosis Lipolytic Enzymes",
        ["Introduction", "Materials and Methods", "Results", "Discussion", "Supporting Information"],
    ),
}


def server_env(fake: FakeUpstream) -> dict[str, str]:
    # Only the PMC tier is under test: later tiers (Europe PMC, Unpaywall) are switched off so
    # the request count and the tier report stay the PMC tier's whatever plugins are installed.
    return support_env(fake, EUROPEPMC_ENABLED="false", UNPAYWALL_ENABLED="false")


def in_order(wanted: list[str], got: list[str]) -> bool:
    it = iter(got)
    return all(w in it for w in wanted)


def first_step(entry: dict, name: str) -> dict:
    """The first step of an unavailable id's report (``idconv`` or ``pmc``); every step after
    the PMC tier must be switched off or unable to take the id, not tried."""
    tried = entry["triedTiers"]
    assert tried[0]["tier"] == name, tried
    after = tried[[t["tier"] for t in tried].index("pmc") + 1 :]
    assert all(t["outcome"] == "not-attempted" for t in after), tried
    return tried[0]


async def test_mixed_ids_over_stdio(fake):
    require_corpus()
    install(fake)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake)
    )
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        tool = tools[TOOL]
        assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is True
        assert fake.requests == []  # start-up and tools/list touch no upstream

        result = await client.call_tool(TOOL, ARGS)
        assert not result.is_error, result.content
        data = result.structured_content
        check_structured(data, tool.output_schema)

        # -- upstream requests: one converter request for every PMID and DOI, one efetch for
        #    every PMCID of the call (given and converted), and nothing else
        assert [(r.service, r.path) for r in fake.requests] == [("idconv", ""), ("ncbi", "efetch.fcgi")]
        (conv,) = fake.of("idconv")
        assert conv.params["ids"].split(",") == [
            "22416237",
            "17927775",
            "10.1093/nar/gks1195",
            "10.1371/journal.pone.0046493",
            "10.1101/2024.01.01.123456",
        ]
        assert "idtype" not in conv.params  # one mixed batch, not one request per id type
        (efetch,) = fake.of("ncbi", "efetch.fcgi")
        assert efetch.params["db"] == "pmc"
        assert efetch.ids() == ["3166277", "5608867", "9999001", "3299399", "3531190", "3460867"]
        assert fake.rate_limited == []

        # -- the articles: the given PMCIDs first, then those reached through the converter;
        #    the PMID naming PMC3299399 again shares its record
        arts = data["articles"]
        assert [a["pmcId"] for a in arts] == list(EXPECTED)
        assert data["totalReturned"] == 5
        for a in arts:
            pmid, doi, title, sections = EXPECTED[a["pmcId"]]
            assert a["source"] == "pmc" and a["viaSource"] == "pmc"
            assert (a["pmid"], a["doi"]) == (pmid, doi)
            assert a["title"].startswith(title), a["title"]
            titles = [s["title"] for s in a["sections"]]
            assert in_order(sections, titles), titles
            assert all(s["text"] or s.get("subsections") for s in a["sections"])
            assert a["pmcUrl"] == f"https://pmc.ncbi.nlm.nih.gov/articles/{a['pmcId']}/"
        by_id = {a["pmcId"]: a for a in arts}
        for t in by_id["PMC3299399"]["tables"] + by_id["PMC3531190"]["tables"]:
            assert t["rows"] and len({len(r) for r in t["rows"]}) == 1  # rectangular grids
        assert len(by_id["PMC3460867"]["assets"]) >= 4  # supplementary files of the PLOS article
        assert data.get("truncated") is None and data.get("truncation") is None
        assert data.get("deferred") is None and data.get("overLimit") is None

        # -- the tier report: every id not served is accounted for, with the PMC tier's outcome
        un = {u["id"]: u for u in data["unavailable"]}
        assert list(un) == ["PMC9999001", "17927775", "10.1101/2024.01.01.123456"]

        restricted = un["PMC9999001"]
        assert restricted["idType"] == "pmcid" and restricted["reason"] == "no-body"
        step = first_step(restricted, "pmc")
        assert step["outcome"] == "no-body" and "front matter only" in step["detail"]

        pmid_miss = un["17927775"]
        assert pmid_miss["idType"] == "pmid" and pmid_miss["reason"] == "not-found"
        # the ID resolution step is reported like a tier, before the PMC tier it could not feed
        step = first_step(pmid_miss, "idconv")
        assert step["outcome"] == "miss"
        assert "PMID 17927775" in step["detail"] and "ID Converter" in step["detail"]
        assert pmid_miss["triedTiers"][1]["tier"] == "pmc"
        assert pmid_miss["triedTiers"][1]["outcome"] == "not-attempted"

        doi_miss = un["10.1101/2024.01.01.123456"]
        assert doi_miss["idType"] == "doi" and doi_miss["reason"] == "not-found"
        step = first_step(doi_miss, "idconv")
        assert step["outcome"] == "miss"
        assert "DOI 10.1101/2024.01.01.123456" in step["detail"] and "ID Converter" in step["detail"]

        assert "PMC9999001" in data["notice"] and "pubmed_fetch_articles" in data["notice"]

        # -- the markdown the model reads (capped; the structured result holds everything):
        #    headline counts and the first article's heading and ids
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        assert "5 full-text article(s)" in text and "3 id(s) unavailable" in text
        assert "## Factors influencing lysis time stochasticity" in text and "PMCID PMC3166277" in text

        # -- PMCIDs alone: one efetch, no converter request
        fake.requests.clear()
        again = await client.call_tool(TOOL, {"pmcids": ["PMC3531190", "PMC3460867"], "maxCharacters": 2000})
        assert not again.is_error, again.content
        assert [a["pmcId"] for a in again.structured_content["articles"]] == ["PMC3531190", "PMC3460867"]
        assert [(r.service, r.path) for r in fake.requests] == [("ncbi", "efetch.fcgi")]
        assert again.structured_content["truncation"]["maxCharacters"] == 2000


# Ten ids on the hand-written fixtures (runs without the corpus): three name articles already
# named, two are not in PMC, one PMC record is front matter only.
FIXTURE_ARGS = {
    "pmcids": ["PMC7100001", "pmc7100002", "PMC9999001", "PMC7100003", "PMC123"],
    "pmids": ["37100001", "37100009", "PMID: 37100003"],
    "dois": ["https://doi.org/10.5555/FT.BRIEF.2", "10.5555/not.in.pmc"],
}


async def test_ten_mixed_ids_on_fixtures_cost_two_requests(fake):
    install(fake)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake)
    )
    async with Client(params) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == TOOL)
        # the description and the instructions are built from the installed tiers, in order
        assert "1. pmc (NCBI PubMed Central" in tool.description and "first converted" in tool.description
        assert f"Full text ({TOOL}) comes from these sources, in order: 1. pmc" in client.instructions
        assert "idconv (" in client.instructions  # the resolver steps, with their costs
        result = await client.call_tool(TOOL, FIXTURE_ARGS)
        assert not result.is_error, result.content
        data = result.structured_content
        check_structured(data, tool.output_schema)

    assert [(r.service, r.path) for r in fake.requests] == [("idconv", ""), ("ncbi", "efetch.fcgi")]
    assert fake.of("idconv")[0].params["ids"].split(",") == [
        "37100001",
        "37100009",
        "37100003",
        "10.5555/ft.brief.2",
        "10.5555/not.in.pmc",
    ]
    assert fake.of("ncbi", "efetch.fcgi")[0].ids() == ["7100001", "7100002", "9999001", "7100003", "123"]
    assert [a["pmcId"] for a in data["articles"]] == ["PMC7100001", "PMC7100002", "PMC7100003"]
    un = {u["id"]: u for u in data["unavailable"]}
    assert {k: u["reason"] for k, u in un.items()} == {
        "PMC9999001": "no-body",
        "PMC123": "not-found",
        "37100009": "not-found",
        "10.5555/not.in.pmc": "not-found",
    }
    assert first_step(un["PMC123"], "pmc")["outcome"] == "miss"
    assert first_step(un["37100009"], "idconv")["outcome"] == "miss"
    # a source switched off that could have served an id is named with its switch
    for entry in un.values():
        for tier in entry.get("unqueriedTiers") or []:
            assert entry["waitingOn"][tier].endswith("_ENABLED")
