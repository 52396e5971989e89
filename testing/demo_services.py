"""``medlit demo``'s answers beyond ESearch/EFetch/ESummary: Europe PMC, iCite and ELink, each
computed from the same sample records (:mod:`medlit.testing.demo_records`) in that service's shape.

- Europe PMC ``search`` (``resultType`` core, lite or idlist; ``cursorMark`` paging) evaluates the
  query over the records with Europe PMC's fields (``TITLE:``, ``AUTH:``, ``EXT_ID:``, ``PMCID:``,
  ``DOI:``, ``PUB_YEAR:``...), and ``{PMCID}/fullTextXML`` serves the sample's full texts, so
  Europe PMC's full-text tier answers from the sample too.
- iCite ``pubs`` answers the records with a recorded citation count (OpenAlex's, for the knee
  review's records; see the sample's README), their citing and cited PMIDs within the sample; the
  relative citation ratio, which only iCite computes, is left out as iCite leaves it for records
  it has not scored.
- ELink ``pubmed_pubmed_refs`` and ``pubmed_pubmed_citedin`` follow the recorded references among
  the sample's records; ``pubmed_pubmed`` (similar articles) ranks the others by the words their
  titles and abstracts share.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

from aiohttp import web

from .demo_records import FULL_TEXTS, Record, by_pmid, full_text, matching, records
from .fake_upstream import FakeUpstream, Req, json_response, xml_response

PAGE = 25


# -- Europe PMC ---------------------------------------------------------------------------------


def _author(name: str) -> dict[str, str]:
    last, _, initials = name.rpartition(" ")
    return {"fullName": name, "lastName": last or name, "initials": initials}


def epmc_record(r: Record) -> dict[str, Any]:
    """A sample record as Europe PMC's ``core`` result (source MED)."""
    open_access = (r.get("pmcid") or "").removeprefix("PMC") in FULL_TEXTS
    out: dict[str, Any] = {
        "id": r["pmid"],
        "source": "MED",
        "pmid": r["pmid"],
        "title": r["title"],
        "authorString": ", ".join(r["authors"]),
        "authorList": {"author": [_author(a) for a in r["authors"]]},
        "journalInfo": {
            "volume": r["volume"],
            "issue": r["issue"],
            "yearOfPublication": r.get("year"),
            "journal": {"title": r["journal"], "isoabbreviation": r["source"]},
        },
        "pubYear": str(r.get("year") or ""),
        "pageInfo": r["pages"],
        "abstractText": r["abstract"],
        "pubTypeList": {"pubType": r["pubtypes"]},
        "isOpenAccess": "Y" if open_access else "N",
        "inEPMC": "Y" if open_access else "N",
        "inPMC": "Y" if r.get("pmcid") else "N",
        "hasPDF": "N",
        "citedByCount": r.get("citedByCount") or 0,
    }
    if r.get("doi"):
        out["doi"] = r["doi"]
    if r.get("pmcid"):
        out["pmcid"] = r["pmcid"]
        out["fullTextIdList"] = {"fullTextId": [r["pmcid"]]}
    return out


def _lite(r: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "source", "pmid", "pmcid", "doi", "title", "authorString", "pubYear", "pageInfo")
    return {k: r[k] for k in keep if k in r} | {
        "isOpenAccess": r["isOpenAccess"],
        "citedByCount": r["citedByCount"],
    }


def epmc_search(req: Req) -> web.Response:
    query = req.params.get("query", "")
    found = matching(query)
    start = (
        int(req.params.get("cursorMark", "*").removeprefix("DEMO_") or 0)
        if req.params.get("cursorMark", "*") != "*"
        else 0
    )
    size = int(req.params.get("pageSize", str(PAGE)) or PAGE)
    page = found[start : start + size]
    kind = req.params.get("resultType", "lite")
    if kind == "idlist":
        results: list[dict[str, Any]] = [{"id": r["pmid"], "source": "MED", "pmid": r["pmid"]} for r in page]
    else:
        results = [epmc_record(r) if kind == "core" else _lite(epmc_record(r)) for r in page]
    body: dict[str, Any] = {
        "version": "6.9",
        "hitCount": len(found),
        "request": {"queryString": query, "resultType": kind, "pageSize": size, "cursorMark": "*"},
        "resultList": {"result": results},
    }
    if start + size < len(found):
        body["nextCursorMark"] = f"DEMO_{start + size}"
    return json_response(body)


