"""The preprints plugin against the fake (tests/preprints_routes.py, a real bioRxiv record and
preprints built from it): every version and the journal article by DOI, the server guessed from
the DOI and the other tried on a miss, failures per DOI and of the whole service, DOIs deferred at
the call's deadline, pacing under concurrent calls, and the preprint search run through Europe
PMC's search source (and reported as Europe PMC's failure when that fails)."""

from __future__ import annotations

import asyncio

import pytest

import medlit.plugins.europepmc as europepmc_plugin
import medlit.plugins.preprints as preprints_plugin
from medlit.testing import FakeUpstream, make_runtime

from support.europepmc_routes import install as install_europepmc
from support.preprints_routes import REAL_DOI, SERVICE, install, synthetic

pytestmark = pytest.mark.anyio
MEDRXIV_DOI = "10.1101/2020.03.09.20033357"
FAST = {"MEDLIT_BIORXIV_RATE": "50"}


def rt_for(fake, *plugins, **env: str):
    return make_runtime(preprints_plugin, *plugins, env={**FAST, **env}, fake=fake)


async def test_a_published_preprint_with_its_versions_and_journal_article(fake):
    install(fake)
    async with rt_for(fake) as rt:
        out = await rt.call("preprints_lookup", {"dois": [f"https://doi.org/{REAL_DOI}"]})
    [p] = out.data["preprints"]
    assert p["doi"] == REAL_DOI and p["server"] == "biorxiv" and p["latestVersion"] == 1
    assert p["url"] == "https://www.biorxiv.org/content/10.1101/456574v1"
    assert p["versions"] == [
        {
            "version": 1,
            "date": "2018-10-30",
            "title": "Complementary subnetworks of cortical somatostatin interneurons",
            "license": "cc_by_nc",
            "category": "neuroscience",
            "type": "new results",
        }
    ]
    assert p["published"] == {"doi": "10.7554/elife.43696", "journal": "eLife", "date": "2019-03-07"}
    assert p["abstract"] is None and out.data["requests"] == 2
    assert [r.path for r in fake.of(SERVICE)] == [
        f"details/biorxiv/{REAL_DOI}/na/json",
        f"pubs/biorxiv/{REAL_DOI}/na/json",
    ]
    assert (
        "Published: 10.7554/elife.43696, eLife, 2019-03-07" in out.text
        and "pubmed_fetch_fulltext" in out.text
    )


async def test_medrxiv_is_guessed_from_the_doi_and_revisions_are_listed(fake):
    install(fake)
    async with rt_for(fake) as rt:
        out = await rt.call("preprints_lookup", {"dois": [MEDRXIV_DOI], "includeAbstract": True})
    [p] = out.data["preprints"]
    assert p["server"] == "medrxiv" and p["latestVersion"] == 2 and p["published"] is None
    assert p["versions"][1]["title"].endswith("(revised)") and p["abstract"].startswith("The neocortex")
    assert [r.path for r in fake.of(SERVICE)] == [f"details/medrxiv/{MEDRXIV_DOI}/na/json"]


async def test_a_doi_neither_server_knows_is_not_found_after_asking_both(fake):
    install(fake, unknown=("10.1101/000000",))
    async with rt_for(fake) as rt:
        out = await rt.call("preprints_lookup", {"dois": ["10.1101/000000", REAL_DOI]})
    assert out.data["notFound"] == ["10.1101/000000"] and [p["doi"] for p in out.data["preprints"]] == [
        REAL_DOI
    ]
    asked = [r.path for r in fake.of(SERVICE) if "000000" in r.path]
    assert asked == ["details/biorxiv/10.1101/000000/na/json", "details/medrxiv/10.1101/000000/na/json"]


async def test_one_failing_doi_is_listed_and_the_others_answer(fake):
    install(fake)
    fake.fault("404", SERVICE, f"details/medrxiv/{MEDRXIV_DOI}/na/json")
    async with rt_for(fake) as rt:
        out = await rt.call("preprints_lookup", {"dois": [REAL_DOI, MEDRXIV_DOI]})
    assert out.error is None and [p["doi"] for p in out.data["preprints"]] == [REAL_DOI]
    assert out.data["failed"] == [
        {"doi": MEDRXIV_DOI, "reason": "biorxiv_resource_not_found", "retryable": False}
    ]
    assert "ask again" in out.data["notice"]


async def test_a_failing_api_is_reported_as_the_biorxiv_service_failure(fake):
    install(fake)
    fake.fault("503", SERVICE, times=10)
    async with rt_for(fake, MEDLIT_MAX_RETRIES="0") as rt:
        out = await rt.call("preprints_lookup", {"dois": [REAL_DOI, MEDRXIV_DOI]})
    assert out.error.reason == "biorxiv_server_error" and out.error.retryable is True


async def test_dois_not_reached_before_the_deadline_are_deferred_not_failed(fake):
    install(fake, synthetic(12))
    dois = list(synthetic(12).known)
    async with make_runtime(
        preprints_plugin, env={"MEDLIT_BIORXIV_RATE": "1", "MEDLIT_CALL_DEADLINE": "7"}, fake=fake
    ) as rt:
        out = await rt.call("preprints_lookup", {"dois": dois})
    found = [p["doi"] for p in out.data["preprints"]]
    assert out.error is None and found and out.data["deferred"] and out.data["failed"] == []
    assert sorted(found + out.data["deferred"]) == sorted(dois)
    assert "send them again" in out.data["notice"]


