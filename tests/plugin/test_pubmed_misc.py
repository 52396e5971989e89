import json

import pytest

from medlit.testing import check_structured

from support.corpus import corpus_path
from support.fake_upstream import xml_response
from support.pubmed_fakes import install, output_schema

pytestmark = pytest.mark.anyio


# ----------------------------------------------------------------------------- pubmed_spell_check


async def test_spell_check_corpus_answers(rt, fake):
    corpus_path("ncbi/espell/espell_netch_mus_musclus.xml")
    install(fake)
    out = await rt.call("pubmed_spell_check", {"query": "Netch AND Mus musclus"})
    assert not out.is_error, out.text
    check_structured(out.data, output_schema(rt, "pubmed_spell_check"))
    # Title case kept, case-only differences ('Mus' -> 'mus') ignored.
    assert out.data["corrected"] == "Notch AND Mus musculus" and out.data["hasSuggestion"]
    assert out.data["espellSuggestion"] == "notch AND mus musculus"
    assert fake.of("ncbi", "espell.fcgi")[0].params == {
        **fake.of("ncbi", "espell.fcgi")[0].params,
        "db": "pubmed",
    }
    assert out.text.index("<<<untrusted-data") < out.text.index("Notch AND Mus musculus")  # fenced
    out = await rt.call("pubmed_spell_check", {"query": "biopythooon", "responseFormat": "json"})
    assert out.data["corrected"] == "biopython" and '"corrected": "biopython"' in out.text
    assert len(fake.of("ncbi")) == 2  # one ESpell per call


async def test_spell_check_keeps_tags_indexed_values_symbols(rt, fake):
    query = "alzhiemer diseese AND agd[mh] AND (zhang y[au] OR BRCA1 cancr[tiab]) AND covid19 q fever"
    espell = "alzheimer disease AND aged[mh] AND (zhang a[au] OR brca1 cancer[tiab]) AND covid q favor"
    fake.respond(
        "ncbi",
        "espell.fcgi",
        f"<?xml version='1.0'?><eSpellResult><Database>pubmed</Database><Query>{query}</Query>"
        f"<CorrectedQuery>{espell}</CorrectedQuery><ERROR/></eSpellResult>",
    )
    out = await rt.call("pubmed_spell_check", {"query": query})
    assert out.data["corrected"] == (
        "alzheimer disease AND agd[mh] AND (zhang y[au] OR BRCA1 cancer[tiab]) AND covid19 q favor"
    )
    assert [c["original"] for c in out.data["corrections"]] == ["alzhiemer", "diseese", "cancr", "fever"]


async def test_spell_check_no_suggestion(rt, fake):
    install(fake)
    out = await rt.call("pubmed_spell_check", {"query": "asthma"})
    assert out.data == {
        "original": "asthma",
        "corrected": "asthma",
        "hasSuggestion": False,
        "corrections": [],
        "espellSuggestion": None,
    }
    assert "No correction" in out.text


@pytest.mark.parametrize("query", ["   ", "\u200b", "()", ""])
async def test_spell_check_blank(rt, fake, query):
    out = await rt.call("pubmed_spell_check", {"query": query})
    assert out.is_error and out.error.reason in ("blank_query", "invalid_argument") and out.error.recovery
    if query.strip("\u200b "):
        assert out.error.reason == "blank_query"
    assert fake.requests == []


async def test_spell_check_fault(rt, fake):
    fake.fault("503", "ncbi", "espell.fcgi", times=10)
    out = await rt.call("pubmed_spell_check", {"query": "asthma"})
    assert out.is_error and out.error.reason == "ncbi_server_error"


# ----------------------------------------------------------------------------- pubmed_lookup_mesh


async def test_mesh_exact_heading_pinned_first(rt, fake):
    install(fake)
    out = await rt.call("pubmed_lookup_mesh", {"query": "Asthma", "maxResults": 3})
    assert not out.is_error, out.text
    check_structured(out.data, output_schema(rt, "pubmed_lookup_mesh"))
    results = out.data["results"]
    assert [r["entrezUid"] for r in results][:2] == ["68001249", "68059366"]
    first = results[0]
    assert first["isExactMatch"] and first["meshId"] == "D001249" and first["name"] == "Asthma"
    assert first["treeNumbers"] == ["C08.127.108", "C08.381.495.108", "C20.543.480.680.095"]
    assert "Bronchial Asthma" in first["entryTerms"] and first["scopeNote"].startswith("A form of bronchial")
    assert first["recordType"] == "descriptor"
    assert out.data["totalCount"] == 3 and out.data.get("nextOffset") is None
    assert len(fake.of("ncbi", "esearch.fcgi")) == 2 and len(fake.of("ncbi", "esummary.fcgi")) == 1
    assert fake.of("ncbi", "esummary.fcgi")[0].params["db"] == "mesh"
    assert "(exact)" in out.text and "<<<untrusted-data" in out.text


async def test_mesh_supplementary_record_from_corpus(rt, fake):
    corpus_path("mesh/esummary_mesh/esummary_mesh_v2_67414177.xml")
    install(fake)
    out = await rt.call("pubmed_lookup_mesh", {"query": "asthma"})
    scr = next(r for r in out.data["results"] if r["entrezUid"] == "67414177")
    assert scr["meshId"] == "C414177" and scr["recordType"] == "supplementary"
    assert scr["name"] == "SLC7A2 protein, human" and scr.get("treeNumbers") is None
    assert scr["mappedTo"] == ["68026923"]


