"""Fake-upstream handlers for full text: efetch db=pmc served from real corpus JATS, and the NCBI
ID converter answered from tests/fixtures/ncbi/idconv_*.json.

Shared by tests/plugin/test_fulltext.py, tests/e2e/test_fulltext_workflow.py and
benchmarks/bench_fulltext.py (``install(fake)`` registers both routes).
"""

from __future__ import annotations

import json

from aiohttp import web
from lxml import etree

from corpus import corpus_path
from fake_upstream import FIXTURES, FakeUpstream, Req, json_response, xml_response

# PMC digits -> a recorded article (corpus path) or one of our fixtures ("fixture:...").
ARTICLES = {
    "3299399": "pmc/efetch_pmc/pmc_3299399_efetch.xml",
    "3531190": "pmc/efetch_pmc/pmc_3531190_doctype_root_mismatch.xml",
    "8435807": "pmc/efetch_pmc/pmc_articleset_correction.xml",
    "3460867": "pmc/jats_oa/plosone_0046493_supp.nxml",
    "3166277": "pmc/jats_oa/bmc_microbiol_1471-2180-11-174.nxml",
    "2329613": "pmc/jats_oa/bmc_oralhealth_1472-6831-8-11.nxml",
    "2994229": "pmc/jats_oa/brjcancer_6605965a.nxml",
    "2599765": "pmc/jats_oa/ehp-116-1694.nxml",
    "3585041": "pmc/jats_oa/plosntd_0002065.nxml",
    "4531902": "pmc/jats_oa/pmc_4531902_case_report_ali.xml",
    "5608867": "pmc/jats_oa/pmc_5608867_springer.xml",
    "2992225": "pmc/jats_oa/pmc_2992225_diabetes_care_related_article.xml",
    "9999001": "fixture:ncbi/efetch_pmc_restricted.xml",
}


def require_corpus() -> None:
    """Skip the calling test (before any server starts) unless every served corpus file is present."""
    for ref in ARTICLES.values():
        if not ref.startswith("fixture:"):
            corpus_path(ref)


def _article_xml(digits: str) -> bytes:
    ref = ARTICLES[digits]
    data = (FIXTURES / ref[8:]).read_bytes() if ref.startswith("fixture:") else corpus_path(ref).read_bytes()
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)
    root = etree.fromstring(data, parser)
    article = root if etree.QName(root).localname == "article" else root.find(".//article")
    return etree.tostring(article)


def efetch_pmc(req: Req) -> web.Response:
    """efetch db=pmc: a pmc-articleset of the known ids, unknown ids silently omitted (as NCBI does)."""
    assert req.params.get("db") == "pmc"
    body = b"".join(_article_xml(i) for i in req.ids() if i in ARTICLES)
    return xml_response(
        b'<?xml version="1.0" ?>\n<!DOCTYPE pmc-articleset PUBLIC "-//NLM//DTD ARTICLE SET 2.0//EN" '
        b'"https://dtd.nlm.nih.gov/ncbi/pmc/articleset/nlm-articleset-2.0.dtd">\n<pmc-articleset>'
        + body
        + b"</pmc-articleset>"
    )


def idconv(req: Req) -> web.Response:
    """The ID converter: answers from idconv_<idtype>.json in request order; without idtype
    (a mixed batch) each id's type is recognised as the real service does (10. = DOI)."""
    docs = {t: json.loads((FIXTURES / f"ncbi/idconv_{t}.json").read_text()) for t in ("pmid", "doi")}
    records = []
    for raw in req.params["ids"].split(","):
        idtype = req.params.get("idtype") or ("doi" if raw.startswith("10.") else "pmid")
        by_id = {r["requested-id"].lower(): r for r in docs[idtype]["records"]}
        rec = by_id.get(raw.lower()) or {
            "requested-id": raw,
            idtype: raw,
            "status": "error",
            "errmsg": "invalid article id",
        }
        records.append(rec)
    return json_response({**docs["pmid"], "records": records})


def install(fake: FakeUpstream) -> FakeUpstream:
    """Register efetch db=pmc and the ID converter on the fake."""
    fake.route("ncbi", "efetch.fcgi", efetch_pmc)
    fake.route("idconv", "", idconv)
    return fake
