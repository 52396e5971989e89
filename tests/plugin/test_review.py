"""The review workspace against the fake: a PubMed and a Europe PMC query into one set, with exact
counts per source and duplicates by each rule, on SQLite and on PostgreSQL (skipped, with the
reason, when no server is reachable); the search log; re-runs; refusals; paging; set management."""

from __future__ import annotations

import functools
import json

import pytest

from medlit.testing import check_structured, host_for, tool_definitions

from support.review_routes import EPMC_QUERY, PUBMED_QUERY, REFUSED_QUERY, Literature, install
from support.review_stores import LONG_WORK, WAIT_FOR_THE_WORK

pytestmark = pytest.mark.anyio

FAST = {"MEDLIT_EUROPEPMC_RATE": "200"}


@pytest.fixture
def runtime_for(review_runtime):
    return functools.partial(review_runtime, **FAST)


async def call(rt, tool, **args):
    out = await rt.call(tool, args)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == tool).output_schema
    check_structured(out.data, schema)
    return out


async def refused(rt, tool, **args):
    out = await rt.call(tool, args)
    assert out.is_error, out.text
    return out.error


SHARED = {"pmid": 40, "doi": 15, "pmcid": 10, "title": 5}


async def test_two_sources_into_one_set_with_exact_counts(fake, runtime_for):
    install(fake, Literature.build(pubmed=1200, europepmc=300, shared=SHARED))
    async with runtime_for() as rt:
        out = await call(
            rt, "review_search", set="kids", queries={"pubmed": PUBMED_QUERY, "europepmc": EPMC_QUERY}
        )
    d = out.data
    by = {s["source"]: s for s in d["sources"]}
    assert by["pubmed"]["found"] == by["pubmed"]["fetched"] == 1200
    assert by["europepmc"]["found"] == by["europepmc"]["fetched"] == 300
    assert all(s["state"] == "complete" for s in d["sources"])
    assert d["identified"] == 1500
    assert d["duplicatesByRule"] == {**SHARED, "manual": 0}
    assert d["duplicatesRemoved"] == 70
    assert d["unique"] == d["total"] == 1430
    assert d["new"] == 1430 and d["complete"] is True and d["running"] is False
    # Requests: PubMed one ESearch then one EFetch per 500 from the History server; Europe PMC one per 1,000.
    assert len(fake.of("ncbi", "esearch.fcgi")) == 1
    fetches = fake.of("ncbi", "efetch.fcgi")
    assert [(r.params["retstart"], r.params["retmax"]) for r in fetches] == [
        ("0", "500"),
        ("500", "500"),
        ("1000", "200"),
    ]
    assert all(r.params["WebEnv"] and r.params["query_key"] == "1" for r in fetches)
    epmc = fake.of("europepmc", "search")
    assert len(epmc) == 1 and epmc[0].params["pageSize"] == "1000" and epmc[0].params["resultType"] == "core"


async def test_merged_records_keep_every_source_and_fill_ids(fake, runtime_for):
    install(
        fake, Literature.build(pubmed=30, europepmc=20, shared={"pmid": 3, "doi": 2, "pmcid": 2, "title": 2})
    )
    async with runtime_for() as rt:
        await call(
            rt, "review_search", set="merge", queries={"pubmed": PUBMED_QUERY, "europepmc": EPMC_QUERY}
        )
        both = await call(rt, "review_records", set="merge", source="europepmc", limit=200, brief=False)
        only_pubmed = await call(rt, "review_records", set="merge", source="pubmed", limit=200)
    recs = both.data["records"]
    assert both.data["total"] == 20
    shared = [r for r in recs if set(r["sources"]) == {"pubmed", "europepmc"}]
    assert len(shared) == 9
    assert all(r["pmid"] and r["doi"] and r["abstract"] for r in shared)
    assert only_pubmed.data["total"] == 30


async def test_rerun_with_nothing_new(fake, runtime_for):
    install(fake, Literature.build(pubmed=120, europepmc=50, shared={"pmid": 20}))
    queries = {"pubmed": PUBMED_QUERY, "europepmc": EPMC_QUERY}
    async with runtime_for() as rt:
        first = await call(rt, "review_search", set="again", queries=queries)
        second = await call(rt, "review_search", set="again", queries=queries)
    assert first.data["new"] == 150
    assert second.data["new"] == 0
    assert second.data["unique"] == second.data["total"] == 150
    assert second.data["duplicatesRemoved"] == 20 and second.data["duplicatesByRule"]["pmid"] == 20
    assert {s["run"] for s in second.data["sources"]} == {2}


