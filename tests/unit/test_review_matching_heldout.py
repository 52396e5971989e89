"""The matcher on what held-out data brings (issue 51): fields another database writes
differently (a truncated bracketed title, Ovid's original-language title, a page range written
backwards or turned into a date by a spreadsheet, Embase's erratum titles, a French journal name's
elisions), the rules that keep different works apart however alike (a word swapped in a title, a
meeting abstract's shared page) and records too broken to say anything (no crash, no merge)."""

from __future__ import annotations

from medlit.plugins.review.identity.matching import Clusterer, conflict, normalize
from medlit.plugins.review.identity.matching.fields import (
    page_range,
    split_authors,
    title_words,
    tongue,
    translated,
)
from medlit.plugins.review.record import RecordData

from support.matching import changed, verdict

ARTICLE: RecordData = {
    "kind": "article",
    "title": "Disease recurrence in paediatric renal transplantation after the first year",
    "authors": ["Cochat, P.", "Fargue, S.", "Mestrallet, G."],
    "journal": "Pediatric Nephrology",
    "year": 2009,
    "volume": "24",
    "issue": "11",
    "pages": "2097-2108",
}


def rec(**changes: object) -> RecordData:
    return changed(ARTICLE, **changes)


def test_a_word_swapped_in_a_title_is_another_work() -> None:
    """Two registrations of one sponsor's trials differ by one word (Pediatric / Adult; plasma
    therapy-sensitive / -resistant): alike enough by characters, never one work. Spelling
    variants (haemolytic / hemolytic) and a dropped function word are no swap."""
    trial = {"kind": "article", "authors": ["Alexion Pharmaceuticals, Inc"], "year": 2011}
    pediatric = {
        **trial,
        "title": "An Open-Label, Multi-Center Clinical Trial of Eculizumab in Pediatric Patients With "
        "Atypical Hemolytic-Uremic Syndrome",
    }
    adult = {**pediatric, "title": str(pediatric["title"]).replace("Pediatric", "Adult")}
    assert verdict(pediatric, adult).same is False  # type: ignore[arg-type]
    sensitive = {**trial, "title": "Open label controlled trial of eculizumab in adult patients with "
                 "plasma therapy-sensitive atypical hemolytic uremic syndrome"}  # fmt: skip
    resistant = {**sensitive, "title": str(sensitive["title"]).replace("sensitive", "resistant")}
    assert verdict(sensitive, resistant).same is False  # type: ignore[arg-type]
    spelt = {**pediatric, "title": str(pediatric["title"]).replace("Hemolytic-Uremic", "Haemolytic-Uraemic")}
    assert verdict(pediatric, spelt).same  # type: ignore[arg-type]
    # where the citation places both at one page, the swap is an edit of one paper's title
    paper = rec(kind="conference", journal=None, pages="44-53",
                title="Moral Hazards and Effects of IT-enabled Monitoring Systems in Online Labor Markets")  # fmt: skip
    edited = rec(**{**paper, "title": str(paper["title"]).replace("IT-enabled", "Enhanced")})
    v = verdict(paper, edited)
    assert v.same and "volume and page" in v.why


def test_a_meeting_abstract_needs_its_authors_and_title_a_proceedings_paper_its_page_range() -> None:
    """An abstract's page in a supplement is printed on many abstracts: title and authors decide.
    A proceedings paper's whole range of pages is its own and places it like an article's."""
    abstract = rec(kind="conference", journal="Diabetologia", volume="57", issue="Suppl 1", pages="S72",
                   title="Glycaemic variability and cardiovascular outcome in type 2 diabetes")  # fmt: skip
    other = rec(**{**abstract, "title": "Glycaemic variability and renal outcome in type 2 diabetes",
                   "authors": ["Dear, J."]})  # fmt: skip
    assert verdict(abstract, other).same is False
    assert verdict(abstract, rec(**{**abstract, "authors": ["Hirano, T."]})).same is False
    assert verdict(abstract, rec(**abstract)).same


