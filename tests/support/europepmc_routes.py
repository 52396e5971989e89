"""A small fake of Europe PMC's REST search, fullTextXML, citations and references, answered from
hand-written records (tests/fixtures/europepmc/records.json) and, where present, real corpus files.

``install(fake)`` registers:

- ``search`` and ``searchPOST``: the query is read like Europe PMC reads the shapes the plugin
  sends (``(EXT_ID:<id> AND SRC:<src>)``, ``(PMCID:PMC<d>)``, ``(DOI:"<doi>")`` OR-ed, or free words
  with a trailing ``AND (SRC:.. OR SRC:..)`` filter); answers honour ``resultType`` (lite drops
  the core-only fields), ``pageSize`` and ``cursorMark`` (``*`` then ``c<offset>``) and always hand a
  ``nextCursorMark`` back, as the real service does, even on the last page;
- ``<id>/fullTextXML`` for the fixture JATS, and for the corpus's own Europe PMC JATS when the
  corpus is present (PMC11740262, PMC12634591); any other id is a 404;
- ``MED/30000010/references`` from a fixture.

Shared by tests/plugin/test_europepmc*.py, tests/e2e/test_europepmc_workflow.py and
benchmarks/bench_europepmc.py.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from aiohttp import web

from support.corpus import corpus_root
from support.fake_upstream import FIXTURES, FakeUpstream, Req, json_response, xml_response

SERVICE = "europepmc"
DIR = FIXTURES / "europepmc"
# full-text id -> fixture file name, or a corpus path ("corpus:...")
FULLTEXT = {
    "PMC7000010": "PMC7000010_fullText.xml",
    "PPR900001": "PPR900001_fullText.xml",
    "PMC11740262": "corpus:europepmc/fullTextXML/long_covid_research_article.xml",
    "PMC12634591": "corpus:europepmc/fullTextXML/PMC12634591_correction.xml",
}
CORE_ONLY = (
    "abstractText",
    "authorList",
    "journalInfo",
    "license",
    "keywordList",
    "meshHeadingList",
    "pubTypeList",
    "fullTextUrlList",
    "bookOrReportDetails",
)
_EXT = re.compile(r"EXT_ID:(\S+?)\s+AND\s+SRC:(\w+)")
_PMCID = re.compile(r"PMCID:(PMC\d+)", re.I)
_DOI = re.compile(r'DOI:"((?:[^"\\]|\\.)+)"')
_SRC_FILTER = re.compile(r"\s+AND\s+\((SRC:\w+(?:\s+OR\s+SRC:\w+)*)\)\s*$")


def fixture_records() -> list[dict[str, Any]]:
    return json.loads((DIR / "records.json").read_text())["records"]


def fulltext_bytes(ftid: str) -> bytes | None:
    ref = FULLTEXT.get(ftid)
    if ref is None:
        return None
    if ref.startswith("corpus:"):
        root = corpus_root()
        path = root / ref[7:] if root is not None else None
        return path.read_bytes() if path is not None and path.exists() else None
    return (DIR / ref).read_bytes()


class EuropePmcFake:
    """The records the fake search knows, and what it was asked (``queries``)."""

    def __init__(self, records: list[dict[str, Any]] | None = None) -> None:
        self.records = records if records is not None else fixture_records()
        self.queries: list[str] = []

    def match(self, query: str) -> list[dict[str, Any]]:
        sources = None
        filt = _SRC_FILTER.search(query)
        if filt:
            sources = set(re.findall(r"SRC:(\w+)", filt.group(1)))
            query = query[: filt.start()].strip()
            if query.startswith("(") and query.endswith(")"):
                query = query[1:-1]
        ext = _EXT.findall(query)
        pmcids = {p.upper() for p in _PMCID.findall(query)}
        dois = {d.replace('\\"', '"').lower() for d in _DOI.findall(query)}
        out = []
        if ext or pmcids or dois:
            for r in self.records:
                if (
                    any(r["id"] == i and r["source"] == s for i, s in ext)
                    or (r.get("pmcid") or "").upper() in pmcids
                    or (r.get("doi") or "").lower() in dois
                ):
                    out.append(r)
        else:
            words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", query) if w not in ("AND", "OR", "NOT")]
            for r in self.records:
                text = f"{r.get('title', '')} {r.get('abstractText', '')}".lower()
                if words and all(w in text for w in words):
                    out.append(r)
        return [r for r in out if sources is None or r["source"] in sources]

    def search(self, req: Req) -> web.Response:
        query = req.params.get("query", "")
        self.queries.append(query)
        hits = self.match(query)
        size = int(req.params.get("pageSize", "25"))
        cursor = req.params.get("cursorMark", "*")
        start = 0 if cursor == "*" else int(cursor.removeprefix("c"))
        page = copy.deepcopy(hits[start : start + size])
        if req.params.get("resultType", "lite") != "core":
            for r in page:
                for k in CORE_ONLY:
                    r.pop(k, None)
        return json_response(
            {
                "version": "6.9",
                "hitCount": len(hits),
                "nextCursorMark": f"c{start + len(page)}",
                "request": {
                    "queryString": query,
                    "resultType": req.params.get("resultType"),
                    "cursorMark": cursor,
                    "pageSize": size,
                    "sort": req.params.get("sort", ""),
                    "synonym": False,
                },
                "resultList": {"result": page},
            }
        )


def fulltext_handler(ftid: str):
    def handler(req: Req) -> web.Response:
        body = fulltext_bytes(ftid)
        if body is None:
            return web.Response(status=404, text="not found")
        return xml_response(body)

    return handler


def install(fake: FakeUpstream, records: list[dict[str, Any]] | None = None) -> EuropePmcFake:
    epmc = EuropePmcFake(records)
    fake.route(SERVICE, "search", epmc.search)
    fake.route(SERVICE, "searchPOST", epmc.search)
    for ftid in FULLTEXT:
        fake.route(SERVICE, f"{ftid}/fullTextXML", fulltext_handler(ftid))
    fake.respond(SERVICE, "MED/30000010/references", (DIR / "references_MED_30000010.json").read_bytes())
    return epmc
