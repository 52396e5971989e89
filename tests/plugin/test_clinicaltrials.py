"""The ClinicalTrials.gov plugin against the fake (tests/clinicaltrials_routes.py, real recorded
studies): search and its paging, summaries and whole records by NCT number in one request, input
refused before any request, the register's own 400s as input errors, its failures reported as
ClinicalTrials.gov's, Retry-After honoured, pacing under concurrent calls, and the review search
source paging a query to its end."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import medlit.plugins.clinicaltrials as trials_plugin
from medlit.core.plugin import SourceQuery
from medlit.testing import FakeUpstream, check_structured, make_runtime, tool_definitions

from support.clinicaltrials_routes import SERVICE, TrialsFake, install
from support.environments import fake_env

pytestmark = pytest.mark.anyio
FAST = {"MEDLIT_CLINICALTRIALS_RATE": "50"}  # the fake may be asked faster than the register


def rt_for(fake, **env: str):
    return make_runtime(trials_plugin, env={**FAST, **env}, fake=fake)


async def test_search_pages_with_the_token_and_counts_once(fake):
    install(fake)
    async with rt_for(fake) as rt:
        first = await rt.call("clinicaltrials_search", {"condition": "Phelan-McDermid", "pageSize": 5})
        token = first.data["nextPageToken"]
        second = await rt.call(
            "clinicaltrials_search", {"condition": "Phelan-McDermid", "pageSize": 5, "pageToken": token}
        )
    assert first.error is None and first.data["totalCount"] == 10 and first.data["returned"] == 5
    assert first.data["trials"][0]["nctId"] == "NCT02710084" and first.data["trials"][0]["phases"] == [
        "PHASE2"
    ]
    assert second.data["nextPageToken"] is None and second.data["totalCount"] is None
    one, two = fake.of(SERVICE, "studies")
    assert one.params["query.cond"] == "Phelan-McDermid" and one.params["countTotal"] == "true"
    assert "countTotal" not in two.params and two.params["pageToken"] == token
    assert "NCTId" in one.params["fields"]  # a summary asks only for what it shows
    assert "Next page: pageToken" in first.text and "This page ends the results." in second.text


async def test_status_phase_and_dates_become_the_registers_filters(fake):
    install(fake)
    args = {
        "condition": "Phelan-McDermid",
        "status": ["RECRUITING", "COMPLETED"],
        "phase": ["PHASE3"],
        "startFrom": "2020-01",
        "advanced": "AREA[StudyType]INTERVENTIONAL",
    }
    async with rt_for(fake) as rt:
        out = await rt.call("clinicaltrials_search", args)
    [req] = fake.of(SERVICE, "studies")
    assert req.params["filter.overallStatus"] == "RECRUITING,COMPLETED"
    assert req.params["filter.advanced"] == (
        "AREA[Phase](PHASE3) AND AREA[StartDate]RANGE[2020-01,MAX] AND (AREA[StudyType]INTERVENTIONAL)"
    )
    assert [t["nctId"] for t in out.data["trials"]] == ["NCT07281079"]


async def test_no_match_is_an_empty_answer_with_a_notice(fake):
    install(fake)
    async with rt_for(fake) as rt:
        out = await rt.call("clinicaltrials_search", {"condition": "zzzunknownzzz"})
    assert out.error is None and out.data["trials"] == [] and out.data["totalCount"] == 0
    assert "No study matches" in out.data["notice"]


async def test_fetch_summaries_in_one_request_with_not_found(fake):
    install(fake)
    async with rt_for(fake) as rt:
        out = await rt.call(
            "clinicaltrials_fetch", {"nctIds": ["NCT02576665", "nct2710084", "NCT99999999", "NCT02576665"]}
        )
    [req] = fake.of(SERVICE, "studies")
    assert req.params["filter.ids"] == "NCT02576665,NCT02710084,NCT99999999" and "fields" in req.params
    assert [t["nctId"] for t in out.data["trials"]] == ["NCT02576665", "NCT02710084"]
    assert out.data["notFound"] == ["NCT99999999"] and "NCT99999999" in out.data["notice"]
    toca = out.data["trials"][0]
    assert toca["pmids"] == ["29735994", "29322091"] and toca["status"] == "TERMINATED"
    assert toca["interventions"] == ["BIOLOGICAL: Toca 511", "DRUG: Toca FC"] and toca["detail"] is None


async def test_a_batch_refused_for_one_unknown_number_is_halved_until_it_stands_alone(fake):
    install(fake, TrialsFake(refuse_unknown_ids=True))
    ids = ["NCT02576665", "NCT02710084", "NCT99999999", "NCT05105685"]
    async with rt_for(fake) as rt:
        out = await rt.call("clinicaltrials_fetch", {"nctIds": ids})
    assert out.error is None and out.data["notFound"] == ["NCT99999999"]
    assert [t["nctId"] for t in out.data["trials"]] == ["NCT02576665", "NCT02710084", "NCT05105685"]
    sent = [r.params["filter.ids"] for r in fake.of(SERVICE, "studies")]
    assert sent == [
        ",".join(ids),
        "NCT02576665,NCT02710084",
        "NCT99999999,NCT05105685",
        "NCT99999999",
        "NCT05105685",
    ]


async def test_full_record_adds_design_arms_eligibility_outcomes_and_history(fake):
    install(fake)
    async with rt_for(fake) as rt:
        out = await rt.call("clinicaltrials_fetch", {"nctIds": ["NCT02576665"], "detail": "full"})
    [req] = fake.of(SERVICE, "studies")
    assert "fields" not in req.params  # a whole record is asked whole
    d = out.data["trials"][0]["detail"]
    assert d["design"]["interventionModel"] == "SINGLE_GROUP" and d["design"]["masking"] == "NONE"
    assert d["arms"][0]["label"] == "Toca 511/Toca FC" and d["arms"][0]["type"] == "EXPERIMENTAL"
    assert (
        d["eligibility"]["criteria"].startswith("Inclusion Criteria:")
        and d["eligibility"]["maximumAge"] == "75 Years"
    )
    assert d["outcomes"][0]["kind"] == "primary" and d["statusHistory"]["whyStopped"] == "Sponsor decision"
    assert d["locationCount"] == 3 and d["countries"] == ["United States"]
    assert [r["type"] for r in d["references"]] == ["DERIVED", "DERIVED"] and "Glioblastoma" in d["meshTerms"]
    assert d["results"] is None  # none posted
    assert "Eligibility: sex ALL" in out.text and "Design: NA, SINGLE_GROUP" in out.text


@pytest.mark.parametrize(
    ("tool", "args", "says"),
    [
        ("clinicaltrials_fetch", {"nctIds": ["NCT123456789", "abc"]}, "not ClinicalTrials.gov numbers"),
        (
            "clinicaltrials_fetch",
            {"nctIds": [f"NCT{i:08d}" for i in range(1, 12)], "detail": "full"},
            "at most 10",
        ),
        ("clinicaltrials_search", {"pageSize": 5}, "names nothing"),
        ("clinicaltrials_search", {"condition": "asthma", "startFrom": "2020-13"}, "not a date"),
        ("clinicaltrials_search", {"condition": "asthma", "pageToken": "a b/c"}, "page token"),
    ],
)
async def test_bad_input_is_refused_before_any_request(fake, tool, args, says):
    install(fake)
    async with rt_for(fake) as rt:
        out = await rt.call(tool, args)
    assert out.error.reason == "invalid_argument" and says in out.error.message
    assert out.error.recovery and out.error.retryable is False
    assert fake.of(SERVICE) == []


async def test_the_registers_400_is_the_callers_input_error_quoting_its_reason(fake):
    install(fake)
    async with rt_for(fake) as rt:
        out = await rt.call("clinicaltrials_search", {"terms": "AREA[Phase PHASE2"})
    assert out.error.reason == "invalid_argument" and "unbalanced" in out.error.message
    assert "Essie" in out.error.recovery and out.error.retryable is False


async def test_a_failing_register_is_reported_as_clinicaltrials_failure(fake):
    install(fake)
    fake.fault("503", SERVICE, "studies", times=5)
    async with rt_for(fake, MEDLIT_MAX_RETRIES="1") as rt:
        out = await rt.call("clinicaltrials_fetch", {"nctIds": ["NCT02576665"]})
    assert out.error.reason == "clinicaltrials_server_error" and out.error.retryable is True
    assert len(fake.of(SERVICE, "studies")) == 2  # tried, retried once, reported


async def test_a_429_with_retry_after_is_waited_out(fake):
    install(fake)
    fake.fault("429", SERVICE, "studies", retry_after=1)
    async with rt_for(fake) as rt:
        out = await rt.call("clinicaltrials_fetch", {"nctIds": ["NCT02576665"]})
    first, second = fake.of(SERVICE, "studies")
    assert out.error is None and out.data["trials"][0]["nctId"] == "NCT02576665"
    assert second.at - first.at >= 0.9


async def test_pacing_holds_under_concurrent_calls(medlit_asyncio_only):
    async with FakeUpstream(limits={SERVICE: 2}) as fake:
        install(fake)
        async with make_runtime(trials_plugin, env={"MEDLIT_CLINICALTRIALS_RATE": "2"}, fake=fake) as rt:
            calls = [rt.call("clinicaltrials_search", {"condition": f"phelan {i}"}) for i in range(6)]
            outs = await asyncio.gather(*calls)
    assert all(o.error is None for o in outs)
    assert fake.rate_limited == [] and len(fake.of(SERVICE)) == 6 and fake.busiest_second(SERVICE) <= 2


async def test_the_review_source_pages_a_query_to_its_end_as_a_register(fake):
    install(fake)
    assert trials_plugin.SEARCH_SOURCE.kind == "register"
    records, cursor, pages = [], None, 0
    async with rt_for(fake) as rt:
        ctx = rt.context("clinicaltrials")
        while True:
            page = await trials_plugin.SEARCH_SOURCE.run(
                SourceQuery("Phelan-McDermid", cursor=cursor, limit=4), ctx
            )
            records += page.records
            pages += 1
            cursor = page.cursor
            assert page.total == 10
            if cursor is None:
                break
            json.loads(cursor)  # self-contained: resumable in another process
    assert pages == 3 and len({r.source_id for r in records}) == 10
    first = records[0]
    assert first.source == "clinicaltrials" and first.source_id == "NCT02710084"
    assert (
        first.url == "https://clinicaltrials.gov/study/NCT02710084" and first.journal == "ClinicalTrials.gov"
    )
    assert first.year == 2016 and first.abstract and "Phelan-McDermid Syndrome" in first.keywords
    reqs = fake.of(SERVICE, "studies")
    assert [r.params.get("countTotal") for r in reqs] == ["true", None, None]
    assert all(r.params["query.term"] == "Phelan-McDermid" for r in reqs)


async def test_a_source_page_over_the_body_cap_is_asked_again_at_half_the_size(fake):
    install(fake)
    fake.fault("oversized", SERVICE, "studies", size=6_000_000)
    async with rt_for(fake) as rt:
        page = await trials_plugin.SEARCH_SOURCE.run(
            SourceQuery("Phelan-McDermid", limit=1000), rt.context("clinicaltrials")
        )
    assert [r.params["pageSize"] for r in fake.of(SERVICE, "studies")] == ["1000", "500"]
    assert len(page.records) == 10 and page.cursor is None and "pageSize=500" in page.detail


# Two articles a database found: the first reports the oxytocin trial (its abstract cites the NCT
# number), the second no trial.
ARTICLES = "\n".join(
    [
        "TY  - JOUR",
        "ID  - E1",
        "TI  - Intranasal oxytocin in Phelan-McDermid syndrome: a randomized pilot trial",
        "AU  - Fastman, Jessica",
        "PY  - 2021",
        "DO  - 10.1000/pms.oxytocin",
        "AB  - A 12-week crossover pilot (ClinicalTrials.gov NCT02710084) of intranasal oxytocin.",
        "ER  - ",
        "TY  - JOUR",
        "ID  - E2",
        "TI  - SHANK3 haploinsufficiency and the synapse: a review",
        "AU  - Costales, Jesse",
        "PY  - 2015",
        "DO  - 10.1000/pms.review",
        "ER  - ",
        "",
    ]
)


async def test_review_search_runs_the_register_into_a_set(fake, tmp_path):
    """review_search runs the register into a set: every study of the query, counted in PRISMA's
    registers box (the source's declared kind) and listed as a register in the search log; a trial
    and the article citing its NCT number are linked (never merged) in review_records and the
    exports carry the NCT number."""
    install(fake)
    env = fake_env(
        fake,
        MEDLIT_STORE=f"sqlite:///{tmp_path / 'review.db'}",
        MEDLIT_EXPORT_DIR=str(tmp_path / "exports"),
        **FAST,
    )
    async with make_runtime(env=env, discover=True) as rt:
        out = await rt.call("review_search", {"set": "pms", "queries": {"clinicaltrials": "Phelan-McDermid"}})
        page = await rt.call("review_records", {"set": "pms", "source": "clinicaltrials", "limit": 50})
        imported = await rt.call(
            "review_import", {"set": "pms", "database": "Embase", "content": ARTICLES, "format": "ris"}
        )
        records = await rt.call("review_records", {"set": "pms", "limit": 50})
        prisma = await rt.call("review_prisma", {"set": "pms", "format": "json"})
        svg = await rt.call("review_prisma", {"set": "pms", "format": "svg"})
        log, _ = await rt.read_resource("review://sets/pms/log")
        exported = {
            fmt: (await rt.call("review_export", {"set": "pms", "format": fmt})).data["path"]
            for fmt in ("ris", "nbib", "endnote_xml", "rayyan_csv")
        }
        schema = next(t for t in tool_definitions(rt.host) if t.name == "review_records").output_schema
    [source] = out.data["sources"]
    assert source["source"] == "clinicaltrials" and source["state"] == "complete"
    assert source["found"] == source["fetched"] == 10 and out.data["total"] == 10
    assert len(page.data["records"]) == 10
    assert [r.params["query.term"] for r in fake.of(SERVICE, "studies")] == ["Phelan-McDermid"]
    assert imported.error is None
    # PRISMA: the register in its box, the database in its own
    counts = prisma.data["counts"]
    assert counts["routes"] == {"clinicaltrials": "register", "Embase": "database"}
    assert counts["identified"] == {"clinicaltrials": 10, "Embase": 2} and counts["records"] == 12
    drawing = Path(svg.data["path"]).read_text("utf-8")
    assert "Registers (n = 10)" in drawing and "Databases (n = 2)" in drawing
    assert "ClinicalTrials.gov (n = 10)" in drawing
    registers = log.split("## Study registers searched", 1)[1].split("##", 1)[0]
    assert "| ClinicalTrials.gov | 1 |" in registers and "Embase" not in registers
    # links: the trial and its article, two records of one study; the review stands alone
    check_structured(records.data, schema)
    by_id = {(r.get("doi") or r["title"]): r for r in records.data["records"]}
    trial = next(
        r for r in records.data["records"] if r.get("registrations") == ["NCT02710084"] and not r.get("doi")
    )
    article, review = by_id["10.1000/pms.oxytocin"], by_id["10.1000/pms.review"]
    assert trial["sources"] == ["clinicaltrials"] and article["sources"] == ["Embase"]  # never merged
    assert trial["reports"] == [{"key": article["key"], "relation": "article", "via": "NCT02710084"}]
    assert article["reports"] == [{"key": trial["key"], "relation": "registration", "via": "NCT02710084"}]
    assert trial["study"] == article["study"] == min(trial["key"], article["key"])
    assert article["registrations"] == ["NCT02710084"]
    assert (
        f"{article['key']} (study {article['study']}): {trial['key']} registration via NCT02710084"
        in records.text
    )
    assert review.get("reports") is review.get("study") is review.get("registrations") is None
    others = [r for r in records.data["records"] if r["key"] not in (trial["key"], article["key"])]
    assert all(r.get("reports") is None for r in others)
    # the exports carry the registration number (the trial's own, and the article's)
    text = {fmt: Path(path).read_text("utf-8") for fmt, path in exported.items()}
    assert text["ris"].count("N1  - Trial registration: ClinicalTrials.gov NCT02710084") == 2
    assert text["nbib"].count("SI  - ClinicalTrials.gov/NCT02710084") == 2
    assert text["endnote_xml"].count("Trial registration: ClinicalTrials.gov NCT02710084") == 2
    assert text["rayyan_csv"].count("Trial registration: NCT02710084") == 2


async def test_registrations_alike_in_all_but_their_nct_number_stay_apart_in_a_set(fake, tmp_path):
    """Thirty copies of the recorded studies under new NCT numbers: titles, sponsors and years
    repeat, yet each registration is its own record (the matcher never joins two trials)."""
    from support.clinicaltrials_routes import TrialsFake, synthetic

    install(fake, TrialsFake(synthetic(32)))
    env = fake_env(fake, MEDLIT_STORE=f"sqlite:///{tmp_path / 'review.db'}", **FAST)
    async with make_runtime(env=env, discover=True) as rt:
        out = await rt.call("review_search", {"set": "copies", "queries": {"clinicaltrials": "Phelan"}})
    [source] = out.data["sources"]
    assert source["state"] == "complete" and source["fetched"] > 10
    assert out.data["total"] == source["fetched"]


# CENTRAL's copy of the ClinicalTrials.gov registration (Cochrane's RIS: the study page in JA and
# UR, "Trial registry record"), and a CENTRAL journal article naming the trial in a note
CENTRAL = "\n".join(
    [
        "TY  - GEN",
        "AN  - CN-01300001",
        "TI  - Piloting Treatment With Intranasal Oxytocin in Phelan-McDermid Syndrome",
        "AU  - Alexander Kolevzon",
        "JA  - https://clinicaltrials.gov/show/NCT02710084",
        "PY  - 2016",
        "M3  - Trial registry record",
        "UR  - https://clinicaltrials.gov/show/NCT02710084",
        "ER  - ",
        "TY  - JOUR",
        "AN  - CN-01300002",
        "TI  - Intranasal oxytocin in Phelan-McDermid syndrome: a pilot trial",
        "AU  - Kolevzon, A",
        "PY  - 2019",
        "N1  - Trial registration: ClinicalTrials.gov NCT02710084",
        "ER  - ",
        "",
    ]
)


async def test_a_central_record_naming_the_nct_number_is_linked_to_the_registers_record_not_merged(
    fake, tmp_path
):
    install(fake)
    env = fake_env(fake, MEDLIT_STORE=f"sqlite:///{tmp_path / 'review.db'}", **FAST)
    async with make_runtime(env=env, discover=True) as rt:
        await rt.call("review_search", {"set": "pms", "queries": {"clinicaltrials": "Phelan-McDermid"}})
        before = (await rt.call("review_sets", {})).data["sets"][0]["total"]
        imported = await rt.call(
            "review_import", {"set": "pms", "database": "CENTRAL", "content": CENTRAL, "format": "ris"}
        )
        assert not imported.is_error, imported.text
        records = (await rt.call("review_records", {"set": "pms", "limit": 50})).data["records"]
    assert len(records) == before + 2  # the copy of the registration is not merged into it
    trial = next(
        r for r in records if r["sources"] == ["clinicaltrials"] and r.get("registrations") == ["NCT02710084"]
    )
    copy = next(r for r in records if r["title"].startswith("Piloting") and r["sources"] == ["CENTRAL"])
    article = next(r for r in records if r["title"].startswith("Intranasal oxytocin"))
    assert copy["registrations"] == article["registrations"] == ["NCT02710084"]
    assert {x["key"] for x in trial["reports"]} == {copy["key"], article["key"]}
    assert all(x["relation"] == "registration" for x in copy["reports"] if x["key"] == trial["key"])
    assert trial["study"] == copy["study"] == article["study"]
