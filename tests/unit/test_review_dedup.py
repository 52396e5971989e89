"""The review deduplication rules and record merging, on hand-written records."""

from __future__ import annotations

from medlit.core.types import SourceRecord
from medlit.plugins.review.dedup import Indexed, Matcher, as_data, fuzzy_key, merge, title_key


def rec(**kw) -> dict:
    base = {"source": "a", "source_id": kw.pop("sid", "1")}
    return as_data(SourceRecord(**base, **kw))


def test_title_key_folds_case_accents_punctuation_and_translation_brackets():
    assert title_key("[Asthma in Zürich: a review.]") == title_key("ASTHMA IN ZURICH - A REVIEW")
    assert title_key("<i>BRAF</i> mutations") == "brafmutations"
    assert title_key(None) == ""


def test_fuzzy_key_needs_title_year_and_an_author():
    assert fuzzy_key("A long enough title here", 2020, ["Müller, A"]) == "alongenoughtitlehere|2020|muller"
    assert fuzzy_key("A long enough title here", None, ["Müller, A"]) is None
    assert fuzzy_key("A long enough title here", 2020, []) is None
    assert fuzzy_key("Short", 2020, ["X, Y"]) is None  # too short to trust


def test_identifiers_are_compared_in_canonical_form():
    d = rec(pmid="00123", doi="https://doi.org/10.1000/ABC", pmcid="pmc77")
    assert (d["pmid"], d["doi"], d["pmcid"]) == ("123", "10.1000/abc", "PMC77")
    assert rec(pmid="not a pmid")["pmid"] is None


def test_rules_apply_in_order_pmid_doi_pmcid_title():
    m = Matcher()
    kept = Indexed(
        1,
        rec(
            pmid="1",
            doi="10.1000/a",
            pmcid="PMC1",
            title="Alpha beta gamma delta",
            year=2001,
            authors=("Roe, J",),
        ),
    )
    m.add(kept)
    assert m.find(rec(pmid="1"))[1] == "pmid"
    assert m.find(rec(doi="10.1000/A"))[1] == "doi"
    assert m.find(rec(pmcid="PMC1"))[1] == "pmcid"
    assert m.find(rec(title="ALPHA, beta gamma delta.", year=2001, authors=("Roe, Jane",)))[1] == "title"
    assert m.find(rec(title="Alpha beta gamma delta", year=2002, authors=("Roe, J",))) is None
    assert m.find(rec(pmid="2", title="Alpha beta gamma delta", year=2001, authors=("Doe, J",))) is None


def test_conflicting_identifiers_are_never_merged():
    """An article and its erratum may share a title, year and first author; their PMIDs (or DOIs)
    differ, so the title rule does not merge them, and a DOI match with another PMID is refused."""
    m = Matcher()
    m.add(
        Indexed(
            1, rec(pmid="1", doi="10.1000/a", title="Alpha beta gamma delta", year=2001, authors=("Roe, J",))
        )
    )
    assert m.find(rec(pmid="2", title="Alpha beta gamma delta", year=2001, authors=("Roe, J",))) is None
    assert m.find(rec(pmid="2", doi="10.1000/a")) is None
    assert (
        m.find(rec(doi="10.1000/b", title="Alpha beta gamma delta", year=2001, authors=("Roe, J",))) is None
    )


def test_merge_fills_only_what_is_missing_and_keeps_every_source():
    kept = rec(pmid="1", title="Kept title", abstract=None)
    new = as_data(
        SourceRecord(source="b", source_id="MED:1", pmid="1", pmcid="PMC9", title="Other", abstract="Text")
    )
    assert merge(kept, new) is True
    assert kept["title"] == "Kept title" and kept["pmcid"] == "PMC9" and kept["abstract"] == "Text"
    assert kept["sources"] == ["a", "b"] and kept["source_ids"] == {"a": "1", "b": "MED:1"}
    assert merge(kept, new) is False


def test_a_key_gained_by_merging_finds_later_duplicates():
    m = Matcher()
    first = Indexed(1, rec(pmid="1"))
    m.add(first)
    merge(first.data, rec(pmid="1", pmcid="PMC5", sid="2"))
    m.add(first)
    assert m.find(rec(pmcid="PMC5", sid="3"))[1] == "pmcid"
