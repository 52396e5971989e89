"""clinicaltrials_search: one page of a ClinicalTrials.gov study search, as trial summaries."""

from __future__ import annotations

from medlit.core.plugin import ToolContext, rendering

from . import client
from .inputs import SearchInput
from .models import SearchOutput, Trial
from .parse import summary
from .queries import search_params, site_url


async def search_trials(args: SearchInput, ctx: ToolContext) -> SearchOutput:
    params = search_params(args, args.pageSize)
    page = await client.studies(ctx, params, fields=client.SUMMARY_FIELDS)
    trials = [summary(s) for s in page.studies]
    notice = None
    if not trials and args.pageToken:
        notice = "This page token is past the last page: the previous page ended the results."
    elif not trials:
        notice = (
            "No study matches. Loosen the criteria (drop status or phase, use broader terms) or check the "
            "Essie syntax of terms and advanced."
        )
    return SearchOutput(
        trials=trials,
        totalCount=page.total,
        returned=len(trials),
        nextPageToken=page.next_token if trials else None,
        query=params,
        searchUrl=site_url(params),
        notice=notice,
    )


def trial_line(n: int, t: Trial) -> str:
    head = f"{n}. {t.nctId} [{t.status or 'status not given'}] {t.title or '(no title)'}"
    facts = [
        "/".join(t.phases) if t.phases else "",
        t.studyType or "",
        f"n={t.enrollment}" + (" (estimated)" if t.enrollmentType == "ESTIMATED" else "")
        if t.enrollment
        else "",
        f"start {t.startDate}" if t.startDate else "",
        f"completion {t.completionDate}" if t.completionDate else "",
        f"sponsor {t.sponsor}" if t.sponsor else "",
        "results posted" if t.hasResults else "",
    ]
    lines = [head, "   " + "; ".join(f for f in facts if f)]
    if t.conditions:
        lines.append("   Conditions: " + "; ".join(t.conditions[:8]))
    if t.interventions:
        lines.append("   Interventions: " + "; ".join(t.interventions[:8]))
    if t.pmids:
        lines.append("   Linked PMIDs: " + ", ".join(t.pmids[:20]))
    return "\n".join(lines)


def render_search(out: SearchOutput, args: SearchInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "clinicaltrials-search")
    total = f" of {out.totalCount:,}" if out.totalCount is not None else ""
    head = [f"**{out.returned}{total} ClinicalTrials.gov stud{'y' if out.returned == 1 else 'ies'}.**"]
    head.append(
        f"Next page: pageToken `{out.nextPageToken}`" if out.nextPageToken else "This page ends the results."
    )
    if out.notice:
        head.append(f"Notice: {out.notice}")
    body = "\n".join(trial_line(i, t) for i, t in enumerate(out.trials, 1))
    text = "\n".join(head)
    if body:
        text += "\n\n" + rendering.fence(body, "clinicaltrials-search")
    text += "\n\nWhole records (design, arms, eligibility, outcomes, results): clinicaltrials_fetch with detail 'full'."
    return rendering.cap_text(text, "Ask for a smaller pageSize or use responseFormat 'json'.")
