"""The review matcher: each rule and each conflict on hand-written pairs, blocking, the clusterer's
choices, and the ASySD benchmark sets (corpus ``dedup/``): no false merge, and at least
bib-dedupe's per-record sensitivity."""

from __future__ import annotations

import pytest

from medlit.plugins.review.identity.matching import (
    Clusterer,
    block_keys,
    conflict,
    normalize,
)
from medlit.plugins.review.identity.matching.fields import journal_words as jw
from medlit.plugins.review.identity.matching.fields import page_range, same_journal
from medlit.plugins.review.record import RecordData

from support.asysd import by_pairs, load, per_record, run_ours
from support.corpus import corpus_path
from support.matching import changed, verdict

ARTICLE: RecordData = {
    "kind": "article",
    "title": "Diabetes, comorbidities and increased long-term mortality in older patients admitted for geriatric care",
    "authors": ["Zekry, Dina", "Frangos, Emilia", "Graf, Christophe"],
    "journal": "Diabetes & metabolism",
    "year": 2012,
    "volume": "38",
    "issue": "2",
    "pages": "149-155",
}


def rec(**changes: object) -> RecordData:
    return changed(ARTICLE, **changes)


# --- identifiers ---------------------------------------------------------------------------


def test_identifiers_match_when_the_titles_agree() -> None:
    """Issue 51: a shared identifier is evidence only beside titles that agree (one database's
    wrong PMID, a supplement's DOI), or beside the authors when a record has no title. (Before,
    an identifier matched whatever the rest said: a PMID on "Something else entirely" merged.)"""
    v = verdict(rec(pmid="22421212"), {"pmid": "22421212", "title": "Something else entirely"})
    assert (v.same, v.rule) == (False, "different") and "titles differ" in v.why
    v = verdict(rec(pmid="22421212"), {"pmid": "22421212", "authors": ["Zekry, D"]})
    assert (v.same, v.rule) == (True, "pmid") and "authors" in v.why
    assert not verdict(rec(pmid="22421212"), {"pmid": "22421212"}).same  # no title, no authors
    v = verdict(
        rec(doi="https://doi.org/10.1016/J.DIABET.2011.11.002"), rec(doi="10.1016/j.diabet.2011.11.002")
    )
    assert (v.same, v.rule, v.why) == (True, "doi", "doi 10.1016/j.diabet.2011.11.002 + title 1.00")
    v = verdict(rec(pmcid="PMC123456"), rec(pmcid="pmc123456"))
    assert (v.same, v.rule) == (True, "pmcid")


@pytest.mark.parametrize(
    ("field", "x", "y"),
    [("pmid", "1", "2"), ("doi", "10.1000/a", "10.1000/a.v2"), ("pmcid", "PMC1", "PMC2")],
)
def test_conflicting_identifiers_keep_identical_metadata_apart(field: str, x: str, y: str) -> None:
    v = verdict(rec(**{field: x}), rec(**{field: y}))
    assert (v.same, v.rule) == (False, f"conflict:{field}")


# --- metadata ------------------------------------------------------------------------------


def test_same_citation_written_two_ways_is_one_work() -> None:
    other = rec(
        title="DIABETES, COMORBIDITIES AND INCREASED LONG-TERM MORTALITY IN OLDER PATIENTS ADMITTED FOR GERIATRIC CARE.",
        authors=["Zekry, D.", "Frangos, E.", "Graf, C."],
        journal="Diabetes and Metabolism",
        pages="149-55",
    )
    v = verdict(ARTICLE, other)
    assert (v.same, v.rule) == (True, "title")
    assert 0 < v.score <= 1


def test_translated_title_bracket_and_language_note() -> None:
    a = rec(
        title="[Efficacy observation of batroxobin for treatment of vascular cognitive impairment]. [Chinese]"
    )
    b = rec(title="Efficacy observation of batroxobin for treatment of vascular cognitive impairment")
    assert verdict(a, b).same
    original = rec(
        title="Wirksamkeit von Batroxobin bei vaskulärer Demenz [Efficacy of batroxobin in vascular dementia]"
    )
    english = rec(title="Efficacy of batroxobin in vascular dementia")
    assert verdict(original, english).same


def test_markup_entities_greek_and_accents() -> None:
    a = rec(title="<i>β</i>-blockers and outcomes after stroke in S&atilde;o Paulo: a cohort")
    b = rec(title="Beta-blockers and outcomes after stroke in Sao Paulo: a cohort")
    assert verdict(a, b).same


