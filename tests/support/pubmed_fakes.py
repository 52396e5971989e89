"""Fake NCBI routes for the pubmed_* tool tests: real corpus records where the corpus has them,
the repo's small fixtures (tests/fixtures/ncbi/pubmed_*) where it does not."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from aiohttp import web
from lxml import etree

from medlit.testing import tool_definitions

from support.corpus import corpus_cache, corpus_glob, corpus_root
from support.fake_upstream import FIXTURES, Req, json_response, xml_response

EFETCH = "ncbi/efetch_pubmed/"
FIX = FIXTURES / "ncbi"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, load_dtd=False)


def fixture(name: str) -> bytes:
    return (FIX / name).read_bytes()


def output_schema(rt, name: str) -> dict:
    return next(t for t in tool_definitions(rt.host) if t.name == name).output_schema


def _records(path: Path) -> list[etree._Element]:
    root = etree.fromstring(path.read_bytes(), _PARSER)
    if root.tag in ("PubmedArticle", "PubmedBookArticle"):
        return [root]
    return [c for c in root if c.tag in ("PubmedArticle", "PubmedBookArticle")]


@corpus_cache
def record_index() -> dict[str, bytes]:
    """PMID -> serialised record, over every PubMed XML in the corpus (first file wins)."""
    out: dict[str, bytes] = {}
    for path in corpus_glob(EFETCH + "*.xml"):
        for rec in _records(path):
            pmid = rec.findtext("MedlineCitation/PMID") or rec.findtext("BookDocument/PMID")
            if pmid:
                out.setdefault(pmid.strip(), etree.tostring(rec, encoding="utf-8"))
    return out


def efetch(req: Req) -> web.Response:
    index = record_index()
    body = b"".join(index[i] for i in req.ids() if i in index)
    return xml_response(
        b'<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>' + body + b"</PubmedArticleSet>"
    )


@functools.cache
def _pubmed_docs() -> dict[str, dict]:
    docs: dict[str, dict] = {}
    for name in ("pubmed_esummary.json", "pubmed_esummary_citmatch.json"):
        result = json.loads(fixture(name))["result"]
        docs.update({uid: result[uid] for uid in result["uids"]})
    return docs


@corpus_cache
def _mesh_docs() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    sources = [FIX / "pubmed_mesh_esummary.xml", *corpus_glob("mesh/esummary_mesh/*.xml")]
    for path in sources:
        root = etree.fromstring(path.read_bytes(), _PARSER)
        for ds in root.iter("DocumentSummary"):
            out.setdefault(ds.get("uid"), etree.tostring(ds, encoding="utf-8"))
    return out


def esummary(req: Req) -> web.Response:
    ids = req.ids()
    if req.params.get("db") == "mesh":
        docs = _mesh_docs()
        body = b"".join(docs[i] for i in ids if i in docs)
        return xml_response(
            b'<?xml version="1.0" encoding="UTF-8"?>\n<eSummaryResult><DocumentSummarySet status="OK">'
            + body
            + b"</DocumentSummarySet></eSummaryResult>"
        )
    docs = _pubmed_docs()
    result: dict = {"uids": ids}
    for i in ids:
        result[i] = docs.get(i, {"uid": i, "error": "cannot get document summary"})
    return json_response({"header": {"type": "esummary", "version": "0.3"}, "result": result})


def esearch(req: Req) -> web.Response:
    term = req.params.get("term", "")
    if req.params.get("db") == "mesh":
        if "asthma" not in term.lower():
            return json_response(
                {"esearchresult": {"count": "0", "retmax": "0", "retstart": "0", "idlist": []}}
            )
        data = json.loads(fixture("pubmed_mesh_exact.json" if "[mh]" in term else "pubmed_mesh_esearch.json"))
    elif "fleeglewort" in term:
        data = json.loads(fixture("pubmed_esearch_warnings.json"))
    else:
        data = json.loads(fixture("pubmed_esearch.json"))
    res = data["esearchresult"]
    start, size = int(req.params.get("retstart", 0)), int(req.params.get("retmax", 20))
    res["idlist"] = res["idlist"][start : start + size]
    res["retstart"], res["retmax"] = str(start), str(len(res["idlist"]))
    return json_response(data)


def espell(req: Req) -> web.Response:
    term = req.params.get("term", "")
    for path in corpus_glob("ncbi/espell/*.xml"):
        data = path.read_bytes()
        if f"<Query>{term}</Query>".encode() in data:
            return xml_response(data)
    return xml_response(
        "<?xml version='1.0'?><eSpellResult><Database>pubmed</Database>"
        f"<Query>{term}</Query><CorrectedQuery></CorrectedQuery><SpelledQuery/><ERROR/></eSpellResult>"
    )


def ecitmatch(req: Req) -> web.Response:
    return web.Response(body=fixture("pubmed_ecitmatch.txt"), content_type="text/plain")


EMBARGOED = {
    "pmcid": "PMC9999999",
    "pmid": "39999999",
    "doi": "10.1000/embargoed.1",
    "live": "false",
    "release-date": "2031-01-01",
}


@corpus_cache
def _idconv_records() -> list[dict]:
    out = [EMBARGOED]
    for path in corpus_glob("idconv/json/*.json"):
        text = path.read_text()
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
        out += [r for r in json.loads(text).get("records", []) if r.get("status") != "error"]
    return out


def idconv(req: Req) -> web.Response:
    idtype = req.params.get("idtype", "pmid")
    records = []
    for raw in req.params.get("ids", "").split(","):
        key = raw.lower() if idtype == "doi" else raw
        rec = next(
            (r for r in _idconv_records() if str(r.get(idtype, "")).lower() == key.lower()),
            None,
        )
        if rec is None:
            records.append(
                {idtype: raw, "requested-id": raw, "status": "error", "errmsg": "invalid article id"}
            )
        else:
            records.append({**rec, "requested-id": raw})
    return json_response({"status": "ok", "responseDate": "2025-01-01 00:00:00", "records": records})


def install(fake) -> None:
    fake.route("ncbi", "efetch.fcgi", efetch)
    fake.route("ncbi", "esummary.fcgi", esummary)
    fake.route("ncbi", "esearch.fcgi", esearch)
    fake.route("ncbi", "espell.fcgi", espell)
    fake.route("ncbi", "ecitmatch.cgi", ecitmatch)
    fake.route("idconv", "", idconv)


def corpus_present() -> bool:
    return corpus_root() is not None and bool(record_index())


def pmids_in(path: Path) -> list[str]:
    ids = []
    for rec in _records(path):
        pmid = rec.findtext("MedlineCitation/PMID") or rec.findtext("BookDocument/PMID")
        if pmid and pmid.strip() not in ids:
            ids.append(pmid.strip())
    if not ids:
        m = re.search(r"pubmed_(\d+)_", path.name)
        ids = [m.group(1)] if m else []
    return ids
