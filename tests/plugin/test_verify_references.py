"""pubmed_verify_references against the fake (PubMed and Crossref from tests/support/reference_library.py):
each class of a 30-reference mixed list, the requests it costs, bad input refused before any
request, a switched-off or failing Crossref, and the text table."""

from __future__ import annotations

from collections import Counter

import pytest

from support import reference_library as lib

pytestmark = pytest.mark.anyio

TOOL = "pubmed_verify_references"


def check(results: list[dict]) -> list[str]:
    """What differs from the expected class (and field, chimera flag or notice) of each reference."""
    bad = []
    for (_, want, extra), r in zip(lib.MIXED, results, strict=True):
        fields = {d["field"] for d in r["discrepancies"]}
        ok = r["match"] == want
        if extra == "chimera":
            ok = ok and r.get("chimera") is True
        elif extra in ("retraction", "erratum"):
            ok = ok and any(n["type"] == extra for n in r["notices"])
        elif extra:
            ok = ok and extra in fields
        if not ok:
            bad.append(
                f"#{r['index']}: want {want}/{extra}, got {r['match']} {sorted(fields)} chimera={r.get('chimera')}"
            )
    return bad


async def test_mixed_list_each_class_with_its_evidence_in_few_requests(fake, make_runtime):
    lib.install(fake)
    async with make_runtime() as rt:
        out = await rt.call(TOOL, {"references": [r for r, _, _ in lib.MIXED]})
    assert out.data is not None, out.text
    results = out.data["results"]
    assert [r["index"] for r in results] == list(range(1, 31))
    assert check(results) == []
    assert out.data["summary"] == {
        "verified": 14,
        "mismatch": 10,
        "ambiguous": 1,
        "not_found": 5,
        "unverified": 0,
        "retracted": 3,
        "withNotices": 4,
    }
    by = {r["index"]: r for r in results}
    # a stated DOI belonging to another paper: the real one is the record, the DOI the discrepancy,
    # and the paper the DOI is named as its source gives it (a chimera by DOI)
    wrong_doi = next(d for d in by[13]["discrepancies"] if d["field"] == "doi")
    owner = wrong_doi.pop("belongsTo")
    assert wrong_doi == {
        "field": "doi",
        "stated": "10.5555/dcare.2018.1412",
        "actual": "10.5555/jamaneurol.2022.498",
    }
    assert owner["title"].startswith("Intermittent fasting versus continuous calorie restriction")
    assert (owner["authors"][0], owner["year"], owner["journal"]) == ("Andersen L", 2018, "Diabetes Care")
    assert (
        "the stated DOI is another paper's: Andersen L 2018, “Intermittent fasting"
        in by[13]["evidence"]["note"]
    )
    # a DOI that resolves nowhere has no owner to name; a PMID of another paper is named like a DOI
    assert all(d.get("belongsTo") is None for d in by[14]["discrepancies"])
    wrong_pmid = next(d for d in by[30]["discrepancies"] if d["field"] == "pmid")
    assert wrong_pmid["belongsTo"]["pmid"] == "99000006"
    # invented: the sources asked are named
    assert all("not found by ncbi, crossref" in by[i]["evidence"]["note"] for i in range(15, 20))
    # ambiguous: the top candidates
    assert {c["record"]["pmid"] for c in by[29]["candidates"]} == {"99000011", "99000012"}
    # Crossref-only works, verified by Crossref alone
    for i in lib.CROSSREF_ONLY:
        assert (
            by[i]["match"] == "verified"
            and by[i]["evidence"]["agreed"] == ["crossref"]
            and not by[i]["record"].get("pmid")
        )
    # Wakefield: PubMed's RetractionIn and Retraction Watch's entry are one notice, with both sources
    (retraction,) = [n for n in by[23]["notices"] if n["type"] == "retraction"]
    assert retraction["id"] == "10.1016/s0140-6736(10)60175-4"
    assert {s["source"] for s in retraction["sources"]} == {"ncbi", "crossref:retraction-watch", "openalex"}
    # Mehra: publisher's erratum and Retraction Watch's retraction of one notice: a retraction, both kept
    mehra = next(n for n in by[24]["notices"] if n["id"] == "10.1016/s0140-6736(20)31324-6")
    assert mehra["type"] == "retraction" and mehra["disagreement"] is True
    assert {(s["source"], s["type"]) for s in mehra["sources"]} >= {
        ("crossref:publisher", "erratum"),
        ("ncbi", "retraction"),
    }
    # a retraction only a Crossref notice work states (filter=updates:)
    assert [(n["type"], n["id"], n["source"]) for n in by[25]["notices"]] == [
        ("retraction", "10.5555/jad.2020.notice1", "crossref:publisher")
    ]

    calls = Counter((q.service, q.path, _kind(q.params)) for q in fake.requests)
    assert calls[("ncbi", "ecitmatch.cgi", "")] == 1
    assert calls[("ncbi", "esearch.fcgi", "doi")] == 1
    assert calls[("crossref", "works", "doi")] <= 2  # the stated DOIs, then the matched works' DOIs
    assert calls[("crossref", "works", "updates")] == 1
    assert calls[("openalex", "works", "doi")] == 1  # is_retracted of every matched DOI
    assert calls[("ncbi", "efetch.fcgi", "")] <= 4
    # searches only for what no batched lookup settled
    title_searches = calls[("ncbi", "esearch.fcgi", "title")]
    bibliographic = calls[("crossref", "works", "bibliographic")]
    assert title_searches <= 14 and bibliographic <= 8
    assert len(fake.requests) <= 30
    assert fake.rate_limited == []


