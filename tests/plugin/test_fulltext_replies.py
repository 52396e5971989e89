"""pubmed_fetch_fulltext: what the user sees (error text, rendered text and JSON fields) for bad
ids, every tier failing, partial misses, over-limit and deferred ids; budgets reported only for the
articles returned; landing-page links that follow the ids the chain learned."""

import json

import pytest
from aiohttp import web

from medlit.core.jats.reader import read_jats
from medlit.core.plugin import FulltextTier, PluginInfo, StructuredArticle, TierResult, hookimpl
from medlit.testing import Runtime, host_for

from support.fake_upstream import Req
from support.fulltext_calls import BRIEF, ONLY_NCBI, RESEARCH, TOOL, call, env, small_articles
from support.fulltext_routes import articleset, install

pytestmark = pytest.mark.anyio


# test_fulltext's fixtures, declared again (an imported fixture reads as an unused import)
@pytest.fixture
async def rt(make_runtime):
    async with make_runtime(**ONLY_NCBI) as runtime:
        yield runtime


@pytest.fixture
def routes(fake):
    return install(fake)


# -- bad ids ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "in_message", "in_recovery"),
    [
        ({"pmids": ["abc"]}, "abc", "`pmids`"),
        ({"dois": ["doi-without-prefix"]}, "doi-without-prefix", "`dois`"),
        ({"pmids": ["PMC3299399"]}, "PMC3299399", "`pmcids`"),
        ({}, "no identifier given", "`pmcids`, `pmids` or `dois`"),
        ({"pmcids": [f"PMC{n}" for n in range(1, 52)]}, "51 distinct identifiers", "at most 50"),
    ],
)
async def test_bad_ids_say_which_and_how_to_send_them(rt, routes, args, in_message, in_recovery):
    out = await rt.call(TOOL, args)
    assert out.is_error and out.error.reason == "invalid_argument" and out.error.retryable is False
    assert in_message in out.error.message and in_recovery in out.error.recovery
    # the text the client shows carries the reason, the message and the fix
    assert out.text.startswith("Error (invalid_argument): ") and in_message in out.text
    assert f"How to fix: {out.error.recovery}" in out.text
    assert routes.requests == []


# -- every tier failing -------------------------------------------------------------------------
async def test_every_tier_failing_names_each_step_and_says_to_retry(rt, routes):
    routes.fault("503", "ncbi", "efetch.fcgi", times=20)
    out = await rt.call(TOOL, {"pmcids": [RESEARCH, BRIEF]})
    assert out.is_error and out.data is None
    err = out.error
    assert err.reason == "ncbi_server_error" and err.retryable is True
    assert err.message.startswith("Every full-text source failed: ")
    # each article's account of the failing tier
    assert (
        err.details["tiers"].startswith(f"{RESEARCH}: pmc ncbi_server_error")
        and BRIEF in err.details["tiers"]
    )
    assert "How to fix: " in out.text and "Retryable: yes" in out.text


# -- partial misses -----------------------------------------------------------------------------
async def test_partial_miss_returns_the_hit_and_lists_the_miss_with_its_steps(rt, routes):
    out = await call(rt, {"pmcids": [BRIEF, "PMC123"], "pmids": ["37100009"]})
    assert [a["pmcId"] for a in out.data["articles"]] == [BRIEF] and out.data["totalReturned"] == 1
    un = {u["id"]: u for u in out.data["unavailable"]}
    assert un["PMC123"]["idType"] == "pmcid" and un["PMC123"]["reason"] == "not-found"
    assert [(t["tier"], t["outcome"]) for t in un["PMC123"]["triedTiers"]] == [("pmc", "miss")]
    assert un["37100009"]["idType"] == "pmid"
    assert un["37100009"]["triedTiers"][0]["tier"] == "idconv"
    assert out.data.get("truncated") is None  # a miss is no truncation
    # the text: counts in the headline, then every unavailable id with its reason and steps
    assert out.text.startswith("**1 full-text article(s)**, 2 id(s) unavailable")
    unavailable = out.text.split("## Unavailable", 1)[1]
    assert "- pmcid PMC123: **not-found** — pmc: miss" in unavailable
    assert "- pmid 37100009: **" in unavailable and "idconv: " in unavailable


