"""The ClinicalTrials.gov parsers on the real recorded answers (tests/fixtures/clinicaltrials/,
origins in its MANIFEST.tsv), the register's search parameters, and NCT number normalising."""

from __future__ import annotations

import json

import pytest

from medlit.core.errors import MedlitError
from medlit.core.plugin import identifiers
from medlit.plugins.clinicaltrials.inputs import SearchInput
from medlit.plugins.clinicaltrials.parse import full, page_studies, summary
from medlit.plugins.clinicaltrials.queries import search_params
from medlit.plugins.clinicaltrials.review_source import normalise

from support.fake_upstream import FIXTURES

DIR = FIXTURES / "clinicaltrials"


def load(name: str):
    return json.loads((DIR / name).read_text())


def test_a_first_page_has_its_total_and_token_and_a_next_page_only_its_token():
    studies, total, token = page_studies(load("search_phelan_limit5.json"))
    assert len(studies) == 5 and total == 21 and token == "ZVt07cGHkvI2wRk2CJf6_LLq14bEL8swd7KrgP4dnDeTsPkw"
    studies, total, token = page_studies(load("search_phelan_next.json"))
    assert len(studies) == 5 and total is None and token
    studies, total, token = page_studies(load("search_nsclc_egfr_l858r.json"))
    assert len(studies) == 2 and total == 2 and token is None


def test_an_answer_without_a_study_list_is_the_registers_fault():
    with pytest.raises(MedlitError) as caught:
        page_studies({"totalCount": 3})
    assert caught.value.reason == "clinicaltrials_invalid_response"


def test_summary_of_a_field_selected_search_answer():
    t = summary(load("search_phelan_limit5.json")["studies"][1])
    assert t.nctId == "NCT05105685" and t.phases == ["PHASE1", "PHASE2"] and t.status == "COMPLETED"
    assert t.url == "https://clinicaltrials.gov/study/NCT05105685" and t.conditions
    assert t.pmids == [] and t.detail is None


def test_summary_of_the_whole_record():
    t = summary(load("study_nct02576665_full.json"))
    assert t.title.startswith("A Study of Toca 511") and t.officialTitle.startswith("A Phase 1b Study")
    assert (t.status, t.studyType, t.phases) == ("TERMINATED", "INTERVENTIONAL", ["PHASE1"])
    assert (t.enrollment, t.enrollmentType) == (21, "ACTUAL")
    assert (t.startDate, t.primaryCompletionDate, t.completionDate) == ("2016-07", "2019-05", "2019-12-20")
    assert t.sponsor == "Tocagen Inc." and t.hasResults is False
    assert t.pmids == ["29735994", "29322091"] and len(t.conditions) == 12


def test_the_whole_record_reads_every_module():
    d = full(load("study_nct02576665_full.json")).detail
    assert d.design.allocation == "NA" and d.design.primaryPurpose == "TREATMENT"
    assert d.arms[0].interventions == ["Biological: Toca 511", "Drug: Toca FC"]
    assert [i.name for i in d.interventions] == ["Toca 511", "Toca FC"]
    assert d.interventions[1].otherNames == ["Flucytosine", "5-FC", "5-Fluorocytosine"]
    assert d.eligibility.criteria.endswith("(Tg 511-15-01).") and d.eligibility.healthyVolunteers is False
    assert d.eligibility.ageGroups == ["ADULT", "OLDER_ADULT"]
    assert d.outcomes[0].timeFrame == "Baseline to Weeks 9-10"
    h = d.statusHistory
    assert (h.firstSubmitted, h.firstPosted, h.lastUpdatePosted) == ("2015-10-12", "2015-10-15", "2020-02-07")
    assert d.officials == ["Jaime R Merchan, MD, University of Miami, PRINCIPAL_INVESTIGATOR"]
    assert d.keywords == ["Anaplastic Astrocytoma, Glioblastoma"] and len(d.meshTerms) == 12
    assert d.results is None


def test_posted_results_give_each_groups_first_value_and_adverse_event_totals():
    # Hand-made in the API's results shape (no recorded study with results is in the fixtures).
    study = load("study_nct02576665_full.json")
    study["hasResults"] = True
    study["resultsSection"] = {
        "participantFlowModule": {
            "periods": [
                {
                    "milestones": [
                        {
                            "type": "STARTED",
                            "achievements": [
                                {"groupId": "FG000", "numSubjects": "12"},
                                {"groupId": "FG001", "numSubjects": "9"},
                            ],
                        }
                    ]
                }
            ]
        },
        "outcomeMeasuresModule": {
            "outcomeMeasures": [
                {
                    "type": "PRIMARY",
                    "title": "Change in immune activity",
                    "timeFrame": "Week 10",
                    "paramType": "MEAN",
                    "unitOfMeasure": "cells/uL",
                    "groups": [{"id": "OG000", "title": "Toca 511/Toca FC"}],
                    "classes": [
                        {
                            "categories": [
                                {"measurements": [{"groupId": "OG000", "value": "3.4", "spread": "1.2"}]}
                            ]
                        }
                    ],
                }
            ]
        },
        "adverseEventsModule": {
            "eventGroups": [{"id": "EG000", "title": "All", "seriousNumAffected": 4, "seriousNumAtRisk": 21}]
        },
    }
    r = full(study).detail.results
    assert r.participantsStarted == 21
    assert r.outcomes[0].groups[0].value == "3.4 (1.2)" and r.outcomes[0].unit == "cells/uL"
    assert r.adverseEvents[0].seriousAffected == 4 and r.adverseEvents[0].atRisk == 21


def test_a_study_record_as_a_review_register_record():
    r = normalise(load("study_nct02576665_full.json"))
    assert r.source == "clinicaltrials" and r.source_id == "NCT02576665" and r.year == 2015
    assert r.title.startswith("A Phase 1b Study") and r.authors == ("Tocagen Inc.",)
    assert r.publication_types == ("Trial registration", "INTERVENTIONAL")
    assert "Anaplastic Astrocytoma, Glioblastoma" in r.keywords and r.abstract.startswith("The purpose")


def test_search_arguments_become_the_registers_parameters():
    args = SearchInput(
        intervention="Keytruda", status=["RECRUITING"], phase=["PHASE2", "PHASE3"], sort="last_update"
    )
    params = search_params(args, 20)
    assert params == {
        "query.intr": "Keytruda",
        "filter.overallStatus": "RECRUITING",
        "filter.advanced": "AREA[Phase](PHASE2 OR PHASE3)",
        "sort": "LastUpdatePostDate:desc",
        "pageSize": "20",
        "countTotal": "true",
    }


@pytest.mark.parametrize(
    ("raw", "nct"),
    [
        ("NCT04280705", "NCT04280705"),
        ("nct 4280705", "NCT04280705"),
        ("NCT ID: NCT00000102", "NCT00000102"),
        ("https://clinicaltrials.gov/study/NCT04280705?tab=results", "NCT04280705"),
        ("https://www.clinicaltrials.gov/ct2/show/NCT00000102", "NCT00000102"),
    ],
)
def test_nct_numbers_are_normalised(raw, nct):
    assert identifiers.normalize("nct", raw) == nct


@pytest.mark.parametrize("raw", ["NCT00000000", "NCT123456789", "04280705", "ISRCTN12345678", ""])
def test_what_is_not_an_nct_number_is_refused(raw):
    with pytest.raises(identifiers.IdentifierError, match="NCT"):
        identifiers.normalize("nct", raw)
