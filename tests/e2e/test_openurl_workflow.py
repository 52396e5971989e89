"""End to end: pubmed_institutional_link through real MCP client sessions.

Over stdio against the loopback fake, with ``OPENURL_RESOLVER`` set and the installed plugins
(the NCBI plugin provides the metadata, from PubMed records the fake serves out of
tests/fixtures/openurl/pubmed_three.xml): one call for three PMIDs, a journal article, an
online-only article without pages and a Bookshelf chapter, costs one upstream request and
returns three links carrying each record's metadata. Unconfigured, the tool is not listed.
"""

from __future__ import annotations

import sys
from urllib.parse import parse_qs, urlsplit

import pytest
from lxml import etree
from mcp import Client, StdioServerParameters

from medlit.testing import check_structured, host_for, mcp_client

from support.environments import fake_env, server_env
from support.fake_upstream import FIXTURES, Req, xml_response

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOOL = "pubmed_institutional_link"
RESOLVER = "https://sfx.library.example.edu/sfx_local"
PMIDS = ["90000001", "90000002", "90000003"]
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


def _records() -> dict[str, bytes]:
    root = etree.fromstring((FIXTURES / "openurl" / "pubmed_three.xml").read_bytes(), _PARSER)
    out = {}
    for rec in root:
        if isinstance(rec.tag, str):
            pmid = rec.findtext("MedlineCitation/PMID") or rec.findtext("BookDocument/PMID")
            out[pmid] = etree.tostring(rec, encoding="utf-8")
    return out


def efetch(req: Req):
    records = _records()
    body = b"".join(records[i] for i in req.ids() if i in records)
    return xml_response(
        b'<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>' + body + b"</PubmedArticleSet>"
    )


def ncbi_provides_metadata() -> bool:
    host = host_for(env={})
    return any(m.plugin == "ncbi" and "pmid" in m.accepts for m in host.catalog.metadata)


def kev(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


async def test_three_pmids_one_request_three_links_over_stdio(fake):
    if not ncbi_provides_metadata():
        pytest.skip("no NCBI metadata provider is installed (medlit_metadata_providers of the ncbi plugin)")
    fake.route("ncbi", "efetch.fcgi", efetch)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "medlit", "serve"],
        env=server_env(fake, OPENURL_RESOLVER=RESOLVER),
    )
    async with Client(params) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == TOOL)
        assert fake.requests == []
        result = await client.call_tool(TOOL, {"pmids": PMIDS})
        assert not result.is_error, result.content
        data = result.structured_content
        check_structured(data, tool.output_schema)
        assert len(fake.requests) == 1, [(r.service, r.path) for r in fake.requests]  # one batched lookup
        assert sorted(fake.requests[0].ids()) == PMIDS

        # A PMID PubMed does not know: a per-id error, the other link still built.
        again = await client.call_tool(TOOL, {"pmids": ["90000001", "99999999"]})
        assert not again.is_error, again.content
        check_structured(again.structured_content, tool.output_schema)

    links = data["links"]
    assert [link["id"] for link in links] == PMIDS and not data.get("unavailable")
    for link in links:
        assert link["url"].startswith(
            RESOLVER + "?url_ver=Z39.88-2004&url_ctx_fmt=info%3Aofi%2Ffmt%3Akev%3Amtx%3Actx&"
        )
        q = kev(link["url"])
        assert q["ctx_ver"] == ["Z39.88-2004"] and q["ctx_enc"] == ["info:ofi/enc:UTF-8"]
        assert f"info:pmid/{link['id']}" in q["rft_id"] and link["metadataFrom"] == "pubmed"

    article, online, chapter = (kev(link["url"]) for link in links)
    assert article["rft_val_fmt"] == ["info:ofi/fmt:kev:mtx:journal"] and article["rft.genre"] == ["article"]
    assert article["rft_id"] == ["info:pmid/90000001", "info:doi/10.1007/s00108-018-0001-x"]
    assert article["rft.atitle"] == ["Über die Niere: Grundlagen für Ärzte"]
    assert article["rft.jtitle"] == ["Der Internist"] and article["rft.issn"] == ["0020-9554"]
    assert (
        article["rft.date"] == ["2018-03"]
        and article["rft.volume"] == ["59"]
        and article["rft.issue"] == ["3"]
    )
    assert (
        article["rft.spage"] == ["250"]
        and article["rft.epage"] == ["258"]
        and article["rft.pages"] == ["250-258"]
    )
    assert article["rft.aulast"] == ["Müller"] and article["rft.aufirst"] == ["Jürgen"]

    assert online["rft.eissn"] == ["1932-6203"] and "rft.issn" not in online
    assert online["rft_id"] == ["info:pmid/90000002", "info:doi/10.1371/journal.pone.9000002"]
    assert not {"rft.spage", "rft.epage", "rft.pages"} & set(online)
    assert online["rft.aulast"] == ["Nguyễn"]

    assert links[2]["format"] == "book" and chapter["rft_val_fmt"] == ["info:ofi/fmt:kev:mtx:book"]
    assert chapter["rft.genre"] == ["bookitem"] and chapter["rft.atitle"] == ["Acute Kidney Injury"]
    assert chapter["rft.btitle"] == ["Handbook of Examples"] and chapter["rft.isbn"] == ["9780000000002"]
    assert chapter["rft.pub"] == ["Example University Press"] and "rft.jtitle" not in chapter

    second = again.structured_content
    assert [link["id"] for link in second["links"]] == ["90000001"]
    assert [(u["id"], u["reason"]) for u in second["unavailable"]] == [("99999999", "not-found")]


