"""Fake routes for screening a generated review set (tests/support/review_routes.py) and checking its
includes' full texts: one ``ncbi/efetch.fcgi`` handler for the three uses a set's records meet
(EFetch from the History server for the import, ``db=pmc`` for the PMC tier, ``db=pubmed`` with
ids for the metadata lookup behind the library link) and the PMC ID converter, which knows no
synthetic PMID (so only records carrying a PMCID can be served).

``install(fake, lit, available)``: ``available`` is the set of PMCIDs (``PMC9000003``) PMC serves
with a body; every other PMCID is omitted from the articleset, as PMC omits ids it lacks.
``stdio_params(fake, tmp, **env)``: the server as a subprocess over stdio against the fake, its
review store and exports in ``tmp``, Europe PMC and Unpaywall off (``review_env``: that
environment without the switches, which test_review_workflow shares).

Used by tests/plugin/test_review_screening.py, tests/e2e/test_review_screening_workflow.py,
tests/e2e/test_review_priority_stdio.py and benchmarks/bench_review.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from aiohttp import web
from mcp import StdioServerParameters

from support import review_routes
from support.environments import server_env
from support.fake_upstream import FakeUpstream, Req, json_response, xml_response
from support.review_routes import Literature, Paper


def jats(p: Paper) -> str:
    return (
        '<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article"><front>'
        f'<article-meta><article-id pub-id-type="pmid">{p.pmid}</article-id>'
        f'<article-id pub-id-type="pmc">{p.pmcid}</article-id>'
        f'<article-id pub-id-type="doi">{p.doi}</article-id>'
        f"<title-group><article-title>{p.title.replace('&', '&amp;')}</article-title></title-group>"
        f'<pub-date pub-type="epub"><year>{p.year}</year></pub-date></article-meta></front>'
        f"<body><sec><title>Methods</title><p>Record {p.n} was randomised.</p></sec>"
        f"<sec><title>Results</title><p>Nothing changed in record {p.n}.</p></sec></body></article>"
    )


def install(fake: FakeUpstream, lit: Literature, available: set[str]) -> Literature:
    review_routes.install(fake, lit)
    by_pmcid = {p.pmcid: p for papers in lit.pubmed.values() for p in papers if p.pmcid}
    by_pmid = {p.pmid: p for papers in lit.pubmed.values() for p in papers}
    history = review_routes.efetch(lit)

    def efetch(req: Req) -> web.Response:
        if req.params.get("WebEnv"):
            return history(req)
        if req.params.get("db") == "pmc":
            found = [by_pmcid.get(f"PMC{i}") for i in req.ids()]
            body = "".join(jats(p) for p in found if p is not None and p.pmcid in available)
            return xml_response('<?xml version="1.0" ?>\n<pmc-articleset>' + body + "</pmc-articleset>")
        body = "".join(review_routes.pubmed_xml(by_pmid[i]) for i in req.ids() if i in by_pmid)
        return xml_response(
            '<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>' + body + "</PubmedArticleSet>"
        )

    def idconv(req: Req) -> web.Response:
        records = [
            {"requested-id": raw, "pmid": raw, "status": "error", "errmsg": "invalid article id"}
            for raw in req.params["ids"].split(",")
        ]
        return json_response({"status": "ok", "responseDate": "2025-06-02 10:11:12", "records": records})

    fake.route("ncbi", "efetch.fcgi", efetch)
    fake.route("idconv", "", idconv)
    return lit


def review_env(fake: FakeUpstream, tmp: Path, **env: str) -> dict[str, str]:
    """The environment of ``medlit serve`` as a subprocess against ``fake``: its review store and
    exports in ``tmp``, ``env`` on top, logs at WARNING, output unbuffered."""
    return server_env(
        fake, MEDLIT_STORE=f"sqlite:///{tmp / 'review.db'}", MEDLIT_EXPORT_DIR=str(tmp / "exports"), **env
    )


def stdio_params(fake: FakeUpstream, tmp: Path, **env: str) -> StdioServerParameters:
    """``medlit serve`` over stdio against ``fake`` (:func:`review_env`), Europe PMC and Unpaywall
    off, ``env`` on top."""
    full = review_env(fake, tmp, EUROPEPMC_ENABLED="false", UNPAYWALL_ENABLED="false", **env)
    return StdioServerParameters(command=sys.executable, args=["-m", "medlit", "serve"], env=full)