def test_subtitle_dropped_on_one_side_needs_the_citation() -> None:
    full = rec(
        title="Infrastructure in the wild: what mapping in post-earthquake Nepal reveals about emergence"
    )
    short = rec(title="Infrastructure in the wild")
    assert verdict(full, short).same  # the whole citation agrees
    bare = {"volume": None, "pages": None, "issue": None, "journal": None}
    assert verdict(rec(**{**full, **bare}), rec(**{**short, **bare})).same is False  # the title alone
    full = rec(title="Stroke rehabilitation with a robotic glove at home: a randomised controlled trial")
    cut = rec(title="Stroke rehabilitation with a robotic glove at home")
    assert verdict(full, cut).same
    # Two different subtitles after one head are two works.
    a = rec(
        title="Stroke rehabilitation with a robotic glove at home: a randomised controlled trial", pages=None
    )
    b = rec(title="Stroke rehabilitation with a robotic glove at home: a qualitative study", pages=None)
    assert verdict(a, b).same is False


def test_initials_unicode_particles_and_hyphens() -> None:
    a = rec(authors=["Sörensen, Sören", "van der Berg, Jan"])
    b = rec(authors=["Sorensen, S.", "Berg, J. van der"])
    assert verdict(a, b).same
    assert normalize(rec(authors=["van der Berg, Jan", "et al."])).authors == (("berg", "j"),)
    assert normalize(rec(authors=["Sberro-Soussan, R."])).authors == (("sberrosoussan", "r"),)
    # A different first author with nothing else to go on: two works.
    c = rec(authors=["Martin, P."], volume=None, pages=None, issue=None, journal=None)
    assert verdict(rec(volume=None, pages=None, issue=None, journal=None), c).same is False


def test_journal_abbreviations() -> None:
    assert same_journal(jw("J Am Coll Cardiol"), jw("Journal of the American College of Cardiology"))
    assert same_journal(jw("Diabetes & metabolism"), jw("Diabetes and Metabolism"))
    assert same_journal(jw("The Lancet"), jw("Lancet"))
    assert same_journal(jw("Proc Natl Acad Sci"), jw("Proceedings of the National Academy of Sciences"))
    assert not same_journal(jw("J Clin Oncol"), jw("Journal of Clinical Virology"))
    assert not same_journal(jw("Stroke"), jw("Canadian Journal of Neurological Sciences"))


def test_pages_short_long_and_article_numbers() -> None:
    assert page_range("1297-306") == ("", 1297, 1306)
    assert page_range("e1234") == ("e", 1234, 1234)
    assert page_range("215 p") is None  # a thesis's page count
    assert verdict(rec(pages="149-155"), rec(pages="149")).same
    assert verdict(rec(pages="149-155"), rec(pages="e0149")).same  # article number beside pages
    v = verdict(rec(pages="149-155"), rec(pages="201-210"))
    assert v.rule == "conflict:pages"


def test_year_one_apart_is_epub_and_print_more_is_a_conflict() -> None:
    assert verdict(rec(year=2012), rec(year=2013)).same
    assert verdict(rec(year=2012), rec(year=2015)).rule == "conflict:year"


def test_volume_conflict() -> None:
    assert verdict(rec(volume="38"), rec(volume="39")).rule == "conflict:volume"
    assert verdict(rec(volume="38"), rec(volume="38 (Suppl 2)")).same


# --- conflicts -----------------------------------------------------------------------------


def test_erratum_and_retraction_never_join_their_article() -> None:
    for title in (
        "Erratum: Diabetes, comorbidities and increased long-term mortality in older patients admitted for geriatric care",
        "Correction to: Diabetes, comorbidities and increased long-term mortality in older patients admitted for geriatric care",
        "Retraction notice to: Diabetes, comorbidities and increased long-term mortality in older patients admitted",
    ):
        assert conflict(normalize(ARTICLE), normalize(rec(title=title))) == "notice"
    # A publication type says so too; a title starting "Correction of ..." is an article.
    assert conflict(normalize(ARTICLE), normalize(rec(publication_types=["Published Erratum"]))) == "notice"
    assert (
        normalize(rec(title="Correction of post-stroke cognitive impairments using computer programs")).notice
        is False
    )
    wos = rec(title="Eculizumab for atypical hemolytic-uremic syndrome (vol 360, pg 542, 2009)", pages="2487")
    assert normalize(wos).notice


