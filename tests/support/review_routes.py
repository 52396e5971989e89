"""Generated literature for the review tests and benchmark: PubMed (ESearch with the History
server, EFetch XML from it) and Europe PMC (cursorMark search, resultType=core) over synthetic
records, so large result sets (thousands) need no corpus copy.

``Literature.build(pubmed=N, europepmc=M, shared=...)`` makes N PubMed papers and M Europe PMC
records, ``shared`` of them copies of PubMed papers matched by a given rule:

- ``pmid``: a MED record carrying the PubMed PMID (and DOI, PMCID, title);
- ``doi``: a record with the paper's DOI but no PMID (a preprint server copy);
- ``pmcid``: a PMC record with the paper's PMCID only;
- ``title``: no shared identifier, the title in another case and punctuation, same year and
  first author.

``install(fake, lit)`` routes ``ncbi/esearch.fcgi``, ``ncbi/efetch.fcgi`` and ``europepmc/search``.
PubMed terms are the registered query, optionally with a trailing publication-date range
(``AND ("2001/01/01"[dp] : "2003/12/31"[dp])``); EFetch refuses to go past record 10,000 as
PubMed does. Europe PMC hands a ``nextCursorMark`` back on every page, as the real one does.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any
from xml.sax.saxutils import escape

from aiohttp import web

from support.fake_upstream import FakeUpstream, Req, json_response, xml_response

PUBMED_QUERY = "synthetic[tiab] AND trial[pt]"
EPMC_QUERY = "TITLE:synthetic AND SRC:MED"
REFUSED_QUERY = "synthetic[badfield"
WORDS = (
    "asthma",
    "insulin",
    "stroke",
    "sepsis",
    "malaria",
    "statin",
    "dementia",
    "obesity",
    "covid",
    "migraine",
)


@dataclass
class Paper:
    n: int
    pmid: str
    doi: str
    pmcid: str | None
    title: str
    authors: list[tuple[str, str]]
    journal: str
    published: date
    abstract: str

    @property
    def year(self) -> int:
        return self.published.year


def paper(n: int, base: int = 30_000_000) -> Paper:
    w1, w2 = WORDS[n % len(WORDS)], WORDS[(n // len(WORDS)) % len(WORDS)]
    first = ("Müller", "Smith", "García", "O'Brien", "Nguyen", "Kowalski")[n % 6]
    return Paper(
        n=n,
        pmid=str(base + n),
        doi=f"10.5555/syn.{n}.{w1}",
        pmcid=f"PMC{9_000_000 + n}" if n % 3 == 0 else None,
        title=f"Synthetic trial {n} of {w1} & {w2}: a randomised study",
        authors=[(first, "Anna B"), ("Lee", "C"), ("Okafor", "Chidi")],
        journal="Journal of Synthetic Medicine",
        published=date(1990, 1, 1) + timedelta(days=(n * 7919) % (35 * 365)),
        abstract=f"Background: {w1} in {w2}. Methods: record {n}. Results: none <b>bold</b> 5% better.",
    )


@dataclass
class Literature:
    pubmed: dict[str, list[Paper]] = field(default_factory=dict)  # query -> papers
    europepmc: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # query -> results
    histories: dict[str, tuple[str, list[Paper]]] = field(default_factory=dict)  # WebEnv -> (term, papers)
    counter: itertools.count = field(default_factory=itertools.count)

    @classmethod
    def build(
        cls,
        pubmed: int,
        europepmc: int,
        shared: dict[str, int] | None = None,
        *,
        pubmed_query: str = PUBMED_QUERY,
        epmc_query: str = EPMC_QUERY,
        repeat_on_page: bool = False,
    ) -> Literature:
        lit = cls()
        papers = [paper(i) for i in range(pubmed)]
        lit.pubmed[pubmed_query] = papers
        results: list[dict[str, Any]] = []
        shared = shared or {}
        pool = iter(papers)
        for rule, count in shared.items():
            taken = 0
            while taken < count:
                p = next(pool)
                if rule == "pmcid" and p.pmcid is None:
                    continue
                results.append(epmc_copy(p, rule))
                taken += 1
        extra = europepmc - len(results)
        for i in range(extra):
            results.append(epmc_copy(paper(1_000_000 + i, base=40_000_000), "own"))
        if repeat_on_page and len(results) > 1001:  # relevance ranking: a record shows up again
            results.insert(1000, results[999])
        lit.europepmc[epmc_query] = results
        return lit


def _names(p: Paper) -> list[dict[str, Any]]:
    return [
        {"fullName": f"{last} {fore[:1]}", "firstName": fore, "lastName": last, "initials": fore[:1]}
        for last, fore in p.authors
    ]


def epmc_copy(p: Paper, rule: str) -> dict[str, Any]:
    """A Europe PMC result for ``p``, sharing with PubMed what ``rule`` says."""
    rec: dict[str, Any] = {
        "title": p.title,
        "authorString": ", ".join(f"{last} {fore[:1]}" for last, fore in p.authors) + ".",
        "authorList": {"author": _names(p)},
        "journalInfo": {
            "volume": "12",
            "issue": "3",
            "journal": {"title": p.journal},
            "yearOfPublication": p.year,
        },
        "pubYear": str(p.year),
        "pageInfo": "101-109",
        "abstractText": p.abstract,
        "pubTypeList": {"pubType": ["research-article", "Journal Article"]},
        "language": "eng",
        "isOpenAccess": "N",
    }
    if rule in ("pmid", "own"):
        rec.update(id=p.pmid, source="MED", pmid=p.pmid, doi=p.doi)
        if p.pmcid:
            rec["pmcid"] = p.pmcid
    elif rule == "doi":
        rec.update(id=f"PPR{p.n}", source="PPR", doi=p.doi.upper())
    elif rule == "pmcid":
        rec.update(id=p.pmcid, source="PMC", pmcid=p.pmcid)
    elif rule == "title":
        rec.update(id=f"AGR{p.n}", source="AGR", title=p.title.upper().replace(":", " -") + ".")
    return rec


# -- PubMed ---------------------------------------------------------------------------------------

_DATED = re.compile(r'^\((.*)\) AND \("(\d{4}/\d{2}/\d{2})"\[dp\] : "(\d{4}/\d{2}/\d{2})"\[dp\]\)$', re.S)


def _day(text: str) -> date:
    y, m, d = (int(x) for x in text.split("/"))
    return date(y, m, d)


def _papers_for(lit: Literature, term: str) -> list[Paper] | None:
    m = _DATED.match(term)
    if m:
        base = lit.pubmed.get(m.group(1))
        if base is None:
            return None
        lo, hi = _day(m.group(2)), _day(m.group(3))
        return [p for p in base if lo <= p.published <= hi]
    return lit.pubmed.get(term)


def esearch(lit: Literature):
    def handler(req: Req) -> web.Response:
        term = req.params.get("term", "")
        if "[badfield" in term:
            return json_response({"esearchresult": {"ERROR": "Invalid query: unknown field [badfield"}})
        papers = _papers_for(lit, term) or []
        result: dict[str, Any] = {
            "count": str(len(papers)),
            "retmax": "0",
            "retstart": "0",
            "idlist": [],
            "querytranslation": term,
        }
        if req.params.get("usehistory") == "y" and papers:
            webenv = f"MCID_{next(lit.counter)}"
            lit.histories[webenv] = (term, papers)
            result.update(webenv=webenv, querykey="1")
        return json_response({"header": {"type": "esearch", "version": "0.3"}, "esearchresult": result})

    return handler


def pubmed_xml(p: Paper) -> str:
    authors = "".join(
        f'<Author ValidYN="Y"><LastName>{escape(last)}</LastName><ForeName>{escape(fore)}</ForeName>'
        f"<Initials>{escape(fore[:1])}</Initials></Author>"
        for last, fore in p.authors
    )
    ids = f'<ArticleId IdType="pubmed">{p.pmid}</ArticleId><ArticleId IdType="doi">{p.doi}</ArticleId>'
    if p.pmcid:
        ids += f'<ArticleId IdType="pmc">{p.pmcid}</ArticleId>'
    return (
        '<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM">'
        f'<PMID Version="1">{p.pmid}</PMID><Article PubModel="Print">'
        f'<Journal><ISSN IssnType="Print">1234-5678</ISSN><JournalIssue CitedMedium="Print"><Volume>12</Volume>'
        f"<Issue>3</Issue><PubDate><Year>{p.year}</Year><Month>{p.published:%b}</Month></PubDate></JournalIssue>"
        f"<Title>{escape(p.journal)}</Title><ISOAbbreviation>J Synth Med</ISOAbbreviation></Journal>"
        f"<ArticleTitle>{escape(p.title)}</ArticleTitle><Pagination><StartPage>101</StartPage>"
        f"<EndPage>109</EndPage><MedlinePgn>101-9</MedlinePgn></Pagination>"
        f'<ELocationID EIdType="doi" ValidYN="Y">{p.doi}</ELocationID>'
        f"<Abstract><AbstractText>{escape(p.abstract)}</AbstractText></Abstract>"
        f'<AuthorList CompleteYN="Y">{authors}</AuthorList><Language>eng</Language>'
        '<PublicationTypeList><PublicationType UI="D016449">Randomized Controlled Trial</PublicationType>'
        "</PublicationTypeList></Article></MedlineCitation>"
        f"<PubmedData><ArticleIdList>{ids}</ArticleIdList></PubmedData></PubmedArticle>"
    )


def efetch(lit: Literature):
    def handler(req: Req) -> web.Response:
        webenv = req.params.get("WebEnv", "")
        if webenv not in lit.histories:
            return xml_response("<eFetchResult><ERROR>Unable to obtain query #1</ERROR></eFetchResult>")
        _, papers = lit.histories[webenv]
        start, size = int(req.params.get("retstart", "0")), int(req.params.get("retmax", "20"))
        if start + size > 10_000:
            return xml_response(
                "<eFetchResult><ERROR>Search Backend failed: Exception: 'retstart' cannot be larger than 9998. "
                "For PubMed, ESearch can only retrieve the first 9,999 records matching the query.</ERROR>"
                "</eFetchResult>"
            )
        body = "".join(pubmed_xml(p) for p in papers[start : start + size])
        return xml_response(
            '<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>' + body + "</PubmedArticleSet>"
        )

    return handler


# -- Europe PMC -----------------------------------------------------------------------------------


def epmc_search(lit: Literature):
    def handler(req: Req) -> web.Response:
        query = req.params.get("query", "")
        if query.startswith("BAD:"):
            return json_response({"version": "6.9", "errCode": 400, "errMsg": "Invalid query syntax"})
        results = lit.europepmc.get(query, [])
        mark = req.params.get("cursorMark", "*")
        start = 0 if mark == "*" else int(mark[1:])
        size = int(req.params.get("pageSize", "25"))
        page = results[start : start + size]
        return json_response(
            {
                "version": "6.9",
                "hitCount": len(results),
                "nextCursorMark": f"c{start + len(page)}",
                "request": {
                    "queryString": query,
                    "resultType": req.params.get("resultType"),
                    "cursorMark": mark,
                    "pageSize": size,
                },
                "resultList": {"result": page},
            }
        )

    return handler


def install(fake: FakeUpstream, lit: Literature) -> Literature:
    fake.route("ncbi", "esearch.fcgi", esearch(lit))
    fake.route("ncbi", "efetch.fcgi", efetch(lit))
    fake.route("europepmc", "search", epmc_search(lit))
    return lit
