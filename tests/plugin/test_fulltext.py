"""pubmed_fetch_fulltext against the fake upstream: real corpus JATS served by efetch db=pmc,
hand-written ID-converter answers (tests/fixtures/ncbi/idconv_*.json)."""

import json
import re

import jsonschema
import pytest
from aiohttp import web

from medlit.core.host import load_host
from medlit.core.plugin import FulltextTier, PluginInfo, TierResult, hookimpl
from medlit.core.render import NONCE
from medlit.core.runtime import Runtime
from medlit.core.server import tool_definitions
from medlit.core.settings import load_settings
from medlit.plugins.ncbi.fulltext_models import TableOut
from medlit.plugins.ncbi.fulltext_shape import table_cost

from conftest import fake_env
from corpus import corpus_path
from fake_upstream import Req, json_response
from fulltext_routes import idconv, install, require_corpus

pytestmark = pytest.mark.anyio

TOOL = "pubmed_fetch_fulltext"


@pytest.fixture
def routes(fake):
    require_corpus()  # the efetch answers are real corpus JATS: skip, with the reason, when absent
    return install(fake)


def schema(rt):
    return next(t for t in tool_definitions(rt.host) if t.name == TOOL).output_schema


async def call(rt, args):
    out = await rt.call(TOOL, args)
    assert not out.is_error, out.text
    jsonschema.validate(out.data, schema(rt))
    return out


def efetch_ids(fake):
    reqs = fake.of("ncbi", "efetch.fcgi")
    return [r.ids() for r in reqs], reqs


async def test_pmcids_one_efetch_no_idconv(rt, routes):
    out = await call(rt, {"pmcids": ["PMC3299399", "pmc03531190"]})
    ids, reqs = efetch_ids(routes)
    assert ids == [["3299399", "3531190"]] and reqs[0].method == "POST"
    assert routes.of("idconv") == []
    arts = out.data["articles"]
    assert [a["pmcId"] for a in arts] == ["PMC3299399", "PMC3531190"]
    a = arts[0]
    assert a["source"] == "pmc" and a["viaSource"] == "pmc"
    assert a["doi"] == "10.3389/fpsyt.2012.00018" and a["pmid"] == "22416237"
    assert a["title"].startswith("The Effects of Psychosis Risk Variants")
    assert a["pmcUrl"] == "https://pmc.ncbi.nlm.nih.gov/articles/PMC3299399/"
    assert len(a["tables"]) == 3 and all(len({len(r) for r in t["rows"]}) == 1 for t in a["tables"])
    assert any(s.get("backMatter") for s in a["sections"])
    assert out.data["totalReturned"] == 2 and out.data.get("unavailable") is None
    assert a.get("references") is None
    # markdown with the article text fenced as untrusted data
    assert f"<<<untrusted-data {NONCE}" in out.text and "## The Effects of Psychosis" in out.text


async def test_mixed_ids_fold_onto_one_article(rt, routes):
    args = {
        "pmcids": ["PMC3299399"],
        "pmids": ["PMID: 0022416237", "17927775"],  # the first names PMC3299399 again
        "dois": ["https://doi.org/10.1093/NAR/GKS1195", "10.1101/2024.01.01.123456"],
    }
    out = await call(rt, args)
    arts = out.data["articles"]
    assert [a["pmcId"] for a in arts] == ["PMC3299399", "PMC3531190"]
    # one converter request for every PMID and DOI, one efetch for every PMCID of the call
    (conv,) = routes.of("idconv")
    assert "idtype" not in conv.params
    assert conv.params["ids"] == "22416237,17927775,10.1093/nar/gks1195,10.1101/2024.01.01.123456"
    assert efetch_ids(routes)[0] == [["3299399", "3531190"]]
    un = {u["id"]: u for u in out.data["unavailable"]}
    assert set(un) == {"17927775", "10.1101/2024.01.01.123456"}
    miss = un["17927775"]
    assert miss["idType"] == "pmid" and miss["reason"] == "not-found"
    assert miss["triedTiers"][0]["tier"] == "pmc" and miss["triedTiers"][0]["outcome"] == "miss"
    assert "ID Converter" in miss["triedTiers"][0]["detail"]
    assert un["10.1101/2024.01.01.123456"]["idType"] == "doi"