def test_conference_abstract_is_not_the_journal_paper() -> None:
    abstract = rec(
        kind="conference", journal="Diabetologia. Conference: 48th EASD Annual Meeting", pages="S12"
    )
    assert conflict(normalize(ARTICLE), normalize(abstract)) == "meeting"
    # The same abstract labelled as a journal record by another database (one page, same place).
    listed = rec(journal="Diabetologia", pages="S12")
    as_meeting = rec(journal="Diabetologia. Conference: 48th EASD Annual Meeting", pages="S12")
    assert verdict(listed, as_meeting).same


def test_parts_of_a_series_are_two_works() -> None:
    a = rec(title="Management of acute stroke in the elderly, part 1: diagnosis and imaging", pages=None)
    b = rec(title="Management of acute stroke in the elderly, part 2: diagnosis and imaging", pages=None)
    assert conflict(normalize(a), normalize(b)) == "part"
    c = rec(title="Cognitive rehabilitation after stroke: evidence review I", pages=None)
    d = rec(title="Cognitive rehabilitation after stroke: evidence review II", pages=None)
    assert conflict(normalize(c), normalize(d)) == "part"
    e = rec(title="Twelve-month results of the trial in 2010 patients", pages=None)
    f = rec(title="Twelve-month results of the trial in 2011 patients", pages=None)
    assert conflict(normalize(e), normalize(f)) == "part"


def test_recurring_column_told_apart_by_issue() -> None:
    column = {"title": "Remarks from the editor: editor's comments on this issue", "authors": ["Lee, A. S."]}
    a = normalize({**column, "journal": "MIS Quarterly", "year": 2000, "volume": "24", "issue": "1"})  # type: ignore[typeddict-item]
    b = normalize({**column, "journal": "MIS Quarterly", "year": 2000, "volume": "24", "issue": "2"})  # type: ignore[typeddict-item]
    assert conflict(a, b) == "issue"


def test_kind_conflict() -> None:
    assert conflict(normalize(rec(kind="book")), normalize(ARTICLE)) == "kind"


# --- blocking and clustering ---------------------------------------------------------------


def test_block_keys_shared_by_copies_and_short() -> None:
    a = normalize(ARTICLE)
    b = normalize(
        rec(title="DIABETES, COMORBIDITIES AND INCREASED LONG TERM MORTALITY IN OLDER PATIENTS", year=2013)
    )
    assert block_keys(a) & block_keys(b)
    assert all(len(k) < 60 for k in block_keys(a))


def test_clusterer_joins_matches_and_refuses_a_cluster_with_a_conflicting_member() -> None:
    c = Clusterer()
    assert c.place(1, ARTICLE) is None
    c.add(1, 1, ARTICLE)
    found = c.place(2, rec(pages="149-55", journal="Diabetes and Metabolism"))
    assert found is not None and found[:2] == (1, 1) and found[2].same
    c.add(1, 2, rec(pages="149-55"))
    # Matches member 2 by PMID, but conflicts with nothing: joins.
    c2 = Clusterer()
    c2.add(10, 1, rec(pmid="111"))
    c2.add(10, 2, rec(pmid=None, doi="10.1/x"))
    # Shares the DOI with member 2, but its PMID conflicts with member 1's.
    assert c2.place(3, rec(pmid="222", doi="10.1/x")) is None


def test_clusterer_ties_go_to_the_lowest_cluster_id() -> None:
    c = Clusterer()
    c.add(7, 1, rec(pmid="5"))
    c.add(3, 2, rec(pmid="5", doi="10.1/y"))  # the store's own business: two clusters, one PMID
    found = c.place(9, rec(pmid="5"))
    assert found is not None and found[0] == 3


# --- the ASySD benchmark sets --------------------------------------------------------------

BIB_DEDUPE = {"stroke": 0.9936, "cytology_screening": 0.9922}  # its published per-record sensitivity


@pytest.mark.parametrize("name", sorted(BIB_DEDUPE))
def test_asysd_no_false_merge_and_bib_dedupe_sensitivity(name: str) -> None:
    ds = load(corpus_path(f"dedup/{name}/records_pre_merged.csv").parent)
    clusters, _ = run_ours(ds)
    scores = per_record(ds, [c[0] for c in clusters])
    false, _missed = by_pairs(ds, clusters)
    assert false == set()
    assert scores["FP"] == 0
    assert scores["sensitivity"] >= BIB_DEDUPE[name]


