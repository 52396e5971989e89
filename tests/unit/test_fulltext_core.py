"""Core's full-text tool on a host built from fake plugins alone (no provider of ours): a plugin
that declares its own service (pointed at the loopback fake with MEDLIT_BASE_URL_LIBRARY), an ID
resolver and a JATS tier on it, and a second plugin with an extracted-text tier. The chain, the
typed payloads, the report and the description all work without any built-in provider."""

import pytest
from aiohttp import web

from medlit.core.host import load_host
from medlit.core.plugin import (
    ExtractedTextArticle,
    FulltextTier,
    IdResolver,
    PluginInfo,
    ServiceSpec,
    SettingSpec,
    StructuredArticle,
    TierResult,
    hookimpl,
    markup,
)
from medlit.core.runtime import Runtime
from medlit.core.server import instructions, tool_definitions
from medlit.core.settings import load_settings
from medlit.plugins import fulltext

from support.fake_upstream import Req, json_response

pytestmark = pytest.mark.anyio
TOOL = "pubmed_fetch_fulltext"

_JATS = """<article><front><article-meta><article-id pub-id-type="pmc">{pmcid}</article-id>
<article-id pub-id-type="pmid">{pmid}</article-id><title-group><article-title>Library copy of {pmid}
</article-title></title-group></article-meta></front><body><sec><title>Results</title><p>Found {pmid}.</p>
</sec></body></article>"""


class Library:
    """A provider with its own upstream: ids -> its PMCIDs (resolver), PMCID -> JATS (tier)."""

    @staticmethod
    @hookimpl
    def medlit_plugin_info():
        return PluginInfo(
            name="library", title="Example library", description="An example full-text library."
        )

    @staticmethod
    @hookimpl
    def medlit_services():
        return [
            ServiceSpec(name="library", title="Example library", base_url="https://library.example.org/api")
        ]

    @staticmethod
    @hookimpl
    def medlit_id_resolvers():
        async def lookup(refs, ctx):
            resp = await ctx.client("library").get(
                "ids", {"pmids": ",".join(r.pmid for r in refs)}, expect="json"
            )
            known = resp.json()
            out = {}
            for ref in refs:
                if ref.pmid in known:
                    ids = {"pmcid": known[ref.pmid]["pmcid"], "doi": known[ref.pmid].get("doi")}
                    ids = {k: v for k, v in ids.items() if v}
                    out[ref.key] = TierResult("hit", f"PMID {ref.pmid} is {ids['pmcid']}", ids=ids)
                else:
                    out[ref.key] = TierResult("miss", f"PMID {ref.pmid} is not in the library")
            return out

        return [
            IdResolver(
                "libids", 10, frozenset({"pmid"}), frozenset({"pmcid", "doi"}), lookup, "library id lookup"
            )
        ]

    @staticmethod
    @hookimpl
    def medlit_fulltext_tiers():
        async def fetch(refs, ctx, options):
            resp = await ctx.client("library").get(
                "jats", {"ids": ",".join(r.pmcid for r in refs)}, expect="xml"
            )
            articles = {a.ids.pmcid: a for a in markup.read_jats(resp.body)}
            return {
                r.key: TierResult("hit", "", StructuredArticle(articles[r.pmcid], {"libraryId": r.pmcid}))
                if r.pmcid in articles
                else TierResult("miss", "no such record")
                for r in refs
            }

        return [
            FulltextTier(
                "libjats",
                10,
                frozenset({"pmcid"}),
                fetch,
                "library JATS by PMCID",
                source="example-library",
                record_ids=("libraryId",),
            )
        ]


class Pdfs:
    """A second plugin: extracted text for any DOI ending in '.oa', no upstream of its own."""

    calls: list[list[str]] = []

    required: str | None = None  # a setting the plugin waits on, when a test sets one

    @classmethod
    @hookimpl
    def medlit_plugin_info(cls):
        settings = (SettingSpec(cls.required, "key", required=True),) if cls.required else ()
        return PluginInfo(name="pdfs", title="Example PDFs", settings=settings)

    @staticmethod
    @hookimpl
    def medlit_fulltext_tiers():
        async def fetch(refs, ctx, options):
            Pdfs.calls.append([r.key for r in refs])
            return {
                r.key: TierResult(
                    "hit", "", ExtractedTextArticle("PDF words", "pdf-text", f"https://pdfs.example/{r.doi}")
                )
                if r.doi.endswith(".oa")
                else TierResult("no-oa", "no open copy")
                for r in refs
            }

        return [FulltextTier("pdfs", 20, frozenset({"doi"}), fetch, "open PDFs by DOI")]


