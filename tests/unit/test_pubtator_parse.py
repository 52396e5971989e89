"""PubTator3 parsing on the corpus's real recordings and on hand-written answers: BioC documents
(ids in every spelling, normalized_id as int, string and null), grouping and counting, relations,
search pages and facets (empty ``{}`` included), both autocomplete shapes, relations rows, the
record cache's split/join, errors inside HTTP 200 and the query checks."""

from __future__ import annotations

import json

import pytest

from medlit.core.plugin import ArgumentError, MedlitError, Response
from medlit.plugins.pubtator.bioc import document_ids, documents, read_document
from medlit.plugins.pubtator.entities import check_entity_id, check_query
from medlit.plugins.pubtator.parse import (
    autocomplete_items,
    passage,
    read_facets,
    read_match,
    read_search,
    relation_rows,
)
from medlit.plugins.pubtator.service import inspect, join_documents, split_documents

from support.corpus import corpus_path
from support.fake_upstream import FIXTURES

EXPORT = "pubtator/publications_export_biocjson/"
FIX = FIXTURES / "pubtator"


def corpus_json(rel: str):
    return json.loads(corpus_path(rel).read_text())


def fixture(name: str):
    return json.loads((FIX / name).read_text())


# ----------------------------------------------------------------------------- BioC documents (corpus)


def test_five_entity_types_with_int_and_string_ids_in_one_document():
    docs = documents(corpus_json(EXPORT + "pmid_22663011_five_entity_types.json"))
    assert len(docs) == 1 and document_ids(docs[0]) == ("22663011", None)  # _id "22663011|None"
    doc = read_document(docs[0], 50)
    assert doc.mentionCount == 40 and doc.countsByType == {
        "Gene": 3,
        "Variant": 2,
        "Disease": 7,
        "Chemical": 3,
        "Species": 1,
    }
    by = {e.id: e for e in doc.entities}
    assert by["@GENE_BRAF"].normalizedId == "673" and by["@GENE_BRAF"].database == "ncbi_gene"  # an int
    assert by["@DISEASE_Melanoma"].normalizedId == "D008545"  # a string, same document
    assert by["@CHEMICAL_trametinib"].mentionCount == sum(
        1
        for p in docs[0]["passages"]
        for a in p["annotations"]
        if a["infons"].get("accession") == "@CHEMICAL_trametinib"
    )
    v600e = by["@VARIANT_p.V600E_BRAF_human"]
    assert v600e.normalizedId == "rs113488022" and v600e.hgvs == "p.V600E" and v600e.mentionCount == 2
    species = next(e for e in doc.entities if e.type == "Species")
    assert species.id is None and species.normalizedId == "9606" and species.database == "ncbi_taxonomy"
    assert [e.type for e in doc.entities][:3] == ["Gene"] * 3  # genes first, most mentioned first
    assert by["@GENE_BRAF"].mentions[0].passage == "title" and by["@GENE_BRAF"].mentions[0].offset == 41
    assert doc.relationCount == 16 == len(doc.relations) and doc.title.startswith("Improved survival")
    verbs = {(r.type, r.entity1.id, r.entity2.id) for r in doc.relations}
    assert (
        "inhibit",
        "@CHEMICAL_trametinib",
        "@VARIANT_p.V600E_BRAF_human",
    ) in verbs  # from relations_display
    assert ("cause", "@CHEMICAL_trametinib", "@DISEASE_Edema") in verbs
    assert doc.year == 2012 and doc.journal == "N Engl J Med" and doc.fullText is False


def test_pmcid_from_the_title_passage_when_the_document_says_none():
    docs = documents(corpus_json(EXPORT + "pmid_20516115_brca1.json"))
    assert document_ids(docs[0]) == ("20516115", "PMC3040717")
    doc = read_document(docs[0], 1)
    assert doc.pmcid == "PMC3040717" and doc.relationCount == 1
    assert doc.relations[0].type == "associate" and doc.relations[0].kind == "Association"


def test_disease_only_document_with_supplementary_mesh_ids():
    doc = read_document(documents(corpus_json(EXPORT + "pmid_33054928_nchs_databrief.json"))[0], 3)
    assert set(doc.countsByType) == {"Disease"} and doc.relations == [] and doc.relationCount == 0
    gad = next(e for e in doc.entities if e.normalizedId == "C000726808")
    assert gad.mentionCount == 5 and len(gad.mentions) == 3 and gad.id == "@DISEASE_general_anxiety_disorder"


def test_every_corpus_export_splits_and_joins_for_the_record_cache():
    for name in ("pmid_22663011_five_entity_types.json", "pmid_20516115_brca1.json"):
        body = corpus_path(EXPORT + name).read_bytes()
        split = split_documents(body)
        assert len(split) == 1 and split[0][0][0] == name.split("_")[1]
        joined = json.loads(join_documents([raw for _, raw in split]))
        assert joined["PubTator3"][0] == json.loads(body)["PubTator3"][0]


# ----------------------------------------------------------------------------- BioC documents (hand-written)