def test_asysd_special_cases_exactly_right() -> None:
    ds = load(corpus_path("dedup/special_cases/records_pre_merged.csv").parent)
    clusters, _ = run_ours(ds)
    assert sorted(sorted(c) for c in clusters if len(c) > 1) == sorted(sorted(g) for g in ds.groups)


def test_given_and_family_names_swapped_by_one_database() -> None:
    bare = {"volume": None, "pages": None, "issue": None, "journal": None}
    a = rec(**bare, authors=["Carignani, Andrea", "Negri, Lorenzo"])
    b = rec(**bare, authors=["Andrea, C.", "Lorenzo, N."])
    assert verdict(a, b).same
    # One author alone is too little to read a swap into.
    assert (
        verdict(rec(**bare, authors=["Carignani, Andrea"]), rec(**bare, authors=["Andrea, C."])).same is False
    )


def test_conference_paper_filed_as_a_chapter_and_a_heading_before_the_title() -> None:
    paper = rec(kind="conference", journal="Lecture Notes in Computer Science", volume="490", pages="183-190")
    assert verdict(paper, rec(kind="chapter", volume="490", pages="183-190", journal=None)).same
    headed = rec(title="MEDICAL PROGRESS: " + str(ARTICLE["title"]))
    assert verdict(ARTICLE, headed).same


def test_a_translated_title_is_merged_only_as_a_translation_at_one_full_citation() -> None:
    """Issue 51 (held out): translations of one title need not look alike, so the title supports
    the merge by saying it is a translation (in another language than the other, bracketed, a
    language note) and the citation places both at one paper: authors, year, journal, volume and
    the same range of pages. A single page (an abstract's, a supplement's) is not enough; two
    different English titles at one citation are not a translation."""
    german = rec(title="Plattformökonomie und Crowdworking als Herausforderungen für das deutsche Modell")
    english = rec(title="Platform economy and crowdworking as challenges for the German model")
    v = verdict(german, english)
    assert v.same and "languages differ" in v.why and "pages 149-155" in v.why
    assert (
        verdict(rec(title=german["title"], pages="149"), rec(title=english["title"], pages="149")).same
        is False
    )
    assert verdict(german, rec(title=english["title"], volume="39")).same is False
    assert verdict(german, rec(title=english["title"], authors=["Dear, J"])).same is False
    assert verdict(german, rec(title=english["title"], year=2013)).same is False
    bracketed = rec(
        title="[Indications and contraindications of living-donor kidney transplantation]. [Spanish]"
    )
    v = verdict(rec(title="Indications and contraindications for living kidney donations"), bracketed)
    assert v.same and "a title translated" in v.why
    other = rec(title="Plasma exchange in children with atypical haemolytic uraemic syndrome")
    assert verdict(other, english).same is False  # both English, neither says it is translated
    ovid = rec(
        title="Antibiotic prophylaxis in thoracic surgery. <ORIGINAL> PROPHYLAXIE ANTIBIOTIQUE EN CHIRURGIE"
    )
    assert verdict(ovid, rec(title="[Antibiotic prophylaxis in thoracic surgery. Controlled study]")).same


def test_one_doi_is_one_record_however_two_databases_type_it():
    """OpenAlex's posted-content and an index's article with one Research Square DOI are one
    record; without the shared DOI a preprint and its journal version stay apart."""
    preprint = rec(kind="preprint", doi="10.21203/rs.3.rs-3992403/v1", journal="Research Square")
    article = rec(kind="article", doi="10.21203/rs.3.rs-3992403/v1", journal="Research Square")
    assert verdict(preprint, article).same
    assert conflict(normalize(rec(kind="preprint")), normalize(rec(kind="article"))) == "kind"


def test_a_volume_that_is_the_year_and_an_article_number_beside_a_page_count_are_no_conflict():
    magazine = rec(journal="Harvard Business Review", volume="2016", year=2016, pages=None, issue="May")
    indexed = rec(journal="Harvard Business Review", volume="94", year=2016, pages="35", issue="5")
    assert conflict(normalize(magazine), normalize(indexed)) is None
    elsevier = rec(journal="Computers in Human Behavior", volume="113", pages="106482")
    counted = rec(journal="Computers in Human Behavior", volume="113", pages="11")
    assert conflict(normalize(elsevier), normalize(counted)) is None
    assert conflict(normalize(rec(pages="106482")), normalize(rec(pages="106483"))) == "pages"


