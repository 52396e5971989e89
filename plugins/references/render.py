"""The audit's text: one table row per reference in the order given, with a severity marker, the
nearest records for those not found, and the providers' trail; or the answer as JSON."""

from __future__ import annotations

from medlit.core.plugin import rendering

from .matched import cite
from .models import MatchedRecord, ReferenceResult, VerifyReferencesInput, VerifyReferencesOutput

MAX_CANDIDATES_SHOWN = 3
CANDIDATES_SHOWN_FOR = ("not_found", "unverified")


def severity_mark(r: ReferenceResult) -> str:
    """The row's severity as a marker, so the table can keep the order the list was pasted in (a
    reader checks it against their manuscript) and still show what to look at first: ``!!!``
    retracted or withdrawn, ``!!`` not found, unverified or a mismatch, ``!`` ambiguous or another
    notice, blank when verified without notices."""
    if any(n.type in ("retraction", "withdrawal") for n in r.notices):
        return "!!!"
    if r.match in ("not_found", "unverified", "mismatch"):
        return "!!"
    if r.match == "ambiguous" or r.notices:
        return "!"
    return ""


def _ids(rec: MatchedRecord) -> str:
    return " ".join(
        x for x in (f"PMID {rec.pmid}" if rec.pmid else "", f"doi:{rec.doi}" if rec.doi else "") if x
    )


def render_references(out: VerifyReferencesOutput, args: VerifyReferencesInput) -> str:
    if args.responseFormat == "json":
        return rendering.cap_text(rendering.as_json(out, "references"), "Audit fewer references per call.")
    s = out.summary
    lines = [
        f"## Reference audit: {len(out.results)} reference(s)",
        f"verified {s.verified} · mismatch {s.mismatch} · ambiguous {s.ambiguous} · not found {s.not_found} · "
        + (f"unverified {s.unverified} (a source failed: retry later) · " if s.unverified else "")
        + f"retracted {s.retracted} · with notices {s.withNotices}",
    ]
    rows = [_row(r) for r in out.results]  # the order given: results[i] is the i-th reference pasted
    nearest = [line for r in out.results for line in _nearest(r)]
    lines.append(
        rendering.fence(
            rendering.md_table(
                ["#", "!", "Match", "Conf.", "Notices", "Discrepancies", "Record", "Sources"], rows
            ),
            "references",
        )
    )
    lines.append(
        "`!!!` retracted or withdrawn · `!!` not found, unverified or mismatch · `!` ambiguous or a notice"
    )
    if nearest:
        lines.append("\n".join(nearest))
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    trail = "; ".join(
        f"{p.provider} {p.kind} {p.outcome}"
        + (f" ({p.reason or p.variable or ''})" if (p.reason or p.variable) else "")
        for p in out.providers
    )
    lines.append(f"Providers: {trail}")
    return rendering.cap_text(
        "\n\n".join(lines), "Audit fewer references per call, or ask for responseFormat 'json'."
    )


def _row(r: ReferenceResult) -> list[object]:
    """One reference's table row: what was found (the candidates' ids when ambiguous), its
    discrepancies and notices, and the sources that agreed (or were asked)."""
    rec = r.record
    found = ""
    if rec is not None:
        found = f"{(rec.authors or ['?'])[0]} {rec.year or ''} {(rec.title or '')[:70]} ({_ids(rec)})"
    if r.match == "ambiguous" and r.candidates:
        found = " | ".join(f"{c.record.pmid or c.record.doi}" for c in r.candidates)
    issues = "; ".join(
        f"{d.field}: {d.stated or '-'} → {d.actual or '-'}"[:90]
        + (f" (the stated {d.field.upper()} is {cite(d.belongsTo)[:120]})" if d.belongsTo else "")
        for d in r.discrepancies
    )
    if r.chimera:
        issues = "chimera; " + issues
    notes = "; ".join(f"{n.type.upper()} {n.id or ''} ({n.source})" for n in r.notices)
    return [
        r.index,
        severity_mark(r),
        r.match,
        r.confidence,
        notes,
        issues,
        found,
        ", ".join(r.evidence.agreed or r.evidence.asked),
    ]


def _nearest(r: ReferenceResult) -> list[str]:
    """The nearest records of a reference not found or unverified, none of them accepted: what the
    reader may have meant."""
    if r.match not in CANDIDATES_SHOWN_FOR or not r.candidates:
        return []
    return [f"#{r.index} ({r.match}), nearest records, none accepted:"] + [
        f"- {cite(c.record)[:160]} ({_ids(c.record) or 'no id'}; {', '.join(c.providers)}): {c.why}"
        for c in r.candidates[:MAX_CANDIDATES_SHOWN]
    ]
