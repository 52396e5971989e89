"""PubMed on the fake for the cache tests and their benchmark: E-utilities and the ID converter
answering any PMID with a small record of its own (PMIDs starting with 9 are unknown)."""

from __future__ import annotations

from aiohttp import web

from support.fake_upstream import Req, json_response, xml_response


def _article(pmid: str) -> str:
    return (
        f"<PubmedArticle><MedlineCitation Status='MEDLINE' Owner='NLM'><PMID Version='1'>{pmid}</PMID>"
        "<Article PubModel='Print'><Journal><JournalIssue CitedMedium='Print'><Volume>1</Volume>"
        "<PubDate><Year>2020</Year></PubDate></JournalIssue><Title>Journal of Tests</Title>"
        "<ISOAbbreviation>J Tests</ISOAbbreviation></Journal>"
        f"<ArticleTitle>Record {pmid}.</ArticleTitle><Pagination><MedlinePgn>1-2</MedlinePgn></Pagination>"
        "<AuthorList><Author><LastName>Doe</LastName><ForeName>Jane</ForeName><Initials>J</Initials></Author>"
        "</AuthorList><Language>eng</Language></Article></MedlineCitation>"
        f"<PubmedData><ArticleIdList><ArticleId IdType='pubmed'>{pmid}</ArticleId>"
        f"<ArticleId IdType='doi'>10.1000/t.{pmid}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>"
    )


def efetch(req: Req) -> web.Response:
    body = "".join(_article(i) for i in req.ids() if not i.startswith("9"))  # 9...: unknown PMIDs
    return xml_response(f"<?xml version='1.0'?><PubmedArticleSet>{body}</PubmedArticleSet>")


def esearch(req: Req) -> web.Response:
    ids = [str(31000000 + i) for i in range(20)]
    return json_response({"esearchresult": {"count": "20", "retmax": "20", "retstart": "0", "idlist": ids}})


def esummary(req: Req) -> web.Response:
    result: dict = {"uids": req.ids()}
    for i in req.ids():
        result[i] = {
            "uid": i, "pubdate": "2020", "source": "J Tests", "title": f"Record {i}.",
            "authors": [{"name": "Doe J", "authtype": "Author"}], "fulljournalname": "Journal of Tests",
            "articleids": [{"idtype": "pubmed", "value": i}], "pubtype": ["Journal Article"],
        }  # fmt: skip
    return json_response({"header": {"type": "esummary"}, "result": result})


def idconv(req: Req) -> web.Response:
    records = []
    for raw in req.params.get("ids", "").split(","):
        records.append({"pmid": raw, "pmcid": f"PMC{raw[-6:]}", "doi": f"10.1000/t.{raw}"})
    return json_response({"status": "ok", "records": records})


def fetched_ids(fake, path: str = "efetch.fcgi") -> list[list[str]]:
    return [r.ids() for r in fake.of("ncbi", path)]
