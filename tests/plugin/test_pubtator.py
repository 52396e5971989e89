"""The PubTator3 tools against the fake of tests/support/pubtator_routes.py: requests sent per call (one
export for 100 PMIDs, PMCID batches, one autocomplete, one search per page, relations plus one
search per top entity), the grouping of annotations, unknown ids, deferral, refused input before
any request, upstream errors and the record cache."""

from __future__ import annotations

import pytest

from medlit.plugins.pubtator.service import PMCID_BATCH
from medlit.testing import check_structured, tool_definitions

from support.fake_upstream import json_response
from support.pubtator_routes import FIXTURE_PMCID, FIXTURE_PMIDS, install

pytestmark = pytest.mark.anyio
EXPORT = "publications/export/biocjson"


@pytest.fixture
def schemas(rt):
    return {t.name: t.output_schema for t in tool_definitions(rt.host) if t.name.startswith("pubtator_")}


def check(out, schemas, tool):
    assert not out.is_error, out.text
    check_structured(out.data, schemas[tool])
    return out.data


# ----------------------------------------------------------------------------- find_entity


async def test_find_entity_current_shape_one_request(rt, fake, schemas):
    install(fake)
    out = await rt.call("pubtator_find_entity", {"query": "BRAF", "concept": "gene", "limit": 2})
    data = check(out, schemas, "pubtator_find_entity")
    assert data["matches"][0] == {
        "id": "@GENE_BRAF", "type": "Gene", "name": "BRAF", "database": "ncbi_gene", "databaseId": "673",
        "description": "All Species", "matchedOn": "Matched on name BRAF",
    }  # fmt: skip
    assert data.get("notice") is None and data["concept"] == "GENE"
    reqs = fake.of("pubtator", "entity/autocomplete/")
    assert len(fake.requests) == 1 and reqs[0].params == {"query": "BRAF", "concept": "GENE", "limit": "2"}
    assert "@GENE_BRAF" in out.text and "ncbi_gene:673" in out.text


async def test_find_entity_legacy_shape_has_no_database_id_and_says_so(rt, fake, schemas):
    install(fake, legacy=True)
    out = await rt.call("pubtator_find_entity", {"query": "BRAF"})
    data = check(out, schemas, "pubtator_find_entity")
    assert [m["id"] for m in data["matches"]][:1] == ["@GENE_BRAF"]
    assert data["matches"][0].get("databaseId") is None and "no database id" in data["notice"]


async def test_find_entity_mesh_prefix_dropped_and_nothing_found_explained(rt, fake, schemas):
    install(fake)
    out = await rt.call("pubtator_find_entity", {"query": "melanoma", "concept": "DISEASE"})
    data = check(out, schemas, "pubtator_find_entity")
    assert [m["databaseId"] for m in data["matches"]] == ["D008545", "C562393"]
    out = await rt.call("pubtator_find_entity", {"query": "qqqzzz"})
    data = check(out, schemas, "pubtator_find_entity")
    assert data["matches"] == [] and "suggests no entity" in data["notice"]


# ----------------------------------------------------------------------------- search


async def test_two_entity_search_one_request_per_page(rt, fake, schemas):
    state = install(fake)
    out = await rt.call("pubtator_search", {"query": "@gene_BRAF AND @DISEASE_Melanoma"})
    data = check(out, schemas, "pubtator_search")
    assert state.texts == ["@GENE_BRAF AND @DISEASE_Melanoma"] and len(fake.requests) == 1
    assert (
        data["total"] == 42 and data["totalPages"] == 5 and data["nextPage"] == 2 and len(data["hits"]) == 10
    )
    hit = data["hits"][0]
    assert hit["pmid"] == "31000000" and hit["passageEntities"] == ["@GENE_BRAF", "@DISEASE_Melanoma"]
    assert "**BRAF**" in hit["passage"] and "@@@" not in hit["passage"] and hit["date"] == "2023-05-01"
    assert data["facets"] == {"year": [{"value": "2023", "count": 42}]}
    last = await rt.call("pubtator_search", {"query": "@GENE_BRAF AND @DISEASE_Melanoma", "page": 5})
    assert len(last.data["hits"]) == 2 and last.data.get("nextPage") is None
    assert fake.of("pubtator", "search/")[1].params["page"] == "5"


async def test_relation_search_is_normalised(rt, fake):
    state = install(fake)
    out = await rt.call(
        "pubtator_search", {"query": "relations:TREAT|@chemical_Dabrafenib|@DISEASE_Melanoma"}
    )
    assert not out.is_error, out.text
    assert state.texts == ["relations:treat|@CHEMICAL_Dabrafenib|@DISEASE_Melanoma"]