# -- over the per-call limit ---------------------------------------------------------------------
async def test_over_limit_ids_are_named_in_the_text_with_how_to_resend(rt, fake):
    fake.route("ncbi", "efetch.fcgi", small_articles)
    pmcids = [f"PMC{n}" for n in range(8000001, 8000012)]
    out = await call(rt, {"pmcids": pmcids[:10], "pmids": ["37100001"], "dois": ["10.5555/x.1"]})
    over = out.data["overLimit"]
    # mixed kinds: each list on its own field, no common idType
    assert over["ids"] == ["37100001", "10.5555/x.1"] and over.get("idType") is None
    assert over["pmids"] == ["37100001"] and over["dois"] == ["10.5555/x.1"] and over["limit"] == 10
    assert out.data["truncated"] is True
    assert (
        '2 identifier(s) past the per-call limit of 10 were not fetched: call again with pmids=["37100001"] '
        'and dois=["10.5555/x.1"].'
    ) in out.data["notice"]
    assert ", 2 over the per-call limit" in out.text.split("\n", 1)[0]
    assert fake.of("idconv") == []  # ids past the limit cost no request


# -- deferred by maxResponseCharacters ----------------------------------------------------------
def _three_sections(req: Req) -> web.Response:
    """Any PMCID: an article of three 200-character sections."""
    words = " ".join(["word"] * 40)[:199] + "."
    return articleset(
        [
            (
                f'<article><front><article-meta><article-id pub-id-type="pmc">PMC{i}</article-id>'
                f"<title-group><article-title>Article {i}</article-title></title-group></article-meta></front>"
                "<body>"
                + "".join(f"<sec><title>Part {n}</title><p>{words}</p></sec>" for n in (1, 2, 3))
                + "</body></article>"
            ).encode()
            for i in req.ids()
        ]
    )


async def test_deferred_articles_are_counted_in_the_text_and_only_returned_budgets_are_reported(rt, fake):
    fake.route("ncbi", "efetch.fcgi", _three_sections)
    first, second = "PMC8100001", "PMC8100002"
    budgets = {"maxCharacters": 250}  # per article: part 1 whole, part 2 cut, part 3 left out
    alone = await call(rt, {"pmcids": [first], **budgets})
    assert alone.data["truncation"]["omittedSections"] == 1
    size = len(json.dumps(alone.data["articles"][0], separators=(",", ":"), ensure_ascii=False))
    out = await call(rt, {"pmcids": [first, second], "maxResponseCharacters": size + 50, **budgets})
    assert [a["pmcId"] for a in out.data["articles"]] == [first]
    d = out.data["deferred"]
    assert d["ids"] == [second] and d["idType"] == "pmcid" and d["deferredCount"] == 1
    assert f'call again with pmcids=["{second}"]' in out.data["notice"]
    assert out.text.split("\n", 1)[0] == "**1 full-text article(s)**, 1 deferred"
    # the truncation ledger covers the returned article only: the deferred one's loss is not counted
    trunc = out.data["truncation"]
    assert [a["id"] for a in trunc["articles"]] == [first]
    assert trunc["omittedSections"] == 1
    assert trunc["returnedCharacters"] == alone.data["truncation"]["returnedCharacters"]
    assert "Character budgets shortened 1 article(s)" in out.data["notice"]


# -- ids the chain knows, links that follow them ------------------------------------------------
_NO_PMID_JATS = b"""<article><front><article-meta>
<article-id pub-id-type="pmc">PMC7200001</article-id>
<title-group><article-title>A deposit that names no PMID</article-title></title-group>
</article-meta></front><body><sec><title>Results</title><p>Some words.</p></sec></body></article>"""


class MirrorTier:
    """A JATS tier, asked first, whose record carries a PMCID only; the caller named the article
    by PMID."""

    @staticmethod
    @hookimpl
    def medlit_plugin_info():
        return PluginInfo(name="nopmidmirror", title="Mirror")

    @staticmethod
    @hookimpl
    def medlit_fulltext_tiers():
        async def resolve(refs, ctx, options):
            [art] = read_jats(_NO_PMID_JATS)
            return {r.key: TierResult("hit", "", StructuredArticle(art)) for r in refs}

        return [FulltextTier("mirror", 5, frozenset({"pmid"}), resolve, description="a mirror")]


async def test_pubmed_link_follows_the_pmid_the_record_lacks(fake, routes):
    settings = env(fake)  # NCBI's plugin names the PubMed page
    async with Runtime(host_for(("nopmidmirror", MirrorTier), env=settings.env)) as rt:
        out = await call(rt, {"pmids": ["37100001"]})
    [a] = out.data["articles"]
    assert (a["pmcId"], a["pmid"], a["viaSource"]) == ("PMC7200001", "37100001", "mirror")
    assert a["pubmedUrl"] == "https://pubmed.ncbi.nlm.nih.gov/37100001/"
    assert a["pmcUrl"].endswith("PMC7200001/")
    assert routes.requests == []  # the mirror answered before any NCBI step
