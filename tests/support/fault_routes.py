"""Corpus-free fake routes that answer one representative call of every upstream-calling tool,
for the fault suite (tests/reliability/test_faults.py).

Everything here is hand-written or comes from tests/fixtures/, so the suite runs the same with
the shared corpus absent (MEDLIT_CORPUS=/nonexistent). ``install(fake)`` registers every route;
``pubmed_article`` and ``articles_body`` build PubMed records for any PMID, so a fetch of many
PMIDs can be checked record by record.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from aiohttp import web

from support import (
    clinicaltrials_routes,
    europepmc_routes,
    fulltext_routes,
    preprints_routes,
    pubtator_routes,
)
from support.fake_upstream import FIXTURES, FakeUpstream, Req, json_response, xml_response

NCBI = FIXTURES / "ncbi"
SIMILAR_SOURCE = "29456894"  # the PMID of tests/fixtures/ncbi/elink_similar_scores_29456894.xml
W_SOURCE = "W2741809807"  # its OpenAlex work (tests/fixtures/openalex/)
ESEARCH_PMIDS = json.loads((NCBI / "pubmed_esearch.json").read_text())["esearchresult"]["idlist"]


def pubmed_article(pmid: str) -> str:
    """A complete PubMed record: title, abstract, two authors, journal, date, DOI."""
    return (
        f"<PubmedArticle><MedlineCitation Status='MEDLINE' Owner='NLM'><PMID Version='1'>{pmid}</PMID>"
        "<Article PubModel='Print'><Journal><ISSN IssnType='Print'>0000-0001</ISSN><JournalIssue>"
        "<Volume>12</Volume><Issue>3</Issue><PubDate><Year>2021</Year><Month>Mar</Month></PubDate>"
        "</JournalIssue><Title>Journal of Fault Tolerance</Title><ISOAbbreviation>J Fault Toler"
        f"</ISOAbbreviation></Journal><ArticleTitle>Record {pmid} survives a flaky upstream.</ArticleTitle>"
        f"<Pagination><MedlinePgn>{int(pmid) % 900 + 1}-{int(pmid) % 900 + 9}</MedlinePgn></Pagination>"
        f"<Abstract><AbstractText>Abstract of record {pmid}: nothing may be lost.</AbstractText></Abstract>"
        "<AuthorList CompleteYN='Y'><Author ValidYN='Y'><LastName>Roe</LastName><ForeName>Ann</ForeName>"
        "<Initials>A</Initials></Author><Author ValidYN='Y'><LastName>Doe</LastName><ForeName>Jon</ForeName>"
        "<Initials>J</Initials></Author></AuthorList><Language>eng</Language><PublicationTypeList>"
        "<PublicationType UI='D016428'>Journal Article</PublicationType></PublicationTypeList></Article>"
        "</MedlineCitation><PubmedData><PublicationStatus>ppublish</PublicationStatus><ArticleIdList>"
        f"<ArticleId IdType='pubmed'>{pmid}</ArticleId><ArticleId IdType='doi'>10.5555/fault.{pmid}</ArticleId>"
        "</ArticleIdList></PubmedData></PubmedArticle>"
    )


def articles_body(pmids: list[str]) -> bytes:
    """The EFetch answer (db=pubmed, retmode=xml) for ``pmids``."""
    return (
        '<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January '
        '2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n<PubmedArticleSet>'
        + "".join(pubmed_article(p) for p in pmids)
        + "</PubmedArticleSet>\n"
    ).encode()


def abstract_text(pmids: list[str]) -> str:
    """EFetch's rettype=abstract text for ``pmids``."""
    return "\n\n\n".join(
        f"{n}. J Fault Toler. 2021;12({n}):1-9.\n\nRecord {p} survives a flaky upstream.\n\nPMID: {p}"
        for n, p in enumerate(pmids, 1)
    )


