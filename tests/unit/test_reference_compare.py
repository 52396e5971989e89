"""Deciding whether a candidate is the stated work (after folding diacritics, case, punctuation and
journal abbreviations), what differs, and merging notices from several sources."""

from __future__ import annotations

import json

import pytest

from medlit.core.text import fold
from medlit.core.types import RecordMetadata, RecordNotice
from medlit.plugins.crossref.parse import parse_items
from medlit.plugins.references.compare import (
    Work,
    compare_author,
    compare_title,
    journal_matches,
    judge,
    title_notice,
)
from medlit.plugins.references.deciding import decide
from medlit.plugins.references.notices import merge_notices
from medlit.plugins.references.parse import parse_reference
from medlit.plugins.references.reading import to_query

from support.corpus import corpus_bytes

CERMINE = RecordMetadata(
    doi="10.1007/s10032-015-0249-8",
    title="CERMINE: automatic extraction of structured metadata from scientific literature",
    container_title="International Journal on Document Analysis and Recognition (IJDAR)",
    container_abbrev="IJDAR",
    year=2015,
    volume="18",
    issue="4",
    first_page="317",
    last_page="335",
    authors=("Tkaczyk D", "Szostek P", "Fedoryszak M"),
    source="crossref",
)


def ref(text: str):
    return to_query("1", parse_reference(text))


def test_folding():
    assert fold("Łukasz Bolikowski–Müller, Ø.") == "lukasz bolikowski muller o"
    assert (
        compare_title("RETRACTED: Ileal-lymphoid-nodular hyperplasia.", "Ileal lymphoid nodular hyperplasia")
        == "same"
    )
    assert compare_title("CERMINE: automatic extraction", CERMINE.title) == "close"  # cut short
    assert compare_title("A different paper on metadata", CERMINE.title) == "different"
    assert (
        compare_author("Muller J", "Müller J") == "same" and compare_author("Muler J", "Müller J") == "close"
    )
    assert compare_author("Smith J", "Tkaczyk D") == "different"


@pytest.mark.parametrize(
    ("stated", "actual", "same"),
    [
        ("N Engl J Med", "The New England journal of medicine", True),
        (
            "Int J Doc Anal Recognit",
            "International Journal on Document Analysis and Recognition (IJDAR)",
            True,
        ),
        ("IJDAR", "International Journal on Document Analysis and Recognition (IJDAR)", True),
        ("J. Biol. Chem.", "The Journal of biological chemistry", True),
        ("Lancet", "The Lancet", True),
        ("Lancet", "Lancet Respir Med", False),
        ("Nature", "Nature Medicine", False),
    ],
)
def test_journal_abbreviations(stated, actual, same):
    assert journal_matches(stated, actual) is same


def test_exact_garbled_and_chimera():
    exact = judge(
        ref(
            "Tkaczyk D, Szostek P. CERMINE: automatic extraction of structured metadata from scientific "
            "literature. Int J Doc Anal Recognit. 2015;18(4):317-35."
        ),
        Work([CERMINE]),
    )
    assert exact.same_work and exact.discrepancies == []
    garbled = judge(
        ref(
            "Tkaczik D, Szostek P. CERMINE: automatic extraction of structured metadata from scientific "
            "literature. IJDAR. 2016;18(4):317-35."
        ),
        Work([CERMINE]),
    )
    assert garbled.same_work and {f for f, _, _ in garbled.discrepancies} == {"authors", "year"}
    chimera = judge(
        ref(
            "Smith J, Jones K. CERMINE: automatic extraction of structured metadata from scientific "
            "literature. N Engl J Med. 2015;18(4):317-35."
        ),
        Work([CERMINE]),
    )
    assert chimera.chimera and chimera.same_work  # the same title: reported as a mismatch, never verified
    other = judge(
        ref("Tkaczyk D. Structured affiliations extraction from scientific literature. D-Lib Mag. 2015;21."),
        Work([CERMINE]),
    )
    assert not other.same_work


def test_the_near_miss_scoring_127_is_never_verified():
    """Crossref's matcher scores the CERMINE paper 127.5 for a reference with another first author,
    volume, issue, pages and year: a high score alone proves nothing."""
    works, _ = parse_items(
        json.loads(
            corpus_bytes(
                "crossref/works_query_bibliographic/unstructured_ref_wrong_volume_nomatch_rows5.json"
            )
        )
    )
    text = (
        "P. Szostek, D. Tkaczyk, M. Fedoryszak, P. J. Dendek, and Ł. Bolikowski, “CERMINE: automatic extraction "
        "of structured metadata from scientific literature,” IJDAR, vol. 14, no. 40, pp. 310–335, 2016."
    )
    q = ref(text)
    candidates = [Work([w.metadata], ["crossref"], ["bibliographic"], w.score) for w in works]
    d = decide(q, candidates, failures=False)
    assert d.match == "mismatch"
    assert d.verdict is not None
    assert {"authors", "volume", "pages", "year"} <= {f for f, _, _ in d.verdict.discrepancies}
    # the others (another CERMINE paper, other papers by the same authors) are not taken for it
    assert d.work is not None and d.work.doi == "10.1007/s10032-015-0249-8"


