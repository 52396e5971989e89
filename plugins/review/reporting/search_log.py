"""The search log of a review set (PRISMA-S): per source the exact query, when it ran and the
records found, the imported files, the totals before and after deduplication by rule, every run,
the deduplication rulings and the screening's stopping rule; served as the resource
``review://sets/{set}/log`` and written beside every export."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from medlit.core.plugin import Catalog, ToolContext

from ..models import SetState
from ..screening.ranking import screening_estimate as screening_estimate_of
from ..screening.ranking import stopping_note
from ..sets.state import set_state
from ..sets.workspace import Workspace, existing, workspace
from ..store import FileRow, SearchRow, SetRow, Store
from .routes import Route, declared, route


async def search_log(ws: Workspace, store: Store, row: SetRow, catalog: Catalog | None) -> str:
    state = await set_state(ws, store, row)
    titles = {d.record.name: d.record.title for d in (catalog.sources if catalog else ())}
    searches = await store.searches(row.id)
    lines = [
        f"# Search log: {row.name}",
        "",
        f"Set created {row.created_at}; {state.total:,} records; {'complete' if state.complete else 'incomplete'}.",
        "",
    ]
    lines += _latest(state, titles)
    kinds = declared([d.record for d in (catalog.sources if catalog else ())], searches)
    lines += _registers(state, titles, kinds)
    lines += _imported([s for s in searches if s.is_import], await store.files(row.id))
    lines += _totals(state)
    lines += _runs(searches, titles)
    lines += _rulings(await store.merge_log(row.id))
    estimate = await screening_estimate_of(store, row.id)
    if estimate.screened:
        lines += ["", "## Title/abstract screening and its stopping rule", "", stopping_note(estimate)]
    return "\n".join(lines) + "\n"


def _latest(state: SetState, titles: Mapping[str, str]) -> list[str]:
    """The latest search of each source, and its query."""
    lines = [
        "## Latest searches",
        "",
        "| Database | Run | Date and time run (UTC) | Records found | Records fetched | State |",
        "|---|---|---|---|---|---|",
    ]
    for s in state.sources:
        lines.append(
            f"| {titles.get(s.source, s.source)} | {s.run} | {s.ranAt} | {s.found if s.found is not None else '?'} "
            f"| {s.fetched} | {s.state} |"
        )
    lines += ["", "## Queries", ""]
    for s in state.sources:
        lines += [f"### {titles.get(s.source, s.source)} (run {s.run})", "", "```", s.query, "```", ""]
        if s.error:
            lines += [f"Error: {s.error}", ""]
        if s.notice:
            lines += [f"Note: {s.notice}", ""]
    return lines


def _registers(state: SetState, titles: Mapping[str, str], kinds: Mapping[str, Route]) -> list[str]:
    """The study registers searched (PRISMA-S item 2), apart from the databases: a register's
    records are counted in the diagram's registers box."""
    registers = [s for s in state.sources if route(s.source, kinds) == "register"]
    if not registers:
        return []
    lines = [
        "## Study registers searched",
        "",
        "| Register | Run | Date and time run (UTC) | Records found | Records fetched |",
        "|---|---|---|---|---|",
    ]
    for s in registers:
        lines.append(
            f"| {titles.get(s.source, s.source)} | {s.run} | {s.ranAt} | "
            f"{s.found if s.found is not None else '?'} | {s.fetched} |"
        )
    return [*lines, ""]


def _imported(imported: Sequence[SearchRow], files: Mapping[int, FileRow]) -> list[str]:
    """The files imported (databases searched elsewhere) and the records skipped in each."""
    if not imported:
        return []
    lines = [
        "## Imported files (databases searched elsewhere)",
        "",
        "| Database | Interface | Date searched | File | Format | Records in file | Stored | Skipped | Imported (UTC) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run in imported:
        spec = run.options.get("import") or {}
        f = files.get(run.id)
        lines.append(
            f"| {run.source} | {spec.get('interface') or ''} | {spec.get('searchedOn') or 'not given'} | "
            f"{_cell(spec.get('fileName'))} | {spec.get('format') or ''} | "
            f"{run.found if run.found is not None else '?'} | {run.fetched} | {len(f.skipped) if f else 0} | "
            f"{run.started_at} |"
        )
    for run in imported:
        f = files.get(run.id)
        if f and f.skipped:
            shown = "; ".join(f"#{k['position']} {k.get('id') or ''} ({k['reason']})" for k in f.skipped[:50])
            lines += ["", f"Skipped in {run.source} ({_cell(f.name)}): {shown}"]
    lines.append("")
    return lines


def _totals(state: SetState) -> list[str]:
    rules = ", ".join(f"{k}: {v}" for k, v in state.duplicatesByRule.items())
    return [
        "## Totals",
        "",
        f"- Records identified (before deduplication): {state.identified}",
        f"- Duplicates removed: {state.duplicatesRemoved} (by rule, in order of precedence: {rules})",
        f"- Records after deduplication: {state.unique}",
        f"- Records in the set (all runs): {state.total}",
        "",
        "Deduplication: records with the same PMID, DOI (case-insensitive) or PMCID are one record; otherwise "
        "two records are one when their normalised bibliographic fields (title, authors, year, journal or its "
        "abbreviation, volume, issue, pages) agree closely, and never across conflicting identifiers, an "
        "erratum or retraction notice and its article, a conference abstract and the journal paper, or two parts "
        "of a series. Manual rulings (review_merge) are listed below and followed by every later search.",
        "",
    ]


def _runs(searches: Sequence[SearchRow], titles: Mapping[str, str]) -> list[str]:
    lines = [
        "## Every run",
        "",
        "| Run | Database | Started (UTC) | Finished (UTC) | Found | Fetched | State |",
        "|---|---|---|---|---|---|---|",
    ]
    for run in searches:
        lines.append(
            f"| {run.run} | {titles.get(run.source, run.source)} | {run.started_at} | {run.finished_at or ''} | "
            f"{run.found if run.found is not None else '?'} | {run.fetched} | {run.state} |"
        )
    return lines


def _rulings(rulings: Sequence[tuple[str, dict[str, Any], str, str]]) -> list[str]:
    if not rulings:
        return []
    lines = [
        "",
        "## Deduplication rulings",
        "",
        "| When (UTC) | Action | Reviewer | Detail |",
        "|---|---|---|---|",
    ]
    for action, detail, reviewer, at in rulings:
        lines.append(f"| {at} | {action} | {_cell(reviewer)} | {_cell(detail)} |")
    return lines


def _cell(text: object) -> str:
    return str(text or "").replace("|", "/").replace("\n", " ")


async def read_set_log(ctx: ToolContext) -> str:
    ws = workspace(ctx)
    store, row = await existing(ws, unquote(ctx.params.get("set", "")), ctx.principal)
    return await search_log(ws, store, row, ctx.host.catalog if ctx.host else None)