def _kind(params: dict) -> str:
    if "query.bibliographic" in params:
        return "bibliographic"
    f = params.get("filter", "")
    if f.startswith("doi:"):
        return "doi"  # Crossref's doi:A,doi:B and OpenAlex's doi:A|B
    if f.startswith("updates:"):
        return "updates"
    term = params.get("term", "")
    return "doi" if "[aid]" in term else "title" if "[ti]" in term else ""


async def test_crossref_switched_off_leaves_pubmed_verification_and_says_so(fake, make_runtime):
    lib.install(fake)
    refs = [lib.MIXED[0][0], lib.MIXED[22][0], "doi:10.1007/s10032-015-0249-8"]
    async with make_runtime(CROSSREF_ENABLED="false") as rt:
        out = await rt.call(TOOL, {"references": refs})
    assert out.data is not None, out.text
    watson, wakefield, cermine = out.data["results"]
    assert watson["match"] == "verified" and wakefield["match"] == "verified"
    # PubMed's own notices, OpenAlex's is_retracted merged into the retraction; nothing from Crossref
    assert [n["source"] for n in wakefield["notices"]] == ["ncbi, openalex", "ncbi"]
    assert cermine["match"] == "not_found" and "not asked: crossref" in cermine["evidence"]["note"]
    assert "Not asked: crossref" in out.data["notice"]
    # a switched-off plugin's hooks never ran: it is named with its switch, not listed as a provider
    assert "crossref (switched off: CROSSREF_ENABLED=true enables it)" in out.data["notice"]
    assert all(p["provider"] != "crossref" for p in out.data["providers"])
    assert fake.of("crossref") == []


async def test_crossref_failing_is_reported_and_pubmed_still_answers(fake, make_runtime):
    lib.install(fake)
    fake.fault("503", "crossref", None, times=1000)
    async with make_runtime(MEDLIT_MAX_RETRIES="0") as rt:
        out = await rt.call(TOOL, {"references": [lib.MIXED[0][0], "doi:10.1007/s10032-015-0249-8"]})
    assert out.data is not None, out.text
    watson, cermine = out.data["results"]
    assert (
        watson["match"] == "verified" and cermine["match"] == "unverified" and cermine["confidence"] == "low"
    )
    assert "crossref failed (crossref_server_error)" in cermine["evidence"]["note"]
    assert "Failed: crossref" in out.data["notice"]


