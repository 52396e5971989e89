"""pubmed_fetch_fulltext against the fake upstream.

Most cases run on small hand-written JATS and ID-converter answers (tests/fixtures/fulltext/);
the ``corpus`` cases re-check the same paths on real recorded PMC articles and skip, with the
reason, when the shared corpus is absent. Tiers from inline plugins show the chain as the tool
sees it: typed payloads, the report of every step, NCBI switched off.
"""

import json
import re

import pytest
from aiohttp import web

from medlit.core.jats.reader import read_jats
from medlit.core.plugin import (
    ExtractedTextArticle,
    FulltextTier,
    PluginInfo,
    SettingSpec,
    StructuredArticle,
    TierResult,
    hookimpl,
)
from medlit.core.render import NONCE
from medlit.core.server import instructions
from medlit.plugins.fulltext.models import TableOut
from medlit.plugins.fulltext.shape import table_cost
from medlit.testing import Runtime, host_for, tool_definitions

from support.corpus import corpus_path
from support.fake_upstream import FIXTURES, Req, json_response
from support.fulltext_calls import BRIEF, ONLY_NCBI, RESEARCH, TOOL, call, env, small_articles
from support.fulltext_routes import idconv, install, require_corpus

pytestmark = pytest.mark.anyio

RESTRICTED = "PMC9999001"


@pytest.fixture
async def rt(make_runtime):
    async with make_runtime(**ONLY_NCBI) as runtime:
        yield runtime


@pytest.fixture
def routes(fake):
    return install(fake)


@pytest.fixture
def corpus_routes(fake):
    require_corpus()  # real corpus JATS: skip, with the reason, when absent
    return install(fake)


def efetch_ids(fake):
    reqs = fake.of("ncbi", "efetch.fcgi")
    return [r.ids() for r in reqs], reqs


def steps(entry):
    return [(t["tier"], t["outcome"]) for t in entry["triedTiers"]]


def body_size(art):
    return sum(
        len(s["text"]) + sum(len(x["text"]) for x in s.get("subsections") or []) for s in art["sections"]
    )


# -- PMC through the chain, on fixtures ---------------------------------------------------------
async def test_pmcids_one_efetch_no_idconv(rt, routes):
    out = await call(rt, {"pmcids": [RESEARCH, "pmc07100002"]})
    ids, reqs = efetch_ids(routes)
    assert ids == [["7100001", "7100002"]] and reqs[0].method == "POST"
    assert routes.of("idconv") == []
    arts = out.data["articles"]
    assert [a["pmcId"] for a in arts] == [RESEARCH, BRIEF]
    a = arts[0]
    assert a["source"] == "pmc" and a["viaSource"] == "pmc"
    assert a["doi"] == "10.5555/ft.research.1" and a["pmid"] == "37100001"
    assert a["title"].startswith("Sleep duration and recall")
    assert a["pmcUrl"] == "https://pmc.ncbi.nlm.nih.gov/articles/PMC7100001/"
    assert a["pubmedUrl"] == "https://pubmed.ncbi.nlm.nih.gov/37100001/"
    assert [(s.get("label"), s["title"]) for s in a["sections"]][:4] == [
        ("1", "Introduction"),
        ("2", "Methods"),
        ("3", "Results"),
        ("4", "Discussion"),
    ]
    assert [s["title"] for s in a["sections"][1]["subsections"]] == ["Study design", "Statistical methods"]
    ack = {k: v for k, v in a["sections"][-1].items() if v is not None}
    assert ack == {
        "title": "Acknowledgements",
        "text": "We thank the coaches of the three training centres.",
        "backMatter": True,
    }
    assert [t["label"] for t in a["tables"]] == ["Table 1", "Table 2"]
    assert a["tables"][0]["rows"][0] == ["Sleep band", "Athletes", "Words recalled"]
    assert a["tables"][0]["footnotes"] == "Means over the season."
    assert [x["label"] for x in a["assets"]] == ["Figure 1", "Data S1", "Protocol S1"]
    assert {k: v for k, v in a["journal"].items() if v is not None} == {
        "title": "Journal of Invented Studies",
        "issn": "0000-0002",
        "volume": "12",
        "issue": "3",
        "pages": "101-112",
    }
    assert a["publicationDate"]["year"] == "2023"
    assert a["authors"][0]["orcid"] == "0000-0002-1825-0097" and a["keywords"] == [
        "sleep",
        "memory",
        "adolescents",
    ]
    assert a.get("references") is None  # off by default
    brief = arts[1]
    assert [{k: v for k, v in x.items() if v} for x in brief["authors"]] == [
        {"collectiveName": "The Example Consortium"}
    ]
    (grid,) = brief["tables"]
    assert grid["headerRowCount"] == 2 and len({len(r) for r in grid["rows"]}) == 1  # rectangular
    assert out.data["totalReturned"] == 2 and out.data.get("unavailable") is None
    # markdown with the article text fenced as untrusted data, named after the tier
    assert f"<<<untrusted-data {NONCE} source=pmc>>>" in out.text
    assert "## Sleep duration and recall" in out.text and "PMCID PMC7100001 · PMID 37100001" in out.text


