"""A review set's state: its latest searches with their counts and states, the duplicates
removed by rule, and what a call should do next (``review_search`` and ``review_sets`` answer it)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from medlit.core.plugin import rendering

from ..models import SetState, SourceReport
from ..store import SearchRow, SetRow, Store
from .workspace import OVER_CAP, Workspace


def _retryable(s: SearchRow) -> bool:
    """Whether running the search again may help: a failure says so; a refusal (bad query, over
    the cap) and a superseded search never do."""
    if s.retryable is not None:
        return s.retryable
    return s.state == "failed" and not (s.error or "").startswith(("superseded", OVER_CAP))


async def set_state(ws: Workspace, store: Store, row: SetRow, notice: str = "") -> SetState:
    latest = await store.latest(row.id)
    job = ws.running(row.id)
    identified, unique, by_rule = await store.counts(latest)
    run = max((s.run for s in latest), default=0)
    reports = []
    notes = [notice] if notice else []
    for s in latest:
        state = s.state
        if state == "running" and (job is None or s.id not in job.searches):
            state = "paused"
        reports.append(
            SourceReport(
                source=s.source,
                query=s.query,
                run=s.run,
                ranAt=s.started_at,
                found=s.found,
                fetched=s.fetched,
                state=cast(Any, state),
                reason=s.error.split(":", 1)[0] if s.error else None,
                retryable=_retryable(s) if s.error else None,
                error=s.error,
                notice=s.detail or None,
            )
        )
    if any(r.state == "paused" for r in reports):
        notes.append("Unfinished searches: call review_search with this set (no queries) to resume them.")
    if any(r.state == "failed" for r in reports):
        notes.append("A failed search keeps what it stored; review_search with the set resumes it.")
    complete = bool(reports) and all(r.state == "complete" for r in reports)
    if job is not None:
        notes.append(
            "The import goes on in the server: call review_search or review_sets again for its state."
        )
    kept = await store.schedule(row.id)
    return SetState(
        set=row.name,
        sources=reports,
        identified=identified,
        duplicatesRemoved=identified - unique,
        duplicatesByRule={r: by_rule.get(r, 0) for r in ("pmid", "doi", "pmcid", "title", "manual")},
        unique=unique,
        total=await store.total(row.id),
        new=await store.new_in_run(row.id, run) if run else None,
        updateEvery=kept.every_days if kept else None,
        nextUpdate=utc(kept.next_at) if kept else None,
        lastUpdate=f"{utc(kept.last_at)}: {kept.last_outcome}" if kept and kept.last_at else None,
        complete=complete,
        running=job is not None,
        notice=" ".join(notes) or None,
    )


def utc(ms: int) -> str:
    """A time in milliseconds as the sets answer times (UTC, to the second)."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render_state(out: SetState, args: Any) -> str:
    if getattr(args, "responseFormat", "markdown") == "json":
        return rendering.as_json(out, "review-set")
    head = f"## Review set {out.set}: {out.total:,} records" + (
        " (complete)" if out.complete else " (incomplete)"
    )
    rows = [
        [
            r.source,
            r.state,
            f"{r.found:,}" if r.found is not None else "?",
            f"{r.fetched:,}",
            r.ranAt,
            r.query[:120],
        ]
        for r in out.sources
    ]
    lines = [
        head,
        rendering.fence(
            rendering.md_table(["Source", "State", "Found", "Fetched", "Run at", "Query"], rows), "review-log"
        ),
    ]
    rules = ", ".join(f"{k} {v:,}" for k, v in out.duplicatesByRule.items())
    lines.append(
        f"Identified {out.identified:,} · duplicates removed {out.duplicatesRemoved:,} ({rules}) · unique {out.unique:,}"
        + (f" · new {out.new:,}" if out.new is not None else "")
    )
    if out.updateEvery:
        lines.append(
            f"Updated by the server every {out.updateEvery} days: next {out.nextUpdate}"
            + (f"; last {out.lastUpdate}" if out.lastUpdate else "")
        )
    errors = [f"{r.source}: {r.error}" for r in out.sources if r.error]
    if errors:
        lines.append("Errors: " + rendering.fence("; ".join(errors), "review-errors"))
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    return "\n\n".join(lines)
