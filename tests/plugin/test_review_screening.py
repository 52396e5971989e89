"""Screening a review set against the fake, on SQLite and on PostgreSQL (skipped, with the reason,
when no server is reachable): decisions recorded and re-recorded, refused items listed with the
rest recorded, two reviewers with a conflict settled by a final decision, filters by decision,
exports of the includes, the full-text availability batch for the includes (requests counted),
and the PRISMA 2020 flow as counts, an SVG carrying them and a PNG image."""

from __future__ import annotations

import io
import json
import re

import pytest
import rispy
from lxml import etree

from medlit.testing import check_structured, tool_definitions

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install

pytestmark = pytest.mark.anyio

# PubMed only: the Europe PMC and Unpaywall tiers are off so the chain is the PMC tier's alone.
ENV = {"EUROPEPMC_ENABLED": "false", "UNPAYWALL_ENABLED": "false"}


@pytest.fixture
def runtime_for(fake, review_runtime):
    def factory(papers: int = 30, available: frozenset[str] = frozenset(), **extra):
        install(fake, Literature.build(pubmed=papers, europepmc=0), set(available))
        return review_runtime(**ENV, **extra)

    return factory


async def call(rt, tool, principal="", **args):
    out = await rt.call(tool, args, principal=principal)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == tool).output_schema
    check_structured(out.data, schema)
    return out


async def keys_of(rt, name="s"):
    out = await call(rt, "review_records", set=name, limit=200)
    return [(r["key"], r) for r in out.data["records"]]


def item(key, decision, stage="title_abstract", **extra):
    return {"id": key, "stage": stage, "decision": decision, **extra}


async def test_decisions_are_recorded_and_re_recorded(runtime_for):
    async with runtime_for(papers=10) as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = [k for k, _ in await keys_of(rt)]
        first = await call(
            rt,
            "review_screen",
            set="s",
            decisions=[
                item(keys[0], "include"),
                item(keys[1], "exclude", reason="adults only"),
                item(keys[2], "maybe"),
            ],
        )
        assert (first.data["recorded"], first.data["replaced"], first.data["refused"]) == (3, 0, [])
        assert first.data["reviewer"] == "model" and re.match(r"\d{4}-\d\d-\d\dT", first.data["decidedAt"])
        again = await call(
            rt, "review_screen", set="s", decisions=[item(keys[2], "include", reason="second look")]
        )
        assert (again.data["recorded"], again.data["replaced"]) == (0, 1)
        included = await call(rt, "review_records", set="s", decision="include")
        excluded = await call(rt, "review_records", set="s", decision="exclude", brief=False)
        undecided = await call(rt, "review_records", set="s", undecided=True)
    assert [r["key"] for r in included.data["records"]] == [keys[0], keys[2]]
    (record,) = excluded.data["records"]
    (decision,) = record["decisions"]
    assert decision["reviewer"] == "model" and decision["reason"] == "adults only"
    assert undecided.data["total"] == 7
    # re-recording replaced the decision (one row per record, stage and reviewer)
    kept = next(r for r in included.data["records"] if r["key"] == keys[2])["decisions"]
    assert [(d["decision"], d.get("reason")) for d in kept] == [("include", "second look")]


