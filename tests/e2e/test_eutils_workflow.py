"""End to end: a multi-step E-utilities workflow through a real MCP client, counting upstream requests.

esearch (with History) -> esummary of the whole set via the handle -> efetch of one page via the
handle -> elink of the set to PMC via the handle. The fake plays a coherent History server
(:class:`PubMedHistory`): one stored set of PubMed records, answered slice by slice from
retstart/retmax, so every step's answer holds exactly the records asked for.
``benchmarks/bench_eutils_workflow.py`` drives the same fake at 10, 200 and 2,000 records.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

import pytest
from aiohttp import web
from mcp import Client, StdioServerParameters

from medlit.testing import check_structured, host_for, mcp_client

from support.corpus import corpus_root
from support.environments import fake_env, server_env
from support.fake_upstream import FakeUpstream, Req, json_response

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

WEB_ENV = "MCID_6934533c4c5abba8c303da1d"
QUERY_KEY = "1"
TERM = "crispr delivery"
TRANSLATION = '"crispr"[All Fields] AND "delivery"[All Fields]'
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# The shape of a real PubMed ESummary JSON DocSum (tests/../shared/corpus) when the corpus is present.
_DOCSUM_FILE = "ncbi/esummary/esummary_pubmed_json_28806736.json"


def _docsum_template() -> dict[str, Any]:
    root = corpus_root()
    if root is not None and (root / _DOCSUM_FILE).exists():
        doc = json.loads((root / _DOCSUM_FILE).read_bytes())
        return doc["result"]["28806736"]
    return {
        "uid": "",
        "pubdate": "",
        "source": "",
        "authors": [],
        "title": "",
        "volume": "",
        "issue": "",
        "pages": "",
        "lang": ["eng"],
        "pubtype": ["Journal Article"],
        "articleids": [],
        "fulljournalname": "",
    }


def refuse(why: str) -> web.Response:
    """A 400 (not retried) so a step that misuses the handle fails loudly instead of being served."""
    return web.Response(status=400, text=f"fake History server: {why}")


class PubMedHistory:
    """A History server holding one PubMed result set of ``total`` records; every fourth is in PMC.

    Each E-utility answers only through the handle (WebEnv + query_key, no id list) and only for the
    slice retstart/retmax asks for, so a tool that re-sends ids, re-searches or mis-pages fails.
    """

    def __init__(self, total: int, *, first_pmid: int = 39_000_000) -> None:
        self.total = total
        self.pmids = [str(first_pmid - i) for i in range(total)]  # newest first, like PubMed
        self.pmc = {p: str(11_000_000 + i) for i, p in enumerate(self.pmids) if i % 4 == 0}
        self._template = _docsum_template()

    def install(self, fake: FakeUpstream) -> None:
        fake.route("ncbi", "esearch.fcgi", self.esearch)
        fake.route("ncbi", "esummary.fcgi", self.esummary)
        fake.route("ncbi", "efetch.fcgi", self.efetch)
        fake.route("ncbi", "elink.fcgi", self.elink)

    # -- the stored set -----------------------------------------------------------------------
    def _slice(self, req: Req) -> list[str] | web.Response:
        p = req.params
        if "id" in p:
            return refuse("expected WebEnv/query_key, not an id list")
        if p.get("WebEnv") != WEB_ENV or p.get("query_key") != QUERY_KEY or p.get("db") != "pubmed":
            return refuse(f"unknown set {p}")
        start, size = int(p.get("retstart", 0)), int(p.get("retmax", 20))
        return self.pmids[start : start + size]

    def docsum(self, pmid: str) -> dict[str, Any]:
        i = int(self.pmids[0]) - int(pmid)
        doc = dict(self._template)  # shallow: every nested value that differs is replaced whole
        doi = f"10.1000/test.{pmid}"
        doc.update(
            uid=pmid,
            title=f"Record {pmid}: CRISPR delivery study {i}.",
            pubdate=f"2024 {MONTHS[i % 12]}",
            source="J Test",
            fulljournalname="Journal of Tests",
            volume=str(1 + i // 100),
            issue=str(1 + i % 12),
            pages=f"{100 + i}-{110 + i}",
            authors=[
                {"name": f"Author{pmid} A", "authtype": "Author", "clusterid": ""},
                {"name": "Second B", "authtype": "Author", "clusterid": ""},
            ],
            elocationid=f"doi: {doi}",
        )
        ids = [
            {"idtype": "pubmed", "idtypen": 1, "value": pmid},
            {"idtype": "doi", "idtypen": 3, "value": doi},
        ]
        if pmid in self.pmc:
            ids.append({"idtype": "pmc", "idtypen": 8, "value": f"PMC{self.pmc[pmid]}"})
        doc["articleids"] = ids
        return doc

    @staticmethod
    def abstract(n: int, pmid: str) -> str:
        """One record of PubMed's rettype=abstract text."""
        return (
            f"{n}. J Test. 2024;1:{n}. doi: 10.1000/test.{pmid}.\n\n"
            f"Record {pmid}: CRISPR delivery study.\n\n"
            f"Author{pmid} A, Second B.\n\n"
            "Lipid nanoparticles carried the editor to the liver; editing reached 60% in mice.\n\n"
            f"DOI: 10.1000/test.{pmid}\nPMID: {pmid}  [Indexed for MEDLINE]"
        )

    # -- handlers -------------------------------------------------------------------------------
    def esearch(self, req: Req) -> web.Response:
        p = req.params
        if p.get("db") != "pubmed" or p.get("usehistory") != "y":
            return refuse(f"expected db=pubmed with usehistory=y, got {p}")
        start, size = int(p.get("retstart", 0)), int(p.get("retmax", 20))
        result = {
            "count": str(self.total),
            "retmax": str(len(self.pmids[start : start + size])),
            "retstart": str(start),
            "querykey": QUERY_KEY,
            "webenv": WEB_ENV,
            "idlist": self.pmids[start : start + size],
            "translationset": [],
            "querytranslation": TRANSLATION,
        }
        return json_response({"header": {"type": "esearch", "version": "0.3"}, "esearchresult": result})

    def esummary(self, req: Req) -> web.Response:
        uids = self._slice(req)
        if isinstance(uids, web.Response):
            return uids
        if req.params.get("retmode") != "json" or len(uids) > 500:
            return refuse("ESummary JSON is capped at 500 ids")
        body = {"uids": uids, **{u: self.docsum(u) for u in uids}}
        return json_response({"header": {"type": "esummary", "version": "0.3"}, "result": body})

    def efetch(self, req: Req) -> web.Response:
        uids = self._slice(req)
        if isinstance(uids, web.Response):
            return uids
        if (req.params.get("rettype"), req.params.get("retmode")) != ("abstract", "text"):
            return refuse(f"expected rettype=abstract retmode=text, got {req.params}")
        text = "\n\n\n".join(self.abstract(n, u) for n, u in enumerate(uids, 1))
        return web.Response(text=text + "\n", content_type="text/plain")

    def elink(self, req: Req) -> web.Response:
        p = req.params
        if "id" in p:
            return refuse("expected WebEnv/query_key, not an id list")
        if (p.get("dbfrom"), p.get("db"), p.get("WebEnv"), p.get("query_key")) != (
            "pubmed",
            "pmc",
            WEB_ENV,
            QUERY_KEY,
        ):
            return refuse(f"unexpected elink {p}")
        linkset = {
            "dbfrom": "pubmed",
            "ids": self.pmids,
            "linksetdbs": [{"dbto": "pmc", "linkname": "pubmed_pmc", "links": list(self.pmc.values())}],
        }
        return json_response({"header": {"type": "elink", "version": "0.3"}, "linksets": [linkset]})