async def test_empty_search_with_empty_facets_is_a_result(rt, fake, schemas):
    install(fake)
    out = await rt.call("pubtator_search", {"query": "xyzzy12345nonexistent98765"})
    data = check(out, schemas, "pubtator_search")
    assert (
        data["total"] == 0 and data["hits"] == [] and data["facets"] == {} and "No article" in data["notice"]
    )


async def test_corpus_search_page_reads(rt, fake, schemas):
    from support.corpus import corpus_path

    corpus_path("pubtator/search/search_brca1_page1_with_facets.json")
    install(fake)
    out = await rt.call("pubtator_search", {"query": "BRCA1"})
    data = check(out, schemas, "pubtator_search")
    assert data["total"] == 61105 and data["totalPages"] == 6111 and len(data["hits"]) == 10
    assert set(data["facets"]) == {"journal", "type", "year"}
    assert data["hits"][0]["pmid"] == "34083286" and data["hits"][0].get("pmcid") is None


# ----------------------------------------------------------------------------- annotations


async def test_annotations_for_three_pmids_in_one_request(rt, fake, schemas):
    install(fake)
    out = await rt.call("pubtator_annotations", {"pmids": FIXTURE_PMIDS})
    data = check(out, schemas, "pubtator_annotations")
    reqs = fake.of("pubtator", EXPORT)
    assert len(fake.requests) == 1 and reqs[0].ids("pmids") == FIXTURE_PMIDS
    assert [d["pmid"] for d in data["documents"]] == FIXTURE_PMIDS and data["notFound"] == []
    first = data["documents"][0]
    by_id = {e.get("id") or e["name"]: e for e in first["entities"]}
    braf = by_id["@GENE_BRAF"]
    assert braf["normalizedId"] == "673" and braf["database"] == "ncbi_gene" and braf["mentionCount"] == 2
    assert [(m["text"], m["passage"]) for m in braf["mentions"]] == [("BRAF", "title"), ("BRAF", "abstract")]
    assert by_id["@DISEASE_Melanoma"]["normalizedId"] == "D008545"  # a string beside the int above
    assert by_id["9606"]["type"] == "Species" and by_id["9606"]["normalizedId"] == "9606"
    unnormalised = by_id["XYZ9"]
    assert (
        unnormalised["valid"] is False
        and unnormalised.get("normalizedId") is None
        and unnormalised.get("id") is None
    )
    assert first["countsByType"] == {"Gene": 3, "Disease": 1, "Chemical": 1, "Species": 1}
    assert first["mentionCount"] == 9 and first["entityCount"] == 6
    assert [(r["type"], r["entity1"]["id"], r["entity2"]["id"]) for r in first["relations"]] == [
        ("treat", "@CHEMICAL_dabrafenib", "@DISEASE_Melanoma"),
        ("associate", "@DISEASE_Melanoma", "@GENE_BRAF"),
    ]
    assert (
        first["relations"][0]["kind"] == "Negative_Correlation" and first["relations"][0]["score"] == 0.9912
    )
    assert "not normalised" in out.text and "<<<untrusted-data" in out.text


async def test_hundred_pmids_one_request_unknown_listed(rt, fake, schemas):
    unknown = {"39000050", "39000099"}
    install(fake, unknown=unknown)
    pmids = [str(39_000_000 + i) for i in range(100)]
    out = await rt.call("pubtator_annotations", {"pmids": pmids, "mentionsPerEntity": 0})
    data = check(out, schemas, "pubtator_annotations")
    assert len(fake.requests) == 1 and fake.requests[0].ids("pmids") == pmids
    assert data["notFound"] == ["39000050", "39000099"] and data["totalReturned"] == 98
    assert all(
        e["mentions"] == [] and e["mentionCount"] == 1 for d in data["documents"] for e in d["entities"]
    )
    assert "39000050" in data["notice"]