async def test_a_refused_query_is_reported_for_its_source_and_the_other_runs(fake, runtime_for):
    install(fake, Literature.build(pubmed=10, europepmc=10))
    async with runtime_for() as rt:
        out = await call(
            rt, "review_search", set="half", queries={"pubmed": REFUSED_QUERY, "europepmc": EPMC_QUERY}
        )
        log = await rt.read_resource("review://sets/half/log")
    by = {s["source"]: s for s in out.data["sources"]}
    assert by["pubmed"]["state"] == "refused" and "badfield" in by["pubmed"]["error"]
    assert by["europepmc"]["state"] == "complete" and by["europepmc"]["fetched"] == 10
    assert out.data["complete"] is False and out.data["total"] == 10
    assert not fake.of("ncbi", "efetch.fcgi")
    text, err = log
    assert err is None and REFUSED_QUERY in text and "refused" in text


async def test_a_query_europe_pmc_refuses_is_reported_for_it(fake, runtime_for):
    install(fake, Literature.build(pubmed=10, europepmc=0))
    async with runtime_for() as rt:
        out = await call(
            rt, "review_search", set="bad", queries={"pubmed": PUBMED_QUERY, "europepmc": "BAD: ((("}
        )
    by = {s["source"]: s for s in out.data["sources"]}
    assert by["europepmc"]["state"] == "refused" and "europepmc_bad_request" in by["europepmc"]["error"]
    assert by["pubmed"]["state"] == "complete" and out.data["total"] == 10
    assert len(fake.of("europepmc", "search")) == 1  # refused input is not retried


@LONG_WORK
async def test_past_the_window_is_refused_unless_split_by_date(fake, runtime_for):
    install(fake, Literature.build(pubmed=10_300, europepmc=0))
    # the split search's call waits for all 10,300 records, however long a loaded machine takes
    async with runtime_for(MEDLIT_NCBI_RATE="200", **WAIT_FOR_THE_WORK) as rt:
        fake.ncbi_limit = 400.0
        out = await call(rt, "review_search", set="big", queries={"pubmed": PUBMED_QUERY})
        s = out.data["sources"][0]
        assert s["state"] == "refused", s["error"]
        assert "pubmed_window_exceeded" in s["error"] and s["fetched"] == 0
        assert out.data["total"] == 0 and not fake.of("ncbi", "efetch.fcgi")
        split = await call(rt, "review_search", set="big", queries={"pubmed": PUBMED_QUERY}, splitByDate=True)
    assert split.data["running"] is False
    s = split.data["sources"][0]
    assert s["state"] == "complete" and s["found"] == 10_300 and s["fetched"] == 10_300
    assert split.data["total"] == 10_300
    dated = [r for r in fake.of("ncbi", "esearch.fcgi") if "[dp]" in r.params["term"]]
    assert dated and all(int(r.params.get("retstart", 0)) == 0 for r in fake.of("ncbi", "esearch.fcgi"))


async def test_over_the_size_cap_is_refused_before_storing(fake, runtime_for):
    install(fake, Literature.build(pubmed=600, europepmc=5))
    async with runtime_for(MEDLIT_REVIEW_MAX_RECORDS="500") as rt:
        out = await call(
            rt, "review_search", set="capped", queries={"pubmed": PUBMED_QUERY, "europepmc": EPMC_QUERY}
        )
    by = {s["source"]: s for s in out.data["sources"]}
    assert by["pubmed"]["state"] == "refused" and "set_too_large" in by["pubmed"]["error"]
    assert by["pubmed"]["fetched"] == 0 and by["europepmc"]["fetched"] == 5


async def test_bad_input_is_refused_before_any_request(fake, runtime_for):
    install(fake, Literature.build(pubmed=5, europepmc=5))
    async with runtime_for() as rt:
        err = await refused(rt, "review_search", set="../etc", queries={"pubmed": PUBMED_QUERY})
        assert err.kind == "invalid_set_name"
        err = await refused(rt, "review_search", set="x", queries={"scopus": "asthma"})
        assert err.kind == "invalid_argument" and "pubmed" in err.recovery
        err = await refused(rt, "review_search", set="never-made")
        assert err.kind == "unknown_set"
        err = await refused(rt, "review_records", set="never-made")
        assert err.kind == "unknown_set"
        err = await refused(rt, "review_export", set="x", format="docx")
        assert err.kind == "invalid_argument"
    assert not fake.requests