async def test_mixed_ids_fold_onto_one_article(rt, routes):
    args = {
        "pmcids": [RESEARCH],
        "pmids": ["PMID: 0037100001", "37100009"],  # the first names PMC7100001 again
        "dois": ["https://doi.org/10.5555/FT.BRIEF.2", "10.5555/not.in.pmc"],
    }
    out = await call(rt, args)
    arts = out.data["articles"]
    assert [a["pmcId"] for a in arts] == [RESEARCH, BRIEF]
    # one converter request for every PMID and DOI, one efetch for every PMCID of the call
    (conv,) = routes.of("idconv")
    assert "idtype" not in conv.params
    assert conv.params["ids"] == "37100001,37100009,10.5555/ft.brief.2,10.5555/not.in.pmc"
    assert efetch_ids(routes)[0] == [["7100001", "7100002"]]
    un = {u["id"]: u for u in out.data["unavailable"]}
    assert set(un) == {"37100009", "10.5555/not.in.pmc"}
    miss = un["37100009"]
    assert miss["idType"] == "pmid" and miss["reason"] == "not-found"
    # the resolution step is reported like a tier, then the tier it could not feed
    assert steps(miss) == [("idconv", "miss"), ("pmc", "not-attempted")]
    assert (
        "PMID 37100009" in miss["triedTiers"][0]["detail"]
        and "ID Converter" in miss["triedTiers"][0]["detail"]
    )
    assert "needs a pmcid" in miss["triedTiers"][1]["detail"]
    doi = un["10.5555/not.in.pmc"]
    assert doi["idType"] == "doi" and doi["reason"] == "not-found"
    assert "Identifier not found in PMC" in doi["triedTiers"][0]["detail"]
    assert "idconv: miss (PMID 37100009" in out.text


async def test_pmids_only_one_converter_request(rt, routes):
    out = await call(rt, {"pmids": ["37100001", "37100002", "37100003"]})
    assert len(routes.of("idconv")) == 1 and len(routes.of("ncbi", "efetch.fcgi")) == 1
    assert [a["pmid"] for a in out.data["articles"]] == ["37100001", "37100002", "37100003"]
    correction = out.data["articles"][2]
    assert correction["articleType"] == "correction" and correction["sections"][0]["text"].startswith(
        "In the"
    )


async def test_pmcids_and_dois_of_one_article_are_one(rt, routes):
    out = await call(rt, {"pmcids": [BRIEF], "dois": ["10.5555/ft.brief.2"], "pmids": ["37100002"]})
    assert [a["pmcId"] for a in out.data["articles"]] == [BRIEF] and out.data["totalReturned"] == 1
    assert efetch_ids(routes)[0] == [["7100002"]]


async def test_restricted_record_is_no_body(rt, routes):
    out = await call(rt, {"pmcids": [RESTRICTED, RESEARCH]})
    assert [a["pmcId"] for a in out.data["articles"]] == [RESEARCH]
    (un,) = out.data["unavailable"]
    assert un["id"] == RESTRICTED and un["reason"] == "no-body"
    assert un["triedTiers"] == [
        {"tier": "pmc", "outcome": "no-body", "detail": un["triedTiers"][0]["detail"]}
    ]
    assert "front matter only" in un["triedTiers"][0]["detail"]
    assert "pubmed_fetch_articles" in out.data["notice"]