async def test_pmcids_full_text_in_batches(rt, fake, schemas):
    install(fake)
    pmcids = [FIXTURE_PMCID] + [f"PMC{8_000_000 + i}" for i in range(PMCID_BATCH * 2)]
    out = await rt.call("pubtator_annotations", {"pmcids": pmcids})
    data = check(out, schemas, "pubtator_annotations")
    reqs = fake.of("pubtator", EXPORT)
    assert len(reqs) == 3 and [i for r in reqs for i in r.ids("pmcids")] == pmcids
    assert all("pmids" not in r.params for r in reqs)
    doc = data["documents"][0]
    assert doc["pmcid"] == FIXTURE_PMCID and doc["pmid"] == "30000004" and doc["fullText"] is True
    passages = {m["passage"] for e in doc["entities"] for m in e["mentions"]}
    assert {"TITLE", "INTRO"} <= passages
    variant = next(e for e in doc["entities"] if e["type"] == "Variant")
    assert (
        variant["normalizedId"] == "rs113488022"
        and variant["hgvs"] == "p.V600E"
        and variant["rsid"] == "rs113488022"
        and variant["mentionCount"] == 2
    )
    assert data["notFound"] == pmcids[1:]
    assert doc["relations"][0]["type"] == "inhibit"


async def test_pmcids_given_bare_and_duplicated_fold(rt, fake):
    install(fake)
    out = await rt.call("pubtator_annotations", {"pmcids": ["7000004", "pmc7000004"]})
    assert not out.is_error and fake.requests[0].ids("pmcids") == [FIXTURE_PMCID]


async def test_max_response_characters_defers_whole_documents(rt, fake, schemas):
    install(fake)
    out = await rt.call("pubtator_annotations", {"pmids": FIXTURE_PMIDS, "maxResponseCharacters": 100})
    data = check(out, schemas, "pubtator_annotations")
    assert [d["pmid"] for d in data["documents"]] == FIXTURE_PMIDS[:1]  # the first always returns
    assert data["deferred"]["ids"] == FIXTURE_PMIDS[1:] and data["truncated"] is True
    assert "pmids=deferred.ids" in data["notice"]


async def test_a_failed_batch_is_named_and_the_rest_answered(rt, fake, schemas):
    install(fake)
    fake.fault("400", "pubtator", EXPORT, times=1)
    pmcids = [FIXTURE_PMCID] + [f"PMC{8_000_000 + i}" for i in range(PMCID_BATCH)]
    out = await rt.call("pubtator_annotations", {"pmcids": pmcids})
    data = check(out, schemas, "pubtator_annotations")
    failed = data["unavailable"]
    assert len(failed) == 1 and failed[0]["reason"] == "pubtator_bad_request" and not failed[0]["retryable"]
    assert sorted(failed[0]["ids"] + data["notFound"] + [d["pmcid"] for d in data["documents"]]) == sorted(
        pmcids
    )


async def test_every_batch_failing_is_an_error(rt, fake):
    install(fake)
    fake.fault("503", "pubtator", EXPORT, times=50)
    out = await rt.call("pubtator_annotations", {"pmids": FIXTURE_PMIDS})
    assert out.is_error and out.error.reason == "pubtator_server_error" and out.error.retryable


async def test_oversized_batch_is_split_and_asked_again(make_runtime, fake):
    install(fake)
    pmids = FIXTURE_PMIDS + [str(39_100_000 + i) for i in range(10)]  # ~17 KB of documents
    async with make_runtime(MEDLIT_MAX_BODY_BYTES="10000") as rt:
        out = await rt.call("pubtator_annotations", {"pmids": pmids})
    assert not out.is_error, out.text
    assert [d["pmid"] for d in out.data["documents"]] == pmids and out.data["unavailable"] == []
    asked = [r.ids("pmids") for r in fake.of("pubtator", EXPORT)]
    assert asked[0] == pmids and len(asked) > 2  # the whole batch, then halves until each fits


async def test_error_object_in_200_is_refused_input(rt, fake):
    fake.respond("pubtator", EXPORT, {"detail": "Invalid pmids format"})
    out = await rt.call("pubtator_annotations", {"pmids": ["1"]})
    assert (
        out.is_error and out.error.reason == "pubtator_bad_request" and "Invalid pmids" in out.error.message
    )
    assert len(fake.requests) == 1


async def test_record_cache_asks_only_for_new_pmids(make_runtime, fake, tmp_path):
    install(fake)
    env = {"MEDLIT_CACHE": f"sqlite:///{tmp_path / 'c.sqlite3'}"}
    async with make_runtime(**env) as rt:
        first = await rt.call("pubtator_annotations", {"pmids": FIXTURE_PMIDS[:2]})
        again = await rt.call("pubtator_annotations", {"pmids": FIXTURE_PMIDS, "mentionsPerEntity": 0})
    assert not first.is_error and not again.is_error, again.text
    assert [r.ids("pmids") for r in fake.of("pubtator", EXPORT)] == [FIXTURE_PMIDS[:2], FIXTURE_PMIDS[2:]]
    assert [d["pmid"] for d in again.data["documents"]] == FIXTURE_PMIDS


