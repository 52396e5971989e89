"""eutils_elink and eutils_link_then_fetch against the fake."""

import json

import pytest
from aiohttp import web

from medlit.testing import check_structured, tool_definitions

from support.corpus import corpus_bytes
from support.fake_upstream import FIXTURES

pytestmark = pytest.mark.anyio
NCBI = FIXTURES / "ncbi"


def check_schema(rt, name, data):
    schema = next(t for t in tool_definitions(rt.host) if t.name == name).output_schema
    check_structured(data, schema)


async def test_elink_neighbor_corpus_xml(rt, fake):
    fake.respond("ncbi", "elink.fcgi", corpus_bytes("ncbi/elink/elink_pubmed_neighbor_1234567.xml"))
    out = await rt.call("eutils_elink", {"dbfrom": "pubmed", "uids": "1234567"})
    assert not out.is_error, out.text
    (group,) = [g for g in out.data["groups"] if g["linkname"] == "pubmed_pubmed"]
    assert group["count"] > 30 and "1065182" in group["ids"]
    assert out.data["dbto"] == "pubmed" and out.data["notice"] is None
    check_schema(rt, "eutils_elink", out.data)
    req = fake.of("ncbi", "elink.fcgi")[0]
    assert (req.params["db"], req.params["cmd"], req.params["id"]) == ("pubmed", "neighbor", "1234567")


async def test_elink_json_groups(rt, fake):
    fake.respond("ncbi", "elink.fcgi", (NCBI / "eutils_elink_pubmed_pmc.json").read_bytes())
    out = await rt.call("eutils_elink", {"dbfrom": "pubmed", "db": "pmc", "uids": ["31452104", "31452105"]})
    assert not out.is_error, out.text
    assert out.data["groups_found"] == 2 and out.data["total_linked"] == 5
    check_schema(rt, "eutils_elink", out.data)


async def test_elink_neighbor_score(rt, fake):
    fake.respond("ncbi", "elink.fcgi", corpus_bytes("ncbi/elink/elink_neighbor_score_protein.xml"))
    out = await rt.call("eutils_elink", {"dbfrom": "protein", "uids": "15622530", "cmd": "neighbor_score"})
    assert not out.is_error, out.text
    g = out.data["groups"][0]
    assert g["scores"] and len(g["scores"]) == len(g["ids"])


async def test_elink_neighbor_history_handles(rt, fake):
    fake.respond("ncbi", "elink.fcgi", corpus_bytes("ncbi/elink/elink_neighbor_history_protein_pubmed.xml"))
    out = await rt.call(
        "eutils_elink",
        {"dbfrom": "protein", "db": "pubmed", "uids": "730439,68536103", "cmd": "neighbor_history"},
    )
    assert not out.is_error, out.text
    h = out.data["histories"][0]
    assert h["history"]["db"] == "pubmed" and h["history"]["query_key"] and h["history"]["web_env"]
    check_schema(rt, "eutils_elink", out.data)


async def test_elink_llinks_and_acheck(rt, fake):
    fake.respond("ncbi", "elink.fcgi", corpus_bytes("ncbi/elink/elink_llinks_2ids.xml"))
    out = await rt.call("eutils_elink", {"dbfrom": "pubmed", "uids": "12085856,12085853", "cmd": "llinks"})
    assert not out.is_error, out.text
    assert (
        len(out.data["linkout"]) == 3
        and out.data["linkout"][0]["provider"] == "MedlinePlus Health Information"
    )
    assert "db" not in fake.of("ncbi", "elink.fcgi")[0].params
    assert "<<<untrusted-data" in out.text
    check_schema(rt, "eutils_elink", out.data)
    fake.respond("ncbi", "elink.fcgi", corpus_bytes("ncbi/elink/elink_acheck.xml"))
    out = await rt.call("eutils_elink", {"dbfrom": "pubmed", "uids": "12169658,11748140", "cmd": "acheck"})
    assert not out.is_error, out.text
    assert out.data["checks"] and out.data["checks"][0]["linknames"]
    check_schema(rt, "eutils_elink", out.data)


async def test_elink_empty_result_hint(rt, fake):
    fake.respond("ncbi", "elink.fcgi", corpus_bytes("ncbi/elink/elink_medgen_id0_empty.xml"))
    out = await rt.call("eutils_elink", {"dbfrom": "medgen", "db": "pubmed", "uids": "0"})
    assert not out.is_error, out.text
    assert out.data["groups"] == [] and "eutils_einfo" in out.data["notice"]
    assert "eutils_einfo" in out.text