async def test_listed_only_when_configured(fake):
    unset = host_for(env=fake_env(fake))
    async with mcp_client(unset) as client:
        assert TOOL not in {t.name for t in (await client.list_tools()).tools}
    configured = host_for(env=fake_env(fake, OPENURL_PRESET="worldcat", OPENURL_INSTITUTION="univ"))
    async with mcp_client(configured) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert TOOL in tools and tools[TOOL].annotations.read_only_hint is True
        result = await client.call_tool(
            TOOL, {"citations": [{"title": "Ünïcode", "journal": "J", "date": "2020"}]}
        )
        assert not result.is_error, result.content
        url = result.structured_content["links"][0]["url"]
        assert url.startswith("https://univ.on.worldcat.org/atoztitles/link?url_ver=")
        assert parse_qs(urlsplit(url).query)["rft.atitle"] == ["Ünïcode"]
    assert fake.requests == []  # citations given directly: nothing fetched, the resolver never contacted


async def test_fulltext_unavailable_entry_carries_the_library_link(fake):
    """pubmed_fetch_fulltext over MCP with the installed plugins: an article with no PMC copy
    (other tiers off) comes back in `unavailable` with `institutionalLink`, for one PubMed request."""
    if not ncbi_provides_metadata():
        pytest.skip("no NCBI metadata provider is installed (medlit_metadata_providers of the ncbi plugin)")
    fake.route("ncbi", "efetch.fcgi", efetch)
    fake.respond(
        "idconv",
        "",
        {
            "status": "ok",
            "records": [{"pmid": "90000001", "status": "error", "errmsg": "invalid article id"}],
        },
    )
    env = fake_env(
        fake,
        OPENURL_RESOLVER=RESOLVER,
        EUROPEPMC_ENABLED="false",
        UNPAYWALL_ENABLED="false",
        OPENALEX_ENABLED="false",
    )
    async with mcp_client(host_for(env=env)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("pubmed_fetch_fulltext", {"pmids": ["90000001"]})
    assert not result.is_error, result.content
    data = result.structured_content
    check_structured(data, tools["pubmed_fetch_fulltext"].output_schema)
    (entry,) = data["unavailable"]
    q = kev(entry["institutionalLink"])
    assert entry["institutionalLink"].startswith(RESOLVER + "?url_ver=Z39.88-2004&")
    assert q["rft_id"] == ["info:pmid/90000001", "info:doi/10.1007/s00108-018-0001-x"]
    assert q["rft.jtitle"] == ["Der Internist"] and q["rft.spage"] == ["250"]
    assert "institutionalLink" in data["notice"]
    # The converter, then one PubMed request for the link's metadata; the resolver is never contacted.
    assert [(r.service, r.path) for r in fake.requests] == [("idconv", ""), ("ncbi", "efetch.fcgi")]