async def test_mesh_paging_and_caps(rt, fake):
    install(fake)
    out = await rt.call(
        "pubmed_lookup_mesh", {"query": "asthma", "offset": 1, "maxResults": 1, "includeDetails": False}
    )
    assert not out.is_error, out.text
    assert len(fake.of("ncbi", "esearch.fcgi")) == 1  # no exact-heading check past the first page
    (r,) = out.data["results"]
    assert r["entrezUid"] == "68001249" and r.get("scopeNote") is None and not r["isExactMatch"]
    assert out.data["nextOffset"] == 2
    out = await rt.call("pubmed_lookup_mesh", {"query": "asthma", "maxResults": 80})
    assert "served 50" in out.data["notice"]
    out = await rt.call("pubmed_lookup_mesh", {"query": "qwzxv"})
    assert out.data["results"] == [] and "No MeSH record" in out.data["notice"]
    out = await rt.call("pubmed_lookup_mesh", {"query": "asthma", "offset": 10})
    assert "past the end" in out.data["notice"]


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"query": "  "}, "blank_query"),
        ({"query": "\u200b\u200b"}, "blank_query"),
        ({"query": "asthma", "maxResults": 0}, "invalid_argument"),
        ({"query": "asthma", "offset": -1}, "invalid_argument"),
        ({"term": "asthma"}, "invalid_argument"),
    ],
)
async def test_mesh_bad_input(rt, fake, args, reason):
    out = await rt.call("pubmed_lookup_mesh", args)
    assert out.is_error and out.error.reason == reason and out.error.recovery
    assert fake.requests == []


# ----------------------------------------------------------------------------- pubmed_convert_ids


async def test_convert_dois_and_pmcids(rt, fake):
    corpus_path("idconv/json/idconv_json_doi_ok.json")
    install(fake)
    schema = output_schema(rt, "pubmed_convert_ids")
    out = await rt.call(
        "pubmed_convert_ids",
        {
            "ids": ["https://doi.org/10.1371/JOURNAL.PONE.0000030", "10.1000/embargoed.1", "10.9999/nothing"],
            "idType": "doi",
        },
    )
    assert not out.is_error, out.text
    check_structured(out.data, schema)
    r = {x["requestedId"]: x for x in out.data["records"]}
    ok = r["10.1371/journal.pone.0000030"]
    assert (ok["pmid"], ok["pmcid"], ok["versions"]) == ("17183658", "PMC1762313", ["PMC1762313.1"])
    assert ok.get("errmsg") is None
    emb = r["10.1000/embargoed.1"]
    assert emb["embargoed"] is True and emb["releaseDate"] == "2031-01-01"
    assert r["10.9999/nothing"]["errmsg"] == "invalid article id"
    assert out.data["totalConverted"] == 2 and out.data["totalSubmitted"] == 3
    assert "PubMed Central" in out.data["notice"]
    (req,) = fake.of("idconv")
    assert req.params["idtype"] == "doi" and req.params["ids"].split(",")[0] == "10.1371/journal.pone.0000030"

    out = await rt.call("pubmed_convert_ids", {"ids": ["1976277", "PMC1976277"], "idType": "pmcid"})
    (rec,) = out.data["records"]  # duplicates folded, bare digits normalised
    assert rec["requestedId"] == "PMC1976277" and rec["pmid"] == "17275915" and rec["nihmsId"] == "NIHMS23764"
    assert fake.of("idconv")[-1].params["ids"] == "PMC1976277"


async def test_convert_200_ids_in_one_request(rt, fake):
    install(fake)
    ids = [str(30_000_000 + i) for i in range(200)]
    out = await rt.call("pubmed_convert_ids", {"ids": ids, "idType": "pmid", "responseFormat": "json"})
    assert not out.is_error, out.text
    assert len(fake.of("idconv")) == 1 and out.data["totalSubmitted"] == 200
    assert json.loads(out.text.split("\n", 1)[1].rsplit("\n", 1)[0])["totalConverted"] == 0


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"ids": ["PMC123"], "idType": "pmid"}, "malformed_id"),
        ({"ids": ["not-a-doi"], "idType": "doi"}, "malformed_id"),
        ({"ids": ["10.1000/x"], "idType": "pmcid"}, "malformed_id"),
        ({"ids": [], "idType": "pmid"}, "empty_id_list"),
        ({"ids": [str(i) for i in range(1, 202)], "idType": "pmid"}, "too_many_ids"),
        ({"ids": ["123"], "idType": "isbn"}, "invalid_argument"),
        ({"ids": ["123"]}, "invalid_argument"),
    ],
)
async def test_convert_bad_input(rt, fake, args, reason):
    out = await rt.call("pubmed_convert_ids", args)
    assert out.is_error and out.error.reason == reason, out.text
    assert out.error.recovery
    assert fake.requests == []


async def test_convert_fault(rt, fake):
    fake.fault("503", "idconv", "", times=10)
    out = await rt.call("pubmed_convert_ids", {"ids": ["123"], "idType": "pmid"})
    assert out.is_error and out.error.reason == "ncbi_server_error"


async def test_database_info_resource_is_cached(rt, fake):
    spec = rt.host.resources["pubmed://database/info"]
    ctx = rt.context(spec.plugin)
    first = json.loads(await spec.read(ctx))
    again = await spec.read(ctx)
    assert json.loads(again) == first
    assert first["database"] == "pubmed" and first["recordCount"] > 1_000_000
    assert any(f["tag"] == "MESH" for f in first["searchFields"])
    assert any(li["name"] == "pubmed_pubmed" for li in first["links"])
    assert len(fake.of("ncbi", "einfo.fcgi")) == 1


async def test_database_info_resource_fault(rt, fake):
    fake.route("ncbi", "einfo.fcgi", lambda req: xml_response("<x/>", 503))
    spec = rt.host.resources["pubmed://database/info"]
    from medlit.core.errors import MedlitError

    with pytest.raises(MedlitError) as info:
        await spec.read(rt.context(spec.plugin))
    assert info.value.reason == "ncbi_server_error"
