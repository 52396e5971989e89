"""The merged record of a duplicate group is the best of its members, field by field, and the
same whatever order they come in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from medlit.plugins.review.identity.merging import best_of, expand_pages
from medlit.plugins.review.record import RecordData

PUBMED: RecordData = {
    "kind": "article",
    "pmid": "31000001",
    "doi": "10.1000/xyz",
    "title": "Cu₂O nanocubes in asthma: a trial.",
    "authors": ["Müller, Sören", "Smith, John A", "TAX 325 Study Group"],
    "journal": "The Journal of synthetic medicine",
    "journal_abbrev": "J Synth Med",
    "issn": ["1234-5678"],
    "year": 2021,
    "volume": "12",
    "issue": "3",
    "pages": "7196-7199",
    "abstract": "BACKGROUND: Asthma is common. METHODS: We tried it. RESULTS: It worked.",
    "mesh": ["*Asthma/drug therapy", "Humans"],
    "keywords": ["asthma"],
    "publication_types": ["Journal Article"],
    "language": "eng",
    "sources": ["pubmed"],
    "source_ids": {"pubmed": "31000001"},
}
EPMC: RecordData = {
    "kind": "article",
    "pmid": "31000001",
    "pmcid": "PMC9",
    "doi": "10.1000/xyz",
    "title": "Cu2O nanocubes in asthma: a trial.",
    "authors": ["Muller, S", "Smith, J A", "TAX 325 Study Group"],
    "journal": "J Synth Med",
    "issn": ["1234-5678", "8765-4321"],
    "year": 2021,
    "volume": "12",
    "issue": "3",
    "pages": "7196--9",
    "abstract": "Asthma is common. We tried it. It worked.",
    "mesh": ["Humans", "Adult"],
    "keywords": ["Asthma", "inhaled steroids"],
    "publication_types": ["Journal Article", "research-article"],
    "sources": ["europepmc"],
    "source_ids": {"europepmc": "MED:31000001"},
}
RIS: RecordData = {
    "title": "CU2O NANOCUBES IN ASTHMA: A TRIAL",
    "authors": ["Muller, Soren", "Smith, J.", "TAX 325 Study Group"],
    "journal": "J Synth Med",
    "year": 2021,
    "pages": "EP 9",
    "doi": "10.1000/xyz",
    "sources": ["embase"],
    "source_ids": {"embase": "L2011"},
}


def test_full_forenames_and_unicode_spellings_win_name_by_name():
    merged = best_of([EPMC, RIS, PUBMED])
    assert merged["authors"] == ["Müller, Sören", "Smith, John A", "TAX 325 Study Group"]
    # Without PubMed, the Unicode spelling is unknown: the full forename still beats initials.
    assert best_of([EPMC, RIS])["authors"][0] == "Muller, Soren"
    # "Soren" loses to "Sören" even where both are full forenames.
    assert best_of([RIS, {"authors": ["Müller, Sören"], "sources": ["x"]}])["authors"][0] == "Müller, Sören"


def test_names_match_by_family_when_one_list_is_longer():
    short: RecordData = {"authors": ["Smith, J"], "sources": ["a"]}
    long: RecordData = {"authors": ["Adams, B", "Smith, John"], "sources": ["b"]}
    assert best_of([short, long])["authors"] == ["Adams, B", "Smith, John"]


def test_full_journal_title_with_its_abbreviation_kept():
    merged = best_of([EPMC, PUBMED])
    assert merged["journal"] == "The Journal of synthetic medicine"
    assert merged["journal_abbrev"] == "J Synth Med"
    # No member named an abbreviation: the abbreviated journal of one member becomes it.
    no_abbrev = best_of([EPMC, {**PUBMED, "journal_abbrev": None}])
    assert no_abbrev["journal"] == "The Journal of synthetic medicine"
    assert no_abbrev["journal_abbrev"] == "J Synth Med"


def test_medline_abbreviation_over_the_iso_one():
    merged = best_of(
        [{**PUBMED, "journal_abbrev": "J. Synth. Med."}, {**EPMC, "journal_abbrev": "J Synth Med"}]
    )
    assert merged["journal_abbrev"] == "J Synth Med"


def test_labelled_abstract_over_unlabelled_and_longer_over_truncated():
    assert best_of([EPMC, PUBMED])["abstract"] == PUBMED["abstract"]
    full: RecordData = {"abstract": "Asthma is common and we tried a remedy that worked.", "sources": ["a"]}
    cut: RecordData = {"abstract": "Asthma is common and we tried a rem...", "sources": ["pubmed"]}
    assert best_of([cut, full])["abstract"] == full["abstract"]


def test_pages_expanded_and_never_an_end_page_tag():
    assert best_of([EPMC, RIS])["pages"] == "7196-7199"
    assert best_of([RIS])["pages"] == "EP 9"  # nothing better to offer: kept rather than lost
    assert best_of([RIS, {"pages": "7196", "sources": ["z"]}])["pages"] == "7196"
    assert best_of([{"pages": "1297-306", "sources": ["a"]}])["pages"] == "1297-1306"


def test_expand_pages():
    assert expand_pages("1297-306") == "1297-1306"
    assert expand_pages("7196--9") == "7196-7199"
    assert expand_pages("7196-9") == "7196-7199"
    assert expand_pages("S12-5") == "S12-S15"
    assert expand_pages("123–129") == "123-129"
    assert expand_pages("e0221829") == "e0221829"
    assert expand_pages("iii-xii") == "iii-xii"


def test_unicode_title_over_its_ascii_folding_and_over_capitals():
    assert best_of([RIS, EPMC, PUBMED])["title"] == "Cu₂O nanocubes in asthma: a trial."
    assert best_of([RIS, EPMC])["title"] == "Cu2O nanocubes in asthma: a trial."


def test_identifiers_union_and_conflicts_resolved_by_a_stable_order():
    merged = best_of([PUBMED, EPMC])
    assert (merged["pmid"], merged["pmcid"], merged["doi"]) == ("31000001", "PMC9", "10.1000/xyz")
    a: RecordData = {"pmid": "2", "sources": ["x"]}
    b: RecordData = {"pmid": "1", "sources": ["y"]}
    assert best_of([a, b])["pmid"] == best_of([b, a])["pmid"] == "1"
    # The PubMed record's own PMID wins over another source's.
    assert best_of([b, {"pmid": "2", "sources": ["pubmed"]}])["pmid"] == "2"


def test_lists_are_ordered_unions():
    merged = best_of([EPMC, PUBMED])
    assert merged["mesh"] == ["*Asthma/drug therapy", "Humans", "Adult"]
    assert merged["keywords"] == ["asthma", "inhaled steroids"]
    assert merged["issn"] == ["1234-5678", "8765-4321"]
    assert merged["publication_types"] == ["Journal Article", "research-article"]


def test_kind_is_the_most_specific_and_sources_sorted():
    chapter: RecordData = {"kind": "chapter", "title": "X", "sources": ["pubmed"]}
    article: RecordData = {"kind": "article", "title": "X", "sources": ["europepmc"]}
    assert best_of([article, chapter])["kind"] == "chapter"
    merged = best_of([RIS, EPMC, PUBMED])
    assert merged["sources"] == ["embase", "europepmc", "pubmed"]
    assert merged["source_ids"] == {"embase": "L2011", "europepmc": "MED:31000001", "pubmed": "31000001"}


def test_a_merged_pubmed_and_europepmc_record_reads_like_pubmed():
    merged = best_of([EPMC, PUBMED])
    for name in (
        "title",
        "authors",
        "journal",
        "journal_abbrev",
        "pages",
        "abstract",
        "volume",
        "issue",
        "year",
    ):
        assert merged[name] == PUBMED[name], name  # type: ignore[literal-required]


def test_nothing_to_merge():
    assert best_of([]) == {}
    assert best_of([PUBMED]) == {**PUBMED}


VARIANTS: list[RecordData] = [
    PUBMED,
    EPMC,
    RIS,
    {"pmid": "31000002", "title": "Other", "year": "2020", "authors": ["Müller, S"], "sources": ["scopus"]},
    {"kind": "chapter", "pages": "1297-306", "editors": ["Adam, M P"], "sources": ["europepmc"]},
    {"editors": ["Adam, Margaret P"], "isbn": ["978-0-309"], "publisher": "UW", "sources": ["pubmed"]},
    {
        "abstract": "OBJECTIVE: a. RESULTS: b.",
        "journal": "Journal of Synthetic Medicine",
        "sources": ["cinahl"],
    },
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(VARIANTS), min_size=1, max_size=6).flatmap(
        lambda xs: st.tuples(st.just(xs), st.permutations(xs))
    )
)
def test_any_order_of_members_gives_the_same_record(pair):
    members, shuffled = pair
    assert best_of(members) == best_of(shuffled)


NAMES = st.sampled_from(
    ["Müller, Sören", "Muller, Soren", "Muller, S", "Smith, J A", "Smith, John A", "WHO Group"]
)
TEXTS = st.sampled_from(["Cu₂O trial.", "Cu2O trial.", "CU2O TRIAL", "BACKGROUND: a. METHODS: b.", "a. b."])
MEMBER = st.fixed_dictionaries(
    {
        "sources": st.lists(
            st.sampled_from(["pubmed", "europepmc", "embase", "scopus"]), min_size=1, max_size=2
        )
    },
    optional={
        "kind": st.sampled_from(["article", "chapter", "book", "preprint"]),
        "pmid": st.sampled_from(["1", "2"]),
        "doi": st.sampled_from(["10.1/a", "10.1/b"]),
        "title": TEXTS,
        "abstract": TEXTS,
        "authors": st.lists(NAMES, max_size=4),
        "editors": st.lists(NAMES, max_size=2),
        "journal": st.sampled_from(["J Synth Med", "Journal of synthetic medicine", "J. Synth. Med."]),
        "journal_abbrev": st.sampled_from(["J Synth Med", "J. Synth. Med."]),
        "pages": st.sampled_from(["7196-9", "7196--9", "EP 9", "7196-7199", "e12"]),
        "year": st.sampled_from([2020, "2020", 2021, None]),
        "mesh": st.lists(st.sampled_from(["Humans", "*Asthma", "Adult"]), max_size=3),
        "keywords": st.lists(st.sampled_from(["asthma", "Asthma", "kids"]), max_size=3),
        "source_ids": st.dictionaries(st.sampled_from(["pubmed", "embase"]), st.sampled_from(["x", "y"])),
    },
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(MEMBER, min_size=1, max_size=5).flatmap(lambda xs: st.tuples(st.just(xs), st.permutations(xs)))
)
def test_any_order_of_generated_members_gives_the_same_record(pair):
    members, shuffled = pair
    merged = best_of(members)
    assert merged == best_of(shuffled)
    assert merged.get("pages") != "EP 9" or all(m.get("pages") in (None, "EP 9") for m in members)