async def test_pmids_only_one_converter_request(rt, routes):
    out = await call(rt, {"pmids": ["22416237", "23193287", "34527728"]})
    assert len(routes.of("idconv")) == 1 and len(routes.of("ncbi", "efetch.fcgi")) == 1
    assert [a["pmid"] for a in out.data["articles"]] == ["22416237", "23193287", "34527728"]
    correction = out.data["articles"][2]
    assert correction["articleType"] == "correction" and correction["sections"][0]["text"]


async def test_restricted_record_is_no_body(rt, routes):
    out = await call(rt, {"pmcids": ["PMC9999001", "PMC5608867"]})
    assert [a["pmcId"] for a in out.data["articles"]] == ["PMC5608867"]
    (un,) = out.data["unavailable"]
    assert un["id"] == "PMC9999001" and un["reason"] == "no-body"
    assert un["triedTiers"] == [
        {"tier": "pmc", "outcome": "no-body", "detail": un["triedTiers"][0]["detail"]}
    ]
    assert "pubmed_fetch_articles" in out.data["notice"]


async def test_not_in_pmc_is_a_result_not_an_error(rt, routes):
    out = await call(rt, {"pmcids": ["PMC123"]})
    assert out.data["articles"] == [] and out.data["totalReturned"] == 0
    (un,) = out.data["unavailable"]
    assert un["reason"] == "not-found" and un["triedTiers"][0]["outcome"] == "miss"


async def test_section_filter_keeps_breadcrumbs(rt, routes):
    out = await call(rt, {"pmcids": ["PMC3166277"], "sections": ["method", ""]})
    (art,) = out.data["articles"]
    titles = [s["title"] for s in art["sections"]]
    assert titles and all(
        "method" in (s["title"] or "").lower()
        or any("method" in (sub["title"] or "").lower() for sub in s.get("subsections") or [])
        for s in art["sections"]
    ), titles
    for s in art["sections"]:
        if "method" not in (s["title"] or "").lower():  # kept only as a breadcrumb
            assert s["text"] == ""
    kept = {s["title"] for s in art["sections"]} | {
        sub["title"] for s in art["sections"] for sub in s.get("subsections") or []
    }
    for t in art.get("tables") or []:
        assert t["sectionTitle"] in kept


async def test_section_filter_miss_says_so(rt, routes):
    out = await call(rt, {"pmcids": ["PMC5608867"], "sections": ["zzzz-no-such-heading"]})
    assert out.data["articles"][0]["sections"] == []
    assert "zzzz-no-such-heading" in out.data["notice"]


async def test_switches_tables_assets_references(rt, routes):
    out = await call(
        rt,
        {"pmcids": ["PMC3460867"], "includeTables": False, "includeAssets": False, "includeReferences": True},
    )
    (art,) = out.data["articles"]
    assert art.get("tables") is None and art.get("assets") is None
    assert art["references"] and all(r["citation"] for r in art["references"])
    assert not any("[Supplementary" in s["text"] or "[Figure" in s["text"] for s in art["sections"])
    out2 = await call(rt, {"pmcids": ["PMC3460867"]})
    assert len(out2.data["articles"][0]["assets"]) >= 4


async def test_max_characters_truncate(rt, routes):
    out = await call(rt, {"pmcids": ["PMC3299399"], "maxCharacters": 3000})
    (art,) = out.data["articles"]
    tr = out.data["truncation"]
    (led,) = tr["articles"]
    assert tr["mode"] == "truncate" and tr["maxCharacters"] == 3000
    assert led["returnedCharacters"] <= 3000 < led["originalCharacters"]
    body = sum(
        len(s["text"]) + sum(len(x["text"]) for x in s.get("subsections") or []) for s in art["sections"]
    )
    assert body <= 3000
    assert tr["omittedSections"] > 0 and out.data["truncated"] is True
    assert led["omittedTables"] == 3 and led["omittedTableNames"]
    cut = [s for s in art["sections"] if s.get("budgetCut") == "shortened"]
    assert cut and not cut[-1]["text"].endswith(" ")
    # the cut lands on a word boundary of the original text
    full = await call(rt, {"pmcids": ["PMC3299399"]})
    original = {s["title"]: s["text"] for s in full.data["articles"][0]["sections"]}
    short = cut[-1]["text"]
    orig = original[cut[-1]["title"]]
    assert orig.startswith(short) and orig[len(short)].isspace()


