"""eutils_einfo: the Entrez database list, or one database's fields, links and counts."""

from __future__ import annotations

from pydantic import Field, field_validator

from medlit.core.plugin import ToolContext, ToolInput, outputs, rendering

from ..client import database_names, describe_database
from ..inputs import DB_LENGTH, check_db
from ..parse.einfo import EInfoOutput


class EInfoInput(ToolInput):
    db: str | None = Field(
        None,
        max_length=DB_LENGTH,
        description="Database to describe; omit to list them all. Example: 'gene'.",
    )
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("db")
    @classmethod
    def _db(cls, v: str | None) -> str | None:
        return None if v is None else check_db(v)


async def einfo(args: EInfoInput, ctx: ToolContext) -> EInfoOutput:
    if args.db is None:
        names = await database_names(ctx)
        return EInfoOutput(count=len(names), databases=names)
    return EInfoOutput(database=await describe_database(ctx, args.db))


def render_einfo(out: EInfoOutput, args: EInfoInput) -> str:
    if args.response_format == "json":
        return rendering.as_json(out, "ncbi-einfo")
    if out.databases is not None:
        return (
            f"**{len(out.databases)} Entrez databases**: "
            + ", ".join(out.databases)
            + ("\n\nCall eutils_einfo with db=<name> for a database's search fields and link names.")
        )
    d = out.database
    assert d is not None
    # Names, descriptions and the tables come from NCBI: fenced as data like any upstream text.
    body = [
        f"{d.menu_name or d.name}: {d.description}",
        f"Records: {d.count:,}" if d.count is not None else "Records: unknown",
        f"Last update: {d.last_update or 'unknown'}; build: {d.build or 'unknown'}",
        "",
        f"### Search fields ({len(d.fields)}) — use as term[TAG]",
        rendering.md_table(
            ["Tag", "Name", "Description"],
            [[f.name, f.full_name, f.description] for f in d.fields if not f.is_hidden],
        ),
        "",
        f"### Links ({len(d.links)}) — use as eutils_elink linkname",
        rendering.md_table(
            ["Link name", "To", "Description"], [[li.name, li.db_to, li.description] for li in d.links]
        ),
    ]
    text = f"## Entrez database `{d.name}`\n" + rendering.fence("\n".join(body), "ncbi-einfo")
    return rendering.cap_text(
        text, "Every field and link is in the structured result (database.fields, database.links)."
    )
