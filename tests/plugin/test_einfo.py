import pytest
from aiohttp import web

from medlit.testing import check_structured, tool_definitions

from support.fake_upstream import xml_response

pytestmark = pytest.mark.anyio


def output_schema(rt, name):
    return next(t for t in tool_definitions(rt.host) if t.name == name).output_schema


async def test_list_databases(rt, fake):
    out = await rt.call("eutils_einfo", {})
    assert not out.is_error, out.text
    assert "pubmed" in out.data["databases"] and "protein" in out.data["databases"]
    assert out.data["count"] == len(out.data["databases"])
    check_structured(out.data, output_schema(rt, "eutils_einfo"))
    (req,) = fake.of("ncbi", "einfo.fcgi")
    assert req.params["tool"] == "medlit-mcp"
    assert "Entrez databases" in out.text


async def test_describe_pubmed(rt, fake):
    out = await rt.call("eutils_einfo", {"db": "PubMed"})
    assert not out.is_error, out.text
    db = out.data["database"]
    assert db["name"] == "pubmed"
    assert db["count"] > 1_000_000
    names = {f["name"] for f in db["fields"]}
    assert {"ALL", "MESH"} <= names
    assert any(li["name"] == "pubmed_pubmed" and li["db_to"] == "pubmed" for li in db["links"])
    check_structured(out.data, output_schema(rt, "eutils_einfo"))
    assert "| Tag |" in out.text
    # NCBI's descriptions are upstream text: inside the fence, never before it
    fenced = out.text.index("<<<untrusted-data")
    assert fenced < out.text.index("| Tag |") and fenced < out.text.index(db["description"][:30])
    assert out.text.rstrip().endswith(">>>") or "Output cut" in out.text


async def test_json_rendering_is_fenced(rt):
    out = await rt.call("eutils_einfo", {"db": "pubmed", "response_format": "json"})
    assert out.text.startswith("<<<untrusted-data")
    assert '"name": "pubmed"' in out.text


async def test_unknown_database_lists_valid_ones(rt, fake):
    out = await rt.call("eutils_einfo", {"db": "fleegle"})
    assert out.is_error
    assert out.error.reason == "invalid_argument"
    assert "pubmed" in out.error.recovery
    assert len(fake.of("ncbi")) == 2  # the failed describe, then the (cached) list


async def test_malformed_db_rejected_without_request(rt, fake):
    for bad in ({"db": "pub med"}, {"db": 5}, {"database": "pubmed"}, {"db": "pubmed", "retmax": 3}):
        out = await rt.call("eutils_einfo", bad)
        assert out.is_error and out.error.reason == "invalid_argument", bad
        assert out.error.recovery
    assert fake.requests == []


async def test_empty_string_optional_means_unset(rt):
    out = await rt.call("eutils_einfo", {"db": ""})
    assert not out.is_error and out.data["databases"]


async def test_upstream_fault_maps_to_reason(rt, fake):
    fake.fault("503", "ncbi", "einfo.fcgi", times=10)
    out = await rt.call("eutils_einfo", {})
    assert out.is_error and out.error.reason == "ncbi_server_error" and out.error.retryable
    assert "Retryable: yes" in out.text


async def test_concurrent_list_calls_share_one_request(rt, fake):
    import asyncio

    outs = await asyncio.gather(*(rt.call("eutils_einfo", {}) for _ in range(5)))
    assert all(o.data["databases"] for o in outs)
    assert len(fake.of("ncbi", "einfo.fcgi")) == 1


async def test_failed_list_fetch_is_not_cached(rt, fake):
    fake.fault("503", "ncbi", "einfo.fcgi", times=4)
    assert (await rt.call("eutils_einfo", {})).is_error
    assert not (await rt.call("eutils_einfo", {})).is_error


async def test_unknown_database_when_the_list_fails_still_says_unknown(rt, fake):
    def einfo(req):
        if not req.params.get("db"):
            return web.Response(status=503)
        return xml_response(
            "<eInfoResult><ERROR>Can not retrieve DbInfo for db=fleegle</ERROR></eInfoResult>"
        )

    fake.route("ncbi", "einfo.fcgi", einfo)
    out = await rt.call("eutils_einfo", {"db": "fleegle"})
    assert out.is_error and out.error.reason == "invalid_argument", out.text
    assert "'fleegle'" in out.error.message and "eutils_einfo with no db" in out.error.recovery