async def test_max_characters_outline_keeps_every_heading(rt, routes):
    full = await call(rt, {"pmcids": ["PMC3166277"]})
    out = await call(rt, {"pmcids": ["PMC3166277"], "maxCharacters": 4000, "overflowMode": "outline"})
    assert [s["title"] for s in out.data["articles"][0]["sections"]] == [
        s["title"] for s in full.data["articles"][0]["sections"]
    ]
    tr = out.data["truncation"]
    assert tr["mode"] == "outline" and tr["omittedSections"] == 0
    assert tr["articles"][0]["returnedCharacters"] <= 4000


async def test_max_characters_per_section(rt, routes):
    out = await call(rt, {"pmcids": ["PMC3166277"], "maxCharactersPerSection": 500})
    for s in out.data["articles"][0]["sections"]:
        assert len(s["text"]) + sum(len(x["text"]) for x in s.get("subsections") or []) <= 500


async def test_max_sections(rt, routes):
    out = await call(rt, {"pmcids": ["PMC3166277"], "maxSections": 2})
    assert len(out.data["articles"][0]["sections"]) == 2
    cap = out.data["sectionCap"]
    assert cap["maxSections"] == 2 and cap["articles"][0]["id"] == "PMC3166277"
    assert cap["articles"][0]["omittedSections"] and out.data["truncated"] is True


async def test_max_response_characters_defers_whole_articles(rt, routes):
    full = await call(rt, {"pmcids": ["PMC5608867", "PMC3299399"], "pmids": ["23193287"]})
    first = len(json.dumps(full.data["articles"][0], separators=(",", ":")))
    out = await call(
        rt,
        {"pmcids": ["PMC5608867", "PMC3299399"], "pmids": ["23193287"], "maxResponseCharacters": first + 100},
    )
    assert [a["pmcId"] for a in out.data["articles"]] == ["PMC5608867"]
    d = out.data["deferred"]
    assert d["ids"] == ["PMC3299399", "23193287"] and d["deferredCount"] == 2
    assert d["pmcids"] == ["PMC3299399"] and d["pmids"] == ["23193287"] and d.get("idType") is None
    assert d["nextDeferredCharacters"] > 100
    assert "pmcids=" in out.data["notice"] and out.data["totalReturned"] == 1


async def test_over_limit(rt, routes):
    pmcids = [f"PMC{n}" for n in (3299399, 3531190, 8435807, 3460867, 3166277, 2329613, 2994229, 2599765)]
    pmcids += ["PMC3585041", "PMC4531902", "PMC5608867", "PMC2992225"]
    out = await call(rt, {"pmcids": pmcids, "maxCharacters": 200})
    (ids,), _ = efetch_ids(routes)
    assert len(ids) == 10
    over = {k: v for k, v in out.data["overLimit"].items() if v is not None}
    assert over == {"limit": 10, "ids": ["PMC5608867", "PMC2992225"], "idType": "pmcid"}
    assert out.data["totalReturned"] == 10


async def test_bad_input_rejected_before_any_request(rt, routes):
    bad = [
        {},
        {"pmids": ["abc"]},
        {"pmids": ["PMC3299399"]},
        {"dois": ["not a doi"]},
        {"pmcids": ["PMC1"], "sections": ["\u200b "]},
        {"pmcids": ["PMC1"], "maxCharacters": 0},
        {"pmcids": ["PMC1"], "overflowMode": "squeeze"},
        {"pmcids": [f"PMC{n}" for n in range(1, 52)]},
        {"ids": ["PMC1"]},
    ]
    for args in bad:
        out = await rt.call(TOOL, args)
        assert out.is_error and out.error.reason == "invalid_argument", (args, out.text)
        assert out.error.recovery
    assert routes.requests == []


async def test_packed_and_stringified_ids_accepted(rt, routes):
    out = await call(rt, {"pmcids": "PMC3299399, PMC3531190"})
    assert len(out.data["articles"]) == 2
    out = await call(rt, {"pmcids": '["PMC3299399"]'})
    assert len(out.data["articles"]) == 1