async def test_a_reference_only_a_failed_source_knows_is_unverified_never_not_found(fake, make_runtime):
    """Crossref answering 503: a DOI only Crossref knows is not reported as a paper that does not
    exist; it is unverified, retryable, the failed source named, counted apart in the summary."""
    lib.install(fake)
    invented = "Nobody N. Invented study of nothing at all. J None. 2020;1:1-2."
    async with make_runtime(MEDLIT_MAX_RETRIES="0") as rt:
        healthy = await rt.call(TOOL, {"references": ["doi:10.1007/s10032-015-0249-8", invented]})
    fake.fault("503", "crossref", None, times=1000)
    async with make_runtime(MEDLIT_MAX_RETRIES="0") as rt:  # a new server: nothing remembered
        out = await rt.call(TOOL, {"references": ["doi:10.1007/s10032-015-0249-8", invented]})
    assert healthy.data is not None and healthy.data["results"][0]["match"] == "verified", healthy.text
    assert out.data is not None, out.text
    cermine, nobody = out.data["results"]
    for r in (cermine, nobody):
        assert r["match"] == "unverified" and r["retryable"] is True, r
        assert r["evidence"]["failed"] == ["crossref"]
        assert "unverifiable for now: crossref" in r["evidence"]["note"]
    assert "not found by ncbi" in nobody["evidence"]["note"]  # PubMed answered; Crossref did not
    assert out.data["summary"]["unverified"] == 2 and out.data["summary"]["not_found"] == 0
    assert "unverified 2 (a source failed: retry later)" in out.text
    rows = [line for line in out.text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert all("| unverified |" in row for row in rows), rows
    assert "reported unverified" in out.data["notice"]


@pytest.mark.parametrize(
    ("references", "reason", "words"),
    [
        ([""], "empty_reference", "references[0] is empty"),
        (["Smith J. A paper. 2020.", "  ...  "], "empty_reference", "references[1] is empty"),
        (["x" * 100_000], "reference_too_long", "100,000 characters"),
        (
            [f"Ref {n}. Some title here. J Test. 2020;1:{n}." for n in range(101)],
            "invalid_argument",
            "at most 100",
        ),
        (
            [
                "\n".join(
                    f"@article{{k{n}, title={{A title of entry number {n}}}, journal={{J Test}}, year={{2020}}, volume={{1}}, pages={{{n}}}}}"
                    for n in range(300)
                )
            ],
            "reference_too_long",
            "characters",
        ),
        ([{}], "empty_reference", "no fields"),
        ([{"title": "A title", "doi": "not a doi"}], "invalid_argument", "references[0].doi"),
        ([{"title": "A title", "year": "soon"}], "invalid_argument", "four-digit year"),
        ("Smith J. A paper. 2020.", "invalid_argument", "must be a list"),
        (["@article{x, title = "], "invalid_argument", "could not be read"),
    ],
)
async def test_bad_input_is_refused_before_any_request(fake, make_runtime, references, reason, words):
    lib.install(fake)
    async with make_runtime() as rt:
        out = await rt.call(TOOL, {"references": references})
    assert out.error is not None, out.text
    assert out.error.reason == reason and words in out.error.message and out.error.recovery
    assert fake.requests == []


async def test_entries_past_100_are_named_over_the_limit(fake, make_runtime):
    lib.install(fake)
    blob = "\n".join(
        f"@article{{k{n}, title={{Entry {n} of a long bibliography file}}, year={{2020}}}}"
        for n in range(150)
    )
    async with make_runtime() as rt:
        out = await rt.call(TOOL, {"references": [blob]})
    assert out.data is not None, out.text
    assert len(out.data["results"]) == 100
    assert out.data["overLimit"] == {"count": 50, "firstIndex": 101, "limit": 100}
    assert "50 reference(s) past the first 100 were not audited" in out.data["notice"]


async def test_text_table_in_the_order_pasted_with_severity_marked(fake, make_runtime):
    lib.install(fake)
    refs = [lib.MIXED[0][0], lib.MIXED[14][0], lib.MIXED[22][0], lib.MIXED[8][0]]
    async with make_runtime() as rt:
        out = await rt.call(TOOL, {"references": refs})
        data = await rt.call(TOOL, {"references": refs, "responseFormat": "json"})
    rows = [line for line in out.text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    cells = [[c.strip() for c in row.split("|")[1:4]] for row in rows]
    # verified, not found, retracted, mismatch: as pasted, the severity a marker beside each
    assert cells == [
        ["1", "", "verified"],
        ["2", "!!", "not_found"],
        ["3", "!!!", "verified"],
        ["4", "!!", "mismatch"],
    ]
    assert "RETRACTION" in rows[2] and "year: 2021 → 2023" in rows[3]
    assert "verified 2 · mismatch 1 · ambiguous 0 · not found 1 · retracted 1" in out.text
    assert data.data is not None and [r["index"] for r in data.data["results"]] == [1, 2, 3, 4]


async def test_text_names_a_wrong_ids_paper_and_an_unfound_references_nearest_records(fake, make_runtime):
    lib.install(fake)
    unfound = "Rossi G. Thrombectomy after stroke in children with congenital heart disease. Pediatrics. 2010;5:1-2."
    refs = [lib.MIXED[12][0], unfound]
    async with make_runtime() as rt:
        out = await rt.call(TOOL, {"references": refs, "responseFormat": "json"})
        text = await rt.call(TOOL, {"references": refs})
    assert out.data is not None, out.text
    doi_row, unfound_row = out.data["results"]
    assert doi_row["match"] == "mismatch"
    assert unfound_row["match"] == "not_found" and unfound_row["candidates"], unfound_row
    rows = [line for line in text.text.splitlines() if line.startswith("| 1 ")]
    assert "(the stated DOI is Andersen L 2018, “Intermittent fasting" in rows[0]
    # the JSON's nearest candidates, in the text too, each with why it was not accepted
    first = unfound_row["candidates"][0]
    assert "#2 (not_found), nearest records, none accepted:" in text.text
    listed = [line for line in text.text.splitlines() if line.startswith("- ")]
    assert 1 <= len(listed) <= 3
    assert first["record"]["title"][:40] in listed[0] and first["why"] in listed[0]


async def test_what_the_deadline_cuts_off_is_named(fake, make_runtime):
    lib.install(fake)
    async with make_runtime(MEDLIT_CALL_DEADLINE="1") as rt:
        out = await rt.call(TOOL, {"references": [lib.MIXED[0][0]]})
    assert out.data is not None, out.text
    (r,) = out.data["results"]
    assert r["match"] == "unverified" and r["confidence"] == "low" and r["retryable"] is True
    assert "not asked: the call ran out of time (ncbi, crossref)" in r["evidence"]["note"]
    assert {p["outcome"] for p in out.data["providers"] if p["kind"] == "matcher"} == {"failed"}
    assert fake.requests == []


async def test_a_hundred_searches_queue_politely(fake, make_runtime):
    """100 references that every search stage must look for: no queue overflows, every one asked."""
    lib.install(fake)
    refs = [
        f"Nobody{n} N. Invented study code{n} of nothing at all. J None. 2020;{n}:{n}-{n + 1}."
        for n in range(100)
    ]
    async with make_runtime() as rt:
        out = await rt.call(TOOL, {"references": refs})
    assert out.data is not None, out.text
    assert out.data["summary"]["not_found"] == 100 and out.data["notice"] is None
    assert len([q for q in fake.of("crossref", "works") if "query.bibliographic" in q.params]) == 100
    assert len([q for q in fake.of("ncbi", "esearch.fcgi") if "[ti]" in q.params["term"]]) == 100
    assert {p["outcome"] for p in out.data["providers"] if p["kind"] == "matcher"} == {"answered"}


async def test_identifiers_and_bare_titles(fake, make_runtime):
    lib.install(fake)
    refs = [
        "PMID: 9500320",
        "https://doi.org/10.1038/171737a0",
        "Molecular structure of nucleic acids; a structure for deoxyribose nucleic acid",
        {"pmid": 13054692, "year": 1954},
        {"pmid": 13054692, "authors": ["Smith J"], "year": 1990, "journal": "Cell"},
        "Watson JD. Nature 1953;171:737.",
    ]
    async with make_runtime() as rt:
        out = await rt.call(TOOL, {"references": refs})
    assert out.data is not None, out.text
    got = [(r["match"], [d["field"] for d in r["discrepancies"]]) for r in out.data["results"]]
    assert got == [
        ("verified", []),  # a PMID alone: it exists
        ("verified", []),  # a DOI alone, known to both sources
        ("verified", []),  # a bare title
        ("mismatch", ["year"]),  # the PMID's record, another year
        ("mismatch", ["authors", "year", "journal"]),  # the PMID is another paper's
        ("verified", []),  # no title: journal, year, volume, page and author agree
    ]
    assert out.data["results"][1]["evidence"]["agreed"] == ["ncbi", "crossref"]
    assert "belongs to another paper" in out.data["results"][4]["evidence"]["note"]


async def test_a_notice_of_retraction_title_is_the_work_and_flagged_retracted(
    fake, make_runtime, monkeypatch
):
    # Crossref keeps many retracted IEEE conference papers only as "Notice of Retraction: <title>",
    # with no update-to, updated-by or PubMed record: the title itself is the notice.
    ieee = lib.Lib(
        "ieee",
        "Notice of Retraction: A shuttle run test for soccer athletes based on wireless sensor networks",
        [("Liang", "Wei"), ("Zhou", "Qiang")],
        "2011 International Conference on Electrical and Control Engineering",
        "2011 International Conference on Electrical and Control Engineering",
        2011,
        None,
        None,
        "1875-1878",
        "10.5555/icece.2011.1875",
        None,
        pubmed=False,
        crossref_type="proceedings-article",
    )
    monkeypatch.setattr(lib, "WORKS", [*lib.WORKS, ieee])
    lib.install(fake)
    ref = (
        "Liang W, Zhou Q. A shuttle run test for soccer athletes based on wireless sensor networks. In: 2011 "
        "International Conference on Electrical and Control Engineering. 2011:1875-1878."
    )
    async with make_runtime() as rt:
        out = await rt.call(TOOL, {"references": [ref, lib.MIXED[0][0]]})
        text = await rt.call(TOOL, {"references": [ref]})
    assert out.data is not None, out.text
    r, plain = out.data["results"]
    assert r["match"] == "verified", r
    assert [(n["type"], n["source"]) for n in r["notices"]] == [("retraction", "crossref")]
    assert r["notices"][0]["sources"][0]["label"] == "title: Notice of Retraction:"
    assert plain["notices"] == []  # an ordinary title states nothing
    assert out.data["summary"]["retracted"] == 1
    row = next(line for line in text.text.splitlines() if line.startswith("| 1 "))
    assert "| !!! |" in row and "RETRACTION" in row
