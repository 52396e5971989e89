"""eutils_esummary, eutils_efetch, eutils_search_then_fetch: batching, handles, per-id errors."""

import pytest
from aiohttp import web

from medlit.testing import check_structured, tool_definitions

from support.corpus import corpus_bytes
from support.fake_upstream import FIXTURES, json_response, xml_response

pytestmark = pytest.mark.anyio
NCBI = FIXTURES / "ncbi"
HANDLE = {"db": "pubmed", "web_env": "MCID_6934533c4c5abba8c303da1d", "query_key": "1"}


def check_schema(rt, name, data):
    schema = next(t for t in tool_definitions(rt.host) if t.name == name).output_schema
    check_structured(data, schema)


def docsum(uid: str) -> dict:
    return {
        "uid": uid,
        "pubdate": "2020 Jan",
        "source": "J Test",
        "fulljournalname": "Journal of Tests",
        "authors": [{"name": f"Author {uid}", "authtype": "Author", "clusterid": ""}],
        "title": f"Record {uid}.",
        "volume": "1",
        "issue": "2",
        "pages": "3-4",
        "lang": ["eng"],
        "pubtype": ["Journal Article"],
        "articleids": [{"idtype": "pubmed", "idtypen": 1, "value": uid}],
    }


def esummary_route(fake, total: int = 1200):
    """Generated PubMed ESummary JSON: by id list, or a stored set of ``total`` records by retstart/retmax."""

    def handler(req):
        if "id" in req.params:
            uids = req.ids()
        else:
            start, size = int(req.params["retstart"]), int(req.params["retmax"])
            uids = [str(30000000 + i) for i in range(start, min(total, start + size))]
        assert len(uids) <= 500, "ESummary JSON is capped at 500 ids"
        return json_response(
            {"header": {"type": "esummary"}, "result": {"uids": uids, **{u: docsum(u) for u in uids}}}
        )

    fake.route("ncbi", "esummary.fcgi", handler)


def abstract_text(uids):
    return "\n\n\n".join(
        f"{n}. J Test. 2020;1:{n}.\n\nTitle of {u}.\n\nPMID: {u}" for n, u in enumerate(uids, 1)
    )


def efetch_route(fake, total: int = 1200):
    def handler(req):
        if "id" in req.params:
            uids = req.ids()
        else:
            start, size = int(req.params["retstart"]), int(req.params["retmax"])
            uids = [str(30000000 + i) for i in range(start, min(total, start + size))]
        if req.params.get("retmode") == "xml":
            arts = "".join(
                f"<PubmedArticle><MedlineCitation><PMID>{u}</PMID></MedlineCitation></PubmedArticle>"
                for u in uids
            )
            return xml_response(f"<?xml version='1.0'?><PubmedArticleSet>{arts}</PubmedArticleSet>")
        return web.Response(text=abstract_text(uids), content_type="text/plain")

    fake.route("ncbi", "efetch.fcgi", handler)


# ----------------------------------------------------------------------------- esummary


async def test_esummary_pubmed_corpus_json(rt, fake):
    fake.respond("ncbi", "esummary.fcgi", corpus_bytes("ncbi/esummary/esummary_pubmed_json_28806736.json"))
    out = await rt.call("eutils_esummary", {"db": "pubmed", "uids": ["28806736"]})
    assert not out.is_error, out.text
    (rec,) = out.data["records"]
    assert rec["uid"] == "28806736" and rec["authors"][0] == "Nicholas SE" and rec["journal"]
    assert rec["volume"] == "12" and rec["pages"] == "e0182390" and rec["fields"] is None
    assert out.data["batches"] == 1 and out.data["has_more"] is False
    assert out.data["total"] == 1
    check_schema(rt, "eutils_esummary", out.data)
    assert "<<<untrusted-data" in out.text