async def test_every_tier_failing_is_an_error(rt, routes):
    routes.fault("503", "ncbi", "efetch.fcgi", times=20)
    out = await rt.call(TOOL, {"pmcids": ["PMC3299399"]})
    assert out.is_error and out.error.reason == "ncbi_unreachable" and out.error.retryable


async def test_converter_failure_keeps_other_articles(rt, routes):
    routes.fault("503", "idconv", "", times=20)
    out = await call(rt, {"pmcids": ["PMC5608867"], "pmids": ["22416237"]})
    assert [a["pmcId"] for a in out.data["articles"]] == ["PMC5608867"]
    (un,) = out.data["unavailable"]
    assert un["id"] == "22416237" and un["reason"] == "service-error"
    assert un["triedTiers"][0]["outcome"] == "service-error"


async def test_converter_failure_alone_is_an_error(rt, routes):
    routes.fault("503", "idconv", "", times=20)
    out = await rt.call(TOOL, {"pmids": ["22416237"]})
    assert out.is_error and out.error.retryable and out.error.reason.startswith("ncbi_")
    assert routes.of("ncbi", "efetch.fcgi") == []


async def test_json_rendering_is_fenced(rt, routes):
    out = await call(rt, {"pmcids": ["PMC5608867"], "responseFormat": "json"})
    assert out.text.startswith("<<<untrusted-data") and '"pmcId": "PMC5608867"' in out.text


async def test_progress_is_reported(rt, routes):
    seen = []

    async def progress(done, total=None, message=None):
        seen.append((done, message))

    out = await rt.call(TOOL, {"pmcids": ["PMC5608867"]}, progress)
    assert not out.is_error
    assert len(seen) >= 2 and [d for d, _ in seen] == sorted({d for d, _ in seen})
    assert any("pmc" in (m or "") for _, m in seen)


async def test_injection_in_text_cannot_close_the_fence(rt, routes):
    out = await call(rt, {"pmcids": ["PMC3531190"]})
    assert out.text.count(f"<<<end-untrusted-data {NONCE}>>>") == 1
    assert re.search(r"## .*\n.*PMCID PMC3531190", out.text)


class OpenAccessTier:
    """A later tier from another plugin (Unpaywall-like): slots into the chain unchanged."""

    name = "fakeoa"

    @staticmethod
    @hookimpl
    def medlit_plugin_info():
        return PluginInfo(name="fakeoa", title="Fake OA")

    @staticmethod
    @hookimpl
    def medlit_fulltext_tiers():
        async def resolve(refs, ctx, options):
            return {
                r.key: TierResult(
                    "hit",
                    "",
                    {
                        "source": "unpaywall",
                        "contentFormat": "pdf-text",
                        "doi": r.doi,
                        "sourceUrl": f"https://repo.example.org/{r.doi}.pdf",
                        "content": "Open access words " * 50,
                        "title": "An OA copy",
                    },
                )
                for r in refs
                if r.doi
            }

        return [FulltextTier("unpaywall", 30, frozenset({"doi"}), resolve)]


async def test_a_later_tier_slots_in(fake, routes):
    settings = load_settings(fake_env(fake))
    async with Runtime(load_host(settings, inline=[("fakeoa", OpenAccessTier)])) as rt:
        out = await call(
            rt, {"pmcids": ["PMC9999001"], "dois": ["10.1101/2024.01.01.123456"], "maxCharacters": 100}
        )
    arts = out.data["articles"]
    assert [(a["source"], a["viaSource"]) for a in arts] == [("unpaywall", "unpaywall")] * 2
    assert (
        arts[0]["pmcId"] == "PMC9999001" and arts[0]["doi"] == "10.5555/restricted.1"
    )  # DOI carried forward
    assert all(len(a["content"]) <= 100 for a in arts)
    assert [led["source"] for led in out.data["truncation"]["articles"]] == ["unpaywall"] * 2
    assert out.data.get("unavailable") is None