async def test_not_in_pmc_is_a_result_not_an_error(rt, routes):
    out = await call(rt, {"pmcids": ["PMC123"]})
    assert out.data["articles"] == [] and out.data["totalReturned"] == 0
    (un,) = out.data["unavailable"]
    assert un["reason"] == "not-found" and steps(un) == [("pmc", "miss")]


async def test_section_filter_keeps_breadcrumbs(rt, routes):
    out = await call(rt, {"pmcids": [RESEARCH], "sections": ["method", ""]})
    (art,) = out.data["articles"]
    assert [s["title"] for s in art["sections"]] == ["Methods"]
    assert [s["title"] for s in art["sections"][0]["subsections"]] == ["Study design", "Statistical methods"]
    assert art.get("tables") is None and art.get("assets") is None  # they sit in other sections

    out = await call(rt, {"pmcids": [RESEARCH], "sections": ["sensitivity"]})
    (art,) = out.data["articles"]
    (results,) = art["sections"]
    assert results["title"] == "Results" and results["text"] == ""  # kept only as a breadcrumb
    assert [s["title"] for s in results["subsections"]] == ["Sensitivity analyses"]
    assert [t["label"] for t in art["tables"]] == ["Table 2"]  # tables follow their section


async def test_section_filter_miss_says_so(rt, routes):
    out = await call(rt, {"pmcids": [RESEARCH], "sections": ["zzzz-no-such-heading"]})
    assert out.data["articles"][0]["sections"] == []
    assert "zzzz-no-such-heading" in out.data["notice"]


async def test_switches_tables_assets_references(rt, routes):
    out = await call(
        rt, {"pmcids": [RESEARCH], "includeTables": False, "includeAssets": False, "includeReferences": True}
    )
    (art,) = out.data["articles"]
    assert art.get("tables") is None and art.get("assets") is None
    assert [r["label"] for r in art["references"]] == ["1", "2", "3"]
    assert art["references"][0]["pmid"] == "19000001" and art["references"][1]["doi"] == "10.5555/ref.2"
    assert not any("[Supplementary" in s["text"] or "[Figure" in s["text"] for s in art["sections"])
    assert "### References" in out.text
    out2 = await call(rt, {"pmcids": [RESEARCH]})
    assert len(out2.data["articles"][0]["assets"]) == 3
    assert any("[Figure 1" in s["text"] for s in out2.data["articles"][0]["sections"])


async def test_max_characters_truncate(rt, routes):
    full = await call(rt, {"pmcids": [RESEARCH]})
    out = await call(rt, {"pmcids": [RESEARCH], "maxCharacters": 600})
    (art,) = out.data["articles"]
    tr = out.data["truncation"]
    (led,) = tr["articles"]
    assert tr["mode"] == "truncate" and tr["maxCharacters"] == 600
    assert led["returnedCharacters"] <= 600 < led["originalCharacters"]
    assert led["id"] == RESEARCH and led["source"] == "pmc"
    assert body_size(art) <= 600
    assert tr["omittedSections"] > 0 and out.data["truncated"] is True
    assert led["omittedTables"] == 2 and led["omittedTableNames"] == ["Table 1", "Table 2"]
    cut = [s for s in art["sections"] if s.get("budgetCut") == "shortened"]
    assert cut and not cut[-1]["text"].endswith(" ")
    # the cut lands on a word boundary of the original text
    original = {s["title"]: s["text"] for s in full.data["articles"][0]["sections"]}
    short = cut[-1]["text"]
    orig = original[cut[-1]["title"]]
    assert orig.startswith(short) and orig[len(short)].isspace()
    assert "[… text shortened by the character budget]" in out.text


async def test_max_characters_outline_keeps_every_heading(rt, routes):
    full = await call(rt, {"pmcids": [RESEARCH]})
    out = await call(rt, {"pmcids": [RESEARCH], "maxCharacters": 700, "overflowMode": "outline"})
    assert [s["title"] for s in out.data["articles"][0]["sections"]] == [
        s["title"] for s in full.data["articles"][0]["sections"]
    ]
    tr = out.data["truncation"]
    assert tr["mode"] == "outline" and tr["omittedSections"] == 0
    assert tr["articles"][0]["returnedCharacters"] <= 700


