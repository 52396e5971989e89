"""pubmed_institutional_link and the OpenURL access-link provider, with an inline metadata
provider standing in for whichever plugin serves metadata (one batched lookup per id kind)."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qs, urlsplit

import pytest

import medlit.plugins.openurl as openurl
from medlit.core.plugin import (
    AccessLinkProvider,
    ArticleRef,
    FulltextTier,
    MedlitError,
    MetadataProvider,
    PluginInfo,
    RecordMetadata,
    TierResult,
    errors,
    hookimpl,
)
from medlit.testing import HostError, Runtime, check_structured, host_for, tool_definitions

pytestmark = pytest.mark.anyio

RESOLVER = "https://resolver.example.edu/openurl?inst=EX"
TOOL = "pubmed_institutional_link"

RECORDS = {
    "111": RecordMetadata(
        pmid="111",
        doi="10.1000/a.1",
        title="First article",
        container_title="Journal A",
        issn="1111-1111",
        date="2020-05",
        volume="10",
        issue="2",
        first_page="100",
        last_page="9",
        authors=("Alpha A",),
        first_author_family="Alpha",
        first_author_given="Anna",
    ),
    "222": RecordMetadata(
        pmid="222", title="Ünïcode title", container_title="Zeitschrift für Ärzte", year=2019
    ),
    "333": RecordMetadata(
        pmid="333", kind="chapter", title="A chapter", container_title="A Book", isbn="9780000000002"
    ),
    "10.1000/b.2": RecordMetadata(doi="10.1000/b.2", pmid="444", title="Found by DOI", container_title="J B"),
}


class FakeMetadata:
    """Answers from RECORDS; logs every lookup so a test can count the batches."""

    def __init__(self, accepts=("pmid", "doi"), fail: bool = False) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self.accepts, self.fail = frozenset(accepts), fail

    @hookimpl
    def medlit_plugin_info(self):
        return PluginInfo(name="fakemeta", title="Fake metadata")

    @hookimpl
    def medlit_metadata_providers(self):
        async def lookup(kind, ids, ctx):
            self.calls.append((kind, list(ids)))
            if self.fail:
                raise errors.upstream_error("fakemeta", "unreachable", "the fake metadata service is down")
            return {i: RECORDS[i] for i in ids if i in RECORDS}

        return [MetadataProvider(name="fakemeta", order=10, accepts=self.accepts, lookup=lookup)]


def host_with(meta: FakeMetadata | None = None, **env: str):
    env = {"OPENURL_RESOLVER": RESOLVER, **env}
    inline = [("openurl", openurl)] + ([("fakemeta", meta)] if meta else [])
    return host_for(*inline, env=env, discover=False)


def q(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def output_schema(host) -> dict:
    return next(t for t in tool_definitions(host) if t.name == TOOL).output_schema


async def test_three_pmids_one_lookup_three_links():
    meta = FakeMetadata()
    host = host_with(meta)
    async with Runtime(host) as rt:
        out = await rt.call(TOOL, {"pmids": ["111", "PMID: 222", "https://pubmed.ncbi.nlm.nih.gov/333/"]})
    assert not out.is_error, out.text
    check_structured(out.data, output_schema(host))
    assert meta.calls == [("pmid", ["111", "222", "333"])]  # one batch, no DOI lookup
    links = out.data["links"]
    assert [link["id"] for link in links] == ["111", "222", "333"] and out.data["totalLinks"] == 3
    first = q(links[0]["url"])
    assert links[0]["url"].startswith("https://resolver.example.edu/openurl?inst=EX&url_ver=Z39.88-2004&")
    assert first["inst"] == ["EX"]
    assert first["rft_id"] == ["info:pmid/111", "info:doi/10.1000/a.1"]
    assert first["rft.atitle"] == ["First article"] and first["rft.jtitle"] == ["Journal A"]
    assert first["rft.spage"] == ["100"] and first["rft.epage"] == ["109"]
    assert first["rft.aulast"] == ["Alpha"] and first["rft.aufirst"] == ["Anna"]
    assert links[0]["metadataFrom"] == "fakemeta"
    assert q(links[1]["url"])["rft.jtitle"] == ["Zeitschrift für Ärzte"]
    chapter = q(links[2]["url"])
    assert links[2]["format"] == "book" and links[2]["genre"] == "bookitem"
    assert chapter["rft.btitle"] == ["A Book"] and chapter["rft.atitle"] == ["A chapter"]
    assert "Journal A" in out.text and "resolver.example.edu" in out.text


async def test_unknown_pmid_is_a_per_id_error_and_the_rest_are_built():
    meta = FakeMetadata()
    async with Runtime(host_with(meta)) as rt:
        out = await rt.call(TOOL, {"pmids": ["111", "99999999", "222"]})
    assert not out.is_error
    assert [link["id"] for link in out.data["links"]] == ["111", "222"]
    assert out.data["unavailable"] == [
        {
            "id": "99999999",
            "idType": "pmid",
            "reason": "not-found",
            "message": "PMID 99999999 is not in PubMed (the metadata lookup does not know it); check the id.",
        }
    ]
    assert "99999999" in out.data["notice"] and "99999999" in out.text


async def test_dois_are_looked_up_in_their_own_batch():
    meta = FakeMetadata()
    async with Runtime(host_with(meta)) as rt:
        out = await rt.call(TOOL, {"pmids": ["111"], "dois": ["doi:10.1000/B.2", "10.1000/unknown.9"]})
    assert meta.calls == [("pmid", ["111"]), ("doi", ["10.1000/b.2", "10.1000/unknown.9"])]
    found, unknown = out.data["links"][1:]
    assert q(found["url"])["rft_id"] == ["info:pmid/444", "info:doi/10.1000/b.2"]
    # A DOI outside the provider still gets a link: resolvers look DOIs up themselves.
    assert q(unknown["url"])["rft_id"] == ["info:doi/10.1000/unknown.9"]
    assert unknown["metadataFrom"] == "none" and "unknown to the metadata provider" in unknown["note"]


async def test_without_a_provider_links_carry_ids_only():
    async with Runtime(host_with(None)) as rt:
        out = await rt.call(TOOL, {"pmids": ["111"]})
    (link,) = out.data["links"]
    assert q(link["url"])["rft_id"] == ["info:pmid/111"] and "rft.atitle" not in q(link["url"])
    assert "no metadata provider for PMIDs" in link["note"] and "identifiers only" in out.data["notice"]


async def test_provider_for_pmids_only_leaves_dois_unlooked():
    meta = FakeMetadata(accepts=("pmid",))
    async with Runtime(host_with(meta)) as rt:
        out = await rt.call(TOOL, {"dois": ["10.1000/b.2"]})
    assert meta.calls == []
    assert "no metadata provider for DOIs" in out.data["links"][0]["note"]


async def test_a_failed_lookup_still_gives_links():
    meta = FakeMetadata(fail=True)
    async with Runtime(host_with(meta)) as rt:
        out = await rt.call(TOOL, {"pmids": ["111", "222"]})
    assert not out.is_error
    assert [link["metadataFrom"] for link in out.data["links"]] == ["none", "none"]
    assert "lookup failed" in out.data["links"][0]["note"] and "down" in out.data["links"][0]["note"]


async def test_citations_given_directly_need_no_lookup():
    meta = FakeMetadata()
    host = host_with(meta)
    args = {
        "citations": [
            {
                "title": "Grundlagen der Nephrologie",
                "journal": "Der Internist",
                "issn": "00209554",
                "date": "2018-03",
                "volume": "59",
                "issue": "3",
                "pages": "250–258",
                "authors": ["Müller, Jürgen", "Schmidt K"],
                "doi": "https://doi.org/10.1007/S00108-018-0001-X",
            },
            {"kind": "chapter", "title": "Sepsis", "bookTitle": "StatPearls", "authors": ["Goyal A"]},
            {
                "kind": "book",
                "title": "Harrison's Principles",
                "isbn": "978-1-264-26850-4",
                "publisher": "McGraw",
            },
        ]
    }
    async with Runtime(host) as rt:
        out = await rt.call(TOOL, args)
    assert not out.is_error, out.text
    check_structured(out.data, output_schema(host))
    assert meta.calls == []
    article, chapter, book = (q(link["url"]) for link in out.data["links"])
    assert article["rft.issn"] == ["0020-9554"] and article["rft.pages"] == ["250-258"]
    assert article["rft.aulast"] == ["Müller"] and article["rft.aufirst"] == ["Jürgen"]
    assert article["rft_id"] == ["info:doi/10.1007/s00108-018-0001-x"]
    assert chapter["rft_val_fmt"] == ["info:ofi/fmt:kev:mtx:book"] and chapter["rft.genre"] == ["bookitem"]
    assert chapter["rft.btitle"] == ["StatPearls"] and chapter["rft.auinit"] == ["A"]
    assert book["rft.genre"] == ["book"] and book["rft.btitle"] == ["Harrison's Principles"]
    assert book["rft.pub"] == ["McGraw"]
    assert [link["id"] for link in out.data["links"]] == ["citation 1", "citation 2", "citation 3"]
    assert {link["metadataFrom"] for link in out.data["links"]} == {"caller"}


async def test_over_the_limit_is_named_not_dropped():
    meta = FakeMetadata()
    pmids = [str(1000 + i) for i in range(18)]
    async with Runtime(host_with(meta)) as rt:
        out = await rt.call(
            TOOL,
            {"pmids": pmids, "dois": ["10.1000/a", "10.1000/b", "10.1000/c"], "citations": [{"title": "T"}]},
        )
    assert [len(ids) for _, ids in meta.calls] == [18, 2]
    assert {k: v for k, v in out.data["overLimit"].items() if v is not None} == {
        "dois": ["10.1000/c"],
        "citations": 1,
        "limit": 20,
    }
    assert "2 item(s) past the limit" in out.data["notice"]


@pytest.mark.parametrize(
    ("args", "reason", "words"),
    [
        ({}, "invalid_argument", "Nothing to link"),
        ({"pmids": ["12ab"]}, "malformed_id", "not a PubMed ID"),
        ({"dois": ["10.1/x"], "pmids": ["PMC123"]}, "malformed_id", "PMC ID"),
        ({"citations": [{"volume": "3"}]}, "invalid_argument", "at least a title"),
        ({"citations": [{"title": "T", "issn": "12345"}]}, "invalid_argument", "not an ISSN"),
        ({"citations": [{"title": "T", "date": "March 2020"}]}, "invalid_argument", "YYYY"),
        ({"pmids": [str(i) for i in range(1, 22)]}, "invalid_argument", "pmids"),
        ({"url": "x"}, "invalid_argument", "unknown field"),
    ],
)
async def test_bad_input_is_refused_before_any_lookup(args, reason, words):
    meta = FakeMetadata()
    async with Runtime(host_with(meta)) as rt:
        out = await rt.call(TOOL, args)
    assert out.is_error and out.error.reason == reason and words in out.error.message, out.text
    assert meta.calls == []


async def test_unconfigured_plugin_is_listed_not_served():
    host = host_for(("openurl", openurl), env={}, discover=False)
    rec = host.plugins["openurl"]
    assert (
        rec.status == "unconfigured" and "OPENURL_RESOLVER" in rec.detail and "OPENURL_PRESET" in rec.detail
    )
    assert TOOL not in host.tools and host.catalog.access_links == ()
    async with Runtime(host) as rt:
        out = await rt.call(TOOL, {"pmids": ["1"]})
    assert out.error.reason == "provider_unavailable" and "OPENURL_RESOLVER" in out.error.recovery


async def test_preset_configuration():
    env = {"OPENURL_PRESET": "360link", "OPENURL_INSTITUTION": "xy4ab5cd6e"}
    host = host_for(("openurl", openurl), env=env, discover=False)
    async with Runtime(host) as rt:
        out = await rt.call(TOOL, {"citations": [{"title": "T", "journal": "J"}]})
    assert out.data["links"][0]["url"].startswith("https://xy4ab5cd6e.search.serialssolutions.com/?url_ver=")
    assert out.data["resolver"] == "ProQuest 360 Link (Serials Solutions)"
    partial = host_for(("openurl", openurl), env={"OPENURL_PRESET": "sfx"}, discover=False)
    assert partial.plugins["openurl"].status == "unconfigured"
    assert "OPENURL_HOST" in partial.plugins["openurl"].detail


def test_malformed_preset_stops_the_server():
    with pytest.raises(HostError, match="OPENURL_PRESET"):
        host_for(("openurl", openurl), env={"OPENURL_PRESET": "bogus"}, discover=False)


# -- the access-link provider core's full-text tool uses ------------------------------------------
async def test_access_links_for_unavailable_articles():
    meta = FakeMetadata()
    host = host_with(meta)
    refs = [
        ArticleRef(key="111", pmid="111"),
        ArticleRef(key="99999999", pmid="99999999"),  # unknown: no link to a wrong record
        ArticleRef(key="10.1000/b.2", doi="10.1000/b.2"),
        ArticleRef(key="222", pmid="222", doi="10.1000/found.by.chain"),
        ArticleRef(key="PMC1", pmcid="PMC1"),  # OpenURL has no registered PMCID namespace
    ]
    async with Runtime(host) as rt:
        links = await rt.access_links(refs)
    assert set(links) == {"111", "10.1000/b.2", "222"}
    assert meta.calls == [("pmid", ["111", "99999999", "222"]), ("doi", ["10.1000/b.2"])]
    assert q(links["111"])["rft.atitle"] == ["First article"]
    assert q(links["222"])["rft_id"] == ["info:pmid/222", "info:doi/10.1000/found.by.chain"]


class OverlapMetadata(FakeMetadata):
    """A provider that notes how many lookups were in flight at once: each waits (briefly) for
    another to start."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = self.most = 0
        self.other_started = asyncio.Event()

    @hookimpl
    def medlit_metadata_providers(self):
        async def lookup(kind, ids, ctx):
            self.calls.append((kind, list(ids)))
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            if self.in_flight > 1:
                self.other_started.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.other_started.wait(), 2)
            self.in_flight -= 1
            return {i: RECORDS[i] for i in ids if i in RECORDS}

        return [MetadataProvider(name="fakemeta", order=10, accepts=self.accepts, lookup=lookup)]