async def test_mixed_batch_refused_falls_back_to_one_request_per_type(rt, routes):
    def strict(req: Req) -> web.Response:
        if "idtype" not in req.params:
            return web.Response(status=400, text="all ids must be of one type")
        return idconv(req)

    routes.route("idconv", "", strict)
    out = await call(rt, {"pmids": ["22416237"], "dois": ["10.1093/nar/gks1195"]})
    assert [a["pmcId"] for a in out.data["articles"]] == ["PMC3299399", "PMC3531190"]
    assert sorted(r.params.get("idtype", "mixed") for r in routes.of("idconv")) == ["doi", "mixed", "pmid"]


_LABELLED = b"""<pmc-articleset><article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
<article-id pub-id-type="pmc">PMC7000001</article-id>
<title-group><article-title>Labelled</article-title></title-group>
<contrib-group><contrib contrib-type="author"><name><surname>King</surname><given-names>Martin L</given-names>
<suffix>Jr</suffix></name></contrib><contrib contrib-type="author"><name><surname>Doe</surname>
<given-names>Jane</given-names></name></contrib></contrib-group></article-meta></front>
<body><sec><label>1</label><title>Introduction</title><p>Intro text.</p></sec>
<sec><label>2</label><title>Methods</title><p>Methods text.</p>
<sec><label>2.1</label><title>Design</title><p>Design text.</p>
<table-wrap id="t1"><label>Table 1</label><caption><p>Image only.</p></caption><graphic xlink:href="t1.gif"/>
</table-wrap>
<table-wrap id="t2" xmlns:oasis="http://docs.oasis-open.org/ns/oasis-exchange/table"><label>Table 2</label>
<oasis:table><oasis:tgroup cols="1"><oasis:tbody><oasis:row><oasis:entry>a</oasis:entry></oasis:row>
</oasis:tbody></oasis:tgroup></oasis:table></table-wrap>
<table-wrap id="t3"><label>Table 3</label><table/></table-wrap></sec></sec>
<sec><title>Discussion</title><p>Discussion text.</p></sec></body></article></pmc-articleset>"""


async def test_labels_suffix_and_unextractable_codes(rt, routes):
    routes.route("ncbi", "efetch.fcgi", lambda req: web.Response(body=_LABELLED, content_type="text/xml"))
    out = await call(rt, {"pmcids": ["PMC7000001"]})
    [a] = out.data["articles"]
    assert [(s.get("label"), s["title"]) for s in a["sections"]] == [
        ("1", "Introduction"),
        ("2", "Methods"),
        (None, "Discussion"),
    ]
    [sub] = a["sections"][1]["subsections"]
    assert (sub["label"], sub["title"]) == ("2.1", "Design") and sub["text"].startswith("Design text.")
    king, doe = a["authors"]
    assert (king["lastName"], king["givenNames"], king["suffix"]) == ("King", "Martin L", "Jr")
    assert doe.get("suffix") is None
    assert [(t["label"], t["rows"], t.get("unextractableReason")) for t in a["tables"]] == [
        ("Table 1", [], "graphic-only"),
        ("Table 2", [], "cals-tgroup"),
        ("Table 3", [], "no-rows"),
    ]
    notice = out.data["notice"]
    assert "Table 1 in PMC7000001 (the table was deposited only as an image" in notice
    assert "Table 2 in PMC7000001 (the table uses the CALS/OASIS <tgroup> model" in notice
    # markdown: labels lead their headings; the code and its sentence are both shown
    assert "### 2 Methods" in out.text and "#### 2.1 Design" in out.text and "### Discussion" in out.text
    assert "Martin L King Jr" in out.text
    assert "(cells not extractable [no-rows]: the table markup carries no rows)" in out.text

    capped = await call(rt, {"pmcids": ["PMC7000001"], "maxSections": 1})
    omitted = capped.data["sectionCap"]["articles"][0]["omittedSections"]
    assert [(s["title"], s.get("label")) for s in omitted] == [("Methods", "2"), ("Discussion", None)]
    budgeted = await call(rt, {"pmcids": ["PMC7000001"], "maxCharacters": 15})
    ledger = budgeted.data["truncation"]["articles"][0]["sections"]
    assert [(s.get("label"), s["title"]) for s in ledger] == [
        ("1", "Introduction"),
        ("2", "Methods"),
        (None, "Discussion"),
    ]