async def test_max_characters_per_section(rt, routes):
    out = await call(rt, {"pmcids": [RESEARCH], "maxCharactersPerSection": 150})
    for s in out.data["articles"][0]["sections"]:
        assert len(s["text"]) + sum(len(x["text"]) for x in s.get("subsections") or []) <= 150
    assert out.data["truncation"]["maxCharactersPerSection"] == 150


async def test_max_sections(rt, routes):
    out = await call(rt, {"pmcids": [RESEARCH], "maxSections": 2})
    assert [s["title"] for s in out.data["articles"][0]["sections"]] == ["Introduction", "Methods"]
    cap = out.data["sectionCap"]
    assert cap["maxSections"] == 2 and cap["articles"][0]["id"] == RESEARCH
    assert [s["title"] for s in cap["articles"][0]["omittedSections"]] == [
        "Results",
        "Discussion",
        "Supplementary Material",
        "Acknowledgements",
    ]
    assert out.data["truncated"] is True and out.data["articles"][0].get("tables") is None


async def test_max_response_characters_defers_whole_articles(rt, routes):
    full = await call(rt, {"pmcids": [BRIEF, RESEARCH], "pmids": ["37100003"]})
    first = len(json.dumps(full.data["articles"][0], separators=(",", ":")))
    out = await call(
        rt, {"pmcids": [BRIEF, RESEARCH], "pmids": ["37100003"], "maxResponseCharacters": first + 100}
    )
    assert [a["pmcId"] for a in out.data["articles"]] == [BRIEF]
    d = out.data["deferred"]
    assert d["ids"] == [RESEARCH, "37100003"] and d["deferredCount"] == 2
    assert d["pmcids"] == [RESEARCH] and d["pmids"] == ["37100003"] and d.get("idType") is None
    assert d["nextDeferredCharacters"] > 100
    assert (
        'pmcids=["PMC7100001"] and pmids=["37100003"]' in out.data["notice"]
        and out.data["totalReturned"] == 1
    )


async def test_over_limit(rt, fake):
    fake.route("ncbi", "efetch.fcgi", small_articles)
    pmcids = [f"PMC{n}" for n in range(8000001, 8000013)]
    out = await call(rt, {"pmcids": pmcids, "maxCharacters": 200})
    (ids,), _ = efetch_ids(fake)
    assert len(ids) == 10
    over = {k: v for k, v in out.data["overLimit"].items() if v is not None}
    assert over == {"limit": 10, "ids": ["PMC8000011", "PMC8000012"], "idType": "pmcid"}
    assert out.data["totalReturned"] == 10 and out.data["truncated"] is True
    assert 'pmcids=["PMC8000011", "PMC8000012"]' in out.data["notice"]


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
    out = await call(rt, {"pmcids": f"{RESEARCH}, {BRIEF}"})
    assert len(out.data["articles"]) == 2
    out = await call(rt, {"pmcids": f'["{BRIEF}"]'})
    assert len(out.data["articles"]) == 1


async def test_every_tier_failing_is_an_error(rt, routes):
    routes.fault("503", "ncbi", "efetch.fcgi", times=20)
    out = await rt.call(TOOL, {"pmcids": [RESEARCH]})
    # the failing tier's own error reason (its service's), retryable
    assert out.is_error and out.error.reason.startswith("ncbi_") and out.error.retryable
    assert "Every full-text source failed" in out.error.message and "pmc" in out.error.details["tiers"]


async def test_converter_failure_keeps_other_articles(rt, routes):
    routes.fault("503", "idconv", "", times=20)
    out = await call(rt, {"pmcids": [BRIEF], "pmids": ["37100001"]})
    assert [a["pmcId"] for a in out.data["articles"]] == [BRIEF]
    (un,) = out.data["unavailable"]
    assert un["id"] == "37100001" and un["reason"] == "service-error"
    assert steps(un) == [("idconv", "service-error"), ("pmc", "not-attempted")]


async def test_converter_failure_alone_is_an_error(rt, routes):
    routes.fault("503", "idconv", "", times=20)
    out = await rt.call(TOOL, {"pmids": ["37100001"]})
    assert out.is_error and out.error.retryable and out.error.reason.startswith("ncbi_")
    assert routes.of("ncbi", "efetch.fcgi") == []


