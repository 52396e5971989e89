"""The Europe PMC full-text tier, called directly with the plugin's own context, and as a step of
the resolution chain: one lookup search for every id, fullTextXML per open-access record, the
outcome vocabulary, ids carried to later tiers, EUROPEPMC_ENABLED=false."""

from __future__ import annotations

import pytest

from medlit.core.plugin import ArticleRef, MedlitError, StructuredArticle
from medlit.core.resolution import run_chain
from medlit.core.types import TierOptions
from medlit.plugins.europepmc import TIER
from medlit.plugins.europepmc.tier import resolve_europepmc

from support.corpus import corpus_path
from support.europepmc_routes import install
from support.fake_upstream import xml_response

pytestmark = pytest.mark.anyio


def ref(kind: str, value: str) -> ArticleRef:
    return ArticleRef(key=value, requested=(value,), **{kind: value})


async def resolve(rt, refs, **options):
    return await resolve_europepmc(refs, rt.context("europepmc"), TierOptions(**options))


async def test_outcomes_in_one_search(rt, fake):
    epmc = install(fake)
    refs = [
        ref("doi", "10.5555/open.10"),  # Europe PMC spells it 10.5555/OPEN.10
        ref("pmid", "30000001"),  # not open access
        ref("pmid", "30000002"),  # open access, but its fullTextXML is gone (404)
        ref("pmid", "12345"),  # unknown
        ref("doi", "10.1101/2024.02.02.900001"),  # a preprint: PPR full text
    ]
    out = await resolve(rt, refs)
    assert len(epmc.queries) == 1
    assert epmc.queries[0] == (
        '(DOI:"10.5555/open.10") OR (EXT_ID:30000001 AND SRC:MED) OR (EXT_ID:30000002 AND SRC:MED) OR '
        '(EXT_ID:12345 AND SRC:MED) OR (DOI:"10.1101/2024.02.02.900001")'
    )
    (search,) = fake.of("europepmc", "search")
    assert search.params["resultType"] == "lite"
    fetched = sorted(r.path for r in fake.requests if r.path.endswith("fullTextXML"))
    assert fetched == ["PMC7000002/fullTextXML", "PMC7000010/fullTextXML", "PPR900001/fullTextXML"]
    assert len(fake.requests) == 4

    hit = out["10.5555/open.10"]
    assert hit.outcome == "hit" and isinstance(hit.article, StructuredArticle)
    art = hit.article.article
    assert art.title == "Harbour seal vocal learning in captivity" and art.hasBody
    assert [s.title for s in art.sections] == ["Introduction", "Methods", "Results"]
    assert (art.ids.pmcid, art.ids.pmid, art.ids.doi) == ("PMC7000010", "30000010", "10.5555/open.10")
    assert hit.article.record_ids == {"epmcId": "30000010", "epmcSource": "MED"}
    assert art.references == []  # references are opt-in

    assert out["30000001"].outcome == "no-fulltext" and "not open access" in out["30000001"].detail
    assert out["30000002"].outcome == "no-fulltext" and "PMC7000002" in out["30000002"].detail
    assert out["12345"].outcome == "miss" and "PMID 12345" in out["12345"].detail
    ppr = out["10.1101/2024.02.02.900001"]
    assert ppr.outcome == "hit" and ppr.article.record_ids == {"epmcId": "PPR900001", "epmcSource": "PPR"}

    # ids Europe PMC knows are reported for later tiers (a DOI for Unpaywall); the refs stay as given
    assert out["30000001"].ids["doi"] == "10.5555/closed.1"
    assert (out["10.5555/open.10"].ids["pmid"], out["10.5555/open.10"].ids["pmcid"]) == (
        "30000010",
        "PMC7000010",
    )
    assert out["12345"].ids == {} and all(r.doi is None for r in refs if r.key == "30000001")


async def test_an_article_is_found_by_whichever_id_europepmc_knows(rt, fake):
    epmc = install(fake)
    both = ArticleRef(key="PMC999", pmcid="PMC999", pmid="30000010", requested=("PMC999",))
    out = await resolve(rt, [both])
    assert epmc.queries == ["(PMCID:PMC999) OR (EXT_ID:30000010 AND SRC:MED)"]
    assert out["PMC999"].outcome == "hit"


async def test_references_on_request(rt, fake):
    install(fake)
    out = await resolve(rt, [ref("pmcid", "PMC7000010")], include_references=True)
    assert next(r.text for r in out["PMC7000010"].article.article.references).startswith("Ralls K.")