def test_null_normalized_id_with_valid_false_is_kept_unnormalised():
    doc = read_document(fixture("export_pmids.json")["PubTator3"][0], 3)
    bad = next(e for e in doc.entities if not e.valid)
    assert (bad.type, bad.name, bad.id, bad.normalizedId, bad.mentionCount) == ("Gene", "XYZ9", None, None, 1)
    kras = next(e for e in doc.entities if e.id == "@GENE_KRAS")
    assert kras.normalizedId == "3845"  # a string where BRAF's is an int


def test_unnormalised_mentions_group_by_their_text():
    ann = {
        "infons": {"type": "Disease", "valid": False, "normalized_id": None, "identifier": None},
        "text": "Odd",
    }
    doc = {
        "pmid": 1,
        "passages": [{"infons": {"type": "abstract"}, "annotations": [ann, {**ann, "text": "odd"}]}],
    }
    out = read_document(doc, 5)
    assert out.entityCount == 1 and out.entities[0].mentionCount == 2 and out.entities[0].valid is False


def test_full_text_document_by_pmcid():
    doc = fixture("export_pmcid.json")["PubTator3"][0]
    assert document_ids(doc) == ("30000004", "PMC7000004")
    out = read_document(doc, 10)
    assert out.fullText is True and out.passageCount == 3
    assert {m.passage for e in out.entities for m in e.mentions} == {"TITLE", "INTRO", "METHODS"}


@pytest.mark.parametrize(
    ("doc", "ids"),
    [
        ({"_id": "123|PMC456", "passages": []}, ("123", "PMC456")),
        ({"id": "PMC789", "passages": []}, (None, "PMC789")),
        ({"id": "00042", "pmcid": "pmc5", "passages": []}, ("42", "PMC5")),
        ({"pmid": "None", "_id": "None|None", "passages": []}, (None, None)),
    ],
)
def test_document_ids_in_every_spelling(doc, ids):
    assert document_ids(doc) == ids


@pytest.mark.parametrize(
    "data",
    [
        {"PubTator3": [{"passages": []}]},
        {"documents": [{"passages": []}]},
        [{"passages": []}],
        {"passages": []},
    ],
)
def test_export_envelopes(data):
    assert len(documents(data)) == 1


@pytest.mark.parametrize("data", [{"error": "x"}, "text", 3, {"PubTator3": ["x"]}])
def test_not_an_export_is_refused(data):
    with pytest.raises(ValueError):
        documents(data)


def test_empty_export_is_no_documents():
    assert documents({"PubTator3": []}) == [] and documents({"PubTator3": None}) == []


# ----------------------------------------------------------------------------- search


def test_search_page_from_the_corpus():
    page = read_search(corpus_json("pubtator/search/search_brca1_page1_with_facets.json"))
    assert page.total == 61105 and page.total_pages == 6111 and page.page_size == 10 and len(page.hits) == 10
    first = page.hits[0]
    assert first.pmid == "34083286" and first.pmcid is None and first.doi == "10.21873/anticanres.15077"
    assert first.passage.startswith("**BRCA1**-BRCT") and first.passageEntities == [
        "@GENE_BRCA1",
        "@GENE_672",
    ]
    assert first.authors == ["Drikos I", "Boutou E", "Kastritis PL"] and first.authorCount == 4
    assert page.hits[1].pmcid == "PMC8577473"
    assert (
        set(page.facets) == {"journal", "type", "year"}
        and page.facets["journal"][0].value == "Cancers (Basel)"
    )
    assert page.facets["journal"][0].count == 2392 and len(page.facets["year"]) <= 12


def test_empty_search_from_the_corpus_has_empty_facets():
    page = read_search(corpus_json("pubtator/search/search_nonsense_zero_results.json"))
    assert page.hits == [] and page.total == 0 and page.facets == {}


def test_facets_as_solr_flat_lists():
    assert [
        (f.value, f.count) for f in read_facets({"facet_fields": {"year": ["2020", 5, "2021", "3"]}})["year"]
    ] == [
        ("2020", 5),
        ("2021", 3),
    ]


def test_passage_markup():
    text, ids = passage("A @DISEASE_Neoplasms @DISEASE_MESH:D009369 @@@cancers@@@ and <m>BRCA1</m>/2 &amp; x")
    assert text == "A cancers and **BRCA1**/2 & x" and ids == ["@DISEASE_Neoplasms", "@DISEASE_MESH:D009369"]


@pytest.mark.parametrize("data", [[], {"results": "x"}, {"facets": {}}])
def test_not_a_search_answer(data):
    with pytest.raises(ValueError):
        read_search(data)


# ----------------------------------------------------------------------------- autocomplete


def test_legacy_autocomplete_shape_from_the_corpus():
    items = autocomplete_items(
        corpus_json("pubtator/entity_autocomplete/autocomplete_braf_gene_limit2_legacy_shape.json")
    )
    matches = [read_match(i) for i in items]
    assert [(m.id, m.type, m.name, m.databaseId) for m in matches] == [
        ("@GENE_BRAF", "Gene", "BRAF", None),
        ("@GENE_BRAFP1", "Gene", "BRAFP1", None),
    ]
    assert matches[0].matchedOn == "Matched on name BRAF" and matches[0].description == "All Species"


