"""A fake of the bioRxiv/medRxiv API (api.biorxiv.org): ``details/{server}/{doi}/na/json`` and
``pubs/{server}/{doi}/na/json``.

The one real record is bioRxiv's 10.1101/456574 (tests/fixtures/preprints/, origin in its
MANIFEST.tsv), published as eLife 43696. Further preprints are built from it (:func:`revised`,
:func:`synthetic`): new DOIs, versions and journal links in the API's documented shape, for what
the recording lacks (several versions, medRxiv, an unpublished preprint, volume). A DOI a server
does not know answers as the real API does: HTTP 200, ``messages[0].status`` "no posts found",
an empty collection.

``install(fake, preprints)`` registers both endpoints on both servers for every known DOI, plus
any DOI named in ``unknown``. Shared by tests/plugin/test_preprints.py and
benchmarks/bench_registers.py.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from support.fake_upstream import FIXTURES, FakeUpstream, Req, json_response

SERVICE = "biorxiv"
DIR = FIXTURES / "preprints"
REAL_DOI = "10.1101/456574"
NOT_FOUND = {"messages": [{"status": "no posts found"}], "collection": []}


def real_record() -> dict[str, Any]:
    return json.loads((DIR / "details_record_10.1101_456574.json").read_text())


@dataclass
class Known:
    server: str
    versions: list[dict[str, Any]]
    pubs: dict[str, Any] | None = None


@dataclass
class PreprintsFake:
    known: dict[str, Known] = field(default_factory=dict)

    def add(self, doi: str, known: Known) -> None:
        self.known[doi] = known

    def details(self, doi: str, server: str, req: Req) -> Any:
        k = self.known.get(doi)
        if k is None or k.server != server:
            return json_response(NOT_FOUND)
        count = len(k.versions)
        return json_response(
            {
                "messages": [{"status": "ok", "count": count, "total": count, "cursor": 0}],
                "collection": k.versions,
            }
        )

    def pubs(self, doi: str, server: str, req: Req) -> Any:
        k = self.known.get(doi)
        if k is None or k.server != server or k.pubs is None:
            return json_response(NOT_FOUND)
        return json_response(
            {"messages": [{"status": "ok", "count": 1, "total": 1, "cursor": 0}], "collection": [k.pubs]}
        )


def pubs_record(doi: str, record: dict[str, Any], journal: str, date: str) -> dict[str, Any]:
    """A ``/pubs`` record for a published preprint, in the documented field names."""
    return {
        "biorxiv_doi": doi,
        "published_doi": record["published"],
        "published_journal": journal,
        "preprint_platform": record["server"],
        "preprint_title": record["title"],
        "preprint_category": record["category"],
        "preprint_date": record["date"],
        "published_date": date,
    }


def revised(doi: str, server: str, versions: int, published: str | None) -> Known:
    """A preprint of ``versions`` versions built from the real record (retitled at v2)."""
    out = []
    for n in range(1, versions + 1):
        rec = copy.deepcopy(real_record())
        rec.update(doi=doi, server=server, version=str(n), date=f"2020-0{min(n, 9)}-1{n % 10}")
        if n > 1:
            rec["title"] = rec["title"] + " (revised)"
        rec["published"] = published or "NA"
        out.append(rec)
    pubs = pubs_record(doi, out[-1], "Journal of Tests", "2021-02-03") if published else None
    return Known(server, out, pubs)


def recorded() -> PreprintsFake:
    """The real bioRxiv record (published in eLife), a two-version medRxiv preprint never published."""
    fake = PreprintsFake()
    rec = real_record()
    fake.add(REAL_DOI, Known("biorxiv", [rec], pubs_record(REAL_DOI, rec, "eLife", "2019-03-07")))
    fake.add("10.1101/2020.03.09.20033357", revised("10.1101/2020.03.09.20033357", "medrxiv", 2, None))
    return fake


def synthetic(count: int) -> PreprintsFake:
    """``count`` bioRxiv preprints of one or two versions, every other one published."""
    fake = PreprintsFake()
    for i in range(count):
        doi = f"10.1101/2021.01.01.{400000 + i}"
        fake.add(doi, revised(doi, "biorxiv", 1 + i % 2, f"10.5555/journal.{i}" if i % 2 == 0 else None))
    return fake


def install(
    fake: FakeUpstream, preprints: PreprintsFake | None = None, unknown: tuple[str, ...] = ()
) -> PreprintsFake:
    preprints = preprints or recorded()
    for doi in [*preprints.known, *unknown]:
        for server in ("biorxiv", "medrxiv"):
            fake.route(
                SERVICE,
                f"details/{server}/{doi}/na/json",
                lambda req, d=doi, s=server: preprints.details(d, s, req),
            )
            fake.route(
                SERVICE,
                f"pubs/{server}/{doi}/na/json",
                lambda req, d=doi, s=server: preprints.pubs(d, s, req),
            )
    return preprints