async def test_json_rendering_is_fenced(rt, routes):
    out = await call(rt, {"pmcids": [BRIEF], "responseFormat": "json"})
    assert out.text.startswith("<<<untrusted-data") and f'"pmcId": "{BRIEF}"' in out.text


async def test_progress_is_reported(rt, routes):
    seen = []

    async def progress(done, total=None, message=None):
        seen.append((done, message))

    out = await rt.call(TOOL, {"pmcids": [BRIEF], "pmids": ["37100001"]}, progress)
    assert not out.is_error
    assert len(seen) >= 3 and [d for d, _ in seen] == sorted({d for d, _ in seen})
    messages = [m or "" for _, m in seen]
    assert any(m.startswith("idconv") for m in messages) and any(m.startswith("pmc") for m in messages)


async def test_injection_in_text_cannot_close_the_fence(rt, routes):
    out = await call(rt, {"pmcids": [BRIEF]})
    assert "end-untrusted-data 00000000" in out.data["articles"][0]["sections"][0]["text"]
    assert out.text.count(f"<<<end-untrusted-data {NONCE}>>>") == 1
    assert "<<<end-untrusted-data 00000000" not in out.text
    assert re.search(r"## .*\n.*PMCID PMC7100002", out.text)


async def test_mixed_batch_refused_falls_back_to_one_request_per_type(rt, routes):
    def strict(req: Req) -> web.Response:
        if "idtype" not in req.params:
            return web.Response(status=400, text="all ids must be of one type")
        return idconv(req)

    routes.route("idconv", "", strict)
    out = await call(rt, {"pmids": ["37100001"], "dois": ["10.5555/ft.brief.2"]})
    assert [a["pmcId"] for a in out.data["articles"]] == [RESEARCH, BRIEF]
    assert sorted(r.params.get("idtype", "mixed") for r in routes.of("idconv")) == ["doi", "mixed", "pmid"]


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
    (un,) = out.data["unavailable"]
    assert un["reason"] == "no-body"
    assert steps(un) == [("idconv", "no-body"), ("pmc", "not-attempted")]
    assert "embargoed until 2027-05-01" in un["triedTiers"][0]["detail"]
    assert fake.of("ncbi", "efetch.fcgi") == []  # PMC would only have the front matter


# -- JATS details that reach the tool (inline records) -----------------------------------------
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


# -- other tiers: typed payloads, the report, NCBI switched off ---------------------------------
def _research_article():
    [art] = read_jats((FIXTURES / "fulltext/pmc7100001_research.xml").read_bytes())
    return art


class OpenAccessTier:
    """A later tier from another plugin (Unpaywall-like): extracted text for any DOI."""

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
                    ExtractedTextArticle(
                        content="Open access words " * 50,
                        content_format="pdf-text",
                        source_url=f"https://repo.example.org/{r.doi}.pdf",
                        title="An OA copy",
                        page_count=3,
                    ),
                )
                for r in refs
                if r.doi
            }

        return [
            FulltextTier("oacopy", 30, frozenset({"doi"}), resolve, description="open-access PDFs by DOI")
        ]


async def test_a_later_tier_slots_in(fake, routes):
    settings = env(fake)
    async with Runtime(host_for(("fakeoa", OpenAccessTier), env=settings.env)) as rt:
        out = await call(rt, {"pmcids": [RESTRICTED], "dois": ["10.5555/not.in.pmc"], "maxCharacters": 100})
    arts = out.data["articles"]
    assert [(a["kind"], a["source"], a["viaSource"]) for a in arts] == [("extracted", "oacopy", "oacopy")] * 2
    first = arts[0]
    # ids the chain learned: the DOI read from the front-matter-only PMC record, and its PMID
    assert (first["pmcId"], first["doi"], first["pmid"]) == (RESTRICTED, "10.5555/restricted.1", "99990001")
    assert first["pubmedUrl"] == "https://pubmed.ncbi.nlm.nih.gov/99990001/" and first["totalPages"] == 3
    assert all(len(a["content"]) <= 100 for a in arts)
    assert [led["source"] for led in out.data["truncation"]["articles"]] == ["oacopy"] * 2
    assert out.data.get("unavailable") is None
    assert "(via oacopy)" in out.text