async def test_pmid_and_doi_lookups_run_at_once():
    tool_meta, provider_meta = OverlapMetadata(), OverlapMetadata()
    async with Runtime(host_with(tool_meta)) as rt:
        out = await rt.call(TOOL, {"pmids": ["111"], "dois": ["10.1000/b.2"]})
    async with Runtime(host_with(provider_meta)) as rt:
        refs = [ArticleRef(key="111", pmid="111"), ArticleRef(key="d", doi="10.1000/b.2")]
        links = await rt.access_links(refs)
    assert tool_meta.most == provider_meta.most == 2
    assert [link["metadataFrom"] for link in out.data["links"]] == ["fakemeta", "fakemeta"]
    assert q(links["d"])["rft.atitle"] == ["Found by DOI"] and q(links["111"])["rft.atitle"] == [
        "First article"
    ]


class Broken:
    @hookimpl
    def medlit_plugin_info(self):
        return PluginInfo(name="broken", title="Broken")

    @hookimpl
    def medlit_access_links(self):
        async def build(refs, ctx):
            raise MedlitError("broken_down", "nope")

        return [AccessLinkProvider(name="broken", order=1, build=build)]


async def test_a_failing_access_link_provider_costs_only_its_links():
    env = {"OPENURL_RESOLVER": RESOLVER}
    inline = [("broken", Broken()), ("openurl", openurl), ("fakemeta", FakeMetadata())]
    host = host_for(*inline, env=env, discover=False)
    assert [p.name for p in host.catalog.access_links] == ["broken", "openurl"]
    async with Runtime(host) as rt:
        links = await rt.access_links([ArticleRef(key="111", pmid="111")])
    assert links["111"].startswith("https://resolver.example.edu/openurl?inst=EX&")


