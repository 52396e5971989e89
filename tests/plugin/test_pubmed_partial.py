"""pubmed_* tools: what the caller sees for partial misses (unknown PMIDs, missing summaries) and
NCBI errors inside HTTP 200; one request for PMIDs a call already read. Hand-written answers
only (tests/fixtures/ncbi): no corpus."""

import json

import pytest
from lxml import etree

from support.fake_upstream import FIXTURES, json_response, xml_response

pytestmark = pytest.mark.anyio
NCBI = FIXTURES / "ncbi"
KNOWN = "31000001"  # a journal article in pubmed_metadata_records.xml
UNKNOWN = "39999991"


def serve_records(fake) -> None:
    """EFetch PubMed XML from the fixture records: unknown PMIDs are silently left out, as NCBI does."""
    root = etree.fromstring((NCBI / "pubmed_metadata_records.xml").read_bytes())
    by_pmid = {}
    for rec in root:
        pmid = rec.findtext("MedlineCitation/PMID") or rec.findtext("BookDocument/PMID")
        by_pmid[pmid] = etree.tostring(rec)

    def handler(req):
        body = b"".join(by_pmid[i] for i in req.ids() if i in by_pmid)
        return xml_response(b"<?xml version='1.0'?><PubmedArticleSet>" + body + b"</PubmedArticleSet>")

    fake.route("ncbi", "efetch.fcgi", handler)


# ----------------------------------------------------------------------------- unknown PMIDs


async def test_fetch_articles_names_the_unknown_pmid(rt, fake):
    serve_records(fake)
    out = await rt.call("pubmed_fetch_articles", {"pmids": [KNOWN, UNKNOWN]})
    assert not out.is_error, out.text
    assert [a["pmid"] for a in out.data["articles"]] == [KNOWN]
    assert out.data["unavailablePmids"] == [UNKNOWN]
    assert out.data["notice"] == "PubMed returned nothing for 1 PMID(s): see unavailablePmids."
    assert UNKNOWN in out.text
    (req,) = fake.of("ncbi", "efetch.fcgi")
    assert req.ids() == [KNOWN, UNKNOWN]


async def test_format_citations_names_the_unknown_pmid_and_reuses_fetched_records(rt, fake):
    serve_records(fake)
    fetched = await rt.call("pubmed_fetch_articles", {"pmids": [KNOWN]})
    assert not fetched.is_error, fetched.text
    out = await rt.call("pubmed_format_citations", {"pmids": [KNOWN, UNKNOWN], "format": "vancouver"})
    assert not out.is_error, out.text
    assert [c["pmid"] for c in out.data["citations"]] == [KNOWN]
    assert out.data["unavailablePmids"] == [UNKNOWN]
    assert (out.data["totalSubmitted"], out.data["totalFormatted"]) == (2, 1)
    assert out.data["notice"] == "No record for 1 PMID(s); see unavailablePmids."
    assert "**1 of 2 formatted**" in out.text and "Notice: No record for 1 PMID(s)" in out.text
    # The record read a moment ago is not fetched again: only the unknown PMID is asked for.
    assert [r.ids() for r in fake.of("ncbi", "efetch.fcgi")] == [[KNOWN], [UNKNOWN]]


async def test_format_citations_all_unknown_points_to_search(rt, fake):
    serve_records(fake)
    out = await rt.call("pubmed_format_citations", {"pmids": [UNKNOWN]})
    assert not out.is_error, out.text
    assert out.data["citations"] == [] and out.data["unavailablePmids"] == [UNKNOWN]
    assert "pubmed_search_articles" in out.data["notice"]


async def test_search_names_pmids_without_a_summary(rt, fake):
    search = json.loads((NCBI / "pubmed_esearch.json").read_bytes())
    search["esearchresult"]["idlist"] = ["27797938", UNKNOWN]
    fake.respond("ncbi", "esearch.fcgi", json.dumps(search).encode())
    docs = json.loads((NCBI / "pubmed_esummary.json").read_bytes())["result"]
    fake.respond(
        "ncbi",
        "esummary.fcgi",
        json.dumps(
            {
                "result": {
                    "uids": ["27797938", UNKNOWN],
                    "27797938": docs["27797938"],
                    UNKNOWN: {"uid": UNKNOWN, "error": "cannot get document summary"},
                }
            }
        ).encode(),
    )
    out = await rt.call(
        "pubmed_search_articles", {"query": "mitochondria", "maxResults": 2, "summaryCount": 2}
    )
    assert not out.is_error, out.text
    assert out.data["pmids"] == ["27797938", UNKNOWN]
    assert [s["pmid"] for s in out.data["summaries"]] == ["27797938"]
    assert f"No summary was available for PMID(s) {UNKNOWN}." in out.data["notice"]