async def test_records_pages_under_the_budget(fake, runtime_for):
    install(fake, Literature.build(pubmed=250, europepmc=0))
    async with runtime_for() as rt:
        await call(rt, "review_search", set="pages", queries={"pubmed": PUBMED_QUERY})
        first = await call(rt, "review_records", set="pages", limit=100)
        second = await call(rt, "review_records", set="pages", offset=first.data["nextOffset"], limit=200)
        small = await call(
            rt, "review_records", set="pages", limit=200, brief=False, maxResponseCharacters=5000
        )
        recent = await call(rt, "review_records", set="pages", yearFrom=2020)
    assert (
        first.data["total"] == 250 and len(first.data["records"]) == 100 and first.data["nextOffset"] == 100
    )
    assert len(second.data["records"]) == 150 and second.data.get("nextOffset") is None
    keys = [r["key"] for r in first.data["records"] + second.data["records"]]
    assert len(set(keys)) == 250
    assert 0 < len(small.data["records"]) < 200 and "maxResponseCharacters" in small.data["notice"]
    assert len(json.dumps(small.data)) < 5000 + 2000
    assert all(r["year"] >= 2020 for r in recent.data["records"]) and recent.data["total"] < 250


async def test_sets_list_rename_delete(fake, runtime_for):
    install(fake, Literature.build(pubmed=20, europepmc=0))
    async with runtime_for() as rt:
        await call(rt, "review_search", set="one", queries={"pubmed": PUBMED_QUERY})
        listed = await call(rt, "review_sets")
        assert [s["set"] for s in listed.data["sets"]] == ["one"] and listed.data["sets"][0]["total"] == 20
        await call(rt, "review_sets", action="rename", set="one", newName="two")
        err = await refused(rt, "review_sets", action="delete", set="two")
        assert err.kind == "confirmation_required"
        err = await refused(rt, "review_sets", action="delete", set="two", confirm="one")
        assert err.kind == "confirmation_required"
        gone = await call(rt, "review_sets", action="delete", set="two", confirm="two")
        assert gone.data["deletedRecords"] == 20
        assert (await call(rt, "review_sets")).data["sets"] == []
    definition = next(t for t in tool_definitions(rt.host) if t.name == "review_sets")
    assert definition.annotations.destructive_hint is True


async def test_concurrent_writers_to_one_set_never_duplicate(fake, runtime_for):
    install(fake, Literature.build(pubmed=300, europepmc=300, shared={"pmid": 300}))
    async with runtime_for() as a, runtime_for() as b:
        import asyncio

        await asyncio.gather(
            call(a, "review_search", set="race", queries={"pubmed": PUBMED_QUERY}),
            call(b, "review_search", set="race", queries={"europepmc": EPMC_QUERY}),
        )
        out = await call(a, "review_records", set="race", limit=1)
    assert out.data["total"] == 300


@pytest.mark.parametrize("fmt", ["ris", "bibtex", "csljson", "nbib", "csv"])
async def test_every_export_format_reads_back_intact(fake, runtime_for, tmp_path, fmt):
    from pathlib import Path

    from support.review_readers import READERS

    lit = install(
        fake, Literature.build(pubmed=60, europepmc=30, shared={"pmid": 10, "doi": 5, "pmcid": 3, "title": 2})
    )
    async with runtime_for() as rt:
        err = await refused(rt, "review_export", set="kids/../../asthma", format=fmt)
        assert err.kind == "invalid_set_name"  # '/' never reaches a file name
        await call(
            rt, "review_search", set="kids asthma", queries={"pubmed": PUBMED_QUERY, "europepmc": EPMC_QUERY}
        )
        out = await call(rt, "review_export", set="kids asthma", format=fmt)
        text, read_err = await rt.read_resource(out.data["uri"])
        log_text, log_err = await rt.read_resource(out.data["logUri"])
    assert read_err is None and log_err is None
    path = Path(out.data["path"])
    assert path.parent == (tmp_path / "exports").resolve() and path.name.startswith("kids_asthma.")
    assert path.read_text("utf-8") == text
    assert [link.uri for link in out.links] == [out.data["uri"], out.data["logUri"]]
    assert out.data["records"] == 70
    back = READERS[fmt](text)
    assert len(back) == 70
    from medlit.plugins.review.identity.keys import title_key

    # Sources run side by side: a title-rule duplicate keeps whichever copy was stored first.
    papers = {title_key(p.title): p for p in lit.pubmed[PUBMED_QUERY]}
    for entry in back:
        p = papers.get(title_key(entry["title"]))
        if p is None:  # a Europe PMC-only record
            assert entry["title"].startswith("Synthetic trial 1")
            continue
        assert entry["title"] in (p.title, p.title.upper().replace(":", " -") + ".")
        assert entry["doi"].lower() == p.doi  # a copy lacking it got it from the PubMed record
        assert entry["authors"] == [f"{last}, {fore}" for last, fore in p.authors]
    assert sum(1 for e in back if title_key(e["title"]) in papers) == 60
    assert PUBMED_QUERY in log_text and EPMC_QUERY in log_text and "Duplicates removed: 20" in log_text