# -- core's full-text tool: unavailable entries carry the institutional link -------------------------
class MissingTier:
    """A full-text tier that finds nothing, so every article ends in `unavailable`."""

    @hookimpl
    def medlit_plugin_info(self):
        return PluginInfo(name="nowhere", title="Nowhere")

    @hookimpl
    def medlit_fulltext_tiers(self):
        async def resolve(refs, ctx, options):
            return {r.key: TierResult("miss", "not here") for r in refs}

        return [
            FulltextTier(
                name="nowhere", order=10, accepts=frozenset({"pmid", "doi", "pmcid"}), resolve=resolve
            )
        ]


def fulltext_host(meta: FakeMetadata, **env: str):
    import medlit.plugins.fulltext as fulltext

    inline = [("fulltext", fulltext), ("nowhere", MissingTier()), ("openurl", openurl), ("fakemeta", meta)]
    return host_for(*inline, env=env, discover=False)


async def test_fulltext_unavailable_entries_carry_the_institutional_link():
    meta = FakeMetadata()
    host = fulltext_host(meta, OPENURL_RESOLVER=RESOLVER)
    args = {"pmids": ["111", "99999999"], "dois": ["10.1000/b.2"], "pmcids": ["PMC5"]}
    async with Runtime(host) as rt:
        out = await rt.call("pubmed_fetch_fulltext", args)
    assert not out.is_error, out.text
    check_structured(
        out.data, next(t for t in tool_definitions(host) if t.name == "pubmed_fetch_fulltext").output_schema
    )
    links = {u["id"]: u.get("institutionalLink") for u in out.data["unavailable"]}
    assert set(links) == {"111", "99999999", "10.1000/b.2", "PMC5"}
    assert q(links["111"])["rft.atitle"] == ["First article"]
    assert q(links["10.1000/b.2"])["rft_id"] == ["info:pmid/444", "info:doi/10.1000/b.2"]
    assert links["99999999"] is None and links["PMC5"] is None  # unknown PMID, PMCID alone: no link
    assert meta.calls == [("pmid", ["111", "99999999"]), ("doi", ["10.1000/b.2"])]  # one batch per kind
    assert (
        "institutionalLink" in out.data["notice"]
        and "Library access: https://resolver.example.edu" in out.text
    )


async def test_fulltext_without_a_resolver_has_no_link():
    meta = FakeMetadata()
    async with Runtime(fulltext_host(meta)) as rt:
        out = await rt.call("pubmed_fetch_fulltext", {"pmids": ["111"]})
    assert [u.get("institutionalLink") for u in out.data["unavailable"]] == [None]
    assert meta.calls == []  # the unconfigured plugin is not asked, so no lookup either