def library_routes(fake):
    def ids(req: Req) -> web.Response:
        table = {
            "11": {"pmcid": "PMC11"},
            "12": {"pmcid": "PMC12", "doi": "10.9999/twelve.oa"},
            "13": {"pmcid": "PMC13", "doi": "10.9999/thirteen"},
        }
        return json_response({p: table[p] for p in req.params["pmids"].split(",") if p in table})

    def jats(req: Req) -> web.Response:
        known = {"PMC11": "11", "PMC11b": "x"}  # PMC12 and PMC13 are not in the library's JATS
        body = "".join(
            _JATS.format(pmcid=p, pmid=known[p]) for p in req.params["ids"].split(",") if p in known
        )
        return web.Response(body=f"<articles>{body}</articles>".encode(), content_type="text/xml")

    fake.route("library", "ids", ids)
    fake.route("library", "jats", jats)


def runtime(fake, **env):
    settings = load_settings(
        {"MEDLIT_BASE_URL_LIBRARY": fake.url("library"), "MEDLIT_BACKOFF_BASE": "0.01", **env}
    )
    host = load_host(
        settings, discover=False, inline=[("fulltext", fulltext), ("library", Library), ("pdfs", Pdfs)]
    )
    return Runtime(host)


async def test_the_chain_works_from_fake_plugins_alone(fake):
    library_routes(fake)
    Pdfs.calls.clear()
    async with runtime(fake) as rt:
        out = await rt.call(TOOL, {"pmids": ["11", "12", "13", "14"], "dois": ["10.9999/given.oa"]})
        definitions = {t.name: t for t in tool_definitions(rt.host)}
        text = instructions(rt.host)
    assert not out.is_error, out.text
    # one resolver request for every PMID of the call, one tier request for every PMCID found
    assert [r.path for r in fake.of("library")] == ["ids", "jats"]
    assert fake.of("library", "ids")[0].params["pmids"] == "11,12,13,14"
    assert fake.of("library", "jats")[0].params["ids"] == "PMC11,PMC12,PMC13"
    # the DOI learned by the resolver reaches the later tier; the given DOI needs no resolution
    assert Pdfs.calls == [["12", "13", "10.9999/given.oa"]]
    arts = out.data["articles"]
    # each article carries the source label its own tier declares (a tier without one: its name)
    assert [(a["kind"], a["source"], a["viaSource"]) for a in arts] == [
        ("structured", "example-library", "libjats"),
        ("extracted", "pdfs", "pdfs"),
        ("extracted", "pdfs", "pdfs"),
    ]
    assert (arts[0]["pmcId"], arts[0]["pmid"], arts[0]["sourceIds"]) == (
        "PMC11",
        "11",
        {"libraryId": "PMC11"},
    )
    assert (arts[1]["doi"], arts[1]["pmid"], arts[1]["pmcId"]) == ("10.9999/twelve.oa", "12", "PMC12")
    assert arts[2]["doi"] == "10.9999/given.oa" and arts[2].get("pmid") is None
    un = {u["id"]: u for u in out.data["unavailable"]}
    assert [(t["tier"], t["outcome"]) for t in un["13"]["triedTiers"]] == [
        ("libids", "hit"),
        ("libjats", "miss"),
        ("pdfs", "no-oa"),
    ]
    assert un["13"]["reason"] == "no-oa"
    assert [(t["tier"], t["outcome"]) for t in un["14"]["triedTiers"]] == [
        ("libids", "miss"),
        ("libjats", "not-attempted"),
        ("pdfs", "not-attempted"),
    ]
    assert un["14"]["reason"] == "not-found"
    # the description and the instructions name what is installed, in chain order
    desc = definitions[TOOL].description
    assert "1. libjats (library JATS by PMCID); 2. pdfs (open PDFs by DOI)" in desc
    assert "PMIDs and DOIs are first converted" in desc and "libids" not in desc  # the instructions say it
    assert "pubmed_fetch_articles" not in desc
    assert "1. libjats" in text and "Example library (An example full-text library)" in text