async def test_record_cache_keeps_full_texts_by_pmcid(make_runtime, fake, tmp_path):
    install(fake)
    env = {"MEDLIT_CACHE": f"sqlite:///{tmp_path / 'c.sqlite3'}"}
    async with make_runtime(**env) as rt:
        first = await rt.call("pubtator_annotations", {"pmcids": [FIXTURE_PMCID]})
        again = await rt.call("pubtator_annotations", {"pmcids": [FIXTURE_PMCID], "mentionsPerEntity": 1})
        by_pmid = await rt.call("pubtator_annotations", {"pmids": ["30000004"]})
    assert not first.is_error and not again.is_error and not by_pmid.is_error
    exports = fake.of("pubtator", EXPORT)
    assert [r.params for r in exports] == [
        {"pmcids": FIXTURE_PMCID},
        {"pmids": "30000004"},
    ]  # PMID: its own scope
    assert again.data["documents"][0]["pmcid"] == FIXTURE_PMCID


# ----------------------------------------------------------------------------- related


async def test_related_chemicals_treating_a_disease_with_pmids(rt, fake, schemas):
    state = install(fake)
    out = await rt.call(
        "pubtator_related",
        {"entity": "@DISEASE_Melanoma", "relation": "treat", "type": "chemical", "pmidsFor": 2},
    )
    data = check(out, schemas, "pubtator_related")
    rel = fake.of("pubtator", "relations")
    assert len(rel) == 1 and rel[0].params == {"e1": "@DISEASE_Melanoma", "type": "treat", "e2": "CHEMICAL"}
    assert len(fake.of("pubtator", "search/")) == 2 and len(fake.requests) == 3
    ids = [r["id"] for r in data["related"]]
    assert ids == ["@CHEMICAL_Vemurafenib", "@CHEMICAL_dabrafenib", "@CHEMICAL_trametinib",
                   "@CHEMICAL_Ipilimumab", "@CHEMICAL_Dacarbazine"]  # fmt: skip
    top = data["related"][0]
    assert top["publications"] == 2410 and top["type"] == "Chemical" and top["relation"] == "treat"
    assert top["searchQuery"] == "relations:treat|@CHEMICAL_Vemurafenib|@DISEASE_Melanoma"
    assert len(top["pmids"]) == 10 and data["related"][2]["pmids"] == []
    assert state.texts == [r["searchQuery"] for r in data["related"][:2]]
    assert data["total"] == 5 and "searchQuery" in data["notice"]


async def test_related_any_relation_no_pmid_searches(rt, fake, schemas):
    install(fake)
    out = await rt.call("pubtator_related", {"entity": "@DISEASE_Melanoma", "pmidsFor": 0, "limit": 3})
    data = check(out, schemas, "pubtator_related")
    assert len(fake.requests) == 1 and "type" not in fake.requests[0].params
    assert [r["id"] for r in data["related"]] == ["@GENE_BRAF", "@CHEMICAL_Vemurafenib", "@GENE_CDKN2A"]
    assert data["total"] == 8 and "5 more" in data["notice"]


async def test_related_rows_of_another_type_are_left_out(rt, fake):
    fake.respond("pubtator", "relations", [
        {"source": "@DISEASE_Melanoma", "target": "@GENE_BRAF", "type": "associate", "publications": 5},
        {"source": "@CHEMICAL_x", "target": "@DISEASE_Melanoma", "type": "treat", "publications": 3,
         "pmids": [111, "222"]},
    ])  # fmt: skip
    out = await rt.call("pubtator_related", {"entity": "@DISEASE_Melanoma", "type": "CHEMICAL"})
    assert not out.is_error, out.text
    assert [r["id"] for r in out.data["related"]] == ["@CHEMICAL_x"] and out.data["related"][0]["pmids"] == [
        "111",
        "222",
    ]
    assert "another type" in out.data["notice"] and len(fake.requests) == 1  # PMIDs came with the row


async def test_related_search_failure_costs_only_those_pmids(rt, fake, schemas):
    install(fake)
    fake.fault("400", "pubtator", "search/", times=1)
    out = await rt.call(
        "pubtator_related", {"entity": "@DISEASE_Melanoma", "relation": "treat", "pmidsFor": 2}
    )
    data = check(out, schemas, "pubtator_related")
    assert len(data["unavailable"]) == 1 and data["unavailable"][0]["reason"] == "pubtator_bad_request"
    assert sum(1 for r in data["related"][:2] if r["pmids"]) == 1


