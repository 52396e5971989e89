"""A fake of ClinicalTrials.gov's API v2 ``/studies`` and ``/version``, answered from real recorded
studies (tests/fixtures/clinicaltrials/, origins in its MANIFEST.tsv) and, for volume, copies of
them under new NCT numbers (:func:`synthetic`).

``install(fake, trials)`` registers:

- ``studies`` with ``filter.ids`` (NCT numbers and aliases, comma or pipe separated; unknown ones
  absent, as the real API does), else a search: every word of ``query.cond`` / ``query.intr`` /
  ``query.term`` / ``query.locn`` must occur in a study's text, ``filter.overallStatus`` keeps the
  statuses listed, ``AREA[Phase](A OR B)`` in ``filter.advanced`` the phases; ``pageSize`` (at
  most 1,000, else HTTP 400) and ``pageToken`` paging with an opaque token, ``totalCount`` only
  with ``countTotal=true``; unbalanced brackets or quotes in Essie syntax and an unknown page token
  are HTTP 400 with a plain-text reason, as the real API answers them;
- ``version``: the API's version document (what ``medlit doctor`` probes).

Faults (429 with Retry-After, 5xx) come from the kit's ``fake.fault``. Shared by
tests/plugin/test_clinicaltrials.py and benchmarks/bench_registers.py.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from aiohttp import web

from support.fake_upstream import FIXTURES, FakeUpstream, Req, json_response

SERVICE = "clinicaltrials"
DIR = FIXTURES / "clinicaltrials"
PAGES = (
    "search_phelan_limit5.json",
    "search_phelan_next.json",
    "search_keytruda_limit3.json",
    "search_nsclc_egfr_l858r.json",
)
FULL = "study_nct02576665_full.json"
_TOKEN = re.compile(r"^ZVt07cGH(\d{6})$")


def recorded_studies() -> list[dict[str, Any]]:
    """Every study of the recorded answers, the whole record of NCT02576665 among them."""
    studies: list[dict[str, Any]] = []
    for name in PAGES:
        studies += json.loads((DIR / name).read_text())["studies"]
    studies.append(json.loads((DIR / FULL).read_text()))
    return studies


def nct(study: dict[str, Any]) -> str:
    return str(study["protocolSection"]["identificationModule"]["nctId"])


def synthetic(count: int, start: int = 90_000_000) -> list[dict[str, Any]]:
    """``count`` copies of the recorded studies under new NCT numbers (for paging at volume)."""
    base = recorded_studies()
    out = []
    for i in range(count):
        study = copy.deepcopy(base[i % len(base)])
        study["protocolSection"]["identificationModule"]["nctId"] = f"NCT{start + i:08d}"
        out.append(study)
    return out


def _text(study: dict[str, Any]) -> str:
    return json.dumps(study["protocolSection"]).lower()


def _bad_syntax(value: str) -> str | None:
    if value.count("[") != value.count("]") or value.count("(") != value.count(")") or value.count('"') % 2:
        return f"Error: failed to parse the expression {value[:60]!r}: unbalanced brackets or quotes"
    return None


class TrialsFake:
    """The studies the fake knows, and the searches it was asked (``asked``)."""

    def __init__(
        self, studies: list[dict[str, Any]] | None = None, *, refuse_unknown_ids: bool = False
    ) -> None:
        self.studies = studies if studies is not None else recorded_studies()
        self.asked: list[dict[str, str]] = []
        # Some users report the register refusing a whole filter.ids batch for one unknown number.
        self.refuse_unknown_ids = refuse_unknown_ids

    def by_ids(self, ids: str) -> list[dict[str, Any]]:
        wanted = {x.strip().upper() for x in re.split(r"[,|]", ids) if x.strip()}
        out = []
        for s in self.studies:
            ident = s["protocolSection"]["identificationModule"]
            if {ident["nctId"], *ident.get("nctIdAliases", [])} & wanted:
                out.append(s)
        return out

    def search(self, params: dict[str, str]) -> list[dict[str, Any]]:
        words = [
            w.lower()
            for key in ("query.cond", "query.intr", "query.term", "query.locn")
            for w in re.findall(r"[A-Za-z0-9-]+", re.sub(r"AREA\[\w+\]", " ", params.get(key, "")))
            if w not in ("AND", "OR", "NOT")
        ]
        statuses = set(filter(None, params.get("filter.overallStatus", "").replace("|", ",").split(",")))
        phases = set(re.findall(r"AREA\[Phase\]\(([^)]*)\)", params.get("filter.advanced", "")))
        wanted_phases = {p.strip() for group in phases for p in group.split(" OR ")}
        out = []
        for s in self.studies:
            proto = s["protocolSection"]
            if words and not all(w in _text(s) for w in words):
                continue
            if statuses and proto["statusModule"].get("overallStatus") not in statuses:
                continue
            if wanted_phases and not wanted_phases & set(proto.get("designModule", {}).get("phases", [])):
                continue
            out.append(s)
        return out

    def studies_route(self, req: Req) -> web.Response:
        params = dict(req.params)
        self.asked.append(params)
        for key in ("query.term", "filter.advanced"):
            problem = _bad_syntax(params.get(key, ""))
            if problem:
                return web.Response(status=400, text=problem, content_type="text/plain")
        size = int(params.get("pageSize", "10"))
        if not 0 < size <= 1000:
            return web.Response(
                status=400, text="Error: pageSize must be between 1 and 1000", content_type="text/plain"
            )
        found = self.by_ids(params["filter.ids"]) if "filter.ids" in params else self.search(params)
        if "filter.ids" in params and self.refuse_unknown_ids:
            asked = [x for x in re.split(r"[,|]", params["filter.ids"]) if x]
            known = {nct(s) for s in found}
            bad = [i for i, x in enumerate(asked, 1) if x not in known]
            if bad:
                text = f"Item {bad[0]} in parameter `filter.ids` is not a known study"
                return web.Response(status=400, text=text, content_type="text/plain")
        start = 0
        if "pageToken" in params:
            match = _TOKEN.match(params["pageToken"])
            if not match:
                return web.Response(
                    status=400, text="Error: the pageToken is invalid", content_type="text/plain"
                )
            start = int(match.group(1))
        body: dict[str, Any] = {"studies": found[start : start + size]}
        if start + size < len(found):
            body["nextPageToken"] = f"ZVt07cGH{start + size:06d}"
        if params.get("countTotal") == "true":
            body["totalCount"] = len(found)
        return json_response(body)


def install(fake: FakeUpstream, trials: TrialsFake | None = None) -> TrialsFake:
    trials = trials or TrialsFake()
    fake.route(SERVICE, "studies", trials.studies_route)
    fake.respond(SERVICE, "version", {"apiVersion": "2.0.5", "dataTimestamp": "2026-09-03T09:00:05"})
    return trials