async def test_elink_error_in_200(rt, fake):
    fake.fault(
        "ncbi_error_200", "ncbi", "elink.fcgi", root="eLinkResult", message="Invalid db name specified: xx"
    )
    out = await rt.call("eutils_elink", {"dbfrom": "xx", "uids": "1"})
    assert out.is_error and out.error.reason == "invalid_argument"


async def test_elink_with_esearch_handle(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_pubmed_author_history.xml"))
    fake.respond("ncbi", "elink.fcgi", (NCBI / "eutils_elink_pubmed_pmc.json").read_bytes())
    search = await rt.call("eutils_esearch", {"db": "pubmed", "term": "hart rk[author]"})
    out = await rt.call("eutils_elink", {"history": search.data["history"], "db": "pmc"})
    assert not out.is_error, out.text
    req = fake.of("ncbi", "elink.fcgi")[0]
    assert req.params["dbfrom"] == "pubmed" and req.params["query_key"] == "1" and "id" not in req.params
    assert len(fake.of("ncbi", "esearch.fcgi")) == 1


# ----------------------------------------------------------------------------- link_then_fetch


def pmc_efetch(req):
    assert req.params["query_key"] == "2" and req.params["retmode"] == "xml"
    body = "<pmc-articleset><article><front/></article><article><front/></article></pmc-articleset>"
    return web.Response(text=body, content_type="text/xml")


async def test_link_then_fetch_from_term(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_pubmed_author_history.xml"))
    fake.respond("ncbi", "elink.fcgi", (NCBI / "eutils_elink_history.json").read_bytes())
    fake.route("ncbi", "efetch.fcgi", pmc_efetch)
    out = await rt.call(
        "eutils_link_then_fetch",
        {"dbfrom": "pubmed", "db": "pmc", "term": "hart rk[author]", "retmode": "xml"},
    )
    assert not out.is_error, out.text
    d = out.data
    assert (
        d["source_total"] == 34
        and d["linkname"] == "pubmed_pmc"
        and d["other_linknames"] == ["pubmed_pmc_refs"]
    )
    assert d["retrieved"] == 2 and d["history"]["query_key"] == "2" and d["history"]["db"] == "pmc"
    check_schema(rt, "eutils_link_then_fetch", d)
    assert len(fake.requests) == 3
    link = fake.of("ncbi", "elink.fcgi")[0]
    assert link.params["cmd"] == "neighbor_history" and link.params["query_key"] == "1"
    assert fake.of("ncbi", "esearch.fcgi")[0].params["retmax"] == "0"


async def test_link_then_fetch_from_uids_two_requests(rt, fake):
    fake.respond("ncbi", "elink.fcgi", (NCBI / "eutils_elink_history.json").read_bytes())
    fake.route("ncbi", "efetch.fcgi", pmc_efetch)
    out = await rt.call(
        "eutils_link_then_fetch",
        {"dbfrom": "pubmed", "db": "pmc", "uids": "31452104", "retmode": "xml", "response_format": "json"},
    )
    assert not out.is_error, out.text
    assert len(fake.requests) == 2 and out.text.startswith("<<<untrusted-data")


async def test_link_then_fetch_no_links(rt, fake):
    fake.respond("ncbi", "elink.fcgi", corpus_bytes("ncbi/elink/elink_medgen_id0_empty.xml"))
    out = await rt.call("eutils_link_then_fetch", {"dbfrom": "medgen", "db": "pubmed", "uids": "0"})
    assert not out.is_error, out.text
    assert out.data["retrieved"] == 0 and "eutils_einfo" in out.data["notice"]
    assert fake.of("ncbi", "efetch.fcgi") == []
    check_schema(rt, "eutils_link_then_fetch", out.data)


_ERROR_LINKSET = b"<LinkSet><DbFrom>protein</DbFrom><ERROR>Backend failed for this set</ERROR></LinkSet>"


async def test_elink_linkset_error_is_reported_not_dropped(rt, fake):
    body = corpus_bytes("ncbi/elink/elink_neighbor_by_id_multi_linkset.xml")
    fake.respond("ncbi", "elink.fcgi", body.replace(b"</eLinkResult>", _ERROR_LINKSET + b"</eLinkResult>"))
    out = await rt.call(
        "eutils_elink",
        {
            "dbfrom": "protein",
            "db": "pubmed",
            "uids": "1621261,68536103,20807972,730439,1",
            "per_source": False,
        },
    )
    assert not out.is_error, out.text
    check_schema(rt, "eutils_elink", out.data)
    (group,) = [g for g in out.data["groups"] if g["linkname"] == "protein_pubmed"]
    assert {"12368430", "9634230", "15968079", "11997336", "8206848"} <= set(group["ids"])  # links kept
    assert out.data["errors"] == [
        {"dbfrom": "protein", "ids": [], "linkname": None, "error": "Backend failed for this set"}
    ]
    assert "Backend failed for this set" in out.data["notice"] and "No links found" not in out.data["notice"]
    assert "**NCBI error** protein: Backend failed for this set" in out.text


async def test_elink_link_error_names_its_link(rt, fake):
    body = (
        b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>1</Id></IdList>"
        b"<LinkSetDb><DbTo>pmc</DbTo><LinkName>pubmed_pmc</LinkName><Link><Id>10</Id></Link></LinkSetDb>"
        b"<LinkSetDb><DbTo>pmc</DbTo><LinkName>pubmed_pmc_refs</LinkName><ERROR>Backend down</ERROR></LinkSetDb>"
        b"</LinkSet></eLinkResult>"
    )
    fake.respond("ncbi", "elink.fcgi", body)
    out = await rt.call("eutils_elink", {"dbfrom": "pubmed", "db": "pmc", "uids": "1", "cmd": "acheck"})
    assert not out.is_error, out.text
    check_schema(rt, "eutils_elink", out.data)
    assert [e["linkname"] for e in out.data["errors"]] == ["pubmed_pmc_refs"]
    assert "pubmed_pmc_refs (ids 1): Backend down" in out.data["notice"]


async def test_elink_all_linksets_failed_is_an_error(rt, fake):
    fake.respond("ncbi", "elink.fcgi", b"<eLinkResult>" + _ERROR_LINKSET + _ERROR_LINKSET + b"</eLinkResult>")
    out = await rt.call("eutils_elink", {"dbfrom": "protein", "uids": "1,2"})
    assert out.is_error and "Backend failed for this set" in out.text


async def test_link_then_fetch_reports_a_failed_link_set(rt, fake):
    doc = json.loads((NCBI / "eutils_elink_history.json").read_text())
    doc["linksets"].append({"dbfrom": "pubmed", "ids": ["31452105"], "ERROR": "Backend failed for this set"})
    fake.respond("ncbi", "elink.fcgi", json.dumps(doc).encode())
    fake.route("ncbi", "efetch.fcgi", pmc_efetch)
    out = await rt.call(
        "eutils_link_then_fetch",
        {"dbfrom": "pubmed", "db": "pmc", "uids": "31452104,31452105", "retmode": "xml"},
    )
    assert not out.is_error, out.text
    check_schema(rt, "eutils_link_then_fetch", out.data)
    assert out.data["retrieved"] == 2 and out.data["linkname"] == "pubmed_pmc"
    assert "pubmed (ids 31452105): Backend failed for this set" in out.data["notice"]


async def test_elink_groups_links_per_source_in_one_request(rt, fake):
    fake.respond("ncbi", "elink.fcgi", corpus_bytes("ncbi/elink/elink_neighbor_by_id_multi_linkset.xml"))
    uids = ["1621261", "68536103", "20807972", "730439"]
    out = await rt.call("eutils_elink", {"dbfrom": "protein", "db": "pubmed", "uids": uids})
    assert not out.is_error, out.text
    check_schema(rt, "eutils_elink", out.data)
    (req,) = fake.of("ncbi", "elink.fcgi")
    assert req.repeated("id") == uids  # id=...&id=...: NCBI answers one link set per source
    sources = [g["source_ids"] for g in out.data["groups"]]
    assert ["1621261"] in sources and ["68536103"] in sources
    assert all(s is not None and len(s) == 1 for s in sources)
    assert "from 1621261" in out.text
    merged = await rt.call(
        "eutils_elink", {"dbfrom": "protein", "db": "pubmed", "uids": uids, "per_source": False}
    )
    assert fake.of("ncbi", "elink.fcgi")[-1].repeated("id") == [",".join(uids)]
    assert all(g["source_ids"] is None for g in merged.data["groups"])