async def test_related_nothing_known_is_explained(rt, fake):
    install(fake)
    out = await rt.call("pubtator_related", {"entity": "@GENE_NOSUCH"})
    assert not out.is_error and out.data["related"] == [] and "knows no related entity" in out.data["notice"]


# ----------------------------------------------------------------------------- refused input


@pytest.mark.parametrize(
    ("tool", "args", "reason"),
    [
        ("pubtator_find_entity", {"query": ""}, "empty_query"),
        ("pubtator_find_entity", {"query": "  \u200b "}, "empty_query"),
        ("pubtator_find_entity", {"query": "BRAF", "concept": "PROTEIN"}, "invalid_argument"),
        ("pubtator_search", {"query": ""}, "empty_query"),
        ("pubtator_search", {"query": "@PROTEIN_BRAF AND melanoma"}, "unknown_entity_id"),
        ("pubtator_search", {"query": "@GENE_ AND melanoma"}, "unknown_entity_id"),
        ("pubtator_search", {"query": "relations:treat|@CHEMICAL_x"}, "malformed_relation_query"),
        ("pubtator_search", {"query": "relations:heals|@CHEMICAL_x|@DISEASE_y"}, "malformed_relation_query"),
        ("pubtator_search", {"query": "relations:treat|dabrafenib|@DISEASE_y"}, "malformed_relation_query"),
        ("pubtator_search", {"query": "@GENE_BRAF", "page": 0}, "invalid_argument"),
        ("pubtator_annotations", {}, "invalid_argument"),
        ("pubtator_annotations", {"pmids": []}, "empty_id_list"),
        ("pubtator_annotations", {"pmids": ["abc"]}, "malformed_id"),
        ("pubtator_annotations", {"pmids": ["10.1000/x"]}, "malformed_id"),
        ("pubtator_annotations", {"pmids": [str(i) for i in range(1, 102)]}, "too_many_ids"),
        ("pubtator_annotations", {"pmids": [",".join(str(i) for i in range(1, 102))]}, "too_many_ids"),
        ("pubtator_annotations", {"pmcids": ["PMC1"], "pmids": ["1"]}, "invalid_argument"),
        ("pubtator_annotations", {"pmids": ["1"], "mentionsPerEntity": 51}, "invalid_argument"),
        ("pubtator_related", {"entity": "melanoma"}, "unknown_entity_id"),
        ("pubtator_related", {"entity": "@FOO_bar"}, "unknown_entity_id"),
        ("pubtator_related", {"entity": "@DISEASE_Melanoma", "relation": "heals"}, "invalid_argument"),
        ("pubtator_related", {"entity": "@DISEASE_Melanoma", "type": "PROTEIN"}, "invalid_argument"),
    ],
)
async def test_bad_input_refused_before_any_request(rt, fake, tool, args, reason):
    install(fake)
    out = await rt.call(tool, args)
    assert out.is_error and out.error.reason == reason, out.text
    assert out.error.recovery and not out.error.retryable
    assert fake.requests == []


async def test_entity_id_without_at_sign_and_lower_case_type_accepted(rt, fake):
    install(fake)
    out = await rt.call("pubtator_related", {"entity": "disease_Melanoma", "pmidsFor": 0})
    assert not out.is_error and out.data["entity"] == "@DISEASE_Melanoma"


async def test_rate_limit_answer_is_retried(rt, fake):
    install(fake)
    fake.fault("429", "pubtator", "entity/autocomplete/", times=1)
    out = await rt.call("pubtator_find_entity", {"query": "BRAF"})
    assert not out.is_error and len(fake.requests) == 2


async def test_disabled_plugin_serves_no_tool(make_runtime, fake):
    async with make_runtime(PUBTATOR_ENABLED="false") as rt:
        assert not any(name.startswith("pubtator_") for name in rt.host.tools)
        out = await rt.call("pubtator_search", {"query": "@GENE_BRAF"})
    assert out.is_error and fake.requests == []


def test_relations_answer_in_a_wrapper_reads():
    from medlit.plugins.pubtator.parse import relation_rows

    rows = relation_rows({"relations": [{"e1": "@A_x", "e2": "@GENE_y", "relation": "Treat", "count": "7"}]})
    assert [(r.source, r.target, r.type, r.publications) for r in rows] == [("@A_x", "@GENE_y", "treat", 7)]


async def test_fake_respond_json_helper_is_used_for_bodies():
    assert json_response({"a": 1}).status == 200
