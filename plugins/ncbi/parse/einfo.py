"""EInfo answers: the Entrez database list, or one database's fields, links and counts (any DTD
version). The records are also ``eutils_einfo``'s output. Pure: no I/O."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from medlit.core.plugin import XMLRefused, XMLSyntaxError, errors, parse_xml, upstream_error


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
        raise upstream_error(
            "ncbi", errors.INVALID_RESPONSE, f"EInfo answer is not valid XML: {exc}"
        ) from None
    dblist = root.find("DbList")
    if dblist is not None:
        return EInfoOutput(databases=[(d.text or "").strip() for d in dblist.findall("DbName") if d.text])
    info = root.find("DbInfo")
    if info is None:
        raise upstream_error("ncbi", errors.INVALID_RESPONSE, "EInfo answer has neither DbList nor DbInfo")
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