def jats_article(digits: str) -> str:
    """A small open-access PMC article (JATS) for any PMC id: front matter and two sections."""
    return (
        "<article xmlns:xlink='http://www.w3.org/1999/xlink' article-type='research-article'><front>"
        f"<article-meta><article-id pub-id-type='pmc'>PMC{digits}</article-id>"
        f"<article-id pub-id-type='doi'>10.5555/pmc.{digits}</article-id><title-group><article-title>"
        f"Full text {digits} survives a flaky upstream</article-title></title-group><contrib-group>"
        "<contrib contrib-type='author'><name><surname>Roe</surname><given-names>Ann</given-names></name>"
        "</contrib></contrib-group><pub-date pub-type='epub'><year>2023</year></pub-date><abstract><p>"
        f"Abstract of PMC{digits}.</p></abstract></article-meta></front><body><sec><title>Introduction</title>"
        f"<p>Introduction of PMC{digits}: nothing may be lost.</p></sec><sec><title>Results</title>"
        f"<p>Results of PMC{digits}.</p></sec></body></article>"
    )


def jats_articleset(digits: list[str]) -> bytes:
    """EFetch's answer (db=pmc) for ``digits``, one synthetic article each."""
    return (
        '<?xml version="1.0" ?>\n<!DOCTYPE pmc-articleset PUBLIC "-//NLM//DTD ARTICLE SET 2.0//EN" '
        '"https://dtd.nlm.nih.gov/ncbi/pmc/articleset/nlm-articleset-2.0.dtd">\n<pmc-articleset>'
        + "".join(jats_article(d) for d in digits)
        + "</pmc-articleset>"
    ).encode()


def efetch(req: Req) -> web.Response:
    db = req.params.get("db", "pubmed")
    if db == "pmc":
        if req.ids():
            return fulltext_routes.efetch_pmc(req)
        # A History set (eutils_link_then_fetch): two small articles.
        return xml_response(
            "<pmc-articleset><article><front><article-meta><title-group><article-title>One"
            "</article-title></title-group></article-meta></front></article><article><front><article-meta>"
            "<title-group><article-title>Two</article-title></title-group></article-meta></front></article>"
            "</pmc-articleset>"
        )
    if req.params.get("retmode") == "text":
        return web.Response(text=abstract_text(req.ids()), content_type="text/plain")
    return xml_response(articles_body(req.ids()))


def esearch(req: Req) -> web.Response:
    term = req.params.get("term", "")
    if req.params.get("db") == "mesh":
        name = "pubmed_mesh_exact.json" if "[mh]" in term else "pubmed_mesh_esearch.json"
        return web.Response(body=(NCBI / name).read_bytes(), content_type="application/json")
    data = json.loads((NCBI / "pubmed_esearch.json").read_text())
    res = data["esearchresult"]
    start, size = int(req.params.get("retstart", 0)), int(req.params.get("retmax", 20))
    res["idlist"] = res["idlist"][start : start + size]
    res["retstart"], res["retmax"] = str(start), str(len(res["idlist"]))
    return json_response(data)


def esummary(req: Req) -> web.Response:
    if req.params.get("db") == "mesh":
        return xml_response((NCBI / "pubmed_mesh_esummary.xml").read_bytes())
    docs: dict[str, Any] = {}
    for name in ("pubmed_esummary.json", "pubmed_esummary_citmatch.json"):
        result = json.loads((NCBI / name).read_text())["result"]
        docs.update({uid: result[uid] for uid in result["uids"]})
    ids = req.ids()
    result: dict[str, Any] = {"uids": ids}
    for i in ids:
        result[i] = docs.get(i, {"uid": i, "error": "cannot get document summary"})
    return json_response({"header": {"type": "esummary", "version": "0.3"}, "result": result})


def espell(req: Req) -> web.Response:
    term = req.params.get("term", "")
    return xml_response(
        "<?xml version='1.0'?>\n<eSpellResult><Database>pubmed</Database>"
        f"<Query>{term}</Query><CorrectedQuery>asthma</CorrectedQuery>"
        "<SpelledQuery><Replaced>asthma</Replaced></SpelledQuery><ERROR/></eSpellResult>"
    )


def epost(req: Req) -> web.Response:
    return xml_response(
        "<?xml version='1.0'?>\n<ePostResult><QueryKey>1</QueryKey>"
        "<WebEnv>MCID_0000000000000000fault</WebEnv></ePostResult>"
    )


