"""pubtator_find_entity: a name to PubTator entity ids, in one autocomplete request."""

from __future__ import annotations

from medlit.core.plugin import ToolContext, rendering

from .client import autocomplete
from .inputs import FindEntityInput
from .models import FindEntityOutput


async def find_entity(args: FindEntityInput, ctx: ToolContext) -> FindEntityOutput:
    matches = await autocomplete(ctx, args.query, args.concept, args.limit)
    matches = matches[: args.limit]
    notice = []
    if not matches:
        notice.append(
            "PubTator3 suggests no entity for this name"
            + (f" of type {args.concept}" if args.concept else "")
            + ": try a synonym or symbol, another concept, or plain words in pubtator_search."
        )
    elif any(m.databaseId is None for m in matches):
        notice.append(
            "PubTator3 gave no database id for some suggestions (an older answer shape): the ids work in "
            "pubtator_search and pubtator_related; pubtator_annotations shows the database ids."
        )
    return FindEntityOutput(
        query=args.query, concept=args.concept, matches=matches, notice=" ".join(notice) or None
    )


def render_find_entity(out: FindEntityOutput, args: FindEntityInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "pubtator")
    where = f" ({out.concept})" if out.concept else ""
    lines = [
        f"**{len(out.matches)} PubTator entit{'y' if len(out.matches) == 1 else 'ies'}** for {out.query!r}{where}."
    ]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    if out.matches:
        rows = [
            [
                m.id,
                m.type,
                m.name or "",
                f"{m.database or ''}:{m.databaseId}" if m.databaseId else "",
                m.description or "",
            ]
            for m in out.matches
        ]
        lines += [
            "",
            rendering.fence(
                rendering.md_table(["Entity id", "Type", "Name", "Database id", "Note"], rows), "pubtator"
            ),
        ]
        lines.append("Use the entity ids in pubtator_search ('@GENE_x AND @DISEASE_y') and pubtator_related.")
    return rendering.cap_text("\n".join(lines), "Ask for fewer suggestions (limit).")