_PARTS_AND_FRONT = b"""<pmc-articleset><article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
<article-id pub-id-type="pmc">PMC7000002</article-id><title-group><article-title>Parts</article-title></title-group>
<abstract><p>Main.</p></abstract><abstract abstract-type="graphical"><title>Graphical Abstract</title>
<fig id="ga"><caption><p>In one picture.</p></caption><graphic xlink:href="ga.jpg"/></fig></abstract>
</article-meta></front><body><sec><title>Methods</title><p>Text.</p>
<table-wrap id="t1"><label>Table 1</label><caption><p>Two in one.</p></caption>
<table><thead><tr><th>Category</th><th>Source</th><th>Definition</th></tr></thead>
<tbody><tr><td>A</td><td>RCT</td><td>Consistent</td></tr></tbody></table>
<table><thead><tr><th>Level</th><th>Meaning</th></tr></thead><tbody><tr><td>E</td><td>Expert</td></tr></tbody></table>
</table-wrap></sec></body></article></pmc-articleset>"""


async def test_table_parts_and_front_matter_figure_reach_the_tool(rt, fake):
    def efetch(req: Req) -> web.Response:
        return web.Response(body=_PARTS_AND_FRONT, content_type="text/xml")

    fake.route("ncbi", "efetch.fcgi", efetch)
    out = await call(rt, {"pmcids": ["PMC7000002"]})  # validated against the output schema
    [a] = out.data["articles"]
    [table] = a["tables"]
    assert [(p["headerRowCount"], p["columnCount"], p["rows"]) for p in table["parts"]] == [
        (1, 3, [["Category", "Source", "Definition"], ["A", "RCT", "Consistent"]]),
        (1, 2, [["Level", "Meaning"], ["E", "Expert"]]),
    ]
    assert (table["rows"], table["headerRowCount"]) == (table["parts"][0]["rows"], 1)
    # each part its own markdown table under its own header
    assert "Part 1 of 2\n| Category | Source | Definition |" in out.text
    assert "Part 2 of 2\n| Level | Meaning |\n|---|---|\n| E | Expert |" in out.text
    # the budget counts every part once
    cells = "CategorySourceDefinitionARCTConsistentLevelMeaningEExpert"
    assert table_cost(TableOut.model_validate(table)) == len("Table 1") + len("Two in one.") + len(cells)
    [ga] = a["assets"]
    assert (ga["id"], ga["frontMatter"], ga["sectionTitle"]) == ("ga", True, "Graphical Abstract")
    assert "- figure: In one picture. (file ga.jpg) [front matter: Graphical Abstract]" in out.text


async def test_corpus_section_labels_reach_the_tool(rt, routes):
    data = corpus_path("europepmc/fullTextXML/advs_202510004_large_rowspan.xml").read_bytes()
    routes.route("ncbi", "efetch.fcgi", lambda req: web.Response(body=data, content_type="text/xml"))
    out = await call(rt, {"pmcids": ["PMC12561475"]})
    [a] = out.data["articles"]
    heads = [(s.get("label"), s["title"]) for s in a["sections"]][:2]
    assert heads == [("1", "Introduction"), ("2", "Metabolic Reprogramming in Tumors")]
    subs = a["sections"][1]["subsections"]
    assert [(s["label"], s["title"]) for s in subs][:2] == [
        ("2.1", "Glucose Metabolism Alteration"),
        ("2.1.1", "Aerobic Glycolysis"),
    ]


async def test_embargoed_article_is_not_asked_of_pmc(rt, fake):
    def embargoed(req: Req) -> web.Response:
        return json_response(
            {
                "status": "ok",
                "records": [
                    {
                        "requested-id": "39999999",
                        "pmid": "39999999",
                        "pmcid": "PMC11999999",
                        "doi": "10.5555/embargo.1",
                        "live": "false",
                        "release-date": "2027-05-01",
                    }
                ],
            }
        )

    fake.route("idconv", "", embargoed)
    out = await call(rt, {"pmids": ["39999999"]})
    assert not out.is_error, out.text
    (un,) = out.data["unavailable"]
    assert un["reason"] == "no-body"
    assert "embargoed until 2027-05-01" in un["triedTiers"][0]["detail"]
    assert fake.of("ncbi", "efetch.fcgi") == []  # PMC would only have the front matter
