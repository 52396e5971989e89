"""eutils_* tools: what the caller sees for partial misses, NCBI errors inside HTTP 200 and
History sets of known size (no request past the end). Hand-written answers only: no corpus."""

import json

import pytest
from aiohttp import web

from support.fake_upstream import xml_response

pytestmark = pytest.mark.anyio
SET = {"db": "pubmed", "web_env": "MCID_6934533c4c5abba8c303da1d", "query_key": "1"}


def pubmed_xml(pmids) -> str:
    arts = "".join(
        f"<PubmedArticle><MedlineCitation><PMID>{p}</PMID></MedlineCitation></PubmedArticle>" for p in pmids
    )
    return f"<?xml version='1.0'?><PubmedArticleSet>{arts}</PubmedArticleSet>"


def stored_set(fake, path: str, size: int) -> None:
    """A History set of ``size`` PubMed records, served by retstart/retmax (XML efetch or JSON esummary)."""

    def handler(req):
        start, count = int(req.params["retstart"]), int(req.params["retmax"])
        uids = [str(30000000 + i) for i in range(start, min(size, start + count))]
        if path == "efetch.fcgi":
            return xml_response(pubmed_xml(uids))
        docs = {u: {"uid": u, "title": f"Record {u}.", "pubdate": "2020"} for u in uids}
        return web.json_response({"result": {"uids": uids, **docs}})

    fake.route("ncbi", path, handler)


def esearch_error(message: str) -> str:
    return f"<?xml version='1.0'?><eSearchResult><ERROR>{message}</ERROR></eSearchResult>"


# ----------------------------------------------------------------------------- partial misses


async def test_efetch_names_how_many_ids_returned_nothing(rt, fake):
    fake.respond("ncbi", "efetch.fcgi", pubmed_xml(["31452104"]))
    out = await rt.call("eutils_efetch", {"db": "pubmed", "uids": "31452104,99999999", "retmode": "xml"})
    assert not out.is_error, out.text
    assert out.data["requested"] == 2 and out.data["record_count"] == 1
    assert out.data["notice"] == "1 of 2 ids returned no record (unknown ids are silently omitted)."
    assert "1 of 2 ids returned no record" in out.text


async def test_esummary_unknown_uid_is_listed_not_dropped(rt, fake):
    body = {
        "result": {
            "uids": ["31452104", "99999999"],
            "31452104": {"uid": "31452104", "title": "Known."},
            "99999999": {"uid": "99999999", "error": "cannot get document summary"},
        }
    }
    fake.respond("ncbi", "esummary.fcgi", json.dumps(body).encode())
    out = await rt.call("eutils_esummary", {"db": "pubmed", "uids": ["31452104", "99999999"]})
    assert not out.is_error, out.text
    assert [r["uid"] for r in out.data["records"]] == ["31452104"]
    assert out.data["errors"] == [{"uid": "99999999", "message": "cannot get document summary"}]
    assert "Per-id errors" in out.text and "99999999: cannot get document summary" in out.text


async def test_epost_keeps_the_handle_when_ncbi_omits_some_ids(rt, fake):
    fake.respond(
        "ncbi",
        "epost.fcgi",
        "<?xml version='1.0'?><ePostResult><ERROR>Some IDs have invalid value and were omitted</ERROR>"
        "<QueryKey>1</QueryKey><WebEnv>MCID_abc</WebEnv></ePostResult>",
    )
    out = await rt.call("eutils_epost", {"db": "pubmed", "uids": ["31452104", "99999999999999999999"]})
    assert not out.is_error, out.text
    assert out.data["history"]["web_env"] == "MCID_abc"
    assert out.data["warnings"] == ["Some IDs have invalid value and were omitted"]
    assert "NCBI noted" in out.text and "were omitted" in out.text
    assert len(fake.of("ncbi", "epost.fcgi")) == 1  # a partial answer is not retried


# ----------------------------------------------------------------------------- NCBI errors inside HTTP 200


async def test_espell_invalid_db_inside_200_lists_the_databases(rt, fake):
    fake.respond(
        "ncbi",
        "espell.fcgi",
        "<?xml version='1.0'?><eSpellResult><ERROR>Invalid db name specified: fleegle</ERROR></eSpellResult>",
    )
    out = await rt.call("eutils_espell", {"db": "fleegle", "term": "asthma"})
    assert out.is_error and out.error.reason == "invalid_argument", out.text
    assert "fleegle" in out.error.message and "pubmed" in out.error.recovery
    assert len(fake.of("ncbi", "espell.fcgi")) == 1  # not retried