TOTAL = 1_234  # three ESummary batches (500 + 500 + 234)
PAGE_START, PAGE_SIZE = 500, 100


async def run_workflow(client: Client, fake: FakeUpstream, store: PubMedHistory) -> None:
    schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(name, args)
        assert not result.is_error, result.content
        check_structured(result.structured_content, schemas[name])
        return result.structured_content

    # 1. search, keeping the result set on the History server
    found = await call("eutils_esearch", {"db": "pubmed", "term": TERM, "retmax": 20, "usehistory": True})
    assert found["total"] == TOTAL and found["count"] == 20 and found["uids"] == store.pmids[:20]
    assert found["has_more"] is True and found["next_offset"] == 20
    assert found["query_translation"] == TRANSLATION and "spelling_suggestion" not in found  # empty: left out
    handle = found["history"]
    assert handle == {"db": "pubmed", "web_env": WEB_ENV, "query_key": QUERY_KEY, "count": TOTAL}

    # 2. summaries of the whole set through the handle (db omitted: the handle carries it)
    summary = await call("eutils_esummary", {"history": handle, "retmax": TOTAL})
    assert summary["count"] == TOTAL and summary["batches"] == math.ceil(TOTAL / 500) == 3
    assert summary["has_more"] is False and "next_offset" not in summary  # the handle knows the set size
    assert [r["uid"] for r in summary["records"]] == store.pmids and not summary.get("errors")
    first = summary["records"][0]
    assert first["title"].startswith(f"Record {store.pmids[0]}") and first["journal"]
    assert (
        first["doi"] == f"10.1000/test.{store.pmids[0]}"
        and first["pmcid"] == f"PMC{store.pmc[store.pmids[0]]}"
    )
    assert first["authors"] == [f"Author{store.pmids[0]} A", "Second B"]
    assert sum(r.get("pmcid") is not None for r in summary["records"]) == len(store.pmc)

    # 3. one page of abstracts through the handle
    page = await call(
        "eutils_efetch", {"history": handle, "db": "pubmed", "retstart": PAGE_START, "retmax": PAGE_SIZE}
    )
    assert (page["database"], page["rettype"], page["retmode"]) == ("pubmed", "abstract", "text")
    assert page["record_count"] == PAGE_SIZE and page["batches"] == 1 and page["offset"] == PAGE_START
    assert page["has_more"] is True and page["next_offset"] == PAGE_START + PAGE_SIZE
    assert re.findall(r"PMID: (\d+)", page["text"]) == store.pmids[PAGE_START : PAGE_START + PAGE_SIZE]

    # 4. the set's PMC full-text records, linked through the handle
    links = await call("eutils_elink", {"dbfrom": "pubmed", "db": "pmc", "history": handle})
    (group,) = links["groups"]
    assert (links["dbfrom"], links["dbto"], links["command"]) == ("pubmed", "pmc", "neighbor")
    assert group["linkname"] == "pubmed_pmc" and group["ids"] == list(store.pmc.values())
    assert group["count"] == links["total_linked"] == len(store.pmc) == math.ceil(TOTAL / 4)

    # The upstream side: one esearch, then only the handle, and the fewest requests.
    ncbi = fake.of("ncbi")
    assert [r.path for r in ncbi] == [
        "esearch.fcgi",
        "esummary.fcgi",
        "esummary.fcgi",
        "esummary.fcgi",
        "efetch.fcgi",
        "elink.fcgi",
    ]
    assert len(ncbi) == 6 and not fake.rate_limited
    for r in ncbi[1:]:
        assert "id" not in r.params and "term" not in r.params
        assert (r.params["WebEnv"], r.params["query_key"]) == (WEB_ENV, QUERY_KEY)
    pages = [(r.params["retstart"], r.params["retmax"]) for r in ncbi[1:5]]
    assert pages == [("0", "500"), ("500", "500"), ("1000", "234"), (str(PAGE_START), str(PAGE_SIZE))]
    assert ncbi[5].params["cmd"] == "neighbor" and ncbi[5].params["db"] == "pmc"


async def test_workflow_over_stdio(fake):
    """The required run: the server as a subprocess, a real MCP client over stdio."""
    store = PubMedHistory(TOTAL)
    store.install(fake)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=server_env(fake)
    )
    async with Client(params) as client:
        await run_workflow(client, fake, store)


async def test_workflow_in_memory(fake):
    """The same workflow through the in-memory transport (no subprocess)."""
    store = PubMedHistory(TOTAL)
    store.install(fake)
    host = host_for(env=fake_env(fake))
    async with mcp_client(host) as client:
        await run_workflow(client, fake, store)
