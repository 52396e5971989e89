"""ClinicalTrials.gov API v2 study JSON -> :class:`~.models.Trial`.

A study is ``{"protocolSection": {<module>: {...}}, "derivedSection": ..., "resultsSection": ...,
"hasResults": bool}``. Any module or field may be missing (a search asks only for the fields a
summary shows, and old records lack many), so every read goes through :func:`_dict`, :func:`_list`
and :func:`_str`, which answer an empty value for a missing or mis-shaped one.
"""

from __future__ import annotations

from typing import Any

from medlit.core.plugin import errors

from .models import (
    AdverseEvents,
    Arm,
    Design,
    Detail,
    Eligibility,
    Intervention,
    Outcome,
    Reference,
    ResultGroup,
    ResultMeasure,
    Results,
    StatusHistory,
    Trial,
)
from .service import NAME, SITE

MAX_SITES_COUNTRIES = 50


def _dict(data: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _list(data: Any, key: str) -> list[Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, list) else []


def _str(data: Any, key: str) -> str | None:
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value.strip() or None if isinstance(value, str) else None


def _strs(data: Any, key: str) -> list[str]:
    return [v.strip() for v in _list(data, key) if isinstance(v, str) and v.strip()]


def _int(data: Any, key: str) -> int | None:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _date(module: dict[str, Any], key: str) -> str | None:
    return _str(_dict(module, key), "date")


def page_studies(data: Any) -> tuple[list[dict[str, Any]], int | None, str | None]:
    """A ``/studies`` answer: its studies, ``totalCount`` (asked with countTotal) and ``nextPageToken``."""
    if not isinstance(data, dict) or not isinstance(data.get("studies"), list):
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, "ClinicalTrials.gov answered the search without a study list"
        )
    studies = [s for s in data["studies"] if isinstance(s, dict)]
    total = data.get("totalCount")
    token = data.get("nextPageToken")
    return (
        studies,
        total if isinstance(total, int) and not isinstance(total, bool) else None,
        token if isinstance(token, str) and token else None,
    )


def nct_of(study: dict[str, Any]) -> str | None:
    return _str(_dict(study, "protocolSection", "identificationModule"), "nctId")


def aliases_of(study: dict[str, Any]) -> list[str]:
    return _strs(_dict(study, "protocolSection", "identificationModule"), "nctIdAliases")


def _interventions(arms_module: dict[str, Any]) -> list[str]:
    out = []
    for item in _list(arms_module, "interventions"):
        name = _str(item, "name")
        if name:
            kind = _str(item, "type")
            out.append(f"{kind}: {name}" if kind else name)
    return out


def _references(study: dict[str, Any]) -> list[Reference]:
    refs = _list(_dict(study, "protocolSection", "referencesModule"), "references")
    return [
        Reference(pmid=_str(r, "pmid"), type=_str(r, "type"), citation=_str(r, "citation"))
        for r in refs
        if isinstance(r, dict) and (_str(r, "pmid") or _str(r, "citation"))
    ]


def summary(study: dict[str, Any]) -> Trial:
    """A study as a summary: what a model needs to pick the trials worth reading whole."""
    proto = _dict(study, "protocolSection")
    ident = _dict(proto, "identificationModule")
    status = _dict(proto, "statusModule")
    design = _dict(proto, "designModule")
    nct = _str(ident, "nctId")
    if nct is None:
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, "ClinicalTrials.gov sent a study without an NCT number"
        )
    has_results = study.get("hasResults")
    pmids = [r.pmid for r in _references(study) if r.pmid]
    return Trial(
        nctId=nct,
        url=f"{SITE}{nct}",
        title=_str(ident, "briefTitle"),
        officialTitle=_str(ident, "officialTitle"),
        acronym=_str(ident, "acronym"),
        status=_str(status, "overallStatus"),
        studyType=_str(design, "studyType"),
        phases=_strs(design, "phases"),
        conditions=_strs(_dict(proto, "conditionsModule"), "conditions"),
        interventions=_interventions(_dict(proto, "armsInterventionsModule")),
        enrollment=_int(_dict(design, "enrollmentInfo"), "count"),
        enrollmentType=_str(_dict(design, "enrollmentInfo"), "type"),
        startDate=_date(status, "startDateStruct"),
        primaryCompletionDate=_date(status, "primaryCompletionDateStruct"),
        completionDate=_date(status, "completionDateStruct"),
        sponsor=_str(_dict(proto, "sponsorCollaboratorsModule", "leadSponsor"), "name"),
        hasResults=has_results if isinstance(has_results, bool) else None,
        pmids=list(dict.fromkeys(pmids)),
        aliases=_strs(ident, "nctIdAliases"),
    )