async def test_esummary_per_id_errors_are_not_a_failed_call(rt, fake):
    fake.respond("ncbi", "esummary.fcgi", (NCBI / "eutils_esummary_pubmed_error.json").read_bytes())
    out = await rt.call("eutils_esummary", {"db": "pubmed", "uids": "31452104,99999999999"})
    assert not out.is_error, out.text
    (rec,) = out.data["records"]
    assert rec["doi"] == "10.1038/s41467-019-11700-0" and rec["pmcid"] == "PMC6713555"
    assert out.data["errors"] == [{"uid": "99999999999", "message": "cannot get document summary"}]
    assert "cannot get document summary" in out.text
    check_schema(rt, "eutils_esummary", out.data)


async def test_esummary_other_database_scalar_fields(rt, fake):
    fake.respond("ncbi", "esummary.fcgi", corpus_bytes("ncbi/esummary/esummary_pmc_v2_json_200ids.json"))
    out = await rt.call("eutils_esummary", {"db": "pmc", "uids": ["PMC7000000"]})
    assert not out.is_error, out.text
    assert len(out.data["records"]) > 100 and out.data["records"][0]["fields"]
    assert fake.of("ncbi", "esummary.fcgi")[0].params["id"] == "7000000"
    check_schema(rt, "eutils_esummary", out.data)
    assert len(out.text) <= 25_500


async def test_esummary_batches_past_500_ids(rt, fake):
    esummary_route(fake)
    uids = [str(20000000 + i) for i in range(1203)]
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    out = await rt.call("eutils_esummary", {"db": "pubmed", "uids": uids}, progress=on_progress)
    assert not out.is_error, out.text
    assert out.data["count"] == 1203 and out.data["batches"] == 3
    reqs = fake.of("ncbi", "esummary.fcgi")
    assert [len(r.ids()) for r in reqs] == [500, 500, 203]
    assert all(r.method == "POST" for r in reqs)  # long id lists go as a form body
    assert progress == [(1, 3), (2, 3), (3, 3)]
    check_schema(rt, "eutils_esummary", out.data)
    assert "[Output cut at" in out.text and "retstart" in out.text