def test_translated_titles_ovid_originals_and_truncated_brackets() -> None:
    """A translated title's marks: wholly bracketed, a language note, Ovid's <ORIGINAL>; a title
    an export quoted and cut inside its bracket still has a title; the language of a title by
    its function words."""
    assert translated("[Asthma in children: a review]")
    assert translated("Indications for living kidney donation. [Spanish]")
    assert translated("Prophylaxis in thoracic surgery. <ORIGINAL> PROPHYLAXIE EN CHIRURGIE THORACIQUE")
    assert not translated("Asthma in children [Review]") and not translated("Asthma in children")
    cut = '"[Prevention of the postpericardiotomy syndrome, postoperative effusions, and atrial fibrillation'
    assert title_words(cut)[:3] == ("prevention", "of", "the")
    whole = "Prevention of the postpericardiotomy syndrome, postoperative effusions, and atrial fibrillation"
    assert verdict(rec(title=cut), rec(title=whole)).same
    assert (
        tongue("Zum aktuellen Stand des Plattformkapitalismus", title_words("Zum aktuellen Stand des X"))
        == "de"
    )
    assert (
        tongue("The current situation of platform capitalism", ("the", "current", "situation", "of")) == "en"
    )
    assert tongue("ЗАЙНЯТІСТЬ І МОТИВАЦІЯ", ("зайнятість", "і", "мотивація")) == "script"
    assert tongue("Plattform", ("plattform",)) == ""


def test_pages_written_backwards_or_made_dates_by_a_spreadsheet() -> None:
    """A range "2297-2108" (a typo in one page) spans both numbers and rules out nothing it may be;
    "21-Apr" is a spreadsheet's date for "4-21" and still places a record beside its copy."""
    assert page_range("2297-2108") == ("", 2108, 2297)
    assert page_range("1297-306") == ("", 1297, 1306)  # written short, not backwards
    assert page_range("21-Apr") == page_range("Apr-21") == ("", 4, 21)
    assert page_range("01-Oct") == ("", 1, 10)
    assert verdict(ARTICLE, rec(pages="2297-2108")).same
    assert conflict(normalize(ARTICLE), normalize(rec(pages="2297-2298"))) == "pages"
    garbled = rec(pages="21-Apr", issue="280")
    assert verdict(garbled, rec(pages="21-Apr", issue="279")).same  # the issue field held a record number


def test_errata_in_embase_form_are_notices_and_match_each_other_not_their_article() -> None:
    """Embase titles an erratum "Title (Journal (2009) 360 (542-544))", Web of Science "Title (vol
    360, pg 542, 2009)": both notices of one correction, one record; neither is the article."""
    base = {"kind": "article", "authors": ["Philipp, T."], "journal": "New England Journal of Medicine",
            "year": 2009, "volume": "360", "issue": "23", "pages": "2487"}  # fmt: skip
    embase = {**base, "title": "Eculizumab for atypical hemolytic-uremic syndrome (New England Journal of "
              "Medicine (2009) 360 (542-544))"}  # fmt: skip
    wos = {**base, "title": "Eculizumab for Atypical Hemolytic-Uremic Syndrome (vol 360, pg 542, 2009)"}
    article = {**base, "title": "Eculizumab for atypical hemolytic-uremic syndrome", "pages": "542-544",
               "issue": "5", "authors": ["Nurnberger, J.", "Philipp, T."]}  # fmt: skip
    assert normalize(embase).notice and normalize(wos).notice  # type: ignore[arg-type]
    assert verdict(embase, wos).same  # type: ignore[arg-type]
    assert verdict(embase, article).same is False  # type: ignore[arg-type]


def test_a_short_title_a_year_apart_needs_the_whole_citation() -> None:
    """An epub and its print issue a year apart: a short title merges only with the page, the
    issue and the journal agreeing too."""
    short = rec(
        title="Haemolytic uraemic syndrome", journal="Nephron", pages="c37-c42", volume="118", issue="1"
    )
    assert verdict(short, rec(**{**short, "year": 2010, "journal": "Nephron - Clinical Practice."})).same
    assert verdict(short, rec(**{**short, "year": 2010, "issue": None})).same is False


