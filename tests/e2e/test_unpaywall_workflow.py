"""End to end: the Unpaywall tier through real MCP client sessions against the loopback fake.

Over stdio (the server as a subprocess, ``python -m medlit serve``): ``pubmed_fetch_fulltext`` for
two DOIs neither PMC nor Europe PMC serves. The PMC ID converter knows no PMC copy, Europe PMC's
search finds no open full text, and Unpaywall names an open-access copy on a (loopback) content
host: one a PDF, one a landing page that links its PDF. Both come back as extracted text with the
report ``idconv: miss -> pmc: not-attempted -> europepmc: miss -> unpaywall: hit``. A closed-access DOI comes back
``unavailable`` with reason ``no-oa``.

In memory: with ``EUROPEPMC_ENABLED=false`` the report says ``europepmc: not-attempted``; without
``UNPAYWALL_EMAIL`` the Unpaywall tier is listed as not queried, naming the variable.
"""

from __future__ import annotations

import json
import sys

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from medlit.testing import check_structured, host_for, mcp_client

from support.environments import fake_env
from support.environments import server_env as support_env
from support.europepmc_routes import install as install_europepmc
from support.fake_upstream import FakeUpstream
from support.fulltext_routes import install as install_pmc
from support.unpaywall_fakes import ENV, article_pdf, fixture, location, page, publish, record, serve

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOOL = "pubmed_fetch_fulltext"
PDF_DOI = "10.5555/oa.copy.2021.1"
PDF_TITLE = "Altered dimerization of triose phosphate isomerase in patient cells"
PAGE_DOI = "10.5555/oa.copy.2021.2"
PAGE_TITLE = "A landing page that links the PDF of a glycolysis study"
CLOSED_DOI = "10.5555/closed.2021.3"


def install(fake: FakeUpstream) -> None:
    install_pmc(fake)
    install_europepmc(fake)
    pdf = serve(fake, "repo/oa1.pdf", article_pdf(PDF_TITLE, PDF_DOI, pages=3), "application/pdf")
    publish(fake, record(PDF_DOI, PDF_TITLE, [location(pdf=pdf, version="acceptedVersion", license="cc-by")]))
    serve(fake, "press/oa2.pdf", article_pdf(PAGE_TITLE, PAGE_DOI), "application/octet-stream")
    landing = serve(
        fake,
        "press/oa2",
        page("landing_abstract.html", title=PAGE_TITLE, doi=PAGE_DOI, pdf="/content/press/oa2.pdf"),
        "text/html",
    )
    publish(
        fake,
        record(
            PAGE_DOI,
            PAGE_TITLE,
            [location(landing=landing, host_type="publisher", version="publishedVersion")],
        ),
    )
    publish(fake, json.loads(fixture("closed.json")) | {"doi": CLOSED_DOI})


def server_env(fake: FakeUpstream, **extra: str) -> dict[str, str]:
    return support_env(fake, **ENV, **extra)


def steps(entry: dict) -> list[tuple[str, str]]:
    return [(t["tier"], t["outcome"]) for t in entry["triedTiers"]]


async def test_dois_only_unpaywall_serves_over_stdio(fake):
    install(fake)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake)
    )
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "unpaywall" in tools[TOOL].description
        result = await client.call_tool(TOOL, {"dois": [PDF_DOI, PAGE_DOI, CLOSED_DOI]})
        assert not result.is_error, result.content
        data = result.structured_content
        check_structured(data, tools[TOOL].output_schema)
        text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))

    arts = {a["doi"]: a for a in data["articles"]}
    assert set(arts) == {PDF_DOI, PAGE_DOI}
    pdf, linked = arts[PDF_DOI], arts[PAGE_DOI]
    assert (pdf["source"], pdf["viaSource"], pdf["contentFormat"]) == ("unpaywall", "unpaywall", "pdf-text")
    assert (pdf["title"], pdf["version"], pdf["license"], pdf["totalPages"]) == (
        PDF_TITLE,
        "acceptedVersion",
        "cc-by",
        3,
    )
    assert pdf["sourceUrl"].endswith("/content/repo/oa1.pdf") and "Methods. We expressed" in pdf["content"]
    assert linked["sourceUrl"].endswith("/content/press/oa2.pdf") and linked["hostType"] == "publisher"
    assert PDF_TITLE in text  # the rendering carries the text too

    # -- the report of each hit: no PMC copy, no Europe PMC record, then Unpaywall
    chain = [("idconv", "miss"), ("pmc", "not-attempted"), ("europepmc", "miss"), ("unpaywall", "hit")]
    assert steps(pdf) == steps(linked) == chain
    assert pdf["triedTiers"][-1]["detail"].startswith("PDF from 127.0.0.1 (repository, acceptedVersion")
    assert "pmc: not-attempted -> europepmc: miss -> unpaywall: hit" in text

    # -- every step reported: no PMC copy, no Europe PMC full text, then Unpaywall
    (closed,) = data["unavailable"]
    assert closed["id"] == CLOSED_DOI and closed["reason"] == "no-oa"
    report = steps(closed)
    assert report[-1] == ("unpaywall", "no-oa") and ("europepmc", "miss") in report
    for tier in ("pmc", "europepmc", "unpaywall"):
        assert tier in [t for t, _ in report]
    assert [r.path for r in fake.of("unpaywall")] == [f"v2/{d}" for d in (PDF_DOI, PAGE_DOI, CLOSED_DOI)]
    assert [r.path for r in fake.of("content")] == ["repo/oa1.pdf", "press/oa2", "press/oa2.pdf"]
    assert all(r.params["email"] == ENV["UNPAYWALL_EMAIL"] for r in fake.of("unpaywall"))
    assert ENV["UNPAYWALL_EMAIL"] not in json.dumps(data) and ENV["UNPAYWALL_EMAIL"] not in text


async def test_tier_report_in_memory(fake):
    install(fake)
    env = fake_env(fake, **ENV, EUROPEPMC_ENABLED="false")
    async with mcp_client(host_for(env=env)) as client:
        result = await client.call_tool(TOOL, {"dois": [PDF_DOI, CLOSED_DOI]})
        assert not result.is_error, result.content
        data = result.structured_content
    assert [a["doi"] for a in data["articles"]] == [PDF_DOI]
    (art,) = data["articles"]
    assert "europepmc" not in [t for t, _ in steps(art)] and steps(art)[-1] == ("unpaywall", "hit")
    (closed,) = data["unavailable"]
    report = steps(closed)
    assert "EUROPEPMC_ENABLED=true" in data["notice"]  # the switched-off plugin is named
    assert report[-1] == ("unpaywall", "no-oa") and "is_oa=false" in closed["triedTiers"][-1]["detail"]
    assert fake.of("europepmc") == []


async def test_unconfigured_unpaywall_is_listed_as_not_queried(fake):
    install(fake)
    env = fake_env(fake, MEDLIT_ALLOW_LOOPBACK_CONTENT="1")
    async with mcp_client(host_for(env=env)) as client:
        result = await client.call_tool(TOOL, {"dois": [PDF_DOI]})
        assert not result.is_error, result.content
        data = result.structured_content
    (entry,) = data["unavailable"]
    step = next(t for t in entry["triedTiers"] if t["tier"] == "unpaywall")
    assert step["outcome"] == "not-attempted" and "UNPAYWALL_EMAIL" in step["detail"]
    assert "unpaywall" in entry["unqueriedTiers"] and entry["waitingOn"]["unpaywall"] == "UNPAYWALL_EMAIL"
    assert fake.of("unpaywall") == [] and fake.of("content") == []