async def test_mesh_names_a_uid_ncbi_sent_no_summary_for(rt, fake):
    fake.route(
        "ncbi",
        "esearch.fcgi",
        lambda req: json_response(
            {
                "esearchresult": {
                    "count": "2",
                    "idlist": [] if "[mh]" in req.params["term"] else ["68001249", "68999999"],
                }
            }
        ),
    )
    fake.respond("ncbi", "esummary.fcgi", (NCBI / "pubmed_mesh_esummary.xml").read_bytes())
    out = await rt.call("pubmed_lookup_mesh", {"query": "asthma"})
    assert not out.is_error, out.text
    assert [r["entrezUid"] for r in out.data["results"]] == ["68001249"]
    assert "68999999" in out.data["notice"] and "eutils_esummary" in out.data["notice"]
    assert "68999999" in out.text


# ----------------------------------------------------------------------------- NCBI errors inside HTTP 200


async def test_spell_check_error_inside_200_is_the_tools_error(rt, fake):
    fake.respond(
        "ncbi",
        "espell.fcgi",
        "<?xml version='1.0'?><eSpellResult><ERROR>Invalid db name specified: pubmed</ERROR></eSpellResult>",
    )
    out = await rt.call("pubmed_spell_check", {"query": "asthmaa"})
    assert out.is_error and out.error.reason == "ncbi_resource_not_found", out.text
    assert "Invalid db name" in out.error.message and out.error.recovery


async def test_spell_check_transient_error_inside_200_is_retried(rt, fake):
    fake.respond(
        "ncbi",
        "espell.fcgi",
        "<?xml version='1.0'?><eSpellResult><Database>pubmed</Database><Query>asthmaa</Query>"
        "<CorrectedQuery>asthma</CorrectedQuery><SpelledQuery><Replaced>asthma</Replaced></SpelledQuery>"
        "<ERROR/></eSpellResult>",
    )
    fake.fault(
        "ncbi_error_200", "ncbi", "espell.fcgi", root="eSpellResult", message="Backend failed: timeout"
    )
    out = await rt.call("pubmed_spell_check", {"query": "asthmaa"})
    assert not out.is_error, out.text
    assert out.data["corrected"] == "asthma" and len(fake.of("ncbi", "espell.fcgi")) == 2


async def test_mesh_error_inside_200_is_the_tools_error(rt, fake):
    fake.respond("ncbi", "esearch.fcgi", b'{"esearchresult": {"ERROR": "Invalid query syntax"}}')
    out = await rt.call("pubmed_lookup_mesh", {"query": "asthma"})
    assert out.is_error and out.error.reason == "ncbi_upstream_error", out.text
    assert "Invalid query syntax" in out.error.message
    assert fake.of("ncbi", "esummary.fcgi") == []


async def test_format_citations_error_inside_200_is_the_tools_error(rt, fake):
    fake.fault(
        "ncbi_error_200",
        "ncbi",
        "efetch.fcgi",
        root="eFetchResult",
        message="Invalid db name specified: pubmed",
    )
    out = await rt.call("pubmed_format_citations", {"pmids": [KNOWN]})
    assert out.is_error and out.error.reason == "ncbi_resource_not_found", out.text
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1  # not a transient fault: not retried


async def test_lookup_citation_check_error_inside_200_keeps_the_matches(rt, fake):
    fake.respond(
        "ncbi", "ecitmatch.cgi", (NCBI / "pubmed_ecitmatch.txt").read_bytes(), content_type="text/plain"
    )
    fake.fault(
        "ncbi_error_200", "ncbi", "esummary.fcgi", root="eSummaryResult", message="Invalid db name specified"
    )
    out = await rt.call(
        "pubmed_lookup_citation",
        {
            "citations": [
                {"journal": "proc natl acad sci u s a", "year": "1991", "volume": "88", "firstPage": "3248"}
            ]
        },
    )
    assert not out.is_error, out.text
    assert "could not be checked" in out.data["notice"] and "verify" in out.data["notice"]
