"""iCite parsing: the envelope, records in both field spellings, flags and numbers as iCite writes
them, the record cache's split/join, errors inside HTTP 200."""

from __future__ import annotations

import json

import pytest

from medlit.core.plugin import MedlitError, Response
from medlit.plugins.icite.parse import envelope_records, flag, number, plain_text, pmid_of, read_record
from medlit.plugins.icite.service import FIELDS, inspect, join_records, split_records

from support.corpus import corpus_path
from support.fake_upstream import FIXTURES

LEGACY = json.loads((FIXTURES / "icite" / "pubs_legacy.json").read_text())
BY_PMID = {str(r["pmid"]): r for r in LEGACY["data"]}
CORPUS = "icite/pubs/icite_records_legacyfalse_fl_subset_25lines.jsonl"


def read(pmid: str):
    return read_record(BY_PMID[pmid], pmid)


def test_every_mapped_field_is_asked_for_and_every_record_reads():
    legacy_names = {k for rec in LEGACY["data"] for k in rec}
    assert legacy_names <= set(FIELDS)  # `fl` asks for every field the fixture (and the tool) maps
    assert [r["pmid"] for r in envelope_records(LEGACY)] == [int(p) for p in BY_PMID]


def test_documented_record_maps_every_field():
    r = read("23456789")
    assert r.model_dump(exclude_none=True) == {
        "pmid": "23456789",
        "scoring": "scored",
        "relativeCitationRatio": 1.73,
        "rcrProvisional": False,
        "nihPercentile": 70.3,
        "citationCount": 26,
        "citationsPerYear": pytest.approx(4.33333333333333),
        "expectedCitationsPerYear": pytest.approx(2.50953735885351),
        "fieldCitationRate": pytest.approx(4.87055203724375),
        "apt": 0.75,
        "human": 1.0,
        "animal": 0.0,
        "molecularCellular": 0.0,
        "isClinical": False,
        "citedByClinicalArticle": True,  # two clinical citers listed
        "clinicalCitationCount": 2,
        "isResearchArticle": True,
        "year": 2013,
        "doi": "10.1002/cncr.27976",
        "title": BY_PMID["23456789"]["title"],
        "journal": "Cancer",
    }


def test_boolean_flags_and_clinical_citations():
    r = read("32162448")
    assert (r.isResearchArticle, r.isClinical, r.citedByClinicalArticle, r.clinicalCitationCount) == (
        True,
        True,
        True,
        3,
    )
    assert read("27599104").citedByClinicalArticle is False and read("27599104").clinicalCitationCount == 0


def test_scoring_states():
    assert read("27599104").scoring == "scored"
    prov = read("36100001")
    assert (
        prov.scoring == "provisional" and prov.rcrProvisional is True and prov.relativeCitationRatio == 1.21
    )
    no_rcr = read("39522714")
    assert no_rcr.scoring == "no-rcr" and no_rcr.relativeCitationRatio is None
    assert no_rcr.rcrProvisional is None  # the flag means something only beside an RCR
    assert no_rcr.citationsPerYear == 0.0 and no_rcr.citationCount == 0
    unscored = read("40720602")
    assert unscored.scoring == "not-scored"
    assert unscored.human is None and unscored.apt is None and unscored.clinicalCitationCount is None
    old = read("30100002")
    assert (
        old.scoring == "no-rcr" and old.title is None and old.doi is None and old.isResearchArticle is False
    )


def test_title_markup_stripped_entities_decoded_comparisons_kept():
    assert read("36100001").title == "Effect of Lactobacillus on outcomes with p < 0.05 & beyond"
    assert plain_text("a <b>bold</b>\u200b title\n  split", 100) == "a bold title split"
    assert plain_text("x < y and y > z", 100) == "x < y and y > z"
    assert plain_text(42, 100) is None and plain_text("   ", 100) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [("Yes", True), ("No", False), (True, True), (False, False), ("true", True), (1, True), (0, False),
     ("maybe", None), (None, None), (2, None)],
)  # fmt: skip
def test_flag(value, expected):
    assert flag(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, 1.0), ("2.5", 2.5), (" 3 ", 3.0), ("", None), ("n/a", None), (True, None), (float("nan"), None),
     (float("inf"), None), ([1], None)],
)  # fmt: skip
def test_number(value, expected):
    assert number(value) == expected


@pytest.mark.parametrize(
    ("rec", "expected"),
    [({"pmid": 123}, "123"), ({"pmid": "00123"}, "123"), ({"_id": "456"}, "456"), ({"pmid": 0}, None),
     ({"pmid": "12a"}, None), ({"pmid": True}, None), ({"pmid": None}, None), ({}, None),
     ({"pmid": "1" * 11}, None)],
)  # fmt: skip
def test_pmid_of(rec, expected):
    assert pmid_of(rec) == expected