class EuropeLikeTier:
    """A JATS tier of another plugin that carries its own record ids."""

    def __init__(self, name="fakejats", order=20, required=None):
        self.name, self.order, self.required = name, order, required
        self.calls = []

    @hookimpl
    def medlit_plugin_info(self):
        settings = (SettingSpec(self.required, "needed", required=True),) if self.required else ()
        return PluginInfo(name=self.name, title="Fake JATS", settings=settings)

    @hookimpl
    def medlit_fulltext_tiers(self):
        return [
            FulltextTier(
                "jatsmirror",
                self.order,
                frozenset({"pmid", "pmcid", "doi"}),
                self.resolve,
                description="a JATS mirror by any id",
                source="mirror",
                record_ids=("mirrorId", "mirrorSet"),
            )
        ]

    async def resolve(self, refs, ctx, options):
        self.calls.append([r.key for r in refs])
        return {
            r.key: TierResult(
                "hit",
                "",
                StructuredArticle(
                    _research_article(), {"mirrorId": "PMC7100001", "mirrorSet": "PMC", "other": "x"}
                ),
            )
            if r.pmid == "37100001" or r.pmcid == RESEARCH
            else TierResult("miss", "not in the mirror")
            for r in refs
        }


async def test_structured_payload_from_another_tier_carries_its_ids(fake, routes):
    settings = env(fake, NCBI_ENABLED="false")
    mirror = EuropeLikeTier()
    async with Runtime(host_for(("fakejats", mirror), env=settings.env)) as rt:
        out = await call(rt, {"pmids": ["37100001"]})
    [a] = out.data["articles"]
    # its own source label and its declared record ids, end to end; undeclared ids are dropped
    assert (a["kind"], a["source"], a["viaSource"]) == ("structured", "mirror", "jatsmirror")
    assert (a["sourceIds"], a["pmcId"]) == ({"mirrorId": "PMC7100001", "mirrorSet": "PMC"}, RESEARCH)
    assert f"<<<untrusted-data {NONCE} source=jatsmirror>>>" in out.text


async def test_ncbi_off_full_text_from_another_tier(fake, routes):
    settings = env(fake, NCBI_ENABLED="false")
    mirror = EuropeLikeTier()
    async with Runtime(host_for(("fakejats", mirror), env=settings.env)) as rt:
        tools = {t.name: t for t in tool_definitions(rt.host)}
        assert TOOL in tools and "pubmed_search_articles" not in tools
        desc = tools[TOOL].description
        assert "pmc" not in desc.split("order:")[1].split(".")[0]  # a switched-off plugin's tier is unknown
        assert "1. jatsmirror (a JATS mirror by any id)" in desc
        assert "idconv" not in desc and "pubmed_fetch_articles" not in desc  # its plugin is off
        out = await call(rt, {"pmids": ["37100001", "37100009"], "pmcids": [BRIEF]})
    assert routes.requests == []  # NCBI is not asked anything
    assert mirror.calls == [[BRIEF, "37100001", "37100009"]]
    [a] = out.data["articles"]
    assert (a["pmid"], a["viaSource"]) == ("37100001", "jatsmirror")
    un = {u["id"]: u for u in out.data["unavailable"]}
    assert set(un) == {BRIEF, "37100009"}
    brief = un[BRIEF]
    assert brief["reason"] == "not-found" and steps(brief) == [("jatsmirror", "miss")]
    assert "NCBI_ENABLED=true enables it" in out.data["notice"]  # the switched-off plugin is named
    assert "pubmed_fetch_articles" not in (out.data.get("notice") or "")


async def test_every_tier_switched_off_is_reported_not_an_error(fake, routes):
    settings = env(fake, NCBI_ENABLED="false")
    async with Runtime(
        host_for(("fakejats", EuropeLikeTier(required="FAKEJATS_KEY")), env=settings.env)
    ) as rt:
        desc = next(t for t in tool_definitions(rt.host) if t.name == TOOL).description
        assert "[unconfigured: needs FAKEJATS_KEY]" in desc
        out = await call(rt, {"dois": ["10.5555/ft.brief.2"]})
    (un,) = out.data["unavailable"]
    assert un["reason"] == "no-source-enabled"
    assert un["unqueriedTiers"] == ["jatsmirror"] and un["waitingOn"] == {"jatsmirror": "FAKEJATS_KEY"}
    assert "NCBI_ENABLED=true" in out.data["notice"]
    assert routes.requests == []