async def test_invalid_items_are_refused_and_the_rest_recorded(runtime_for):
    async with runtime_for(papers=10) as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        records = await keys_of(rt)
        (k0, r0), (k1, r1), (k2, _), (k3, _), (_, r4) = records[:5]
        out = await call(
            rt,
            "review_screen",
            set="s",
            decisions=[
                item(999_999, "include"),  # 0: not in the set
                item(k0, "include", stage="abstract"),  # 1: stage outside the vocabulary
                item(k0, "perhaps"),  # 2: decision outside the vocabulary
                item(k0, "exclude", reason="x" * 10_240),  # 3: a 10 kB reason
                item(k1, "exclude", stage="full_text"),  # 4: full-text exclusion without a category
                item(k1, "exclude", stage="full_text", reasonCategory="bad_vibes"),  # 5: unknown category
                item(r0["pmid"], "exclude", reason="by PMID"),  # 6: recorded
                item(r1["doi"].upper(), "include"),  # 7: recorded, by DOI in another case
                item(
                    k2, "exclude", stage="full_text", reasonCategory="wrong_outcome", reason="mortality"
                ),  # 8
                item(k3, "include", reasonCategory="wrong_outcome"),  # 9: a category on an include
                item("PMC1", "include"),  # 10: no such PMCID in the set
                item(f"https://doi.org/{r4['doi']}", "include"),  # 11: recorded, by a DOI link
                item("not an id", "include"),  # 12: no id at all
            ],
        )
        d = out.data
        assert d["recorded"] == 4
        reasons = {r["index"]: r["reason"].split(":")[0] for r in d["refused"]}
        assert reasons == {
            0: "unknown_id",
            1: "invalid_stage",
            2: "invalid_decision",
            3: "reason_too_long",
            4: "category_required",
            5: "invalid_category",
            9: "unexpected_category",
            10: "unknown_id",
            12: "unknown_id",
        }
        shown = await call(rt, "review_records", set="s", decision="exclude", stage="full_text", brief=False)
    (rec,) = shown.data["records"]
    assert rec["key"] == k2 and rec["decisions"][0]["reasonCategory"] == "wrong_outcome"


async def test_two_reviewers_conflict_until_a_final_decision(runtime_for):
    async with runtime_for(papers=6) as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        k = [key for key, _ in await keys_of(rt)]
        await call(
            rt,
            "review_screen",
            set="s",
            decisions=[item(k[0], "include"), item(k[1], "exclude"), item(k[2], "include")],
        )
        second = await call(
            rt,
            "review_screen",
            set="s",
            reviewer="Dr Alice",
            decisions=[item(k[0], "exclude"), item(k[1], "exclude"), item(k[2], "maybe")],
        )
        assert second.data["recorded"] == 3 and second.data["replaced"] == 0  # kept apart from the model's
        conflicts = {c["key"]: c["decisions"] for c in second.data["conflicts"]}
        assert conflicts == {
            k[0]: {"model": "include", "Dr Alice": "exclude"},
            k[2]: {"model": "include", "Dr Alice": "maybe"},
        }
        assert second.data["conflictsInSet"] == 2
        listed = await call(rt, "review_records", set="s", conflicts=True)
        assert [r["key"] for r in listed.data["records"]] == [k[0], k[2]]
        agreed = await call(rt, "review_records", set="s", decision="exclude")
        assert [r["key"] for r in agreed.data["records"]] == [k[1]]
        mine = await call(rt, "review_records", set="s", reviewer="Dr Alice", undecided=True)
        assert mine.data["total"] == 3
        before = await call(rt, "review_prisma", set="s")
        settled = await call(
            rt, "review_screen", set="s", reviewer="final", decisions=[item(k[0], "include")]
        )
        assert settled.data["conflicts"] == [] and settled.data["conflictsInSet"] == 1
        after = await call(rt, "review_prisma", set="s")
    b, a = before.data["counts"], after.data["counts"]
    assert (b["screened"], b["excluded"], b["sought"], b["pendingScreening"]) == (
        1,
        1,
        0,
        {"undecided": 3, "maybe": 0, "conflicts": 2},
    )
    assert (a["screened"], a["excluded"], a["sought"], a["pendingScreening"]) == (
        2,
        1,
        1,
        {"undecided": 3, "maybe": 0, "conflicts": 1},
    )
    assert "final" in after.data["reconciliation"]


async def test_the_includes_are_exported_alone(runtime_for, tmp_path):
    async with runtime_for(papers=8) as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        records = await keys_of(rt)
        await call(
            rt,
            "review_screen",
            set="s",
            decisions=[item(k, "include" if i % 3 == 0 else "exclude") for i, (k, _) in enumerate(records)],
        )
        out = await call(rt, "review_export", set="s", format="ris", decision="include")
        whole = await call(rt, "review_export", set="s", format="ris")
    assert out.data["records"] == 3 and whole.data["records"] == 8
    assert out.data["path"] != whole.data["path"]
    with open(out.data["path"], encoding="utf-8") as fh:
        entries = rispy.load(fh)
    wanted = {r["title"] for i, (_, r) in enumerate(records) if i % 3 == 0}
    assert {e["title"] for e in entries} == wanted


def pmcids(records, every):
    return [r["pmcid"] for _, r in records if r.get("pmcid")][::every]