def epmc_full_text(digits: str) -> Callable[[Req], web.Response]:
    def handler(req: Req) -> web.Response:
        return xml_response(b'<?xml version="1.0" encoding="UTF-8"?>\n' + full_text(digits))

    return handler


# -- iCite --------------------------------------------------------------------------------------


def _cited_by(pmid: str) -> list[str]:
    return [r["pmid"] for r in records() if pmid in (r.get("cites") or [])]


def icite_record(r: Record, fields: list[str]) -> dict[str, Any]:
    full: dict[str, Any] = {
        "pmid": int(r["pmid"]),
        "year": r.get("year"),
        "title": r["title"],
        "journal": r["source"],
        "doi": r.get("doi"),
        "citation_count": r["citedByCount"],
        "references": " ".join(r.get("cites") or []),
        "cited_by": " ".join(_cited_by(r["pmid"])),
        "provisional": False,
    }
    return {k: v for k, v in full.items() if not fields or k in fields}


def icite_pubs(req: Req) -> web.Response:
    known = by_pmid()
    fields = [f for f in req.params.get("fl", "").split(",") if f]
    wanted = [p.strip() for p in req.params.get("pmids", "").split(",") if p.strip()]
    data = [
        icite_record(known[p], fields)
        for p in wanted
        if p in known and known[p].get("citedByCount") is not None
    ]
    return json_response({"meta": {"pmids": ",".join(wanted)}, "links": {}, "data": data})


# -- ELink --------------------------------------------------------------------------------------


def _words(r: Record) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", f"{r['title']} {r['abstract']}".lower())}


def _similar(pmid: str) -> list[tuple[str, int]]:
    known = by_pmid()
    mine = _words(known[pmid])
    scored = []
    for r in records():
        theirs = _words(r)
        if r["pmid"] != pmid and mine and theirs:
            score = int(1e8 * len(mine & theirs) / len(mine | theirs))
            if score:
                scored.append((r["pmid"], score))
    return sorted(scored, key=lambda x: -x[1])[:20]


def _links(pmid: str, linkname: str) -> list[tuple[str, int | None]]:
    known = by_pmid()
    if pmid not in known:
        return []
    if linkname == "pubmed_pubmed_refs":
        return [(p, None) for p in known[pmid].get("cites") or [] if p in known]
    if linkname == "pubmed_pubmed_citedin":
        return [(p, None) for p in _cited_by(pmid)]
    if linkname == "pubmed_pubmed":
        return [(pmid, 100000000), *_similar(pmid)]  # NCBI lists the article itself first
    return []


def _link_set(pmid: str, linkname: str) -> str:
    links = _links(pmid, linkname)
    ids = "".join(
        f"<Link><Id>{p}</Id>" + (f"<Score>{s}</Score>" if s is not None else "") + "</Link>" for p, s in links
    )
    db = (
        f"<LinkSetDb><DbTo>pubmed</DbTo><LinkName>{escape(linkname)}</LinkName>{ids}</LinkSetDb>"
        if links
        else ""
    )
    return f"<LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>{escape(pmid)}</Id></IdList>{db}</LinkSet>"


def elink(req: Req) -> web.Response:
    linkname = req.params.get("linkname", "pubmed_pubmed")
    ids = [i for raw in req.repeated("id") for i in raw.split(",") if i.strip()]
    body = "".join(_link_set(i.strip(), linkname) for i in ids)
    return xml_response(f'<?xml version="1.0" encoding="UTF-8" ?>\n<eLinkResult>{body}</eLinkResult>')


def install(fake: FakeUpstream) -> None:
    """Europe PMC's search and full texts, iCite's records and ELink's links on ``fake``."""
    fake.route("europepmc", "search", epmc_search)
    fake.route("europepmc", "searchPOST", epmc_search)
    for digits in FULL_TEXTS:
        fake.route("europepmc", f"PMC{digits}/fullTextXML", epmc_full_text(digits))
    fake.route("icite", "pubs", icite_pubs)
    fake.route("ncbi", "elink.fcgi", elink)