async def test_no_tier_declared_at_all_is_a_clear_error(fake):
    settings = env(fake, MEDLIT_LOAD_PLUGINS="fulltext")
    async with Runtime(host_for(env=settings.env)) as rt:
        tools = {t.name: t for t in tool_definitions(rt.host)}
        assert TOOL in tools and rt.host.catalog.tiers == ()  # the full-text workflow alone
        assert "No full-text source is installed" in tools[TOOL].description
        assert "Full text" not in instructions(rt.host)
        out = await rt.call(TOOL, {"pmcids": [RESEARCH]})
    assert out.is_error and out.error.reason == "provider_unavailable" and not out.error.retryable
    assert "no plugin declares a full-text tier" in out.error.message and out.error.recovery
    assert fake.requests == []


async def test_description_and_instructions_name_the_installed_chain(rt):
    desc = next(t for t in tool_definitions(rt.host) if t.name == TOOL).description
    assert desc.startswith("Fetch the full text of articles")
    assert "1. pmc (NCBI PubMed Central" in desc and "idconv" not in desc  # one plain sentence instead
    assert "pubmed_fetch_articles" in desc
    assert "unless maxCharacters or maxResponseCharacters is set" in desc  # their defaults: unset
    text = instructions(rt.host)
    assert "idconv (NCBI PMC ID Converter" in text
    assert f"Full text ({TOOL}) comes from these sources, in order: 1. pmc" in text
    assert "NCBI E-utilities, PubMed and PMC" in text


# -- the same paths on real recorded articles (shared corpus) ----------------------------------
async def test_corpus_articles(rt, corpus_routes):
    out = await call(rt, {"pmcids": ["PMC3299399", "pmc03531190"]})
    arts = out.data["articles"]
    assert [a["pmcId"] for a in arts] == ["PMC3299399", "PMC3531190"]
    a = arts[0]
    assert a["doi"] == "10.3389/fpsyt.2012.00018" and a["pmid"] == "22416237"
    assert a["title"].startswith("The Effects of Psychosis Risk Variants")
    assert len(a["tables"]) == 3 and all(len({len(r) for r in t["rows"]}) == 1 for t in a["tables"])
    assert any(s.get("backMatter") for s in a["sections"])
    assert f"<<<untrusted-data {NONCE} source=pmc>>>" in out.text  # the text is capped, the data whole


async def test_corpus_mixed_ids(rt, corpus_routes):
    args = {
        "pmcids": ["PMC3299399"],
        "pmids": ["PMID: 0022416237", "17927775", "34527728"],
        "dois": ["https://doi.org/10.1093/NAR/GKS1195", "10.1101/2024.01.01.123456"],
    }
    out = await call(rt, args)
    assert [a["pmcId"] for a in out.data["articles"]] == ["PMC3299399", "PMC8435807", "PMC3531190"]
    (conv,) = corpus_routes.of("idconv")
    assert conv.params["ids"] == "22416237,17927775,34527728,10.1093/nar/gks1195,10.1101/2024.01.01.123456"
    assert efetch_ids(corpus_routes)[0] == [["3299399", "8435807", "3531190"]]
    assert out.data["articles"][1]["articleType"] == "correction"
    un = {u["id"]: u["reason"] for u in out.data["unavailable"]}
    assert un == {"17927775": "not-found", "10.1101/2024.01.01.123456": "not-found"}


async def test_corpus_budgets(rt, corpus_routes):
    out = await call(rt, {"pmcids": ["PMC3166277"], "maxCharacters": 4000, "overflowMode": "outline"})
    tr = out.data["truncation"]
    assert tr["articles"][0]["returnedCharacters"] <= 4000 < tr["articles"][0]["originalCharacters"]
    out = await call(rt, {"pmcids": ["PMC3460867"], "includeReferences": True})
    (art,) = out.data["articles"]
    assert len(art["assets"]) >= 4 and art["references"]


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