async def test_availability_batches_for_the_includes(fake, runtime_for):
    # 60 papers; every third carries a PMCID (20); PMC serves half of those with a body.
    served = frozenset(f"PMC{9_000_000 + n}" for n in range(0, 60, 6))
    async with runtime_for(
        papers=60, available=served, OPENURL_RESOLVER="https://resolver.example.org/openurl"
    ) as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        records = await keys_of(rt)
        # include 30 (the first 30 records: 10 with a PMCID, 5 of them served), exclude the rest
        decisions = [item(k, "include" if i < 30 else "exclude") for i, (k, _) in enumerate(records)]
        await call(rt, "review_screen", set="s", decisions=decisions)
        fake.requests.clear()
        first = await call(rt, "review_retrieve", set="s")
        first_requests = [(r.service, r.path, r.params.get("db")) for r in fake.requests]
        fake.requests.clear()
        second = await call(rt, "review_retrieve", set="s")
        second_requests = [(r.service, r.path, r.params.get("db")) for r in fake.requests]
        fake.requests.clear()
        third = await call(rt, "review_retrieve", set="s")
        shown = await call(rt, "review_records", set="s", decision="include", limit=200)
        prisma = await call(rt, "review_prisma", set="s")
    assert len(first.data["checked"]) == 25 and first.data["remaining"] == 5
    assert len(second.data["checked"]) == 5 and second.data["remaining"] == 0
    assert third.data["checked"] == [] and fake.requests == []  # nothing left: no request
    # one converter request for the PMIDs without a PMCID, one PMC efetch for the PMCIDs, one
    # metadata efetch for the library links of those not retrieved; per call, never per record
    for got in (first_requests, second_requests):
        assert sorted(got) == sorted(
            [("idconv", "", None), ("ncbi", "efetch.fcgi", "pmc"), ("ncbi", "efetch.fcgi", "pubmed")]
        )
    included = shown.data["records"]
    retrieved = {r["key"] for r in included if r["retrieval"]["state"] == "retrieved"}
    expected = {r["key"] for r in included if r.get("pmcid") in served}
    assert retrieved == expected and len(expected) == 5
    for r in included:
        got = r["retrieval"]
        if got["state"] == "retrieved":
            assert got["tier"] == "pmc" and got["source"]
        else:
            assert got["state"] == "not_retrieved" and got["reason"]
            assert got["institutionalLink"].startswith("https://resolver.example.org/openurl?")
    d = third.data
    assert (d["sought"], d["retrieved"], d["notRetrieved"]) == (30, 5, 25)
    # the answer naming reports not retrieved says through which tiers and what to do with them
    missed = sum(1 for c in first.data["checked"] if c["state"] == "not_retrieved")
    assert f"{missed} report(s) not retrieved through " in first.data["notice"]
    assert "pmc" in first.data["notice"] and "reasonCategory='not_retrievable'" in first.data["notice"]
    c = prisma.data["counts"]
    assert (c["sought"], c["notRetrieved"], c["assessed"]) == (30, 25, 0)
    assert c["pendingFullText"]["awaitingAssessment"] == 5