async def test_esearch_handle_to_esummary_and_efetch_without_research(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_pubmed_author_history.xml"))
    esummary_route(fake, total=34)
    efetch_route(fake, total=34)
    search = await rt.call("eutils_esearch", {"db": "pubmed", "term": "hart rk[author]", "retmax": 0})
    handle = search.data["history"]
    summ = await rt.call("eutils_esummary", {"history": handle, "retmax": 20})
    assert not summ.is_error, summ.text
    assert summ.data["count"] == 20 and summ.data["has_more"] and summ.data["next_offset"] == 20
    assert summ.data["total"] == 34 and "20 of 34" in summ.text  # the handle carries the set size
    rest = await rt.call("eutils_esummary", {"history": handle, "db": "pubmed", "retstart": 20, "retmax": 20})
    assert rest.data["count"] == 14 and rest.data["has_more"] is False
    fetched = await rt.call("eutils_efetch", {"history": handle, "retstart": 10, "retmax": 5})
    assert not fetched.is_error, fetched.text
    assert fetched.data["record_count"] == 5 and fetched.data["rettype"] == "abstract"
    check_schema(rt, "eutils_efetch", fetched.data)
    assert len(fake.of("ncbi", "esearch.fcgi")) == 1  # never re-searched
    for req in fake.of("ncbi", "esummary.fcgi") + fake.of("ncbi", "efetch.fcgi"):
        assert req.params["WebEnv"] == handle["web_env"] and req.params["query_key"] == "1"
        assert "term" not in req.params and "id" not in req.params
    assert fake.of("ncbi", "efetch.fcgi")[0].params["retstart"] == "10"


async def test_esummary_history_batches_over_large_page(rt, fake):
    esummary_route(fake, total=2000)
    out = await rt.call("eutils_esummary", {"history": HANDLE, "retmax": 1200})
    assert out.data["count"] == 1200 and out.data["batches"] == 3 and out.data["next_offset"] == 1200
    assert out.data["total"] is None  # a handle without count: the set size is unknown
    assert [r.params["retstart"] for r in fake.of("ncbi", "esummary.fcgi")] == ["0", "500", "1000"]


async def test_esummary_error_inside_200(rt, fake):
    fake.respond("ncbi", "esummary.fcgi", corpus_bytes("ncbi/esummary/esummary_error_invalid_db.xml"))
    out = await rt.call("eutils_esummary", {"db": "fleegle", "uids": "1"})
    assert out.is_error and out.error.reason == "invalid_argument" and "pubmed" in out.error.recovery


# ----------------------------------------------------------------------------- efetch


async def test_efetch_pubmed_xml_corpus(rt, fake):
    fake.respond("ncbi", "efetch.fcgi", corpus_bytes("ncbi/efetch_pubmed/pubmed_11748933_11700088.xml"))
    out = await rt.call("eutils_efetch", {"db": "pubmed", "uids": [11748933, 11700088], "retmode": "xml"})
    assert not out.is_error, out.text
    assert out.data["record_count"] == 2 and out.data["rettype"] is None and out.data["retmode"] == "xml"
    req = fake.of("ncbi", "efetch.fcgi")[0]
    assert req.params["retmode"] == "xml" and "rettype" not in req.params
    check_schema(rt, "eutils_efetch", out.data)
    assert out.text.count("<<<untrusted-data") == 1


async def test_efetch_unknown_ids_give_empty_set_not_error(rt, fake):
    fake.respond("ncbi", "efetch.fcgi", corpus_bytes("ncbi/efetch_pubmed/pubmed_37909814_empty_set.xml"))
    out = await rt.call("eutils_efetch", {"db": "pubmed", "uids": "37909814", "retmode": "xml"})
    assert not out.is_error, out.text
    assert out.data["record_count"] == 0 and "unknown" in out.data["notice"]


async def test_efetch_medline_and_fasta_defaults(rt, fake):
    fake.respond(
        "ncbi",
        "efetch.fcgi",
        corpus_bytes("ncbi/efetch_pubmed/medline_text_result1.txt"),
        content_type="text/plain",
    )
    out = await rt.call("eutils_efetch", {"db": "pubmed", "uids": "12230038", "rettype": "medline"})
    assert out.data["record_count"] >= 1 and out.data["retmode"] == "text"
    fake.respond("ncbi", "efetch.fcgi", ">NP_005537.3 test\nMKV\n>NP_1.1 x\nMA\n", content_type="text/plain")
    out = await rt.call("eutils_efetch", {"db": "protein", "uids": "NP_005537.3,NP_1.1"})
    assert out.data["rettype"] == "fasta" and out.data["record_count"] == 2
    assert fake.of("ncbi", "efetch.fcgi")[-1].params["rettype"] == "fasta"


async def test_efetch_sequence_region_strand_and_complexity(rt, fake):
    fake.respond(
        "ncbi", "efetch.fcgi", ">NC_000017.11:c43125483-43044295 BRCA1\nACGT\n", content_type="text/plain"
    )
    args = {
        "db": "nuccore",
        "uids": "NC_000017.11",
        "seq_start": 43044295,
        "seq_stop": 43125483,
        "strand": "minus",
        "complexity": 1,
    }
    out = await rt.call("eutils_efetch", args)
    assert not out.is_error, out.text
    assert out.data["rettype"] == "fasta" and out.data["record_count"] == 1
    check_schema(rt, "eutils_efetch", out.data)
    (req,) = fake.of("ncbi", "efetch.fcgi")
    assert (
        req.params["seq_start"],
        req.params["seq_stop"],
        req.params["strand"],
        req.params["complexity"],
    ) == (
        "43044295",
        "43125483",
        "2",
        "1",
    )
    assert req.params["id"] == "NC_000017.11" and req.params["rettype"] == "fasta"
    # none of them sent unless asked for
    await rt.call("eutils_efetch", {"db": "nuccore", "uids": "NC_000017.11", "strand": 1})
    req = fake.of("ncbi", "efetch.fcgi")[-1]
    assert req.params["strand"] == "1" and not {"seq_start", "seq_stop", "complexity"} & set(req.params)


async def test_efetch_error_as_record_text_is_tool_error(rt, fake):
    fake.respond(
        "ncbi",
        "efetch.fcgi",
        "<eFetchResult><ERROR>ID list is empty! Possibly it has no correct IDs.</ERROR></eFetchResult>",
    )
    out = await rt.call("eutils_efetch", {"db": "pubmed", "uids": "1", "retmode": "xml"})
    assert out.is_error and "ID list is empty" in out.error.message
    fake.respond("ncbi", "efetch.fcgi", "Error: Cannot retrieve history data.", content_type="text/plain")
    out = await rt.call("eutils_efetch", {"history": HANDLE})
    assert out.is_error and out.error.reason == "ncbi_upstream_error" and "history" in out.error.message


async def test_efetch_batches_xml_through_history(rt, fake):
    efetch_route(fake)
    out = await rt.call("eutils_efetch", {"history": HANDLE, "retmax": 250, "retmode": "xml"})
    assert not out.is_error, out.text
    assert out.data["record_count"] == 250 and out.data["batches"] == 3 and out.data["next_offset"] == 250
    assert [(r.params["retstart"], r.params["retmax"]) for r in fake.of("ncbi", "efetch.fcgi")] == [
        ("0", "100"),
        ("100", "100"),
        ("200", "50"),
    ]


async def test_efetch_500_uids_one_post(rt, fake):
    efetch_route(fake)
    uids = [str(10000000 + i) for i in range(500)]
    out = await rt.call("eutils_efetch", {"db": "pubmed", "uids": uids})
    assert out.data["record_count"] == 500 and out.data["batches"] == 1
    (req,) = fake.of("ncbi", "efetch.fcgi")
    assert req.method == "POST" and len(req.ids()) == 500
    assert "[Output cut at" in out.text and "retstart" in out.text


# ----------------------------------------------------------------------------- search_then_fetch


async def test_search_then_fetch_one_search_one_fetch(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", (NCBI / "eutils_esearch_many.json").read_bytes())
    efetch_route(fake, total=30000)
    out = await rt.call("eutils_search_then_fetch", {"db": "pubmed", "term": "crispr", "retmax": 150})
    assert not out.is_error, out.text
    d = out.data
    assert d["total"] == 24817 and d["retrieved"] == 150 and d["has_more"] and d["next_offset"] == 150
    assert d["history"]["web_env"] == "MCID_65f0c0ffee0123456789abcd"
    assert "10,000" in d["notice"]
    check_schema(rt, "eutils_search_then_fetch", d)
    assert len(fake.of("ncbi", "esearch.fcgi")) == 1 and len(fake.of("ncbi", "efetch.fcgi")) == 1
    assert fake.of("ncbi", "efetch.fcgi")[0].params["query_key"] == "1"


async def test_search_then_fetch_nothing_found(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", corpus_bytes("ncbi/esearch/esearch_empty_phrase_not_found.xml"))
    fake.respond("ncbi", "espell.fcgi", corpus_bytes("ncbi/espell/espell_biopythooon.xml"))
    out = await rt.call("eutils_search_then_fetch", {"db": "pubmed", "term": "biopythooon"})
    assert not out.is_error, out.text
    assert (
        out.data["total"] == 0 and out.data["text"] == "" and out.data["spelling_suggestion"] == "biopython"
    )
    assert fake.of("ncbi", "efetch.fcgi") == []
    check_schema(rt, "eutils_search_then_fetch", out.data)
