import pytest

from medlit.testing import check_structured

from support.corpus import corpus_path
from support.pubmed_fakes import install, output_schema, record_index

pytestmark = pytest.mark.anyio


# ----------------------------------------------------------------------------- pubmed_lookup_citation

CITATIONS = [
    {
        "journal": "proc natl acad sci u s a",
        "year": "1991",
        "volume": "88",
        "firstPage": "3248",
        "authorName": "mann bj",
        "key": "ref-A",
    },
    {
        "journal": "science",
        "year": "1986",
        "volume": "235",
        "firstPage": "182",
        "authorName": "palmenberg ac",
    },
    {"journal": "nature", "year": "2020", "volume": "999", "firstPage": "1", "authorName": "nobody x"},
    {"journal": "gut", "year": "2017", "volume": "66", "firstPage": "1", "authorName": "bao y"},
    {"journal": "j biol chem", "year": 1999, "volume": "274", "firstPage": "7196", "authorName": "smith j"},
]


async def test_lookup_citation_matches_and_warnings(rt, fake):
    install(fake)
    out = await rt.call("pubmed_lookup_citation", {"citations": CITATIONS})
    assert not out.is_error, out.text
    check_structured(out.data, output_schema(rt, "pubmed_lookup_citation"))
    # one ECitMatch for every citation, one esummary to check the matches
    (cm,) = fake.of("ncbi", "ecitmatch.cgi")
    lines = cm.params["bdata"].split("\r")
    assert lines[0] == "proc natl acad sci u s a|1991|88|3248|mann bj|1|" and len(lines) == 5
    assert "ref-A" not in cm.params["bdata"]  # caller keys are never sent
    (summ,) = fake.of("ncbi", "esummary.fcgi")
    assert summ.ids() == ["2014248", "3026048", "10066780"]
    r = out.data["results"]
    assert [x["key"] for x in r] == ["ref-A", "2", "3", "4", "5"]
    assert r[0]["status"] == "matched" and r[0]["pmid"] == "2014248" and r[0]["matched"]
    assert (
        r[0]["matchedFirstAuthor"] == "Mann BJ"
        and r[0]["matchedYear"] == 1991
        and r[0].get("warnings") is None
    )
    assert [w["code"] for w in r[1]["warnings"]] == ["year_mismatch"]
    assert r[2]["status"] == "not_found" and r[2]["detail"] == "INVALID_JOURNAL" and not r[2]["matched"]
    assert r[3]["status"] == "ambiguous" and r[3]["candidatePmids"] == ["27797938", "28775130"]
    (w,) = r[4]["warnings"]
    assert w["code"] == "author_mismatch" and "Fan Y" in w["message"] and "later author" in w["message"]
    assert (out.data["totalSubmitted"], out.data["totalMatched"], out.data["totalWarnings"]) == (5, 3, 2)
    assert "warning author_mismatch" in out.text


async def test_lookup_citation_survives_failed_check(rt, fake):
    install(fake)
    fake.fault("503", "ncbi", "esummary.fcgi", times=10)
    out = await rt.call("pubmed_lookup_citation", {"citations": CITATIONS[:1]})
    assert not out.is_error, out.text
    assert out.data["results"][0]["pmid"] == "2014248" and "could not be checked" in out.data["notice"]


@pytest.mark.parametrize(
    ("citation", "reason"),
    [
        ({"volume": "88", "firstPage": "3248", "authorName": "mann bj"}, "insufficient_citation"),
        ({"journal": "proc|natl", "year": "1991"}, "invalid_citation"),
        ({"journal": "proc natl\nacad", "year": "1991"}, "invalid_citation"),
        ({"journal": "   ", "year": "1991"}, "invalid_citation"),
        ({"journal": "science", "year": "91"}, "invalid_year"),
        ({"journal": "science", "pages": "1"}, "invalid_argument"),
    ],
)
async def test_lookup_citation_bad_input(rt, fake, citation, reason):
    out = await rt.call("pubmed_lookup_citation", {"citations": [CITATIONS[0], citation]})
    assert out.is_error and out.error.reason == reason, out.text
    assert out.error.recovery
    assert fake.requests == []


async def test_lookup_citation_empty_list(rt, fake):
    out = await rt.call("pubmed_lookup_citation", {"citations": []})
    assert out.is_error and out.error.reason == "invalid_argument" and fake.requests == []


async def test_lookup_citation_fault(rt, fake):
    fake.fault("503", "ncbi", "ecitmatch.cgi", times=10)
    out = await rt.call("pubmed_lookup_citation", {"citations": CITATIONS[:1]})
    assert out.is_error and out.error.reason == "ncbi_server_error"


# ----------------------------------------------------------------------------- pubmed_format_citations

JOURNAL, CHAPTER, COLLECTIVE, RETRACTED = "27797938", "20301382", "34843274", "10066780"


@pytest.fixture
async def formatted(rt, fake):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    out = await rt.call(
        "pubmed_format_citations",
        {"pmids": [JOURNAL, CHAPTER, COLLECTIVE, RETRACTED, "99999999"], "format": "all"},
    )
    assert not out.is_error, out.text
    check_structured(out.data, output_schema(rt, "pubmed_format_citations"))
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1
    return out, {c["pmid"]: c for c in out.data["citations"]}