def _design(module: dict[str, Any]) -> Design | None:
    info = _dict(module, "designInfo")
    if not info:
        return None
    masking = _dict(info, "maskingInfo")
    return Design(
        allocation=_str(info, "allocation"),
        interventionModel=_str(info, "interventionModel"),
        primaryPurpose=_str(info, "primaryPurpose"),
        masking=_str(masking, "masking"),
        whoMasked=_strs(masking, "whoMasked"),
        observationalModel=_str(info, "observationalModel"),
        timePerspective=_str(info, "timePerspective"),
    )


def _arms(module: dict[str, Any]) -> tuple[list[Arm], list[Intervention]]:
    arms = [
        Arm(
            label=_str(a, "label") or "",
            type=_str(a, "type"),
            description=_str(a, "description"),
            interventions=_strs(a, "interventionNames"),
        )
        for a in _list(module, "armGroups")
        if isinstance(a, dict) and _str(a, "label")
    ]
    interventions = [
        Intervention(
            type=_str(i, "type"),
            name=_str(i, "name") or "",
            description=_str(i, "description"),
            otherNames=_strs(i, "otherNames"),
            arms=_strs(i, "armGroupLabels"),
        )
        for i in _list(module, "interventions")
        if isinstance(i, dict) and _str(i, "name")
    ]
    return arms, interventions


def _eligibility(module: dict[str, Any]) -> Eligibility | None:
    if not module:
        return None
    healthy = module.get("healthyVolunteers")
    return Eligibility(
        criteria=_str(module, "eligibilityCriteria"),
        sex=_str(module, "sex"),
        minimumAge=_str(module, "minimumAge"),
        maximumAge=_str(module, "maximumAge"),
        healthyVolunteers=healthy if isinstance(healthy, bool) else None,
        ageGroups=_strs(module, "stdAges"),
    )


def _outcomes(module: dict[str, Any]) -> list[Outcome]:
    out = []
    for kind in ("primary", "secondary", "other"):
        for o in _list(module, f"{kind}Outcomes"):
            measure = _str(o, "measure")
            if measure:
                out.append(
                    Outcome(
                        kind=kind,
                        measure=measure,
                        timeFrame=_str(o, "timeFrame"),
                        description=_str(o, "description"),
                    )
                )
    return out


def _history(status: dict[str, Any]) -> StatusHistory:
    return StatusHistory(
        firstSubmitted=_str(status, "studyFirstSubmitDate"),
        firstPosted=_date(status, "studyFirstPostDateStruct"),
        resultsFirstPosted=_date(status, "resultsFirstPostDateStruct"),
        lastUpdatePosted=_date(status, "lastUpdatePostDateStruct"),
        statusVerified=_str(status, "statusVerifiedDate"),
        whyStopped=_str(status, "whyStopped"),
    )