async def test_bad_dois_are_refused_before_any_request(fake):
    install(fake)
    async with rt_for(fake) as rt:
        out = await rt.call("preprints_lookup", {"dois": ["not a doi"]})
    assert out.error.reason == "invalid_argument" and out.error.recovery and out.error.retryable is False
    assert fake.of(SERVICE) == []


async def test_pacing_holds_under_concurrent_calls(medlit_asyncio_only):
    async with FakeUpstream(limits={SERVICE: 3}) as fake:
        known = synthetic(8)
        install(fake, known)
        dois = list(known.known)
        async with make_runtime(preprints_plugin, fake=fake) as rt:  # the declared 3 a second
            outs = await asyncio.gather(*(rt.call("preprints_lookup", {"dois": [d]}) for d in dois))
    assert all(o.error is None for o in outs)
    assert len(fake.of(SERVICE)) == 12  # 8 details, 4 pubs for the published half
    assert fake.rate_limited == [] and fake.busiest_second(SERVICE) <= 3


async def test_search_runs_europe_pmcs_source_limited_to_preprints(fake):
    install_europepmc(fake)
    async with rt_for(fake, europepmc_plugin) as rt:
        out = await rt.call("preprints_search", {"query": "airborne transmission", "pageSize": 10})
    [hit] = out.data["hits"]
    assert hit["epmcId"] == "PPR900001" and hit["doi"] == "10.1101/2024.02.02.900001" and hit["year"] == 2024
    assert out.data["query"] == "(airborne transmission) AND (SRC:PPR)" and out.data["totalCount"] == 1
    [req] = fake.of("europepmc", "search")
    assert req.params["query"] == "(airborne transmission) AND (SRC:PPR)"
    assert "preprints_lookup" in out.text


async def test_search_failure_is_europe_pmcs_and_the_lookup_still_answers(fake):
    install(fake)
    install_europepmc(fake)
    fake.fault("503", "europepmc", times=10)
    async with rt_for(fake, europepmc_plugin, MEDLIT_MAX_RETRIES="0") as rt:
        search = await rt.call("preprints_search", {"query": "airborne"})
        lookup = await rt.call("preprints_lookup", {"dois": [REAL_DOI]})
    assert search.error.reason == "europepmc_server_error"
    assert lookup.error is None and lookup.data["preprints"][0]["doi"] == REAL_DOI


async def test_search_without_europe_pmc_says_so(fake):
    async with rt_for(fake) as rt:
        out = await rt.call("preprints_search", {"query": "airborne"})
    assert out.error.reason == "provider_unavailable" and "EUROPEPMC_ENABLED" in out.error.recovery


PREPRINT_DOI = "10.1101/2024.02.02.900001"  # Europe PMC's PPR900001 (tests/fixtures/europepmc)
JOURNAL_DOI = "10.5555/jvi.2025.0042"
# The journal article the preprint became, as a database exports it: the same title, authors and
# year, its own DOI. Two reports of one study: linked, never merged.
ARTICLE = "\n".join(
    [
        "TY  - JOUR",
        "ID  - J1",
        "TI  - Airborne transmission of an avian influenza reassortant between ferrets",
        "AU  - Moss, K",
        "AU  - Lee, P",
        "PY  - 2024",
        f"DO  - {JOURNAL_DOI}",
        "ER  - ",
        "",
    ]
)


async def test_review_search_links_a_preprint_to_its_journal_article_without_merging(fake, tmp_path):
    from support.environments import fake_env
    from support.preprints_routes import PreprintsFake, revised

    preprints = PreprintsFake()
    preprints.add(PREPRINT_DOI, revised(PREPRINT_DOI, "biorxiv", 2, JOURNAL_DOI))
    install(fake, preprints)
    install_europepmc(fake)
    env = fake_env(fake, MEDLIT_STORE=f"sqlite:///{tmp_path / 'review.db'}", **FAST)
    async with make_runtime(env=env, discover=True) as rt:
        out = await rt.call(
            "review_search", {"set": "flu", "queries": {"preprints": "airborne transmission"}}
        )
        imported = await rt.call(
            "review_import", {"set": "flu", "database": "Embase", "content": ARTICLE, "format": "ris"}
        )
        page = await rt.call("review_records", {"set": "flu", "limit": 10})
        prisma = await rt.call("review_prisma", {"set": "flu", "format": "json"})
    [source] = out.data["sources"]
    assert source["state"] == "complete" and source["fetched"] == 1 and imported.error is None
    [epmc] = fake.of("europepmc", "search")
    assert epmc.params["query"] == "(airborne transmission) AND (SRC:PPR)"
    assert [r.path for r in fake.of(SERVICE)] == [f"details/biorxiv/{PREPRINT_DOI}/na/json"]
    records = {r["doi"]: r for r in page.data["records"]}
    assert set(records) == {PREPRINT_DOI, JOURNAL_DOI}  # two records: never merged
    pre, art = records[PREPRINT_DOI], records[JOURNAL_DOI]
    assert pre["sources"] == ["preprints"] and art["sources"] == ["Embase"]
    assert pre["reports"] == [{"key": art["key"], "relation": "article", "via": f"DOI {JOURNAL_DOI}"}]
    assert art["reports"] == [{"key": pre["key"], "relation": "preprint", "via": f"DOI {JOURNAL_DOI}"}]
    assert pre["study"] == art["study"] == min(pre["key"], art["key"])
    assert prisma.data["counts"]["routes"] == {"preprints": "database", "Embase": "database"}