def test_journal_names_with_french_elisions() -> None:
    a = rec(title="Antibiotic prophylaxis in pulmonary surgery, amoxicillin versus cefamandole",
            journal="Ann Fr Anesth Reanim")  # fmt: skip
    b = rec(**{**a, "journal": "Annales Francaises d Anesthesie et de Reanimation"})
    assert "journal" in verdict(a, b).why


def test_broken_records_neither_crash_nor_merge() -> None:
    """Records a PDF extraction left empty or garbled (no title, punctuation for a title, no
    authors, a year that is not one, pages that are not pages) are clustered without an error and
    merge with nothing on what they lack (bib-dedupe crashed on an empty title)."""
    broken: list[dict[str, object]] = [
        {},
        {"title": ""},
        {"title": "   "},
        {"title": "???"},
        {"title": "[]"},
        {"title": "[ ]."},
        {"title": '"'},
        {"title": "<i></i>"},
        {"title": "ÃƒÂ©tude ÃƒÂ©pid"},
        {"title": "Editorial", "authors": []},
        {"title": "Editorial", "authors": ["and", "et al."]},
        {"title": "Introduction", "year": "n.d.", "pages": "pp."},
        {"title": "Introduction", "pages": "--", "volume": "UNKNOWN", "issue": "nan"},
        {"title": "x" * 5000, "authors": ["A" * 300]},
        {"authors": ["Smith, J."], "pages": "Jan-Dec", "journal": "???"},
        {"doi": "10.1000/xyz", "title": "<ORIGINAL>"},
        {"doi": "10.1000/xyz", "title": "[Spanish]"},
    ]
    clusterer = Clusterer()
    for member, data in enumerate(broken):
        found = clusterer.place(member, data)  # type: ignore[arg-type]
        assert found is None, (data, found)
        clusterer.add(member, member, data)  # type: ignore[arg-type]
    for data in broken:
        normalize(data)  # type: ignore[arg-type]


def test_authors_split_on_and_or_semicolons() -> None:
    assert split_authors("Smith, J. and Doe, K.") == ["Smith, J.", "Doe, K."]
    assert split_authors("Smith, J.; Doe, K.;") == ["Smith, J.", "Doe, K."]
    assert split_authors("") == []


def test_an_erratum_title_cut_inside_its_citation_still_matches_its_other_record() -> None:
    """Embase's erratum title cut by a length limit inside the corrected article's citation ("...
    syndrome (The Journal of Pediatrics (M") beside Web of Science's "(vol 142, pg 310, 2003)"."""
    base = {"kind": "article", "authors": ["Veyradier, A."], "journal": "Journal of Pediatrics", "year": 2003,
            "volume": "142", "issue": "6", "pages": "616"}  # fmt: skip
    title = "Severe deficiency of the von Willebrand factor-cleaving protease in children with atypical HUS"
    embase = {**base, "title": f"Erratum: {title} (The Journal of Pediatrics (M"}
    wos = {**base, "title": f"{title} (vol 142, pg 310, 2003)"}
    v = verdict(embase, wos)  # type: ignore[arg-type]
    assert v.same and "title 1.00" in v.why


def test_a_title_cut_short_of_its_leading_name_needs_the_same_page() -> None:
    """ "Hybrid job recommendation system" is "Hyred: Hybrid job recommendation system" cut short
    (29 characters folded): with the authors, the year and the same first page, one paper; in
    the same issue at another page, two."""
    paper = rec(kind="conference", journal=None, volume=None, issue=None, pages="29-38",
                title="Hyred HYbrid Job REcommenDation System")  # fmt: skip
    cut = rec(**{**paper, "title": "HYbrid Job Recommendation system"})
    v = verdict(paper, cut)
    assert v.same and "one cut short" in v.why
    assert verdict(rec(**{**paper, "journal": "Information Systems Journal", "kind": "article", "issue": "2",
                          "pages": None}),
                   rec(**{**cut, "journal": "Information Systems Journal", "kind": "article", "issue": "2",
                          "pages": None})).same is False  # fmt: skip