def _first_value(measure: dict[str, Any], group_id: str) -> str | None:
    """The group's first measurement (of the first class and category) with its spread."""
    for cls in _list(measure, "classes"):
        for cat in _list(cls, "categories"):
            for m in _list(cat, "measurements"):
                if _str(m, "groupId") == group_id and _str(m, "value"):
                    spread = _str(m, "spread")
                    low, high = _str(m, "lowerLimit"), _str(m, "upperLimit")
                    if spread:
                        return f"{_str(m, 'value')} ({spread})"
                    if low and high:
                        return f"{_str(m, 'value')} ({low} to {high})"
                    return _str(m, "value")
    return None


def _result_measures(results: dict[str, Any]) -> list[ResultMeasure]:
    out = []
    for m in _list(_dict(results, "outcomeMeasuresModule"), "outcomeMeasures"):
        title = _str(m, "title")
        if not title:
            continue
        groups = [
            ResultGroup(id=gid, title=_str(g, "title") or gid, value=_first_value(m, gid))
            for g in _list(m, "groups")
            if (gid := _str(g, "id"))
        ]
        out.append(
            ResultMeasure(
                type=_str(m, "type"),
                title=title,
                timeFrame=_str(m, "timeFrame"),
                unit=_str(m, "unitOfMeasure"),
                paramType=_str(m, "paramType"),
                groups=groups,
            )
        )
    return out


def _results(study: dict[str, Any]) -> Results | None:
    results = _dict(study, "resultsSection")
    if not results:
        return None
    events = [
        AdverseEvents(
            group=_str(g, "title") or _str(g, "id") or "",
            seriousAffected=_int(g, "seriousNumAffected"),
            otherAffected=_int(g, "otherNumAffected"),
            atRisk=_int(g, "seriousNumAtRisk") or _int(g, "otherNumAtRisk"),
        )
        for g in _list(_dict(results, "adverseEventsModule"), "eventGroups")
        if isinstance(g, dict)
    ]
    started = None
    for period in _list(_dict(results, "participantFlowModule"), "periods")[:1]:
        for milestone in _list(period, "milestones"):
            if (_str(milestone, "type") or "").upper() == "STARTED":
                counts = [_str(a, "numSubjects") for a in _list(milestone, "achievements")]
                started = sum(int(c) for c in counts if c and c.isdigit()) or None
    return Results(outcomes=_result_measures(results), adverseEvents=events, participantsStarted=started)


def full(study: dict[str, Any]) -> Trial:
    """A study as a whole record: the summary plus design, arms, eligibility, outcomes, status
    history, sites, references and posted results."""
    trial = summary(study)
    proto = _dict(study, "protocolSection")
    arms, interventions = _arms(_dict(proto, "armsInterventionsModule"))
    contacts = _dict(proto, "contactsLocationsModule")
    locations = [loc for loc in _list(contacts, "locations") if isinstance(loc, dict)]
    countries = list(dict.fromkeys(c for loc in locations if (c := _str(loc, "country"))))
    officials = [
        ", ".join(x for x in (_str(o, "name"), _str(o, "affiliation"), _str(o, "role")) if x)
        for o in _list(contacts, "overallOfficials")
        if isinstance(o, dict)
    ]
    detail = Detail(
        briefSummary=_str(_dict(proto, "descriptionModule"), "briefSummary"),
        design=_design(_dict(proto, "designModule")),
        arms=arms,
        interventions=interventions,
        eligibility=_eligibility(_dict(proto, "eligibilityModule")),
        outcomes=_outcomes(_dict(proto, "outcomesModule")),
        statusHistory=_history(_dict(proto, "statusModule")),
        officials=[o for o in officials if o],
        locationCount=len(locations),
        countries=countries[:MAX_SITES_COUNTRIES],
        references=_references(study),
        keywords=_strs(_dict(proto, "conditionsModule"), "keywords"),
        meshTerms=[
            t
            for m in _list(_dict(study, "derivedSection", "conditionBrowseModule"), "meshes")
            if (t := _str(m, "term"))
        ],
        results=_results(study),
    )
    return trial.model_copy(update={"detail": detail})