async def test_prisma_counts_svg_and_png_follow_the_decisions(runtime_for):
    from PIL import Image

    async with runtime_for(papers=20) as rt:
        await call(rt, "review_search", set="flow", queries={"pubmed": PUBMED_QUERY})
        k = [key for key, _ in await keys_of(rt, "flow")]
        # title/abstract: 12 include, 5 exclude, 1 maybe, 2 undecided
        ta = (
            [item(x, "include") for x in k[:12]]
            + [item(x, "exclude") for x in k[12:17]]
            + [item(k[17], "maybe")]
        )
        await call(rt, "review_screen", set="flow", decisions=ta)
        # full text of the 12: 4 include, 3 wrong population, 2 wrong design, 1 not retrievable, 2 undecided
        ft = (
            [item(x, "include", "full_text") for x in k[:4]]
            + [item(x, "exclude", "full_text", reasonCategory="wrong_population") for x in k[4:7]]
            + [item(x, "exclude", "full_text", reasonCategory="wrong_study_design") for x in k[7:9]]
            + [item(k[9], "exclude", "full_text", reasonCategory="not_retrievable")]
        )
        await call(rt, "review_screen", set="flow", decisions=ft)
        counts = await call(rt, "review_prisma", set="flow", format="json")
        svg = await call(rt, "review_prisma", set="flow", format="svg")
        png = await call(rt, "review_prisma", set="flow", format="png")
        read = await rt.read_resource(svg.data["uri"])
    c = counts.data["counts"]
    assert c["identified"] == {"pubmed": 20} and c["duplicatesRemoved"] == 0 and c["records"] == 20
    assert (c["screened"], c["excluded"], c["sought"]) == (17, 5, 12)
    assert (c["notRetrieved"], c["assessed"], c["included"]) == (1, 9, 4)
    assert c["excludedWithReasons"] == {"wrong_population": 3, "wrong_study_design": 2}
    assert c["pendingScreening"] == {"undecided": 2, "maybe": 1, "conflicts": 0}
    assert c["pendingFullText"] == {"notChecked": 2, "awaitingAssessment": 0, "maybe": 0, "conflicts": 0}
    # the SVG file: its text elements carry every count
    assert svg.data["path"].endswith("flow-prisma.svg") and [link.uri for link in svg.links] == [
        svg.data["uri"]
    ]
    text, err = read
    assert err is None
    root = etree.fromstring(text.encode())
    lines = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for wanted in (
        "PubMed (n = 20)",
        "Duplicate records removed (n = 0)",
        "(n = 17)",
        "(n = 5)",
        "(n = 12)",
        "(n = 1)",
        "(n = 9)",
        "Wrong population (n = 3)",
        "Wrong study design (n = 2)",
        "(n = 4)",
    ):
        assert wanted in lines, (wanted, lines)
    assert lines.index("Records screened") + 1 == lines.index("(n = 17)")
    assert lines[lines.index("Studies included in review") + 1] == "(n = 4)"
    # the PNG: image content, decoded
    (image,) = png.images
    assert image.mimeType == "image/png" and "image" not in json.dumps(png.data)
    with Image.open(io.BytesIO(image.data)) as im:
        im.load()
        assert im.format == "PNG" and im.width >= 2400 and im.height > 2000  # print resolution
        assert all(round(d) == 300 for d in im.info["dpi"])


async def test_a_failing_source_is_failed_not_not_retrieved_and_asked_again(fake, runtime_for):
    served = frozenset(f"PMC{9_000_000 + n}" for n in range(0, 12, 6))
    async with runtime_for(papers=12, available=served) as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        records = await keys_of(rt)
        await call(rt, "review_screen", set="s", decisions=[item(k, "include") for k, _ in records])
        # PMC's efetch answers 503 to every attempt of this call (retries included)
        fake.fault("503", "ncbi", "efetch.fcgi", times=50)
        first = await call(rt, "review_retrieve", set="s")
        fake.faults.clear()
        flow_then = await call(rt, "review_prisma", set="s")
        second = await call(rt, "review_retrieve", set="s")
    states = {c["key"]: c["state"] for c in first.data["checked"]}
    with_pmcid = {r["key"] for _, r in records if r.get("pmcid")}
    assert with_pmcid and all(states[k] == "failed" for k in with_pmcid)
    assert "service failure" in first.data["notice"]
    assert first.data["notRetrieved"] == len(records) - len(with_pmcid)  # the failed are not counted
    assert first.data["failed"] == len(with_pmcid) == first.data["remaining"]  # only failures remain
    assert second.data["failed"] == 0
    assert flow_then.data["counts"]["notRetrieved"] == len(records) - len(with_pmcid)
    again = {c["key"]: c["state"] for c in second.data["checked"]}
    assert set(again) == with_pmcid  # only the failed ones were asked again
    assert {k for k, s in again.items() if s == "retrieved"} == {
        r["key"] for _, r in records if r.get("pmcid") in served
    }


@pytest.mark.parametrize("tool", ["review_screen", "review_retrieve", "review_prisma"])
async def test_an_unknown_set_is_a_clear_error(runtime_for, tool):
    args = {"set": "nope", **({"decisions": [item(1, "include")]} if tool == "review_screen" else {})}
    async with runtime_for(papers=2) as rt:
        out = await rt.call(tool, args)
    assert out.is_error and out.error is not None
    assert out.error.reason == "unknown_set" and out.error.recovery and out.error.retryable is False
