"""The store's identifier keys of review records, on hand-written records (matching two records is
test_review_matching's, merging them test_review_merging's)."""

from __future__ import annotations

from medlit.core.types import SourceRecord
from medlit.plugins.review.identity.keys import as_data, fuzzy_key, title_key


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