async def test_search_then_fetch_invalid_db_inside_200_fetches_nothing(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", esearch_error("Invalid db name specified: fleegle"))
    out = await rt.call("eutils_search_then_fetch", {"db": "fleegle", "term": "x", "rettype": "docsum"})
    assert out.is_error and out.error.reason == "invalid_argument", out.text
    assert "pubmed" in out.error.recovery
    assert fake.of("ncbi", "efetch.fcgi") == []


async def test_link_then_fetch_search_error_inside_200_is_the_tools_error(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", esearch_error("Invalid db name specified: fleegle"))
    out = await rt.call(
        "eutils_link_then_fetch", {"dbfrom": "fleegle", "db": "pubmed", "term": "x", "retmode": "xml"}
    )
    assert out.is_error and out.error.reason == "invalid_argument", out.text
    assert fake.of("ncbi", "elink.fcgi") == [] and fake.of("ncbi", "efetch.fcgi") == []


async def test_efetch_error_inside_200_by_history_says_to_search_again(rt, fake):
    fake.respond(
        "ncbi", "efetch.fcgi", "<eFetchResult><ERROR>Unable to obtain query #1</ERROR></eFetchResult>"
    )
    out = await rt.call("eutils_efetch", {"history": SET, "retmode": "xml"})
    assert out.is_error, out.text
    assert "Unable to obtain query" in out.error.message
    assert "eutils_esearch" in out.error.recovery


# ----------------------------------------------------------------------------- History sets of known size


async def test_efetch_stops_at_the_end_of_a_set_of_known_size(rt, fake):
    stored_set(fake, "efetch.fcgi", 150)
    out = await rt.call("eutils_efetch", {"history": {**SET, "count": 150}, "retmax": 500, "retmode": "xml"})
    assert not out.is_error, out.text
    assert out.data["record_count"] == 150 and out.data["batches"] == 2 and out.data["has_more"] is False
    assert [(r.params["retstart"], r.params["retmax"]) for r in fake.of("ncbi", "efetch.fcgi")] == [
        ("0", "100"),
        ("100", "50"),
    ]


async def test_esummary_batches_count_the_requests_made(rt, fake):
    stored_set(fake, "esummary.fcgi", 34)
    sized = await rt.call("eutils_esummary", {"history": {**SET, "count": 34}, "retmax": 1200})
    assert not sized.is_error, sized.text
    assert sized.data["count"] == 34 and sized.data["batches"] == 1 and sized.data["has_more"] is False
    assert fake.of("ncbi", "esummary.fcgi")[0].params["retmax"] == "34"
    unsized = await rt.call("eutils_esummary", {"history": SET, "retmax": 1200})
    assert unsized.data["count"] == 34 and unsized.data["batches"] == 1  # the short page ended the set
    assert len(fake.of("ncbi", "esummary.fcgi")) == 2
    assert "1 request(s)" in unsized.text


async def test_retstart_past_a_known_set_still_asks_once_and_explains(rt, fake):
    stored_set(fake, "esummary.fcgi", 34)
    out = await rt.call("eutils_esummary", {"history": {**SET, "count": 34}, "retstart": 40})
    assert not out.is_error, out.text
    assert out.data["count"] == 0 and "retstart is past the end" in out.data["notice"]
    assert len(fake.of("ncbi", "esummary.fcgi")) == 1


async def test_link_then_fetch_source_handle_carries_the_search_count(rt, fake):
    fake.respond(
        "ncbi",
        "esearch.fcgi",
        json.dumps(
            {
                "esearchresult": {
                    "count": "34",
                    "retmax": "0",
                    "idlist": [],
                    "webenv": "MCID_s",
                    "querykey": "1",
                }
            }
        ).encode(),
    )
    fake.respond(
        "ncbi",
        "elink.fcgi",
        json.dumps(
            {
                "linksets": [
                    {
                        "dbfrom": "pubmed",
                        "webenv": "MCID_s",
                        "linksetdbhistories": [
                            {"dbto": "pubmed", "linkname": "pubmed_pubmed", "querykey": "2"}
                        ],
                    }
                ]
            }
        ).encode(),
    )
    fake.respond("ncbi", "efetch.fcgi", pubmed_xml(["1", "2"]))
    out = await rt.call(
        "eutils_link_then_fetch", {"dbfrom": "pubmed", "db": "pubmed", "term": "x", "retmode": "xml"}
    )
    assert not out.is_error, out.text
    assert out.data["source_history"] == {"db": "pubmed", "web_env": "MCID_s", "query_key": "1", "count": 34}
    assert out.data["retrieved"] == 2


async def test_link_then_fetch_term_matching_nothing_links_nothing_and_suggests(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", "<eSearchResult><Count>0</Count></eSearchResult>")
    fake.respond(
        "ncbi",
        "espell.fcgi",
        "<eSpellResult><Database>pubmed</Database><Query>brcaa1</Query><CorrectedQuery>brca1</CorrectedQuery>"
        "<SpelledQuery><Replaced>brca1</Replaced></SpelledQuery></eSpellResult>",
    )
    out = await rt.call(
        "eutils_link_then_fetch", {"dbfrom": "pubmed", "db": "pmc", "term": "brcaa1", "retmode": "xml"}
    )
    assert not out.is_error, out.text
    d = out.data
    assert (d["source_total"], d["retrieved"], d["text"], d["history"]) == (0, 0, "", None)
    assert "No source records matched" in d["notice"] and "'brca1'" in d["notice"]
    assert "No source records matched" in out.text
    assert fake.of("ncbi", "elink.fcgi") == [] and fake.of("ncbi", "efetch.fcgi") == []


async def test_egquery_fallback_names_a_database_it_could_not_count(rt, fake):
    def handler(req):
        if req.params["db"] == "gene":
            return xml_response(esearch_error("Search Backend failed: try later"))
        return xml_response(
            f"<eSearchResult><Count>{5 if req.params['db'] == 'pubmed' else 0}</Count></eSearchResult>"
        )

    fake.route("ncbi", "esearch.fcgi", handler)
    fake.fault("503", "ncbi", "egquery.fcgi", times=10)
    out = await rt.call("eutils_egquery", {"term": "Notch"})
    assert not out.is_error, out.text
    d = out.data
    assert d["degraded"] is True and [h["db"] for h in d["hits"]] == ["pubmed"]
    (failed,) = d["uncounted"]
    assert failed["db"] == "gene" and failed["count"] is None and failed["status"].startswith("error: ncbi_")
    assert "gene" not in d["empty_databases"] and "pmc" in d["empty_databases"]
    assert "Not counted: gene (error: ncbi_" in out.text
    assert "No records: " in out.text and "gene" not in out.text.split("No records: ")[1].split("\n")[0]