def test_out_of_range_values_are_left_out():
    rec = {"pmid": 1, "human": 1.5, "nih_percentile": 140, "year": 20, "citation_count": -3, "apt": "high"}
    r = read_record(rec, "1")
    assert (r.human, r.nihPercentile, r.year, r.citationCount, r.apt) == (None, None, None, None, None)
    assert r.scoring == "not-scored"


def test_envelope_shapes():
    assert envelope_records({"meta": {}, "links": {}, "data": []}) == []
    assert envelope_records({"meta": {}, "links": {}, "data": None}) == []
    assert envelope_records([{"pmid": 1}]) == [{"pmid": 1}]
    assert envelope_records({"pmid": 1, "year": 2000}) == [{"pmid": 1, "year": 2000}]  # /pubs/{pmid}
    for bad in ({"meta": {}, "links": {}}, {"data": {"pmid": 1}}, {"data": [1, 2]}, "text", 3, None):
        with pytest.raises(ValueError):
            envelope_records(bad)


def test_legacy_false_spelling_reads_the_same():
    modern = {
        "pmid": 27599104, "pubYear": 2016, "journalNameIso": "PLoS Biol", "rcr": 9.64, "rcrIsProvisional": False,
        "nihRcrPercentile": 97.8, "acr": 30.43, "ecr": 3.16, "fcr": 6.91, "molCell": 0, "human": 1, "animal": 0,
        "isClinicalArticle": False, "citingClinicalPmids": [1, 2], "citedByPmids": [5, 6, 7],
        "isResearchArticle": True,
    }  # fmt: skip
    r = read_record(modern, "27599104")
    assert (r.year, r.journal, r.relativeCitationRatio, r.rcrProvisional, r.nihPercentile) == (
        2016, "PLoS Biol", 9.64, False, 97.8,
    )  # fmt: skip
    assert (r.citationsPerYear, r.expectedCitationsPerYear, r.fieldCitationRate) == (30.43, 3.16, 6.91)
    assert (r.molecularCellular, r.isClinical, r.clinicalCitationCount, r.citationCount) == (0.0, False, 2, 3)
    assert r.isResearchArticle is True and r.scoring == "scored"


def corpus_records() -> list[dict]:
    return [json.loads(line) for line in corpus_path(CORPUS).read_text().splitlines() if line.strip()]


def test_corpus_excerpt_records_read():
    """Real iCite records (legacy=false, fl=pmid,title,year,doi,citedByPmids,citedPmids,rcr,acr)."""
    recs = corpus_records()
    assert recs
    by = {}
    for rec in recs:
        pmid = pmid_of(rec)
        assert pmid is not None
        by[pmid] = read_record(rec, pmid)
        r = by[pmid]
        assert r.citationCount == len(set(rec["citedByPmids"]))
        assert r.relativeCitationRatio == rec["rcr"] and r.citationsPerYear == rec["acr"]
        assert r.year == rec["year"] and r.doi == rec["doi"] and r.title
    assert by["30935731"].scoring == "scored" and by["30935731"].relativeCitationRatio == pytest.approx(
        12.686, rel=1e-3
    )
    assert by["39522714"].scoring == "no-rcr"  # acr 0.0, rcr null: counted, not benchmarked
    assert by["40720602"].scoring == "not-scored"  # neither rate yet


def test_corpus_excerpt_through_split_and_join():
    recs = corpus_records()
    body = json.dumps({"meta": {}, "links": {}, "data": recs}).encode()
    pieces = split_records(body)
    assert [k for k, _ in pieces] == [str(r["pmid"]) for r in recs]
    joined = json.loads(join_records([raw for _, raw in pieces]))
    assert joined["data"] == recs


def _resp(body: object) -> Response:
    return Response(
        200, "https://icite.example/api/pubs", {"Content-Type": "application/json"}, json.dumps(body).encode()
    )


def test_inspect_raises_for_an_error_inside_200_only():
    for ok in (LEGACY, {"data": []}, [{"pmid": 1}], {"pmid": 1}, {"meta": {}}):
        inspect(_resp(ok))
    for bad, text in (({"error": "pmids must be integers"}, "pmids must be integers"),
                      ({"errors": [{"detail": "too many pmids"}]}, "too many pmids"),
                      ({"message": "Internal failure"}, "Internal failure")):  # fmt: skip
        with pytest.raises(MedlitError) as exc:
            inspect(_resp(bad))
        assert exc.value.reason == "icite_upstream_error" and text in exc.value.message
        assert not exc.value.retryable
