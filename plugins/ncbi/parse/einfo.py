"""EInfo answers: the Entrez database list, or one database's fields, links and counts (any DTD
version). The records are also ``eutils_einfo``'s output. Pure: no I/O."""

from __future__ import annotations

from lxml import etree
from pydantic import BaseModel, ConfigDict, Field

from .body import (
    child_text,
    child_texts,
    first_child,
    grandchildren,
    invalid_response,
    to_int,
    xml_root,
    yes_no,
)


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


def _text(el: etree._Element, tag: str) -> str:
    return child_text(el, tag) or ""


def _flag(el: etree._Element, tag: str) -> bool:
    return yes_no(child_text(el, tag)) is True


def parse_einfo(data: bytes) -> EInfoOutput:
    """Parse an EInfo XML answer (DbList, or DbInfo of any DTD version)."""
    root = xml_root(data, ("eInfoResult",))
    dblist = first_child(root, "DbList")
    if dblist is not None:
        return EInfoOutput(databases=[name for name in child_texts(dblist, "DbName") if name])
    info = first_child(root, "DbInfo")
    if info is None:  # an <ERROR> here was raised by the client's check (service.inspect_eutils)
        raise invalid_response("EInfo answer has neither DbList nor DbInfo")
    fields = [
        EInfoField(
            name=_text(f, "Name"),
            full_name=_text(f, "FullName"),
            description=_text(f, "Description"),
            term_count=to_int(child_text(f, "TermCount")),
            is_date=_flag(f, "IsDate"),
            is_numerical=_flag(f, "IsNumerical"),
            single_token=_flag(f, "SingleToken"),
            hierarchy=_flag(f, "Hierarchy"),
            is_hidden=_flag(f, "IsHidden"),
        )
        for f in grandchildren(info, "FieldList", "Field")
    ]
    links = [
        EInfoLink(
            name=_text(li, "Name"),
            menu=_text(li, "Menu"),
            description=_text(li, "Description"),
            db_to=_text(li, "DbTo"),
        )
        for li in grandchildren(info, "LinkList", "Link")
    ]
    return EInfoOutput(
        database=EInfoDatabase(
            name=_text(info, "DbName"),
            menu_name=_text(info, "MenuName"),
            description=_text(info, "Description"),
            build=child_text(info, "DbBuild") or None,
            count=to_int(child_text(info, "Count")),
            last_update=child_text(info, "LastUpdate") or None,
            fields=fields,
            links=links,
        )
    )
