"""eutils_einfo: the Entrez database list, or one database's fields, links and counts."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, ConfigDict, Field, field_validator

from medlit.core import errors as E
from medlit.core.errors import MedlitError, upstream_error
from medlit.core.render import as_json, fence, md_table
from medlit.core.types import ToolContext, ToolSpec
from medlit.core.xml import XMLRefused, XMLSyntaxError, parse_xml

from .common import RESPONSE_FORMAT_FIELD, ResponseFormat, ToolInput, cap_text, check_db

DBLIST_CACHE_KEY = "ncbi.einfo.dblist"


class EInfoInput(ToolInput):
    db: str | None = Field(
        None,
        description="Entrez database to describe, e.g. 'pubmed', 'pmc', 'gene', 'protein'. Omit to list every "
        "database name.",
    )
    response_format: ResponseFormat = RESPONSE_FORMAT_FIELD

    @field_validator("db")
    @classmethod
    def _db(cls, v: str | None) -> str | None:
        return None if v is None else check_db(v)


class EInfoField(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="Search tag, usable as term[NAME]")
    full_name: str
    description: str = ""
    term_count: int | None = None
    is_date: bool = False
    is_numerical: bool = False
    single_token: bool = False
    hierarchy: bool = False
    is_hidden: bool = False


class EInfoLink(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="Link name for eutils_elink's linkname, e.g. pubmed_pubmed_citedin")
    menu: str = ""
    description: str = ""
    db_to: str = ""


class EInfoDatabase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    menu_name: str = ""
    description: str = ""
    build: str | None = None
    count: int | None = Field(None, description="Number of records in the database")
    last_update: str | None = None
    fields: list[EInfoField] = Field(default_factory=list)
    links: list[EInfoLink] = Field(default_factory=list)


class EInfoOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int | None = Field(None, description="Number of Entrez databases (when no db was given)")
    databases: list[str] | None = Field(None, description="All Entrez database names (when no db was given)")
    database: EInfoDatabase | None = Field(None, description="The requested database's description")


def _text(el, tag: str) -> str:
    child = el.find(tag)
    return (child.text or "").strip() if child is not None and child.text else ""


def _flag(el, tag: str) -> bool:
    return _text(el, tag).upper() == "Y"


def _int(value: str) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def parse_einfo(data: bytes) -> EInfoOutput:
    """Parse an EInfo XML answer (DbList, or DbInfo of any DTD version)."""
    try:
        root = parse_xml(data)
    except (XMLSyntaxError, XMLRefused) as exc:
        raise upstream_error("ncbi", E.INVALID_RESPONSE, f"EInfo answer is not valid XML: {exc}") from None
    dblist = root.find("DbList")
    if dblist is not None:
        return EInfoOutput(databases=[(d.text or "").strip() for d in dblist.findall("DbName") if d.text])
    info = root.find("DbInfo")
    if info is None:
        raise upstream_error("ncbi", E.INVALID_RESPONSE, "EInfo answer has neither DbList nor DbInfo")
    fields = [
        EInfoField(
            name=_text(f, "Name"),
            full_name=_text(f, "FullName"),
            description=_text(f, "Description"),
            term_count=_int(_text(f, "TermCount")),
            is_date=_flag(f, "IsDate"),
            is_numerical=_flag(f, "IsNumerical"),
            single_token=_flag(f, "SingleToken"),
            hierarchy=_flag(f, "Hierarchy"),
            is_hidden=_flag(f, "IsHidden"),
        )
        for f in info.findall("FieldList/Field")
    ]
    links = [
        EInfoLink(
            name=_text(li, "Name"),
            menu=_text(li, "Menu"),
            description=_text(li, "Description"),
            db_to=_text(li, "DbTo"),
        )
        for li in info.findall("LinkList/Link")
    ]
    return EInfoOutput(
        database=EInfoDatabase(
            name=_text(info, "DbName"),
            menu_name=_text(info, "MenuName"),
            description=_text(info, "Description"),
            build=_text(info, "DbBuild") or None,
            count=_int(_text(info, "Count")),
            last_update=_text(info, "LastUpdate") or None,
            fields=fields,
            links=links,
        )
    )


async def database_names(ctx: ToolContext) -> list[str]:
    """The live Entrez database list, fetched once per process (concurrent callers share one request)."""
    task = ctx.cache.get(DBLIST_CACHE_KEY)
    if task is None or (task.done() and task.exception() is not None):
        task = asyncio.ensure_future(_fetch_database_names(ctx))
        ctx.cache[DBLIST_CACHE_KEY] = task
    return list(await asyncio.shield(task))


async def _fetch_database_names(ctx: ToolContext) -> list[str]:
    resp = await ctx.client("ncbi").get("einfo.fcgi", {"retmode": "xml"})
    return parse_einfo(resp.body).databases or []


async def describe_database(ctx: ToolContext, db: str) -> EInfoDatabase:
    try:
        resp = await ctx.client("ncbi").get("einfo.fcgi", {"db": db, "retmode": "xml", "version": "2.0"})
    except MedlitError as err:
        if err.reason != "ncbi_resource_not_found":
            raise
        names = await database_names(ctx)
        raise E.invalid_argument(
            f"Unknown Entrez database {db!r}.",
            "Use one of: " + ", ".join(names),
            valid_databases=names,
        ) from None
    out = parse_einfo(resp.body)
    if out.database is None:
        raise upstream_error("ncbi", E.INVALID_RESPONSE, "EInfo answered without a database description")
    return out.database


async def einfo(args: EInfoInput, ctx: ToolContext) -> EInfoOutput:
    if args.db is None:
        names = await database_names(ctx)
        return EInfoOutput(count=len(names), databases=names)
    return EInfoOutput(database=await describe_database(ctx, args.db))


def render_einfo(out: EInfoOutput, args: EInfoInput) -> str:
    if args.response_format == "json":
        return as_json(out, "ncbi-einfo")
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
        md_table(
            ["Tag", "Name", "Description"],
            [[f.name, f.full_name, f.description] for f in d.fields if not f.is_hidden],
        ),
        "",
        f"### Links ({len(d.links)}) — use as eutils_elink linkname",
        md_table(["Link name", "To", "Description"], [[li.name, li.db_to, li.description] for li in d.links]),
    ]
    text = f"## Entrez database `{d.name}`\n" + fence("\n".join(body), "ncbi-einfo")
    return cap_text(
        text, "Every field and link is in the structured result (database.fields, database.links)."
    )


TOOL = ToolSpec(
    name="eutils_einfo",
    title="Describe Entrez databases (EInfo)",
    description=(
        "List every Entrez database, or describe one: record count, last update, its search fields (the "
        "[TAG]s usable in eutils_esearch terms) and its link names (for eutils_elink). Use it before building "
        "a fielded query or choosing a linkname; don't use it to search records (eutils_esearch or "
        "pubmed_search_articles) or to count a query per database (eutils_egquery). An unknown database name is rejected with the list of valid ones. One NCBI "
        "request; the database list is cached for the process."
    ),
    input_model=EInfoInput,
    output_model=EInfoOutput,
    handler=einfo,
    render=render_einfo,
)
