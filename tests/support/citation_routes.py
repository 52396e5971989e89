"""A citation graph served from the fake upstream by every citation index we declare: OpenAlex
(``/works`` with ``openalex:``, ``doi:``, ``pmid:`` and ``cites:`` filters, cursor paging),
Europe PMC (``/MED/<pmid>/references`` and ``/citations``), NCBI ELink
(``pubmed_pubmed_refs`` / ``pubmed_pubmed_citedin``, one link set per ``id``), iCite (``pubs``
with ``references`` / ``cited_by``) and Crossref (``works`` with ``doi:`` filters and deposited
``reference`` lists). Works are OpenAlex-shaped; the tests and the chasing benchmark build a
:class:`Graph` by hand or from SYNERGY's OpenAlex work JSON.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from aiohttp import web

from support.fake_upstream import Req, json_response, xml_response

OA = "https://openalex.org/"


@dataclass
class Work:
    id: str  # W…
    pmid: str | None = None
    doi: str | None = None
    title: str | None = None
    year: int | None = None
    refs: list[str] = field(default_factory=list)  # W… it cites

    def openalex(self, select: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": OA + self.id,
            "doi": f"https://doi.org/{self.doi}" if self.doi else None,
            "ids": {
                "openalex": OA + self.id,
                **({"pmid": f"https://pubmed.ncbi.nlm.nih.gov/{self.pmid}"} if self.pmid else {}),
                **({"doi": f"https://doi.org/{self.doi}"} if self.doi else {}),
            },
            "title": self.title,
            "display_name": self.title,
            "publication_year": self.year,
            "referenced_works": [OA + r for r in self.refs],
        }
        if select:
            keep = set(select.split(","))
            body = {k: v for k, v in body.items() if k in keep}
        return body


@dataclass
class Graph:
    works: dict[str, Work] = field(default_factory=dict)

    def add(self, work: Work) -> Work:
        self.works[work.id] = work
        return work

    def by(self, kind: str, value: str) -> Work | None:
        value = value.lower()
        for w in self.works.values():
            if {"openalex": w.id.lower(), "doi": (w.doi or "").lower(), "pmid": w.pmid or ""}.get(
                kind
            ) == value:
                return w
        return None

    def citing(self, wid: str) -> list[Work]:
        return [w for w in self.works.values() if wid in w.refs]

    def refs_of(self, work: Work) -> list[Work]:
        return [self.works[r] for r in work.refs if r in self.works]

    @classmethod
    def from_openalex(cls, items: Iterable[dict[str, Any]]) -> Graph:
        graph = cls()
        for item in items:
            ids = item.get("ids") or {}
            doi = (item.get("doi") or ids.get("doi") or "").removeprefix("https://doi.org/").lower() or None
            pmid = (ids.get("pmid") or "").rsplit("/", 1)[-1] or None
            graph.add(
                Work(
                    id=item["id"].rsplit("/", 1)[-1],
                    pmid=pmid,
                    doi=doi,
                    title=item.get("title") or item.get("display_name"),
                    year=item.get("publication_year"),
                    refs=[r.rsplit("/", 1)[-1] for r in item.get("referenced_works") or []],
                )
            )
        return graph


def _openalex(graph: Graph):
    def handler(req: Req) -> web.Response:
        kind, _, values = req.params.get("filter", "").partition(":")
        wanted = values.split("|")
        if kind == "cites":
            rows = [w for w in graph.works.values() if set(w.refs) & set(wanted)]
        else:
            rows = [w for v in wanted if (w := graph.by(kind, v)) is not None]
        per_page = int(req.params.get("per_page", "25"))
        cursor = req.params.get("cursor")
        start = 0 if cursor in (None, "*") else int(cursor)
        page = rows[start : start + per_page]
        more = cursor is not None and start + per_page < len(rows)
        return json_response(
            {
                "meta": {"count": len(rows), "next_cursor": str(start + per_page) if more else None},
                "results": [w.openalex(req.params.get("select")) for w in page],
            }
        )

    return handler


def _epmc_row(w: Work) -> dict[str, Any]:
    return {"id": w.pmid, "source": "MED", "pmid": w.pmid, "doi": w.doi, "title": w.title, "pubYear": w.year}


def _europepmc(rows: list[Work], key: str, item: str):
    def handler(req: Req) -> web.Response:
        size = int(req.params.get("pageSize", "25"))
        page = int(req.params.get("page", "1"))
        listed = [w for w in rows if w.pmid]
        chunk = listed[(page - 1) * size : page * size]
        return json_response(
            {
                "hitCount": len(listed),
                "request": {"page": page, "pageSize": size},
                key: {item: [_epmc_row(w) for w in chunk]},
            }
        )

    return handler


def _elink(graph: Graph):
    def handler(req: Req) -> web.Response:
        linkname = req.params.get("linkname", "")
        sets = []
        for pmid in req.repeated("id") or req.ids():
            work = graph.by("pmid", pmid)
            linked = []
            if work is not None:
                linked = graph.refs_of(work) if linkname.endswith("_refs") else graph.citing(work.id)
            links = "".join(f"<Link><Id>{w.pmid}</Id></Link>" for w in linked if w.pmid)
            db = f"<LinkSetDb><DbTo>pubmed</DbTo><LinkName>{escape(linkname)}</LinkName>{links}</LinkSetDb>"
            sets.append(
                f"<LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>{escape(pmid)}</Id></IdList>"
                f"{db if links else ''}</LinkSet>"
            )
        return xml_response(f'<?xml version="1.0"?><eLinkResult>{"".join(sets)}</eLinkResult>')

    return handler


def _icite(graph: Graph):
    def handler(req: Req) -> web.Response:
        data = []
        for pmid in req.ids("pmids"):
            work = graph.by("pmid", pmid)
            if work is None:
                continue
            refs = [w.pmid for w in graph.refs_of(work) if w.pmid]
            cited = [w.pmid for w in graph.citing(work.id) if w.pmid]
            data.append(
                {"pmid": int(pmid), "references": [int(p) for p in refs], "cited_by": [int(p) for p in cited]}
            )
        return json_response({"meta": {}, "links": {}, "data": data})

    return handler


def _crossref(graph: Graph):
    def handler(req: Req) -> web.Response:
        items = []
        for part in req.params.get("filter", "").split(","):
            work = graph.by("doi", part.removeprefix("doi:"))
            if work is not None:
                refs = [{"key": f"r{i}", "DOI": w.doi} for i, w in enumerate(graph.refs_of(work)) if w.doi]
                items.append({"DOI": work.doi, "reference": refs})
        return json_response({"status": "ok", "message-type": "work-list", "message": {"items": items}})

    return handler


def install(
    fake: Any, graph: Graph, services: Iterable[str] = ("openalex", "europepmc", "ncbi", "icite", "crossref")
) -> None:
    """Serve ``graph`` from ``fake`` as each of ``services`` answers."""
    chosen = set(services)
    if "openalex" in chosen:
        fake.route("openalex", "works", _openalex(graph))
    if "europepmc" in chosen:
        for w in graph.works.values():
            if w.pmid:
                refs, citing = graph.refs_of(w), graph.citing(w.id)
                fake.route(
                    "europepmc", f"MED/{w.pmid}/references", _europepmc(refs, "referenceList", "reference")
                )
                fake.route(
                    "europepmc", f"MED/{w.pmid}/citations", _europepmc(citing, "citationList", "citation")
                )
    if "ncbi" in chosen:
        fake.route("ncbi", "elink.fcgi", _elink(graph))
    if "icite" in chosen:
        fake.route("icite", "pubs", _icite(graph))
    if "crossref" in chosen:
        fake.route("crossref", "works", _crossref(graph))