async def test_every_style_on_the_four_kinds(formatted):
    out, by = formatted
    assert out.data["unavailablePmids"] == ["99999999"]
    assert (out.data["totalSubmitted"], out.data["totalFormatted"]) == (5, 4)
    for c in by.values():
        assert list(c["citations"]) == ["apa", "mla", "vancouver", "bibtex", "ris"]
        assert c["citations"]["bibtex"].startswith("@") and c["citations"]["bibtex"].rstrip().endswith("}")
        assert c["citations"]["ris"].startswith("TY  - ") and c["citations"]["ris"].rstrip().endswith("ER  -")

    j = by[JOURNAL]["citations"]
    assert j["apa"].startswith("Bao, Y., Prescott, J.,") and "(2017)" in j["apa"]
    assert "https://doi.org/10.1136/gutjnl-2016-312510" in j["apa"]
    assert j["mla"].startswith("Bao, Ying, et al.") and "vol. 66, no. 6" in j["mla"]
    assert j["vancouver"].startswith("Bao Y, Prescott J, Yuan C, Zhang M, Kraft P, Babic A, et al.")
    assert "Gut. 2017 Jun;66(6):1116-1122." in j["vancouver"] and "PMCID: PMC5442267" in j["vancouver"]
    assert j["bibtex"].startswith("@article{") and "TY  - JOUR" in j["ris"]

    ch = by[CHAPTER]
    assert ch["recordType"] == "book-chapter"
    c = ch["citations"]
    assert (
        c["apa"].startswith("Goldstein, A., & Falk, M. J. (2023). Single Large-Scale")
        and "(Eds.), GeneReviews®" in c["apa"]
    )
    assert "edited by Margaret P. Adam et al." in c["mla"]
    assert (
        "In: Adam MP, Feldman J" in c["vancouver"]
        and "GeneReviews® [Internet]. Seattle (WA)" in c["vancouver"]
    )
    assert (
        c["bibtex"].startswith("@incollection{")
        and "TY  - CHAP" in c["ris"]
        and "A2  - Adam, Margaret P." in c["ris"]
    )

    g = by[COLLECTIVE]["citations"]
    group = "Guideline Development Panel for the Treatment of Depressive Disorders"
    assert g["apa"].startswith(group + ". (2022).")
    assert g["mla"].startswith(group + ".") and g["vancouver"].startswith(group + ".")
    assert "author = {{" + group + "}}" in g["bibtex"] and f"AU  - {group}" in g["ris"]

    r = by[RETRACTED]
    assert r["isRetracted"]
    assert [(n["refType"], n.get("pmid")) for n in r["notices"]] == [
        ("ErratumIn", None),
        ("RetractionIn", "11905463"),
    ]
    assert "Retracted; see PMID 11905463" in r["correctionNotes"]
    rc = r["citations"]
    assert "Retracted; see PMID 11905463" in rc["apa"] and "Retracted; see PMID 11905463" in rc["mla"]
    assert "Retraction in: J Biol Chem. 2001 Mar 30;276(13):10576." in rc["vancouver"]
    assert "11905463" in rc["bibtex"] and "11905463" in rc["ris"]
    assert by[JOURNAL].get("notices") is None


async def test_markdown_rendering(formatted):
    out, _ = formatted
    assert (
        "<<<untrusted-data" in out.text
        and "PMID 10066780 — RETRACTED" in out.text
        and "VANCOUVER:" in out.text
    )


async def test_single_style_default_and_aliases(rt, fake):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    out = await rt.call("pubmed_format_citations", {"pmids": [JOURNAL]})
    assert list(out.data["citations"][0]["citations"]) == ["apa"]
    out = await rt.call(
        "pubmed_format_citations", {"pmids": [JOURNAL], "format": ["NLM", "bibtex", "bibtex", "APA7", "mla9"]}
    )
    assert list(out.data["citations"][0]["citations"]) == ["vancouver", "bibtex", "apa", "mla"]
    out = await rt.call("pubmed_format_citations", {"pmids": ["99999999"]})
    assert out.data["citations"] == [] and "pubmed_search_articles" in out.data["notice"]


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"pmids": ["1"], "format": "harvard"}, "invalid_style"),
        ({"pmids": ["1"], "format": []}, "invalid_style"),
        ({"pmids": [str(i) for i in range(1, 52)]}, "too_many_ids"),
        ({"pmids": ["x1"]}, "malformed_id"),
        ({"pmids": []}, "empty_id_list"),
        ({"pmids": ["1"], "styel": "apa"}, "invalid_argument"),
    ],
)
async def test_format_bad_input(rt, fake, args, reason):
    out = await rt.call("pubmed_format_citations", args)
    assert out.is_error and out.error.reason == reason, out.text
    assert out.error.recovery
    assert fake.requests == []


async def test_format_fault(rt, fake):
    fake.fault(
        "ncbi_error_200", "ncbi", "efetch.fcgi", times=10, root="eFetchResult", message="Status: Timeout"
    )
    out = await rt.call("pubmed_format_citations", {"pmids": ["1"]})
    assert out.is_error and out.error.reason == "ncbi_unreachable" and out.error.retryable


async def test_format_accepts_styles_alias(rt, fake):
    corpus_path("ncbi/efetch_pubmed/pubmed_10066780_retracted_publication_fragment.xml")
    install(fake)
    out = await rt.call("pubmed_format_citations", {"pmids": ["10066780"], "styles": "vancouver"})
    assert not out.is_error, out.text
    assert "Retraction in:" in out.text
