"""pubtator_related: entities linked to one entity by a relation, with counts and PMIDs.

Requests per call: one ``relations`` request, then one search (``relations:TYPE|A|B``, first page)
for each of the top ``pmidsFor`` related entities whose row carries no PMIDs of its own. A failed
search costs only that entity's PMIDs (named in ``unavailable``).
"""

from __future__ import annotations

import asyncio

from medlit.core.plugin import MedlitError, ToolContext, rendering

from .client import relations, search
from .entities import CONCEPTS, concept_of, display_name
from .inputs import RelatedInput
from .models import RelatedEntity, RelatedFailure, RelatedOutput
from .parse import RelationRow


def _query(row: RelationRow) -> str:
    return f"relations:{row.type or 'ANY'}|{row.source}|{row.target}"


def _other(row: RelationRow, entity: str) -> str:
    return row.target if row.source.lower() == entity.lower() else row.source


def _filtered(rows: list[RelationRow], args: RelatedInput) -> tuple[list[RelationRow], int]:
    """The rows of the asked type and relation, each (other entity, relation) once, and how many
    were of another type or relation (PubTator3 answers with others than asked)."""
    dropped = 0
    kept: list[RelationRow] = []
    seen: set[tuple[str, str | None]] = set()
    for row in rows:
        other = _other(row, args.entity)
        if (args.type and concept_of(other) not in (None, args.type)) or (
            args.relation and row.type not in (None, args.relation)
        ):
            dropped += 1
            continue
        if (other.lower(), row.type) in seen:
            continue
        seen.add((other.lower(), row.type))
        kept.append(row)
    return kept, dropped


def _related_entity(row: RelationRow, entity: str) -> RelatedEntity:
    other = _other(row, entity)
    return RelatedEntity(
        id=other,
        type=CONCEPTS.get(concept_of(other) or ""),
        name=display_name(other),
        relation=row.type,
        publications=row.publications,
        pmids=row.pmids,
        searchQuery=_query(row),
    )


async def _fill_pmids(ctx: ToolContext, todo: list[RelatedEntity]) -> list[RelatedFailure]:
    """Each entity's PMIDs (and its count, when the row had none) from a search of its relation;
    a failed search leaves that entity without PMIDs and is named."""
    if not todo:
        return []
    failures: list[RelatedFailure] = []
    pages = await asyncio.gather(*(search(ctx, r.searchQuery) for r in todo), return_exceptions=True)
    for r, page in zip(todo, pages, strict=True):
        if isinstance(page, MedlitError):
            failures.append(
                RelatedFailure(id=r.id, reason=page.reason, message=page.message, retryable=page.retryable)
            )
        elif isinstance(page, BaseException):
            raise page
        else:
            r.pmids = [h.pmid for h in page.hits]
            if r.publications is None:
                r.publications = page.total
    return failures


def _notices(
    args: RelatedInput, kept: int, shown: int, dropped: int, failures: list[RelatedFailure]
) -> list[str]:
    notice = []
    if not kept:
        notice.append(
            "PubTator3 knows no related entity for this"
            + (f" relation ({args.relation})" if args.relation else "")
            + (f" and type ({args.type})" if args.type else "")
            + ": check the id with pubtator_find_entity or drop a filter."
        )
    if kept > shown:
        notice.append(f"{kept - shown} more related entities: raise limit (up to 100).")
    if dropped:
        notice.append(f"{dropped} row(s) of another type or relation than asked were left out.")
    if failures:
        notice.append(
            f"PMIDs of {len(failures)} entit(ies) could not be fetched: see unavailable; their searchQuery "
            "in pubtator_search gets them."
        )
    if shown and args.pmidsFor < shown:
        notice.append("For the PMIDs of the others pass their searchQuery to pubtator_search.")
    return notice


async def related(args: RelatedInput, ctx: ToolContext) -> RelatedOutput:
    rows = await relations(ctx, args.entity, args.relation, args.type)
    kept, dropped = _filtered(rows, args)
    kept.sort(key=lambda r: -(r.publications or len(r.pmids)))
    out = [_related_entity(row, args.entity) for row in kept[: args.limit]]
    failures = await _fill_pmids(ctx, [r for r in out[: args.pmidsFor] if not r.pmids])
    return RelatedOutput(
        entity=args.entity,
        relation=args.relation,
        type=args.type,
        total=len(kept),
        related=out,
        unavailable=failures,
        notice=" ".join(_notices(args, len(kept), len(out), dropped, failures)) or None,
    )


def render_related(out: RelatedOutput, args: RelatedInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "pubtator")
    what = f"{out.relation or 'any relation'}, {(out.type or 'any type').lower()}"
    lines = [f"**{out.total} related** ({what}) for `{out.entity}`; showing {len(out.related)}."]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    if out.related:
        rows = [
            [r.id, r.type or "", r.relation or "", r.publications if r.publications is not None else "",
             ", ".join(r.pmids[:10])]
            for r in out.related
        ]  # fmt: skip
        lines += [
            "",
            rendering.fence(
                rendering.md_table(["Entity id", "Type", "Relation", "Articles", "PMIDs"], rows), "pubtator"
            ),
        ]
    return rendering.cap_text("\n".join(lines), "Lower limit, or use responseFormat 'json'.")
