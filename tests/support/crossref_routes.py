"""A small fake of Crossref's REST API: ``works?filter=doi:A,doi:B`` (answered out of request order,
as the real service does, with ``score`` 0.0), ``works?filter=updates:A,updates:B`` (notice works
whose ``update-to`` names a DOI), ``works?query.bibliographic=`` (scripted answers, else a word
overlap ranking over the known records with Crossref-like scores) and ``works/<doi>`` (the plain
text 404 for a DOI it does not know). Every answer carries ``x-rate-limit-limit`` /
``x-rate-limit-interval``.

Records are the corpus's real Crossref works when the corpus is present plus hand-written ones
(tests/fixtures/crossref/*.json), and whatever a test adds.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

from aiohttp import web

from support.corpus import corpus_root
from support.fake_upstream import FIXTURES, FakeUpstream, Req, json_response

SERVICE = "crossref"
DIR = FIXTURES / "crossref"
CORPUS_WORKS = (
    "crossref/works/wakefield_1998_lancet_updated_by_rw_retraction.json",
    "crossref/works/mehra_2020_lancet_hcq_update_to_and_updated_by.json",
    "crossref/works/watson_crick_1953_clean_control.json",
    "crossref/works/pone_0033693_updated_by_correction_2026.json",
    "crossref/works/ijo_00000353_sparse_record.json",
)
RATE_HEADERS = {"x-rate-limit-limit": "50", "x-rate-limit-interval": "1s"}
# The fields Crossref's documentation lists for select=; any other is refused with a 400.
SELECTABLE = frozenset(
    "abstract URL member posted score created degree update-policy short-title license ISSN container-title "
    "issued update-to issue prefix approved indexed article-number clinical-trial-number accepted author "
    "group-title DOI is-referenced-by-count updated-by event chair standards-body original-title funder "
    "translator archive published-print alternative-id subject subtitle published-online publisher-location "
    "content-domain reference title link type publisher volume references-count ISBN issn-type assertion "
    "deposited page content-created short-container-title relation editor".split()
)


def _refused(kind: str, value: str, message: str) -> web.Response:
    return json_response(
        {
            "status": "failed",
            "message-type": "validation-failure",
            "message": [{"type": kind, "value": value, "message": message}],
        },
        status=400,
        headers=RATE_HEADERS,
    )


def corpus_work(rel: str) -> dict[str, Any] | None:
    root = corpus_root()
    path = root / rel if root is not None else None
    if path is None or not path.exists():
        return None
    message: dict[str, Any] = json.loads(path.read_bytes())["message"]
    return message


def fixture_works() -> list[dict[str, Any]]:
    out = []
    for path in sorted(DIR.glob("work_*.json")):
        out.append(json.loads(path.read_text())["message"])
    return out


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def _listing(items: list[dict[str, Any]], total: int | None = None) -> web.Response:
    return json_response(
        {
            "status": "ok",
            "message-type": "work-list",
            "message-version": "1.0.0",
            "message": {
                "facets": {},
                "total-results": len(items) if total is None else total,
                "items": items,
                "items-per-page": len(items),
                "query": {"start-index": 0, "search-terms": None},
            },
        },
        headers=RATE_HEADERS,
    )


class CrossrefFake:
    """The works the fake knows (by lower-cased DOI) and what it was asked (``fake.of('crossref')``)."""

    def __init__(self, works: list[dict[str, Any]] | None = None, corpus: bool = True) -> None:
        self.works: dict[str, dict[str, Any]] = {}
        for rel in CORPUS_WORKS if corpus else ():
            if (w := corpus_work(rel)) is not None:
                self.add(w)
        for w in fixture_works() if works is None else works:
            self.add(w)
        self.bibliographic: list[tuple[Callable[[str], bool], dict[str, Any]]] = []

    def add(self, work: dict[str, Any]) -> None:
        self.works[str(work["DOI"]).lower()] = work

    def script(self, when: Callable[[str], bool], body: dict[str, Any]) -> None:
        """Answer a ``query.bibliographic`` for which ``when(query)`` holds with ``body`` (a whole
        recorded answer, e.g. the corpus's matcher responses)."""
        self.bibliographic.append((when, body))

    def handle(self, req: Req) -> web.Response:
        params = req.params
        unknown = [f for f in params.get("select", "").split(",") if f and f not in SELECTABLE]
        if unknown:
            return _refused("select-field-invalid", unknown[0], "Select field is not allowed")
        if "query.bibliographic" in params:
            return self._match(params["query.bibliographic"], int(params.get("rows", "20")))
        filt = params.get("filter", "")
        if filt:
            pairs = [p.split(":", 1) for p in filt.split(",") if ":" in p]
            dois = [v.lower() for k, v in pairs if k == "doi"]
            updates = [v.lower() for k, v in pairs if k == "updates"]
            if dois:
                hits = [copy.deepcopy(self.works[d]) for d in dois if d in self.works]
                for h in hits:
                    h["score"] = 0.0
                return _listing(list(reversed(hits)))  # not the request's order
            if updates:
                hits = [
                    copy.deepcopy(w)
                    for w in self.works.values()
                    if any(str(u.get("DOI", "")).lower() in updates for u in w.get("update-to") or [])
                ]
                return _listing(hits)
            return json_response(
                {
                    "status": "failed",
                    "message-type": "validation-failure",
                    "message": [
                        {"type": "filter-not-available", "value": filt, "message": "Filter not available"}
                    ],
                },
                status=400,
                headers=RATE_HEADERS,
            )
        return _listing([], total=0)

    def _match(self, query: str, rows: int) -> web.Response:
        for when, body in self.bibliographic:
            if when(query):
                return json_response(body, headers=RATE_HEADERS)
        want = _words(query)
        scored = []
        for w in self.works.values():
            if w.get("update-to") and not w.get("author"):
                continue  # notices rank low
            text = " ".join(
                [
                    *(w.get("title") or []),
                    *(w.get("container-title") or []),
                    *(a.get("family", "") for a in w.get("author") or []),
                ]
            )
            overlap = len(want & _words(text))
            if overlap >= 2:
                scored.append((overlap, w))
        scored.sort(key=lambda x: -x[0])
        items = []
        for overlap, w in scored[:rows]:
            item = copy.deepcopy(w)
            item["score"] = float(overlap * 12.5)
            items.append(item)
        return _listing(items, total=len(scored))

    def single(self, doi: str) -> Callable[[Req], web.Response]:
        def handler(req: Req) -> web.Response:
            work = self.works.get(doi.lower())
            if work is None:
                return web.Response(
                    status=404, text="Resource not found.", content_type="text/plain", headers=RATE_HEADERS
                )
            return json_response(
                {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": work},
                headers=RATE_HEADERS,
            )

        return handler


def install(
    fake: FakeUpstream, works: list[dict[str, Any]] | None = None, corpus: bool = True
) -> CrossrefFake:
    cr = CrossrefFake(works, corpus)
    fake.route(SERVICE, "works", cr.handle)
    for doi in cr.works:
        fake.route(SERVICE, f"works/{doi}", cr.single(doi))
    return cr
