"""The SQL the review store's parts share: placeholders for a list, queries over long lists in
chunks, a record's indexed columns, the record filters of ``review_records`` and a record's
reconciled decision in SQL. One SQL text serves both backends (``?`` placeholders)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from ..identity.keys import keys_of
from ..record import WORK_FIELDS, RecordData
from .rows import Db, Row


def as_json(data: Mapping[str, Any] | Sequence[Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def member_data(data: Mapping[str, Any]) -> RecordData:
    """A stored record's data without the set's bookkeeping (sources), as a member."""
    return cast(RecordData, {k: v for k, v in data.items() if k in WORK_FIELDS})


def placeholders(values: Sequence[Any]) -> str:
    return "(" + ",".join("?" * len(values)) + ")"


def columns(set_id: int, run: int, data: Mapping[str, Any]) -> tuple[Any, ...]:
    keys = keys_of(data)
    return (
        set_id,
        run,
        keys["pmid"],
        keys["doi"],
        keys["pmcid"],
        keys["title"],
        data.get("year"),
        1 if data.get("abstract") else 0,
        json.dumps(data, ensure_ascii=False, separators=(",", ":")),
    )


async def chunked(tx: Db, sql: str, head: list[Any], values: Iterable[Any], size: int = 500) -> list[Row]:
    out: list[Row] = []
    items = list(values)
    for i in range(0, len(items), size):
        part = items[i : i + size]
        out += await tx.fetch(sql.format(placeholders(part)), *head, *part)
    return out


def of_set(rows: Iterable[Row], set_id: int) -> list[Row]:
    """The rows of one set, their set id (the last column) dropped: rows looked up by their records
    alone (``WHERE record_id IN (...)``: a record's own index) and checked for their set here. Given
    ``set_id = ? AND record_id IN (...)``, SQLite (no statistics) took the set's index instead and
    read every decision (or retrieval) of the set for a page of ten records."""
    return [row[:-1] for row in rows if int(row[-1]) == set_id]


def where_clause(set_id: int, filters: Mapping[str, Any]) -> tuple[str, list[Any]]:
    where: list[str] = ["r.set_id = ?"]
    args: list[Any] = [set_id]
    if filters.get("source"):
        where.append(
            "EXISTS (SELECT 1 FROM review_hits h JOIN review_searches s ON s.id = h.search_id "
            "WHERE h.record_id = r.id AND s.source = ?)"
        )
        args.append(filters["source"])
    if filters.get("run") is not None:  # the records a run added (an update's new records)
        where.append("r.run = ?")
        args.append(filters["run"])
    if filters.get("year_from") is not None:
        where.append("r.year >= ?")
        args.append(filters["year_from"])
    if filters.get("year_to") is not None:
        where.append("r.year <= ?")
        args.append(filters["year_to"])
    if filters.get("has_abstract") is not None:
        where.append("r.has_abstract = ?")
        args.append(1 if filters["has_abstract"] else 0)
    if filters.get("merged"):  # two or more input records: the duplicates deduplication merged
        where.append(
            "EXISTS (SELECT 1 FROM review_hits a JOIN review_hits b ON b.record_id = a.record_id "
            "AND (b.source <> a.source OR b.source_id <> a.source_id) WHERE a.record_id = r.id)"
        )
    stage = filters.get("stage") or "title_abstract"
    reviewer = filters.get("reviewer")
    if filters.get("decision"):
        if reviewer:
            where.append(
                "EXISTS (SELECT 1 FROM review_decisions d WHERE d.record_id = r.id AND d.stage = ? "
                "AND d.reviewer = ? AND d.decision = ?)"
            )
            args += [stage, reviewer, filters["decision"]]
        else:
            eff, eargs = effective_sql(set_id, stage)
            where.append(f"r.id IN (SELECT record_id FROM ({eff}) e WHERE {EFFECTIVE} = ?)")
            args += [*eargs, filters["decision"]]
    if filters.get("conflicts"):
        eff, eargs = effective_sql(set_id, stage)
        where.append(f"r.id IN (SELECT record_id FROM ({eff}) e WHERE {CONFLICT})")
        args += eargs
    if filters.get("undecided"):
        mine = " AND d.reviewer = ?" if reviewer else ""
        where.append(
            f"NOT EXISTS (SELECT 1 FROM review_decisions d WHERE d.record_id = r.id AND d.stage = ?{mine})"
        )
        args += [stage, reviewer] if reviewer else [stage]
        if stage == "full_text":  # the full-text queue: title/abstract includes only
            eff, eargs = effective_sql(set_id, "title_abstract")
            where.append(f"r.id IN (SELECT record_id FROM ({eff}) e WHERE {EFFECTIVE} = 'include')")
            args += eargs
    return " AND ".join(where), args


# A record's decision at a stage, reconciled over its reviewers: the ``final`` reviewer's when
# there is one, else the decision every reviewer agrees on; reviewers who disagree (and no final
# decision) make a conflict, which has no decision.
def page_order(filters: Mapping[str, Any]) -> str:
    """A page's order: key order, except for the merged records, where those a title match made
    (no shared PMID, DOI or PMCID: the merges worth a reader's check) come first."""
    if not filters.get("merged"):
        return "r.id"
    return (
        "CASE WHEN EXISTS (SELECT 1 FROM review_hits t WHERE t.record_id = r.id AND t.rule = 'title') "
        "THEN 0 ELSE 1 END, r.id"
    )


def effective_sql(set_id: int, stage: str) -> tuple[str, list[Any]]:
    return (
        "SELECT record_id, MAX(CASE WHEN reviewer = 'final' THEN decision END) AS final, "
        "COUNT(DISTINCT CASE WHEN reviewer <> 'final' THEN decision END) AS n, "
        "MIN(CASE WHEN reviewer <> 'final' THEN decision END) AS agreed "
        "FROM review_decisions WHERE set_id = ? AND stage = ? GROUP BY record_id",
        [set_id, stage],
    )


EFFECTIVE = "COALESCE(e.final, CASE WHEN e.n = 1 THEN e.agreed END)"
CONFLICT = "(e.final IS NULL AND e.n > 1)"
