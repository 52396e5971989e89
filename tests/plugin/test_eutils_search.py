"""eutils_esearch, eutils_epost, eutils_espell, eutils_egquery, eutils_ecitmatch against the fake."""

import pytest

from medlit.testing import check_structured, tool_definitions

from support.corpus import corpus_bytes
from support.fake_upstream import FIXTURES, xml_response

pytestmark = pytest.mark.anyio
NCBI = FIXTURES / "ncbi"


def check_schema(rt, name, data):
    schema = next(t for t in tool_definitions(rt.host) if t.name == name).output_schema
    check_structured(data, schema)


# ----------------------------------------------------------------------------- esearch


async def test_esearch_corpus_xml_with_history(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_pubmed_author_history.xml"))
    out = await rt.call("eutils_esearch", {"db": "pubmed", "term": "hart rk[author]", "retmax": 250})
    assert not out.is_error, out.text
    d = out.data
    assert d["total"] == 34 and d["count"] == 34 and d["has_more"] is False and d["next_offset"] is None
    assert d["history"] == {
        "db": "pubmed",
        "web_env": "MCID_6934533c4c5abba8c303da1d",
        "query_key": "1",
        "count": 34,
    }
    assert d["term_translations"][0]["term"] == "hart rk[author]"
    check_schema(rt, "eutils_esearch", d)
    (req,) = fake.of("ncbi", "esearch.fcgi")
    assert (
        req.params["usehistory"] == "y" and req.params["retmax"] == "250" and req.params["retmode"] == "json"
    )
    assert "History handle" in out.text and "<<<untrusted-data" in out.text


async def test_esearch_json_many_ids_paging_and_warnings(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", (NCBI / "eutils_esearch_many.json").read_bytes())
    out = await rt.call(
        "eutils_esearch",
        {"db": "pubmed", "term": "crispr", "retmax": 150, "mindate": "2020", "maxdate": "2024-06"},
    )
    assert not out.is_error, out.text
    d = out.data
    assert d["total"] == 24817 and d["count"] == 150 and d["has_more"] and d["next_offset"] == 150
    assert any("quoted phrase not found" in w for w in d["warnings"])
    assert "10,000" in d["notice"] and "mindate" in d["notice"]  # the paging ceiling advice
    check_schema(rt, "eutils_esearch", d)
    req = fake.of("ncbi", "esearch.fcgi")[0]
    assert (req.params["datetype"], req.params["mindate"], req.params["maxdate"]) == (
        "pdat",
        "2020",
        "2024/06",
    )


async def test_esearch_reldate_field_and_idtype_are_sent(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_pubmed_author_history.xml"))
    out = await rt.call(
        "eutils_esearch",
        {"db": "pubmed", "term": "crispr delivery", "reldate": 30, "datetype": "edat", "field": "tiab"},
    )
    assert not out.is_error, out.text
    check_schema(rt, "eutils_esearch", out.data)
    req = fake.of("ncbi", "esearch.fcgi")[-1]
    assert (req.params["reldate"], req.params["datetype"], req.params["field"]) == ("30", "edat", "tiab")
    assert "mindate" not in req.params and "maxdate" not in req.params
    # reldate alone: datetype defaults to pdat, as it does for mindate/maxdate
    await rt.call("eutils_esearch", {"db": "pubmed", "term": "crispr", "reldate": 7})
    req = fake.of("ncbi", "esearch.fcgi")[-1]
    assert (req.params["reldate"], req.params["datetype"]) == ("7", "pdat")
    assert "field" not in req.params and "idtype" not in req.params
    # accession.version ids for a sequence database
    await rt.call("eutils_esearch", {"db": "protein", "term": "BRCA1[gene] AND human[orgn]", "idtype": "acc"})
    assert fake.of("ncbi", "esearch.fcgi")[-1].params["idtype"] == "acc"


async def test_esearch_empty_result_has_spelling_suggestion(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_empty_phrase_not_found.xml"))
    fake.respond("ncbi", "espell.fcgi", corpus_bytes("ncbi/espell/espell_biopythooon.xml"))
    out = await rt.call("eutils_esearch", {"db": "pubmed", "term": "biopythooon"})
    assert not out.is_error, out.text
    assert out.data["total"] == 0 and out.data["uids"] == [] and out.data["has_more"] is False
    assert out.data["spelling_suggestion"] == "biopython"
    assert "phrase not found: abcXYZ" in out.data["warnings"]
    assert "biopython" in out.text
    check_schema(rt, "eutils_esearch", out.data)
    assert len(fake.requests) == 2


async def test_esearch_invalid_db_inside_http_200_lists_databases(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_error_invalid_db.xml"))
    out = await rt.call("eutils_esearch", {"db": "fleegle", "term": "cat"})
    assert out.is_error and out.error.reason == "invalid_argument"
    assert "pubmed" in out.error.recovery
    assert len(fake.of("ncbi", "esearch.fcgi")) == 1  # not retried


async def test_esearch_transient_error_in_200_is_retried(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_pubmed_biopython.xml"))
    fake.fault("ncbi_error_200", "ncbi", "esearch.fcgi", message="Search Backend failed: timeout")
    out = await rt.call("eutils_esearch", {"db": "pubmed", "term": "biopython"})
    assert not out.is_error, out.text
    assert out.data["total"] == 63 and len(fake.of("ncbi", "esearch.fcgi")) == 2


async def test_esearch_count_only(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_rettype_count.xml"))
    out = await rt.call("eutils_esearch", {"db": "pubmed", "term": "x", "retmax": 0, "usehistory": False})
    assert not out.is_error, out.text
    assert out.data["total"] == 6 and out.data["uids"] == [] and out.data["history"] is None
    assert fake.of("ncbi", "esearch.fcgi")[0].params.get("usehistory") is None


async def test_esearch_json_rendering_is_fenced(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_pubmed_json_eye.json"))
    out = await rt.call("eutils_esearch", {"db": "pubmed", "term": "eye", "response_format": "json"})
    assert out.text.startswith("<<<untrusted-data") and '"total": 561276' in out.text


# ----------------------------------------------------------------------------- epost


async def test_epost_returns_handle(rt, fake):
    fake.respond("ncbi", "epost.fcgi", corpus_bytes("ncbi/epost/epost_pubmed_ok.xml"))
    out = await rt.call("eutils_epost", {"db": "pubmed", "uids": "PMID:31452104, 0031452105,31452104"})
    assert not out.is_error, out.text
    assert out.data["uploaded"] == 2
    assert out.data["history"] == {
        "db": "pubmed",
        "web_env": "MCID_692851c130aec64bed0a8c2a",
        "query_key": "1",
        "count": 2,
    }
    check_schema(rt, "eutils_epost", out.data)
    (req,) = fake.of("ncbi", "epost.fcgi")
    assert req.method == "POST" and req.params["id"] == "31452104,31452105"


async def test_epost_error_in_200(rt, fake):
    fake.respond("ncbi", "epost.fcgi", corpus_bytes("ncbi/epost/epost_error_invalid_id_overflow.xml"))
    out = await rt.call("eutils_epost", {"db": "pubmed", "uids": ["99999999999999999999999"]})
    assert out.is_error and out.error.reason.startswith("ncbi_")
    assert "Empty ID list" in out.error.message


# ----------------------------------------------------------------------------- espell


async def test_espell_suggestion_and_none(rt, fake):
    fake.respond("ncbi", "espell.fcgi", corpus_bytes("ncbi/espell/espell_netch_mus_musclus.xml"))
    out = await rt.call("eutils_espell", {"term": "Netch AND Mus musclus"})
    assert not out.is_error, out.text
    assert out.data["changed"] is True and out.data["corrected_query"] == "notch AND mus musculus"
    assert out.data["replaced"] == ["notch", "musculus"]
    check_schema(rt, "eutils_espell", out.data)
    fake.respond(
        "ncbi",
        "espell.fcgi",
        "<eSpellResult><Database>pubmed</Database><Query>cancer</Query><CorrectedQuery></CorrectedQuery>"
        "<SpelledQuery/><ERROR/></eSpellResult>",
    )
    out = await rt.call("eutils_espell", {"db": "pubmed", "term": "cancer"})
    assert out.data["changed"] is False and out.data["corrected_query"] == "cancer"
    assert "no spelling correction" in out.text


# ----------------------------------------------------------------------------- egquery


async def test_egquery_real_answer(rt, fake):
    fake.respond("ncbi", "egquery.fcgi", corpus_bytes("ncbi/egquery/egquery_brca_status_not_found.xml"))
    out = await rt.call("eutils_egquery", {"term": "brca1 OR brca2"})
    assert not out.is_error, out.text
    d = out.data
    assert d["degraded"] is False
    assert {"db": "pmc", "menu_name": "PMC", "count": 2739, "status": "Ok"} in d["hits"]
    assert "pubmed" in d["empty_databases"]
    assert [h["count"] for h in d["hits"]] == sorted((h["count"] for h in d["hits"]), reverse=True)
    check_schema(rt, "eutils_egquery", d)
    assert fake.of("ncbi", "esearch.fcgi") == []


def _count_route(fake):
    def handler(req):
        n = {"pubmed": 1803, "pmc": 1301, "gene": 12}.get(req.params["db"], 0)
        return xml_response(f"<eSearchResult><Count>{n}</Count></eSearchResult>")

    fake.route("ncbi", "esearch.fcgi", handler)


async def test_egquery_fallback_on_foreign_redirect(rt, fake):
    from medlit.plugins.ncbi.tools.eutils_search import FALLBACK_DATABASES

    _count_route(fake)
    fake.fault(
        "redirect_foreign",
        "ncbi",
        "egquery.fcgi",
        to="https://ext-http-eutils.linkerd.ncbi.nlm.nih.gov/egquery",
    )
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    out = await rt.call("eutils_egquery", {"term": "Notch AND mouse"}, progress=on_progress)
    assert not out.is_error, out.text
    d = out.data
    assert d["degraded"] is True and "ncbi_redirect_refused" in d["degraded_reason"]
    assert d["databases_searched"] == len(FALLBACK_DATABASES) and d["databases_with_hits"] == 3
    assert d["hits"][0] == {"db": "pubmed", "menu_name": "", "count": 1803, "status": "Ok"}
    check_schema(rt, "eutils_egquery", d)
    reqs = fake.of("ncbi", "esearch.fcgi")
    assert len(reqs) == len(FALLBACK_DATABASES) and all(r.params["rettype"] == "count" for r in reqs)
    assert len(fake.of("ncbi", "egquery.fcgi")) == 1 and len(progress) == len(FALLBACK_DATABASES)
    assert "DEGRADED" in out.text


async def test_egquery_fallback_on_503s(rt, fake):
    _count_route(fake)
    fake.fault("503", "ncbi", "egquery.fcgi", times=10)
    out = await rt.call("eutils_egquery", {"term": "Notch"})
    assert not out.is_error, out.text
    assert out.data["degraded"] is True and "ncbi_server_error" in out.data["degraded_reason"]


async def test_egquery_validation_errors_never_fall_back(rt, fake):
    _count_route(fake)
    fake.fault("ncbi_error_200", "ncbi", "egquery.fcgi", root="eGQueryResult", message="Invalid query syntax")
    out = await rt.call("eutils_egquery", {"term": "((("})
    assert out.is_error and out.error.reason == "ncbi_upstream_error"
    assert fake.of("ncbi", "esearch.fcgi") == []
    out = await rt.call("eutils_egquery", {"term": "   "})
    assert out.is_error and out.error.reason == "invalid_argument"
    assert len(fake.requests) == 1


# ----------------------------------------------------------------------------- ecitmatch


async def test_ecitmatch_statuses(rt, fake):
    fake.respond(
        "ncbi", "ecitmatch.cgi", (NCBI / "eutils_ecitmatch.txt").read_bytes(), content_type="text/plain"
    )
    cits = [
        "proc natl acad sci u s a|1991|88|3248|mann bj|Art1|",
        "science|1987|235|182|palmenberg ac|Art2",
        "nature|2099|1|1|nobody x|Art3|",
        "j biol chem|2001|276|1|smith j|Art4|",
    ]
    out = await rt.call("eutils_ecitmatch", {"citations": cits})
    assert not out.is_error, out.text
    d = out.data
    assert d["submitted"] == 4 and d["matched"] == 2
    assert [r["status"] for r in d["records"]] == ["matched", "matched", "not_found", "ambiguous"]
    assert d["records"][1]["pmid"] == "3026048" and d["records"][3]["candidates"] == ["11111111", "22222222"]
    first = d["records"][0]
    assert (first["journal"], first["year"], first["volume"], first["first_page"], first["author"]) == (
        "proc natl acad sci u s a",
        "1991",
        "88",
        "3248",
        "mann bj",
    )
    assert first["key"] == "Art1"
    check_schema(rt, "eutils_ecitmatch", d)
    (req,) = fake.of("ncbi", "ecitmatch.cgi")
    assert req.params["bdata"].count("\r") == 3 and req.params["bdata"].endswith("|Art4|")


async def test_ecitmatch_rejects_short_citation(rt, fake):
    out = await rt.call("eutils_ecitmatch", {"citations": ["science|1987|235|182"]})
    assert out.is_error and out.error.reason == "invalid_argument"
    assert "journal|year|volume|first_page|author|key|" in out.error.recovery
    assert fake.requests == []


async def test_esearch_markdown_keeps_the_handle_when_10000_uids_are_cut(rt, fake):
    import json

    body = json.loads((NCBI / "eutils_esearch_many.json").read_text())
    r = body["esearchresult"]
    r["retmax"] = "10000"
    r["idlist"] = [str(40_000_000 - i) for i in range(10_000)]
    fake.respond("ncbi", "esearch.fcgi", json.dumps(body).encode())
    out = await rt.call("eutils_esearch", {"db": "pubmed", "term": "crispr", "retmax": 10_000})
    assert not out.is_error, out.text
    assert len(out.data["uids"]) == 10_000  # the structured result keeps every UID
    assert len(out.text) <= 25_000 and "Output cut" in out.text
    assert "History handle" in out.text and r["webenv"] in out.text  # above the cut
    assert "retstart" in out.text.split("Output cut")[1]  # the tool's own paging hint
    # upstream warnings are fenced as data
    warn = next(w for w in out.data["warnings"] if "quoted phrase" in w)
    head = out.text.split("UIDs:")[0]
    assert warn in head and head.index("<<<untrusted-data") < head.index(warn)
