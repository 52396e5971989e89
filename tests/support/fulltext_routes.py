"""Fake-upstream handlers for full text: efetch db=pmc and the NCBI ID converter.

efetch serves our hand-written articles (tests/fixtures/fulltext/, tests/fixtures/ncbi/) and,
when the shared corpus is present, real corpus JATS; the converter answers from
tests/fixtures/ncbi/idconv_*.json and tests/fixtures/fulltext/idconv.json. Shared by
tests/plugin/test_fulltext.py, tests/e2e/test_fulltext_workflow.py and
benchmarks/bench_fulltext.py (``install(fake)`` registers both routes).
"""

from __future__ import annotations

import json

from aiohttp import web
from lxml import etree

from support.corpus import corpus_path, corpus_root
from support.fake_upstream import FIXTURES, FakeUpstream, Req, json_response, xml_response

# PMC digits -> one of our fixtures ("fixture:...", always served) or a recorded article (corpus
# path, served only when the corpus is present; else omitted like an id PMC does not know).
ARTICLES = {
    "7100001": "fixture:fulltext/pmc7100001_research.xml",
    "7100002": "fixture:fulltext/pmc7100002_brief.xml",
    "7100003": "fixture:fulltext/pmc7100003_correction.xml",
    "9999001": "fixture:ncbi/efetch_pmc_restricted.xml",
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
}
IDCONV_FILES = ("ncbi/idconv_pmid.json", "ncbi/idconv_doi.json", "fulltext/idconv.json")


def require_corpus() -> None:
    """Skip the calling test (before any server starts) unless every served corpus file is present."""
    for ref in ARTICLES.values():
        if not ref.startswith("fixture:"):
            corpus_path(ref)


def _article_xml(digits: str) -> bytes | None:
    ref = ARTICLES[digits]
    if ref.startswith("fixture:"):
        data = (FIXTURES / ref[8:]).read_bytes()
    else:
        root_dir = corpus_root()
        if root_dir is None or not (root_dir / ref).exists():
            return None
        data = (root_dir / ref).read_bytes()
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)
    root = etree.fromstring(data, parser)
    article = root if etree.QName(root).localname == "article" else root.find(".//article")
    return etree.tostring(article)


def articleset(articles: list[bytes]) -> web.Response:
    return xml_response(
        b'<?xml version="1.0" ?>\n<!DOCTYPE pmc-articleset PUBLIC "-//NLM//DTD ARTICLE SET 2.0//EN" '
        b'"https://dtd.nlm.nih.gov/ncbi/pmc/articleset/nlm-articleset-2.0.dtd">\n<pmc-articleset>'
        + b"".join(articles)
        + b"</pmc-articleset>"
    )


def efetch_pmc(req: Req) -> web.Response:
    """efetch db=pmc: a pmc-articleset of the known ids, unknown ids silently omitted (as NCBI does)."""
    assert req.params.get("db") == "pmc"
    found = [_article_xml(i) for i in req.ids() if i in ARTICLES]
    return articleset([a for a in found if a is not None])


def _idconv_records() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name in IDCONV_FILES:
        for rec in json.loads((FIXTURES / name).read_text())["records"]:
            out.setdefault(rec["requested-id"].lower(), rec)
    return out


def idconv(req: Req) -> web.Response:
    """The ID converter: answers every requested id in request order from the fixture records;
    an id of an unknown article gets the converter's per-record error."""
    known = _idconv_records()
    records = []
    for raw in req.params["ids"].split(","):
        idtype = req.params.get("idtype") or ("doi" if raw.startswith("10.") else "pmid")
        rec = known.get(raw.lower()) or {
            "requested-id": raw,
            idtype: raw,
            "status": "error",
            "errmsg": "invalid article id",
        }
        records.append(rec)
    return json_response({"status": "ok", "responseDate": "2025-06-02 10:11:12", "records": records})


def install(fake: FakeUpstream) -> FakeUpstream:
    """Register efetch db=pmc and the ID converter on the fake."""
    fake.route("ncbi", "efetch.fcgi", efetch_pmc)
    fake.route("idconv", "", idconv)
    return fake