@LONG_WORK  # 2,000 records: 100 s seen beside two hogs at load 10
async def test_a_long_import_goes_on_in_the_server_and_the_next_call_reports_it(fake, runtime_for):
    import asyncio

    lit = install(fake, Literature.build(pubmed=2000, europepmc=0))
    from support.review_routes import efetch

    plain = efetch(lit)
    # The fake holds the pages on what the test has seen, not on a clock, so the machine's load
    # cannot reorder them: no page is served until the first call has answered (it answers
    # "running" however fast the import would have been), and the second only once a waiting call
    # has been told the import's progress (so the import cannot end before a call hears of it).
    # No clock may cut a held page short (a request timed out and retried past the job's deadline
    # would fail the search): the requests' timeout and the call deadline are far past any hold,
    # and a hold that outlasts two minutes is reported as such instead of failing later.
    answered, heard = asyncio.Event(), asyncio.Event()
    stalled: list[str] = []

    async def held(req):
        for event, what in ((answered, "the first call's answer"), (heard, "a call told of progress")):
            if event is heard and req.params["retstart"] == "0":
                break
            try:
                await asyncio.wait_for(event.wait(), 120)
            except TimeoutError:
                stalled.append(f"page {req.params['retstart']} held 120 s waiting for {what}")
        return plain(req)

    fake.route("ncbi", "efetch.fcgi", held)
    first_notes: list[tuple[float, float | None]] = []
    notes: list[tuple[float, float | None]] = []

    async def note(done, total, message=None):
        notes.append((done, total))
        heard.set()

    async def first_note(done, total, message=None):
        first_notes.append((done, total))

    # A call waits for an import 2 s here (MEDLIT_REVIEW_WAIT), so the test is quick.
    async with runtime_for(
        MEDLIT_CALL_DEADLINE="600", MEDLIT_REQUEST_TIMEOUT="600", MEDLIT_REVIEW_WAIT="2"
    ) as rt:
        first = await rt.call(
            "review_search",
            {"set": "long", "queries": {"pubmed": PUBMED_QUERY}},
            first_note,
        )
        answered.set()
        assert not first.is_error, first.text
        assert first.data["running"] is True and first.data["complete"] is False
        assert (
            first.data["sources"][0]["state"] == "running" and "goes on in the server" in first.data["notice"]
        )
        assert first_notes == []  # nothing was stored while it waited
        listed = await call(rt, "review_sets")
        assert listed.data["sets"][0]["running"] is True
        state = first
        while state.data["running"]:  # each call waits for the import as long as it may
            out = await rt.call("review_search", {"set": "long"}, note)
            assert not out.is_error, out.text
            state = out
    assert not stalled, stalled
    assert state.data["complete"] and state.data["total"] == 2000, state.text
    # progress: records so far of the total, told at once to a call that waits on the import (the
    # second page is held until then, so it is the first page's)
    assert notes[0] == (500, 2000) and [n for n, _ in notes] == sorted(n for n, _ in notes)


async def test_the_wait_for_an_import_is_the_servers_setting(fake, runtime_for):
    """MEDLIT_REVIEW_WAIT bounds how long a call waits for an import (under the call deadline): at
    1 s, a call answers "running" while its first page is held, where the default would wait 42 s."""
    import asyncio

    lit = install(fake, Literature.build(pubmed=600, europepmc=0))
    from support.review_routes import efetch

    plain = efetch(lit)
    answered = asyncio.Event()

    async def held(req):
        await answered.wait()
        return plain(req)

    fake.route("ncbi", "efetch.fcgi", held)
    async with runtime_for(MEDLIT_REVIEW_WAIT="1") as rt:
        # (30 s: far past the 1 s asked for, far short of the 42 s the setting replaced)
        first = await asyncio.wait_for(
            call(rt, "review_search", set="w", queries={"pubmed": PUBMED_QUERY}), 30
        )
        answered.set()
        assert first.data["running"] is True and first.data["total"] == 0
        done = first
        while done.data["running"]:
            done = await call(rt, "review_search", set="w")
    assert done.data["complete"] and done.data["total"] == 600