def test_two_abstracts_of_one_group_on_one_supplement_page_are_two() -> None:
    """A supplement page holds several abstracts, often one group's: titles a word apart by the
    same authors on that page are two abstracts (the page does not excuse the swap)."""
    first = rec(kind="conference", journal="Diabetologia", volume="57", issue="Suppl 1", pages="S72",
                title="Long-term effect of dapagliflozin on glycaemic control, body weight and blood pressure "
                      "in Japanese patients with type 2 diabetes and moderate renal impairment treated with "
                      "insulin")  # fmt: skip
    second = rec(**{**first, "title": str(first["title"]).replace("Japanese", "Chinese")})
    assert verdict(first, second).same is False
    assert verdict(first, rec(**first)).same


def test_one_abstract_numbered_in_the_programme_and_in_the_listing() -> None:
    """One meeting abstract at page 22 of volume 15 in one index and page 52 in another (the
    programme's numbering and the journal's): the same title word for word and the same authors
    make one record, the single pages do not keep them apart. Another title, other authors,
    another volume or a full article's range of pages still do."""
    abstract = rec(kind="article", volume="15", issue=None, pages="22-22",
                   journal="Pediatric Transplantation.Conference: 6th Congress of the International "
                           "Pediatric Transplant Association",
                   title="Maintenance of renal function under eculizumab despite discontinuation of plasma "
                         "exchange after a third transplantation")  # fmt: skip
    listed = rec(**{**abstract, "journal": "Pediatric Transplantation", "pages": "52-52",
                    "title": str(abstract["title"]).title()})  # fmt: skip
    v = verdict(abstract, listed)
    assert v.same and v.why == "title 1.00 + authors + year + journal"
    assert verdict(abstract, rec(**{**listed, "authors": ["Dear, J.", "Hirano, T."]})).same is False
    assert verdict(abstract, rec(**{**listed, "volume": "16"})).same is False
    assert verdict(abstract, rec(**{**listed, "pages": "52-60"})).same is False
    other = rec(**{**listed, "title": str(abstract["title"]).replace("third", "second")})
    assert verdict(abstract, other).same is False
    # a journal article's pages still place it: the same title on two pages of a volume is two
    assert verdict(rec(pages="22-22"), rec(pages="52-52")).same is False


def test_a_citation_written_one_field_over() -> None:
    """One index writes "issue 26, page 9" for volume 26, issue 9 (its volume in the issue field,
    the issue in the pages): read back, the volume and issue agree and the page is unknown, and
    the evidence says so. Numbers that do not line up so still conflict."""
    full = rec(title="The treatment of atypical HUS", authors=["Loirat, C."], year=2011, volume="26", issue="9",
               pages="1746-1746", journal="Pediatric Nephrology.Conference: 44th Annual Scientific Meeting of "
               "the European Society for Paediatric Nephrology")  # fmt: skip
    shifted = rec(**{**full, "volume": None, "issue": "26", "pages": "9"})
    v = verdict(shifted, full)
    assert v.same and v.why.endswith("(one record's volume and issue written a field over)")
    assert verdict(full, shifted).same
    assert conflict(normalize(shifted), normalize(full)) is None
    assert conflict(normalize(rec(**{**shifted, "pages": "8"})), normalize(full)) == "pages"
    assert verdict(rec(**{**shifted, "issue": "25"}), full).same is False


def test_a_monthly_issue_written_as_its_month() -> None:
    """A magazine's issue is "May" in one index and 5 in another (and its volume the year in the
    first): the month is that issue, so a title cut short of its column heading matches with the
    authors, the year, the issue and the journal."""
    column = rec(title="Upwork's CEO on how an introverted engineer learned to lead", authors=["Kasriel, S."],
                 journal="Harvard Business Review", year=2016, volume="2016", issue="May", pages=None)  # fmt: skip
    indexed = rec(**{**column, "title": "How did it ... Upwork's CEO on how an introverted engineer learned to lead",
                     "authors": ["Kasriel, Stephane"], "volume": "94", "issue": "5", "pages": "35+"})  # fmt: skip
    v = verdict(column, indexed)
    assert v.same and "issue" in v.why and "one cut short" in v.why
    assert normalize(rec(issue="Sept.")).issue == "9" and normalize(rec(issue="Suppl 2")).issue == "2"
    assert verdict(column, rec(**{**indexed, "issue": "6"})).same is False