async def test_long_batches_are_posted_in_one_search(rt, fake):
    epmc = install(fake)
    refs = [ref("doi", f"10.5555/batch.{i}") for i in range(60)] + [ref("pmcid", "PMC7000010")]
    out = await resolve(rt, refs)
    assert [
        (r.method, r.path) for r in fake.of("europepmc", "search") + fake.of("europepmc", "searchPOST")
    ] == [("POST", "searchPOST")]
    assert len(epmc.queries) == 1 and epmc.queries[0].count(" OR ") == 60
    assert out["PMC7000010"].outcome == "hit" and out["10.5555/batch.0"].outcome == "miss"


async def test_the_same_article_twice_is_fetched_once(rt, fake):
    install(fake)
    refs = [ref("pmid", "30000010"), ref("doi", "10.5555/open.10")]
    out = await resolve(rt, refs)
    assert out["30000010"].outcome == out["10.5555/open.10"].outcome == "hit"
    assert len(fake.of("europepmc", "PMC7000010/fullTextXML")) == 1


async def test_unreadable_and_failed_full_text(rt, fake):
    install(fake)
    fake.respond(
        "europepmc",
        "PMC7000010/fullTextXML",
        b"<?xml version='1.0'?><article><front>",
        content_type="text/xml",
    )
    fake.fault("500", "europepmc", "PPR900001/fullTextXML", times=20)
    out = await resolve(rt, [ref("pmcid", "PMC7000010"), ref("doi", "10.1101/2024.02.02.900001")])
    assert out["PMC7000010"].outcome == "parse-failed"
    assert len(fake.of("europepmc", "PMC7000010/fullTextXML")) > 1  # a garbled answer is retried first
    failed = out["10.1101/2024.02.02.900001"]
    assert failed.outcome == "fetch-failed" and "PPR900001/fullTextXML" in failed.detail


async def test_front_matter_only_is_no_body(rt, fake):
    install(fake)
    body = (
        b"<?xml version='1.0'?><article><front><article-meta><article-id pub-id-type='pmcid'>7000010</article-id>"
        b"<title-group><article-title>Only the front</article-title></title-group></article-meta></front></article>"
    )
    fake.route("europepmc", "PMC7000010/fullTextXML", lambda req: xml_response(body))
    out = await resolve(rt, [ref("pmcid", "PMC7000010")])
    assert out["PMC7000010"].outcome == "no-body"


async def test_a_failed_search_raises_for_the_chain(rt, fake):
    install(fake)
    fake.fault("503", "europepmc", "search", times=20)
    with pytest.raises(MedlitError) as info:
        await resolve(rt, [ref("pmid", "30000010")])
    assert info.value.reason == "europepmc_server_error"


async def test_corpus_jats_served_by_europepmc(rt, fake):
    corpus_path("europepmc/fullTextXML/long_covid_research_article.xml")
    corpus_path("europepmc/fullTextXML/PMC12634591_correction.xml")
    install(fake)
    out = await resolve(rt, [ref("pmid", "39575583"), ref("pmcid", "PMC12634591")])
    covid, correction = out["39575583"], out["PMC12634591"]
    assert covid.outcome == "hit" and covid.article.article.title.startswith(
        "Neurologic Manifestations of Long COVID"
    )
    assert len(covid.article.article.sections) > 5
    assert correction.outcome == "hit" and correction.article.record_ids == {
        "epmcId": "PMC12634591",
        "epmcSource": "PMC",
    }
    assert correction.article.article.ids.pmid is None  # no PMID anywhere: none invented


# -- as a step of the chain ---------------------------------------------------------------------------
async def test_in_the_chain_after_pmc(rt, fake):
    install(fake)
    assert TIER.order > next(t.order for t, _ in rt.host.catalog.tiers if t.name == "pmc")
    europepmc_only = [(t, p) for t, p in rt.host.catalog.tiers if t.name == "europepmc"]
    result = await run_chain(
        [ref("doi", "10.5555/open.10"), ref("pmid", "12345")], rt.context("fulltext"), tiers=europepmc_only
    )
    hit, miss = result.resolutions
    assert hit.served_by == "europepmc" and hit.hit.article.tier == "europepmc"
    assert [(a.tier, a.outcome) for a in miss.tried] == [("europepmc", "miss")] and miss.reason == "not-found"


async def test_switched_off_tier_is_not_in_the_chain_and_asks_nothing(make_runtime, fake):
    install(fake)
    async with make_runtime(EUROPEPMC_ENABLED="false", NCBI_ENABLED="false") as rt:
        assert "europepmc" not in [t.name for t, _ in rt.host.catalog.tiers]
        assert rt.host.plugins["europepmc"].status == "disabled"
        out = await rt.call("pubmed_fetch_fulltext", {"pmids": ["30000010"]})
    assert not out.is_error and out.data["unavailable"][0]["reason"] == "no-source-enabled"
    assert all(t["tier"] != "europepmc" for u in out.data.get("unavailable", []) for t in u["triedTiers"])
    assert fake.of("europepmc") == []