def test_ids_are_checked_not_believed():
    other = RecordMetadata(
        doi="10.5555/other",
        pmid="1",
        title="Something else entirely about mice",
        year=2001,
        authors=("Doe J",),
        container_title="Nature",
    )
    q = ref(
        "Tkaczyk D. CERMINE: automatic extraction of structured metadata from scientific literature. "
        "IJDAR. 2015;18(4):317-35. doi:10.5555/other"
    )
    d = decide(q, [Work([other], ["crossref"], ["doi"])], failures=False)
    assert d.match == "mismatch" and d.note and "belongs to another paper" in d.note
    d2 = decide(
        q, [Work([other], ["crossref"], ["doi"]), Work([CERMINE], ["crossref"], ["bibliographic"])], False
    )
    assert d2.match == "mismatch" and d2.work is not None and d2.work.doi == CERMINE.doi
    assert d2.verdict is not None and ("doi", "10.5555/other", CERMINE.doi) in d2.verdict.discrepancies


def test_notices_merge_with_both_sources_and_the_gravest_type():
    merged = merge_notices(
        [
            RecordNotice(
                "erratum",
                "erratum",
                doi="10.1016/X",
                date="2020-06-13",
                origin="publisher",
                source="crossref",
            ),
            RecordNotice(
                "retraction",
                "retraction",
                doi="10.1016/x",
                date="2020-06-05",
                origin="retraction-watch",
                source="crossref",
            ),
            RecordNotice(
                "retraction",
                "RetractionIn",
                pmid="32511943",
                doi="10.1016/x",
                date="2020-06",
                source="pubmed",
            ),
            RecordNotice("retraction", "Retracted Publication", source="pubmed"),
            RecordNotice("correction", "correction", doi="10.1016/y", origin="publisher", source="crossref"),
        ]
    )
    assert [(n.type, n.id) for n in merged] == [("retraction", "10.1016/X"), ("correction", "10.1016/y")]
    top = merged[0]
    assert top.source == "crossref:publisher, crossref:retraction-watch, pubmed" and top.disagreement
    assert {s.type for s in top.sources} == {"erratum", "retraction"} and top.date == "2020-06"


# Issue 31: a misspelt first author is a discrepancy; a retraction prefix is the same title.
def test_a_one_letter_misspelling_of_a_compound_surname_is_not_the_same_author():
    assert compare_author("Garcia-Taber I", "Garcia-Tabar I") == "close"
    assert compare_author("García I", "García-Tabar I") == "same"  # half a compound surname
    assert compare_author("van der Berg J", "Berg J") == "same"
    assert compare_author("Garcia-Lopez A", "Garcia-Tabar I") == "different"


def test_the_misspelt_first_author_comes_back_mismatch_naming_the_author():
    record = RecordMetadata(
        doi="10.1109/iembs.2011.6090532",
        title="A shuttle run test for athletes",
        container_title="Conf Proc IEEE Eng Med Biol Soc",
        year=2011,
        first_page="1875",
        last_page="1878",
        authors=("Garcia-Tabar I", "Gorostiaga EM"),
        source="crossref",
    )
    q = ref(
        "Garcia-Taber I, Gorostiaga EM. A shuttle run test for athletes. Conf Proc IEEE Eng Med Biol Soc "
        "2011:1875-1878."
    )
    d = decide(q, [Work([record], ["crossref"], ["bibliographic"])], failures=False)
    assert d.match == "mismatch" and d.verdict is not None
    assert ("authors", "Garcia-Taber I", "Garcia-Tabar I") in d.verdict.discrepancies
    assert d.verdict.fields["year"] == "same" and d.verdict.fields["pages"] == "same"


@pytest.mark.parametrize(
    "prefixed",
    [
        "Notice of Retraction: A shuttle run test for athletes",
        "Notice of Retraction A shuttle run test for athletes",
        "RETRACTED ARTICLE: A shuttle run test for athletes",
        "Retracted: A shuttle run test for athletes",
        "RETRACTED: Notice of Retraction: A shuttle run test for athletes",
    ],
)
def test_a_retraction_prefix_compares_as_the_same_title(prefixed):
    assert compare_title("A shuttle run test for athletes.", prefixed) == "same"
    assert compare_title("Notice of the shuttle run test", "A shuttle run test for athletes") == "different"


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("Notice of Retraction: A shuttle run test for athletes", "retraction"),
        ("Notice of Retraction A shuttle run test for athletes", "retraction"),
        ("RETRACTED ARTICLE: A shuttle run test for athletes", "retraction"),
        ("WITHDRAWN: A shuttle run test for athletes", "withdrawal"),
        ("A shuttle run test for athletes", None),
        ("Retraction notice to \u201cA shuttle run test\u201d", None),  # a notice, not a retracted work
    ],
)
def test_a_retraction_prefix_on_the_works_own_title_states_its_notice(title, kind):
    found = title_notice(title)
    assert (found[0] if found else None) == kind