async def test_all_failed_uses_the_first_steps_own_reason(fake):
    fake.fault("503", "library", "ids", times=20)
    async with runtime(fake, MEDLIT_MAX_RETRIES="0") as rt:
        out = await rt.call(TOOL, {"pmids": ["11"]})
    assert out.is_error and out.error.reason.startswith("library_") and out.error.retryable
    assert "libids" in out.error.details["tiers"]


async def test_a_tier_waiting_on_a_setting_is_reported_with_its_variable(fake):
    library_routes(fake)
    Pdfs.required = "PDFS_KEY"
    try:
        async with runtime(fake) as rt:
            desc = next(t for t in tool_definitions(rt.host) if t.name == TOOL).description
            out = await rt.call(TOOL, {"dois": ["10.9999/given.oa"]})
    finally:
        Pdfs.required = None
    assert "2. pdfs (open PDFs by DOI) [unconfigured: needs PDFS_KEY]" in desc
    (un,) = out.data["unavailable"]
    assert un["reason"] == "no-source-enabled"
    assert un["unqueriedTiers"] == ["pdfs"] and un["waitingOn"] == {"pdfs": "PDFS_KEY"}
    assert "pdfs (PDFS_KEY) is not enabled on this server" in out.data["notice"]


async def test_a_switched_off_tier_is_absent_and_its_plugin_named_in_the_instructions(fake):
    library_routes(fake)
    async with runtime(fake, PDFS_ENABLED="false") as rt:
        desc = next(t for t in tool_definitions(rt.host) if t.name == TOOL).description
        text = instructions(rt.host)
        out = await rt.call(TOOL, {"dois": ["10.9999/given.oa"]})
    assert "pdfs" not in desc and "PDFS_ENABLED" in text
    (un,) = out.data["unavailable"]
    assert un["reason"] == "no-source-enabled" and [t["tier"] for t in un["triedTiers"]] == ["libjats"]


class TextByPmid:
    """Extracted text without a DOI for PMID 21 (which it learns is PMC21); a resolver that finds
    no PMID for a PMCID."""

    @staticmethod
    @hookimpl
    def medlit_plugin_info():
        return PluginInfo(name="textbypmid", title="Text by PMID")

    @staticmethod
    @hookimpl
    def medlit_id_resolvers():
        async def lookup(refs, ctx):
            return {r.key: TierResult("miss", "no PMID known") for r in refs}

        return [
            IdResolver("pmc2pmid", 10, frozenset({"pmcid"}), frozenset({"pmid"}), lookup, "PMCID to PMID")
        ]

    @staticmethod
    @hookimpl
    def medlit_fulltext_tiers():
        async def fetch(refs, ctx, options):
            return {
                r.key: TierResult(
                    "hit",
                    "text",
                    ExtractedTextArticle("words", "pdf-text", "https://t/21"),
                    ids={"pmcid": "PMC21"},
                )
                for r in refs
            }

        return [FulltextTier("pmidtext", 10, frozenset({"pmid"}), fetch, "text by PMID")]


async def test_text_that_cannot_be_shaped_is_unavailable_at_the_step_that_served_it(fake):
    """No DOI anywhere: the hit cannot become a record. The serving step says so (PMID 21 is
    folded into PMC21, whose own report held the resolver's miss and the tier's not-attempted)."""
    settings = load_settings({})
    host = load_host(settings, discover=False, inline=[("fulltext", fulltext), ("textbypmid", TextByPmid)])
    async with Runtime(host) as rt:
        out = await rt.call(TOOL, {"pmids": ["21"], "pmcids": ["PMC21"]})
    assert not out.is_error, out.text
    assert out.data["articles"] == [] and out.data["totalReturned"] == 0
    un = {u["id"]: u for u in out.data["unavailable"]}
    assert set(un) == {"21", "PMC21"}
    for entry in un.values():
        assert entry["reason"] == "parse-failed"
        assert [(t["tier"], t["outcome"]) for t in entry["triedTiers"]] == [
            ("pmc2pmid", "miss"),
            ("pmidtext", "parse-failed"),
        ]
        assert "could not be shaped into a record (no DOI" in entry["triedTiers"][1]["detail"]
    assert (
        "- pmid 21: **parse-failed** — pmc2pmid: miss (no PMID known); pmidtext: parse-failed "
        "(the tier's article could not be shaped into a record" in out.text
    )