def test_current_autocomplete_shape():
    m = read_match(fixture("autocomplete_braf_current.json")[0])
    assert (m.id, m.database, m.databaseId) == ("@GENE_BRAF", "ncbi_gene", "673")
    mesh = read_match(fixture("autocomplete_melanoma_current.json")[1])
    assert mesh.databaseId == "C562393" and mesh.type == "Disease"  # the MESH: prefix dropped


def test_autocomplete_numeric_db_id_and_wrapped_list():
    items = autocomplete_items(
        {"results": [{"_id": "@SPECIES_9606", "db_id": 9606, "db": "ncbi_taxonomy"}, {"x": 1}]}
    )
    assert read_match(items[0]).databaseId == "9606"
    assert read_match({"x": 1}) is None
    with pytest.raises(ValueError):
        autocomplete_items({"detail": "x"})


# ----------------------------------------------------------------------------- relations


def test_relations_fixture_rows():
    rows = relation_rows(fixture("relations_melanoma.json"))
    assert rows[0].source == "@CHEMICAL_dabrafenib" and rows[0].publications == 1620 and rows[0].pmids == []


def test_relations_with_publication_lists_count_them():
    rows = relation_rows(
        [{"source": "@A_1", "target": "@B_2", "type": "treat", "publications": ["1", 2, "x"]}]
    )
    assert rows[0].publications == 3 and rows[0].pmids == ["1", "2"]
    assert relation_rows([{"source": "@A_1"}]) == []  # a row without a target is skipped
    with pytest.raises(ValueError):
        relation_rows("nope")


# ----------------------------------------------------------------------------- errors in HTTP 200


def response(body: object) -> Response:
    return Response(
        200,
        "https://x/pubtator3-api/search/",
        {"Content-Type": "application/json"},
        json.dumps(body).encode(),
    )


@pytest.mark.parametrize(
    ("body", "reason", "retryable"),
    [
        ({"detail": "Invalid parameter"}, "pubtator_bad_request", False),
        ({"error": "Service temporarily unavailable"}, "pubtator_unreachable", True),
        ({"errors": [{"msg": "field required"}]}, "pubtator_bad_request", False),
    ],
)
def test_error_objects_in_200(body, reason, retryable):
    with pytest.raises(MedlitError) as caught:
        inspect(response(body))
    assert caught.value.reason == reason and caught.value.retryable is retryable


@pytest.mark.parametrize(
    "body", [{"results": [], "facets": {}, "count": 0}, [], {"PubTator3": []}, {"message": ""}]
)
def test_answers_pass_inspection(body):
    inspect(response(body))


# ----------------------------------------------------------------------------- query and id checks


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("@gene_BRAF AND @Disease_Melanoma", "@GENE_BRAF AND @DISEASE_Melanoma"),
        ("(@GENE_BRAF OR @GENE_KRAS) AND melanoma", "(@GENE_BRAF OR @GENE_KRAS) AND melanoma"),
        ("relations:ANY|@CHEMICAL_x|@DISEASE_y", "relations:ANY|@CHEMICAL_x|@DISEASE_y"),
        ("relations:Treat|@chemical_x|disease", "relations:treat|@CHEMICAL_x|DISEASE"),
        ("mail me at a@b.org", "mail me at a@b.org"),
        ("  BRAF   melanoma ", "BRAF melanoma"),
    ],
)
def test_queries_normalised(query, expected):
    assert check_query(query) == expected


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("", "empty_query"),
        ("()", "empty_query"),
        ("AND", "empty_query"),
        ("@BRAF", "unknown_entity_id"),
        ("@CELL_HeLa", "unknown_entity_id"),
        ("relations:treat", "malformed_relation_query"),
        ("relations:treat|@CHEMICAL_x|@DISEASE_y|@GENE_z", "malformed_relation_query"),
        ("relations:|@CHEMICAL_x|@DISEASE_y", "malformed_relation_query"),
        ("relations:treat|@CHEMICAL_x|PROTEIN", "malformed_relation_query"),
    ],
)
def test_bad_queries(query, reason):
    with pytest.raises(ArgumentError) as caught:
        check_query(query)
    assert caught.value.reason == reason and caught.value.recovery


def test_entity_ids():
    assert check_entity_id("cellline_CVCL_0030") == "@CELLLINE_CVCL_0030"
    assert check_entity_id("@VARIANT_p.V600E_BRAF_human") == "@VARIANT_p.V600E_BRAF_human"
    for bad in ("BRAF", "@GENE_BR AF", "@GENE_a|b", "@" + "GENE_" + "x" * 300):
        with pytest.raises(ArgumentError) as caught:
            check_entity_id(bad)
        assert caught.value.reason == "unknown_entity_id" and "pubtator_find_entity" in caught.value.recovery
