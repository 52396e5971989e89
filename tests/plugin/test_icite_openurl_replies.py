"""What a caller of pubmed_fetch_citation_metrics and pubmed_institutional_link reads in the text
reply for partial misses (unavailable, overLimit) and upstream faults, not only in the data."""

from __future__ import annotations

import pytest

import medlit.plugins.openurl as openurl
from medlit.core.plugin import MetadataProvider, PluginInfo, RecordMetadata, errors, hookimpl
from medlit.testing import Runtime, host_for

from support.fake_upstream import Req, json_response

pytestmark = pytest.mark.anyio

METRICS = "pubmed_fetch_citation_metrics"
LINK = "pubmed_institutional_link"


def serve_icite(fake, unknown: frozenset[str] = frozenset()) -> None:
    def pubs(req: Req):
        data = [
            {"pmid": int(p), "title": f"Paper {p}", "relative_citation_ratio": 1.25, "year": 2015}
            for p in req.ids("pmids")
            if p not in unknown
        ]
        return json_response({"meta": {}, "links": {}, "data": data})

    fake.route("icite", "pubs", pubs)


async def test_metrics_text_names_unavailable_and_over_limit_pmids(rt, fake):
    serve_icite(fake, unknown=frozenset({"99999999"}))
    pmids = ["99999999", *(str(20_000_000 + i) for i in range(201))]
    out = await rt.call(METRICS, {"pmids": pmids})
    assert not out.is_error, out.text
    assert out.data["unavailablePmids"] == ["99999999"]
    assert out.data["overLimit"] == {"pmids": [pmids[200], pmids[201]], "limit": 200}
    assert "Unavailable: 99999999" in out.text
    assert f"Over limit: {pmids[200]}, {pmids[201]}" in out.text
    assert "iCite has no record for 1 PMID(s)" in out.text and "2 PMID(s) past the 200-per-call" in out.text


async def test_metrics_unrequested_record_error_says_how_to_recover(rt, fake):
    fake.respond("icite", "pubs", {"data": [{"pmid": 11111111, "relative_citation_ratio": 3.0}]})
    out = await rt.call(METRICS, {"pmids": ["23456789"]})
    err = out.error
    assert out.is_error and err.reason == "icite_unrequested_record" and not err.retryable
    assert "11111111" in err.message and "fewer PMIDs" in err.recovery
    assert len(fake.of("icite", "pubs")) == 1


class FailingMetadata:
    @hookimpl
    def medlit_plugin_info(self):
        return PluginInfo(name="fakemeta", title="Fake metadata")

    @hookimpl
    def medlit_metadata_providers(self):
        async def lookup(kind, ids, ctx):
            if kind == "doi":
                raise errors.upstream_error("fakemeta", "unreachable", "the fake metadata service is down")
            return {i: RecordMetadata(pmid=i, title=f"Known {i}") for i in ids if i != "99999999"}

        return [
            MetadataProvider(name="fakemeta", order=10, accepts=frozenset({"pmid", "doi"}), lookup=lookup)
        ]


def link_host(**env: str):
    env = {"OPENURL_RESOLVER": "https://resolver.example.edu/openurl", **env}
    return host_for(("openurl", openurl), ("fakemeta", FailingMetadata()), env=env, discover=False)


async def test_link_text_names_unknown_pmids_and_id_only_links_from_a_failed_lookup():
    async with Runtime(link_host()) as rt:
        out = await rt.call(LINK, {"pmids": ["111", "99999999"], "dois": ["10.1000/x.1"]})
    assert not out.is_error, out.text
    d = out.data
    assert [(x["id"], x["metadataFrom"]) for x in d["links"]] == [
        ("111", "fakemeta"),
        ("10.1000/x.1", "none"),
    ]
    assert [u["id"] for u in d["unavailable"]] == ["99999999"]
    doi_link = d["links"][1]
    assert "lookup failed" in doi_link["note"] and "fakemeta_unreachable" in doi_link["note"]
    assert "No link for 99999999" in d["notice"] and "1 link(s) carry identifiers only" in d["notice"]
    # The text says the same: the unknown PMID, and why the DOI's link has no metadata.
    assert "- PMID 99999999: no link (PMID 99999999 is not in PubMed" in out.text
    assert "(DOI only: the metadata lookup failed" in out.text
    assert "Notice: No link for 99999999" in out.text


async def test_link_without_a_resolver_is_not_served():
    host = host_for(("openurl", openurl), env={}, discover=False)
    async with Runtime(host) as rt:
        out = await rt.call(LINK, {"pmids": ["111"]})
    assert out.is_error and "OPENURL_RESOLVER" in (out.error.message + out.error.recovery)