# --- issue 51: what a duplicate is, on the failure classes of unseen data --------------------

# Two different abstracts of one meeting supplement: different titles, different authors, the
# supplement's DOI on both, and (in another database) the same volume and first page.
HIRANO: RecordData = {
    "kind": "article",
    "title": "Glucagon-like peptide receptor agonism improves endothelial function in obese mice",
    "authors": ["Hirano, Takashi", "Sato, K"],
    "journal": "Diabetes",
    "year": 2014,
    "volume": "63",
    "issue": "Suppl 1",
    "pages": "A388",
    "doi": "10.2337/db14-1-388",
}
DEAR: RecordData = {
    "kind": "article",
    "title": "Insulin degludec and hypoglycaemia in older adults: a pooled analysis of trials",
    "authors": ["Dear, Alison", "Miller, P"],
    "journal": "Diabetes",
    "year": 2014,
    "volume": "63",
    "issue": "Suppl 1",
    "pages": "A388",
    "doi": "10.2337/db14-1-388",
}


def test_a_supplement_doi_on_two_abstracts_with_different_titles_is_no_identity() -> None:
    v = verdict(HIRANO, DEAR)
    assert not v.same and "titles differ" in v.why


def test_a_doi_the_set_holds_on_different_titles_is_neither_identity_nor_conflict() -> None:
    """Once the set shows one DOI on two titles that disagree, the DOI names no single work: a
    title-less record carrying it joins neither abstract, and another database's copy of one of
    them under its own DOI is matched on title and authors (the DOIs do not conflict)."""
    clusterer = Clusterer()
    clusterer.add(1, 1, HIRANO)
    assert clusterer.shared_dois == set()
    assert clusterer.place(2, DEAR) is None
    clusterer.add(2, 2, DEAR)
    assert clusterer.shared_dois == {"10.2337/db14-1-388"}
    stub: RecordData = {"doi": "10.2337/db14-1-388", "authors": ["Hirano, T"], "year": 2014}
    assert clusterer.place(3, stub) is None
    copy = dict(DEAR, doi="10.2337/db14-1-388-dear", authors=["Dear, A", "Miller, P"])
    found = clusterer.place(4, copy)  # type: ignore[arg-type]
    assert found is not None and found[0] == 2 and found[2].rule == "title"
    assert "authors" in found[2].why


def test_the_same_supplement_page_is_no_identity() -> None:
    """ "Diabetologia 1, S72": two abstracts on one supplement page. Even with titles alike (a
    session's abstracts on one topic), a meeting abstract merges only when the authors agree."""
    hirano: RecordData = {
        "kind": "article",
        "title": "Effect of dapagliflozin on renal haemodynamics in type 2 diabetes",
        "authors": ["Hirano, T", "Ito, Y"],
        "journal": "Diabetologia",
        "year": 2015,
        "volume": "1",
        "pages": "S72",
    }
    dear = dict(hirano, authors=["Dear, J", "Walker, M"])
    v = verdict(hirano, dear)  # type: ignore[arg-type]
    assert not v.same
    # a different title on the same page: never
    assert not verdict(hirano, dict(hirano, title="Hypoglycaemia awareness in older adults")).same  # type: ignore[arg-type]
    # the same abstract from two databases: title and authors agree
    other_database = dict(hirano, authors=["Hirano, Takashi", "Ito, Yuko"], journal="Diabetologia")
    v = verdict(hirano, other_database)  # type: ignore[arg-type]
    assert v.same and v.why.startswith("title 1.00 + authors")


def test_same_title_and_authors_with_a_field_written_differently_by_another_database() -> None:
    """The misses of unseen data: one work, a field written differently (the journal's
    abbreviation, initials for forenames, a title's case and punctuation, the volume with its
    supplement)."""
    medline = rec(
        journal="Diabetes Metab",
        authors=["Zekry D", "Frangos E", "Graf C"],
        title="Diabetes, comorbidities, and increased long-term mortality in older patients admitted "
        "for geriatric care.",
    )
    assert verdict(ARTICLE, medline).same
    embase = rec(volume="38 (2)", issue=None, title=ARTICLE["title"].upper())  # type: ignore[union-attr]
    assert verdict(ARTICLE, embase).same


def test_every_merge_says_what_decided_it() -> None:
    v = verdict(ARTICLE, rec(authors=["Zekry, D", "Frangos, E"]))
    assert v.same and v.why == "title 1.00 + authors + year + volume and page + issue + journal"
