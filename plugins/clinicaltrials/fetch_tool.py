"""clinicaltrials_fetch: studies by NCT number in one request, as summaries or whole records."""

from __future__ import annotations

from typing import Any

from medlit.core.plugin import ToolContext, rendering

from . import client
from .inputs import FetchInput
from .models import Detail, Eligibility, FetchOutput, Results, StatusHistory, Trial
from .parse import aliases_of, full, nct_of, summary
from .search_tool import trial_line


def _index(studies: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each study under its NCT number and under every alias it absorbed."""
    found: dict[str, dict[str, Any]] = {}
    for study in studies:
        for nct in [nct_of(study), *aliases_of(study)]:
            if nct:
                found.setdefault(nct, study)
    return found


async def fetch_trials(args: FetchInput, ctx: ToolContext) -> FetchOutput:
    fields = client.SUMMARY_FIELDS if args.detail == "summary" else None
    found = _index(await client.by_ids(ctx, args.nctIds, fields=fields))
    read = summary if args.detail == "summary" else full
    trials: list[Trial] = []
    seen: set[str] = set()
    not_found: list[str] = []
    for nct in args.nctIds:
        study = found.get(nct)
        if study is None:
            not_found.append(nct)
            continue
        trial = read(study)
        if trial.nctId not in seen:  # an alias and its current number asked together: once
            seen.add(trial.nctId)
            trials.append(trial)
    notices = []
    if not_found:
        notices.append(
            f"ClinicalTrials.gov has no study {', '.join(not_found)} (notFound): check the numbers, or find "
            "the trial with clinicaltrials_search."
        )
    merged = [t.nctId for t in trials if t.nctId not in args.nctIds]
    if merged:
        notices.append(f"{', '.join(merged)} answered for an older NCT number merged into it (aliases).")
    return FetchOutput(
        trials=trials, notFound=not_found, detail=args.detail, notice=" ".join(notices) or None
    )


def _design_lines(d: Detail) -> list[str]:
    lines = []
    if d.design:
        x = d.design
        parts = [
            x.allocation,
            x.interventionModel,
            x.primaryPurpose,
            f"masking {x.masking}" if x.masking else None,
        ]
        lines.append("Design: " + ", ".join(p for p in parts if p))
    for arm in d.arms:
        lines.append(
            f"Arm [{arm.type or '-'}] {arm.label}: {arm.description or ''} ({'; '.join(arm.interventions)})"
        )
    for o in d.outcomes:
        lines.append(f"Outcome ({o.kind}): {o.measure}" + (f" [{o.timeFrame}]" if o.timeFrame else ""))
    return lines


def _eligibility_lines(e: Eligibility | None) -> list[str]:
    if e is None:
        return []
    ages = " to ".join(a for a in (e.minimumAge, e.maximumAge) if a)
    lines = [f"Eligibility: sex {e.sex or '-'}; ages {ages or '-'}; healthy volunteers {e.healthyVolunteers}"]
    return lines + ([e.criteria] if e.criteria else [])


def _history_lines(h: StatusHistory | None) -> list[str]:
    if h is None:
        return []
    steps = [
        f"first posted {h.firstPosted}" if h.firstPosted else "",
        f"results posted {h.resultsFirstPosted}" if h.resultsFirstPosted else "",
        f"last update {h.lastUpdatePosted}" if h.lastUpdatePosted else "",
        f"why stopped: {h.whyStopped}" if h.whyStopped else "",
    ]
    return ["History: " + "; ".join(s for s in steps if s)]


def _results_lines(r: Results | None) -> list[str]:
    if r is None:
        return []
    lines = []
    for m in r.outcomes:
        values = "; ".join(f"{g.title}: {g.value}" for g in m.groups if g.value)
        lines.append(f"Result ({m.type or '-'}) {m.title}: {values} {m.unit or ''}".rstrip())
    for a in r.adverseEvents:
        lines.append(
            f"Adverse events, {a.group}: serious {a.seriousAffected}, other {a.otherAffected} of {a.atRisk}"
        )
    return lines


def _detail_md(d: Detail) -> list[str]:
    lines = _design_lines(d) + _eligibility_lines(d.eligibility) + _history_lines(d.statusHistory)
    if d.locationCount:
        lines.append(f"Sites: {d.locationCount} in {', '.join(d.countries)}")
    for ref in d.references:
        lines.append(f"Reference [{ref.type or '-'}] PMID {ref.pmid or '-'}: {ref.citation or ''}")
    lines += _results_lines(d.results)
    return lines + (["", d.briefSummary] if d.briefSummary else [])


def render_fetch(out: FetchOutput, args: FetchInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "clinicaltrials-records")
    head = [
        f"**{len(out.trials)} ClinicalTrials.gov record(s)** ({out.detail}) of {len(args.nctIds)} requested."
    ]
    if out.notice:
        head.append(f"Notice: {out.notice}")
    blocks = []
    for i, t in enumerate(out.trials, 1):
        lines = [trial_line(i, t)]
        if t.detail:
            lines += _detail_md(t.detail)
        blocks.append(
            f"### {t.nctId} — {t.url}\n" + rendering.fence("\n".join(lines), f"clinicaltrials-{t.nctId}")
        )
    text = "\n".join(head) + ("\n\n" + "\n\n".join(blocks) if blocks else "")
    return rendering.cap_text(text, "Fetch fewer NCT numbers per call, or use responseFormat 'json'.")