def test_one_toolset_removes_every_review_tool():

    on = host_for(env={})
    off = host_for(env={"MEDLIT_TOOLS": "-review_*"})
    review = {
        "review_search",
        "review_records",
        "review_export",
        "review_sets",
        "review_screen",
        "review_retrieve",
        "review_prisma",
        "review_import",
        "review_merge",
        "review_chase",
    }
    assert review <= set(on.tools) and not review & set(off.tools)
    assert set(on.tools) - review == set(off.tools)


async def test_upstream_faults_per_source(fake, runtime_for):
    """A transient fault costs nothing (retried: the same counts); a permanent one fails that
    source only, named by reason and retryable, keeping what was stored, and resumes later."""
    install(fake, Literature.build(pubmed=1200, europepmc=300, shared={"pmid": 50}))
    queries = {"pubmed": PUBMED_QUERY, "europepmc": EPMC_QUERY}
    async with runtime_for() as rt:
        fake.fault("503", "ncbi", "efetch.fcgi", times=1)
        fake.fault("503", "europepmc", "search", times=1)
        ok = await call(rt, "review_search", set="blips", queries=queries)
        assert ok.data["complete"] and ok.data["unique"] == 1450 and fake.rate_limited == []

        fake.faults.clear()
        plain = fake.routes[("ncbi", "efetch.fcgi")]
        seen = 0

        def third_fails(req):  # the third EFetch and every one after it fail for good
            nonlocal seen
            seen += 1
            if seen >= 3:
                from aiohttp import web

                return web.Response(status=503, text="down")
            return plain(req)

        fake.route("ncbi", "efetch.fcgi", third_fails)
        out = await call(rt, "review_search", set="faults", queries=queries)
        by = {s["source"]: s for s in out.data["sources"]}
        assert by["pubmed"]["state"] == "failed" and by["pubmed"]["reason"] == "ncbi_server_error"
        assert by["pubmed"]["retryable"] is True and by["pubmed"]["fetched"] == 1000
        assert by["europepmc"]["state"] == "complete" and by["europepmc"]["fetched"] == 300
        assert out.data["complete"] is False and "resumes it" in out.data["notice"]

        fake.route("ncbi", "efetch.fcgi", plain)
        again = await call(rt, "review_search", set="faults")
    assert again.data["complete"] and again.data["unique"] == 1450
    assert again.data["sources"][0]["fetched"] == 1200


async def test_pubtator_search_is_a_review_source(fake, runtime_for):
    """A third source from a provider plugin: an entity query's every record, ten a request (its
    search page), normalised with all authors; a malformed entity query is refused for that source
    before any request while the others run."""
    from support.pubtator_routes import install as install_pubtator

    pubtator = install_pubtator(fake)
    install(fake, Literature.build(pubmed=10, europepmc=5))
    async with runtime_for() as rt:
        out = await call(
            rt,
            "review_search",
            set="braf",
            queries={"pubtator": "@GENE_BRAF AND @DISEASE_Melanoma", "europepmc": EPMC_QUERY},
        )
        page = await call(rt, "review_records", set="braf", source="pubtator", limit=50)
        bad = await call(
            rt, "review_search", set="bad", queries={"pubtator": "@BANANA_x", "pubmed": PUBMED_QUERY}
        )
    by = {s["source"]: s for s in out.data["sources"]}
    assert (
        by["pubtator"]["found"] == by["pubtator"]["fetched"] == 42 and by["pubtator"]["state"] == "complete"
    )
    assert by["europepmc"]["fetched"] == 5
    assert [r.params["page"] for r in fake.of("pubtator", "search/")] == ["1", "2", "3", "4", "5"]
    assert pubtator.texts[0] == "@GENE_BRAF AND @DISEASE_Melanoma"
    records = page.data["records"]
    assert len(records) == 42 and all(r["pmid"].startswith("310000") for r in records)
    assert by_bad_source(bad)["pubtator"]["state"] == "refused"
    assert by_bad_source(bad)["pubmed"]["state"] == "complete"
    assert len(fake.of("pubtator", "search/")) == 5  # the refused query asked nothing


def by_bad_source(out):
    return {s["source"]: s for s in out.data["sources"]}
