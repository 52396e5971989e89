"""The PRISMA 2020 flow counts from screening decisions, reconciled over reviewers (pure functions,
no store): every box follows the decisions exactly, the boxes add up, conflicts and maybes are
pending rather than counted, a final decision settles a conflict, and neither the diagram module
nor its PNG renderer (Pillow) is imported by loading the server."""

from __future__ import annotations

import subprocess
import sys

import pytest

from medlit.plugins.review.reporting.flow import flow, routed_flow
from medlit.plugins.review.reporting.routes import route
from medlit.plugins.review.screening.decisions import REASON_CATEGORIES, reconcile
from medlit.plugins.review.store import Decision, Retrieval


def d(key, decision, stage="title_abstract", reviewer="model", category=None, at="2026-01-01T00:00:00Z"):
    return Decision(key, stage, reviewer, decision, category, None, at)


def got(key, state):
    return Retrieval(key, state, "pmc" if state == "retrieved" else None, None, None, [], None, "t")


def test_reconcile_agreement_conflict_and_final():
    eff = reconcile(
        [
            d(1, "include"),
            d(1, "include", reviewer="ann"),
            d(2, "include"),
            d(2, "exclude", reviewer="ann"),
            d(3, "include"),
            d(3, "exclude", reviewer="ann"),
            d(3, "exclude", reviewer="final"),
            d(4, "exclude", "full_text", category="wrong_outcome", at="2026-01-01T00:00:00Z"),
            d(
                4,
                "exclude",
                "full_text",
                reviewer="ann",
                category="wrong_population",
                at="2026-01-02T00:00:00Z",
            ),
        ]
    )
    assert eff[(1, "title_abstract")].decision == "include"
    assert eff[(2, "title_abstract")].conflict and eff[(2, "title_abstract")].by == {
        "model": "include",
        "ann": "exclude",
    }
    assert eff[(3, "title_abstract")].decision == "exclude"  # the final decision settles it
    # agreeing on exclude with different categories: the latest decision's category
    assert (eff[(4, "full_text")].decision, eff[(4, "full_text")].category) == ("exclude", "wrong_population")


def test_flow_counts_follow_the_decisions_and_add_up():
    keys = list(range(1, 21))
    decisions = []
    decisions += [d(k, "include") for k in range(1, 11)]  # 10 includes
    decisions += [d(k, "exclude") for k in range(11, 15)]  # 4 excludes
    decisions += [d(15, "maybe")]
    decisions += [d(16, "include"), d(16, "exclude", reviewer="ann")]  # a conflict
    # 17-20 undecided
    decisions += [d(k, "include", "full_text") for k in (1, 2, 3)]
    decisions += [d(4, "exclude", "full_text", category="wrong_population")]
    decisions += [d(5, "exclude", "full_text", category="wrong_study_design")]
    decisions += [d(6, "exclude", "full_text", category="not_retrievable")]
    decisions += [d(7, "maybe", "full_text")]
    decisions += [
        d(8, "include", "full_text"),
        d(8, "exclude", "full_text", reviewer="ann", category="other"),
    ]
    retrievals = {
        1: got(1, "retrieved"),
        2: got(2, "not_retrieved"),
        9: got(9, "not_retrieved"),
        10: got(10, "retrieved"),
    }
    f = flow(keys, reconcile(decisions), retrievals, {"pubmed": 18, "europepmc": 5}, 3)
    assert f.identified == {"pubmed": 18, "europepmc": 5} and f.duplicates_removed == 3 and f.records == 20
    assert (f.screened, f.excluded, f.sought) == (14, 4, 10)
    # 2 was not retrieved by the chain but a reviewer assessed it: assessed wins
    assert f.not_retrieved == 2  # 6 (not_retrievable) and 9 (the chain had none, nobody assessed)
    assert f.assessed == 5 and f.included == 3
    assert f.excluded_reasons == {"wrong_population": 1, "wrong_study_design": 1}
    assert f.pending_screening == {"undecided": 4, "maybe": 1, "conflicts": 1}
    assert f.pending_full_text == {"notChecked": 0, "awaitingAssessment": 1, "maybe": 1, "conflicts": 1}
    # the boxes add up
    assert f.screened == f.excluded + f.sought
    assert f.sought == f.not_retrieved + f.assessed + sum(f.pending_full_text.values())
    assert f.assessed == f.included + sum(f.excluded_reasons.values())
    assert f.records == f.screened + sum(f.pending_screening.values())


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("pubmed", "database"),
        ("Embase", "database"),
        ("Cochrane Central Register of Controlled Trials", "database"),  # PRISMA counts it a database
        ("ClinicalTrials.gov", "register"),
        ("WHO ICTRP", "register"),
        ("EU Clinical Trials Register", "register"),
        ("ISRCTN", "register"),
        ("Citation searching", "other"),
        ("citation_searching (forward)", "other"),
        ("Websites: WHO, NICE", "other"),
        ("Organisations", "other"),
        ("Organizations (manufacturers)", "other"),
        ("Hand searching", "other"),
        ("Reference lists of included studies", "other"),
    ],
)
def test_a_sources_route_is_read_from_its_label(label, expected):
    assert route(label) == expected


def test_records_only_other_methods_found_make_their_own_column():
    keys = list(range(1, 11))
    # 1-6 found by databases (4 of them also by citation searching), 7-10 by citation searching only
    decisions = [d(k, "include") for k in (1, 2, 7, 8, 9)] + [d(k, "exclude") for k in (3, 4, 5, 6, 10)]
    decisions += [d(k, "include", "full_text") for k in (1, 7, 8)]
    decisions += [d(9, "exclude", "full_text", category="wrong_outcome")]
    identified = {"pubmed": 6, "ClinicalTrials.gov": 1, "Citation searching": 8}
    f = routed_flow(keys, reconcile(decisions), {}, identified, 1, other_only={7, 8, 9, 10})
    assert f.identified == {"pubmed": 6, "ClinicalTrials.gov": 1} and f.routes == {
        "pubmed": "database",
        "ClinicalTrials.gov": "register",
    }
    assert (f.records, f.screened, f.excluded, f.sought, f.included) == (6, 6, 4, 2, 1)
    assert f.pending_full_text["notChecked"] == 1 and f.duplicates_removed == 1
    o = f.other
    assert (
        o is not None
        and o.identified == {"Citation searching": 8}
        and o.routes == {"Citation searching": "other"}
    )
    assert (o.records, o.screened, o.excluded, o.sought, o.assessed, o.included) == (4, 4, 1, 3, 3, 2)
    assert o.excluded_reasons == {"wrong_outcome": 1}
    # with no source on the other-methods route every record stays in the databases' column
    f = routed_flow(keys, reconcile(decisions), {}, {"pubmed": 10}, 0, other_only={7, 8})
    assert f.other is None and f.records == 10


def test_the_reason_categories_are_the_described_ones():
    from medlit.plugins.review import REASON_CATEGORIES_LIST

    assert tuple(REASON_CATEGORIES) == REASON_CATEGORIES_LIST


def test_loading_the_server_does_not_import_the_diagram():
    code = (
        "import sys\n"
        "from medlit.core.host import load_host\n"
        "from medlit.core.settings import load_settings\n"
        "from medlit.core.server import tool_definitions\n"
        "tool_definitions(load_host(load_settings({})))\n"
        "print(sorted(m for m in sys.modules if m.startswith(('matplotlib', 'PIL', 'medlit.plugins.review.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert (
        "matplotlib" not in out and "PIL" not in out and "medlit.plugins.review.reporting.diagram" not in out
    ), out