def egquery(req: Req) -> web.Response:
    rows = "".join(
        f"<ResultItem><DbName>{db}</DbName><MenuName>{menu}</MenuName><Count>{n}</Count>"
        f"<Status>{'Ok' if n else 'Term or Database is not found'}</Status></ResultItem>"
        for db, menu, n in (("pubmed", "PubMed", 181234), ("pmc", "PMC", 90210), ("gene", "Gene", 0))
    )
    return xml_response(
        "<?xml version='1.0'?>\n<Result><Term>"
        + req.params.get("term", "")
        + "</Term><eGQueryResult>"
        + rows
        + "</eGQueryResult></Result>"
    )


def elink(req: Req) -> web.Response:
    if req.params.get("linkname") == "pubmed_pubmed":
        return xml_response((NCBI / f"elink_similar_scores_{SIMILAR_SOURCE}.xml").read_bytes())
    if req.params.get("cmd") == "neighbor_history":
        return web.Response(
            body=(NCBI / "eutils_elink_history.json").read_bytes(), content_type="application/json"
        )
    return web.Response(
        body=(NCBI / "eutils_elink_pubmed_pmc.json").read_bytes(), content_type="application/json"
    )


def ecitmatch(req: Req) -> web.Response:
    return web.Response(body=(NCBI / "pubmed_ecitmatch.txt").read_bytes(), content_type="text/plain")


def icite(req: Req) -> web.Response:
    legacy = {
        str(r["pmid"]): r for r in json.loads((FIXTURES / "icite" / "pubs_legacy.json").read_text())["data"]
    }
    asked = req.ids("pmids")
    return json_response(
        {
            "meta": {"pmids": ",".join(asked)},
            "links": {"self": "https://icite.od.nih.gov/api/pubs"},
            "data": [legacy[p] for p in asked if p in legacy],
        }
    )


def openalex_works(req: Req) -> web.Response:
    oa = FIXTURES / "openalex"
    if req.params.get("filter", "").startswith("openalex:"):
        return web.Response(
            body=(oa / "works_openalex_ids.json").read_bytes(), content_type="application/json"
        )
    rows = json.loads((oa / f"works_cites_{W_SOURCE}.json").read_text())["results"]
    meta = {"count": len(rows), "page": 1, "per_page": 25}
    return json_response({"meta": meta, "results": rows[:25], "group_by": []})


def install(fake: FakeUpstream) -> FakeUpstream:
    """Every route the representative calls of test_faults.py need."""
    fulltext_routes.install(fake)  # efetch db=pmc and the ID converter (hand-written fixtures)
    europepmc_routes.install(fake)
    pubtator_routes.install(fake)
    clinicaltrials_routes.install(fake)  # the recorded studies
    preprints_routes.install(fake)  # the recorded bioRxiv preprint and a medRxiv one
    ncbi: dict[str, Callable[[Req], web.Response]] = {
        "efetch.fcgi": efetch,
        "esearch.fcgi": esearch,
        "esummary.fcgi": esummary,
        "espell.fcgi": espell,
        "epost.fcgi": epost,
        "egquery.fcgi": egquery,
        "elink.fcgi": elink,
        "ecitmatch.cgi": ecitmatch,
    }
    for path, handler in ncbi.items():
        fake.route("ncbi", path, handler)
    fake.route("icite", "pubs", icite)
    fake.respond(
        "openalex",
        f"works/pmid:{SIMILAR_SOURCE}",
        (FIXTURES / "openalex" / f"work_pmid_{SIMILAR_SOURCE}.json").read_bytes(),
    )
    fake.route("openalex", "works", openalex_works)
    return fake


class SlowHandshake:
    """A loopback TCP proxy in front of the fake whose new connections pass their first bytes on
    only after ``delay`` seconds, as a TLS handshake to a distant upstream delays them; a kept-alive
    connection is not delayed again. ``async with SlowHandshake(fake.port, 0.3) as proxy``, then
    point the clients at ``proxy.port``."""

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port, self.delay = target_port, delay
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> SlowHandshake:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._writers:  # ends every pipe still open
            writer.close()
        await asyncio.sleep(0)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        await asyncio.sleep(self.delay)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers.append(up_writer)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()
