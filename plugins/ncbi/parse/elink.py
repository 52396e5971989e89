"""ELink answers (XML or JSON): link sets, scored neighbours, History handles per link, LinkOut
URLs and link checks, with per-set errors kept on their set. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from lxml import etree
from pydantic import Field

from medlit.core.plugin import markup

from .body import (
    NcbiModel,
    as_list,
    child_text,
    child_texts,
    children_named,
    dicts,
    error_texts,
    first_child,
    grandchildren,
    invalid_response,
    is_json,
    json_error,
    load_json,
    ncbi_error,
    str_list,
    str_or_none,
    to_int,
    xml_root,
    yes_no,
)

# ----------------------------------------------------------------------------- ELink


class Link(NcbiModel):
    id: str
    score: int | None = None


class LinkSetDb(NcbiModel):
    dbto: str = ""
    linkname: str = ""
    links: list[Link] = Field(default_factory=list)
    info: str | None = None  # "Empty result": no links, not an error
    error: str | None = None


class LinkSetDbHistory(NcbiModel):
    dbto: str = ""
    linkname: str = ""
    query_key: str | None = None
    web_env: str | None = None
    info: str | None = None
    error: str | None = None


class ObjUrl(NcbiModel):
    """One LinkOut / provider link (cmd=llinks, llinkslib, prlinks)."""

    url: str = ""
    icon_url: str | None = None
    link_name: str | None = None
    provider_name: str | None = None
    provider_abbr: str | None = None
    provider_id: str | None = None
    provider_url: str | None = None
    categories: list[str] = Field(default_factory=list)
    attributes: list[str] = Field(default_factory=list)
    subject_types: list[str] = Field(default_factory=list)


class IdUrlSet(NcbiModel):
    id: str
    obj_urls: list[ObjUrl] = Field(default_factory=list)
    info: str | None = None  # "No links"


class LinkInfo(NcbiModel):
    """An acheck LinkInfo: this id has links of ``linkname`` (``has_links`` unless told otherwise)."""

    dbto: str = ""
    linkname: str = ""
    has_links: bool = True
    menu_tag: str | None = None
    html_tag: str | None = None
    url: str | None = None
    priority: int | None = None


class IdCheck(NcbiModel):
    """cmd=acheck (``link_infos``), ncheck (``has_neighbor``) or lcheck (``has_linkout``)."""

    id: str
    link_infos: list[LinkInfo] = Field(default_factory=list)
    has_neighbor: bool | None = None
    has_linkout: bool | None = None


class LinkSet(NcbiModel):
    dbfrom: str = ""
    ids: list[str] = Field(default_factory=list)
    link_dbs: list[LinkSetDb] = Field(default_factory=list)
    histories: list[LinkSetDbHistory] = Field(default_factory=list)
    web_env: str | None = None
    id_url_list: list[IdUrlSet] = Field(default_factory=list)
    id_check_list: list[IdCheck] = Field(default_factory=list)
    # The LinkSet's own <ERROR> (several joined with "; "): NCBI failed this set, not the call.
    error: str | None = None

    def has_content(self) -> bool:
        """True when the set carries anything besides its error: ids, links, handles, URLs, checks."""
        return bool(
            self.ids
            or any(d.links for d in self.link_dbs)
            or any(h.query_key for h in self.histories)
            or self.id_url_list
            or self.id_check_list
        )


class ELinkResult(NcbiModel):
    link_sets: list[LinkSet] = Field(default_factory=list)
    # A root-level <ERROR> that came with usable link sets (alone, it fails the call).
    errors: list[str] = Field(default_factory=list)


# ----------------------------------------------------------------------------- ELink


def parse_elink(data: bytes | str, *, json_mode: bool | None = None) -> ELinkResult:
    """ELink XML or JSON (sniffed when ``json_mode`` is None); empty link sets are not errors.

    An ``ERROR`` on one LinkSet is kept on that set (``LinkSet.error``) with whatever else it
    carries; a root-level ``ERROR`` next to usable link sets goes to ``ELinkResult.errors``. Only
    an answer that is nothing but errors raises: a root ERROR with no usable link set, or link
    sets that all carry nothing (no ids, links, handles, URLs or checks) besides at least one ERROR.
    """
    if json_mode is None:
        json_mode = is_json(data)
    return _elink_json(data) if json_mode else _elink_xml(data)


def _elink_checked(root_errors: list[str], sets: list[LinkSet]) -> ELinkResult:
    set_errors = [ls.error for ls in sets if ls.error]
    if (root_errors or set_errors) and not any(ls.has_content() for ls in sets):
        raise ncbi_error([*root_errors, *set_errors])
    return ELinkResult(link_sets=sets, errors=root_errors)


def _elink_xml(data: bytes | str) -> ELinkResult:
    root = xml_root(data, ("eLinkResult",))
    sets = [_linkset_xml(ls) for ls in children_named(root, "LinkSet")]
    return _elink_checked(error_texts(root), sets)


def _linkset_xml(ls: etree._Element) -> LinkSet:
    web_env = child_text(ls, "WebEnv") or None
    return LinkSet(
        error="; ".join(error_texts(ls)) or None,
        dbfrom=child_text(ls, "DbFrom") or "",
        ids=[t for t in child_texts(first_child(ls, "IdList"), "Id") if t],
        link_dbs=[_linksetdb_xml(db) for db in children_named(ls, "LinkSetDb")],
        histories=[_history_xml(h, web_env) for h in children_named(ls, "LinkSetDbHistory")],
        web_env=web_env,
        id_url_list=[_idurlset_xml(s) for s in grandchildren(ls, "IdUrlList", "IdUrlSet")],
        id_check_list=_idchecks_xml(first_child(ls, "IdCheckList")),
    )


def _linksetdb_xml(db: etree._Element) -> LinkSetDb:
    return LinkSetDb(
        dbto=child_text(db, "DbTo") or "",
        linkname=child_text(db, "LinkName") or "",
        links=[
            Link(id=child_text(k, "Id") or "", score=to_int(child_text(k, "Score")))
            for k in children_named(db, "Link")
        ],
        info=child_text(db, "Info") or None,
        error=child_text(db, "ERROR") or None,
    )


def _history_xml(h: etree._Element, web_env: str | None) -> LinkSetDbHistory:
    return LinkSetDbHistory(
        dbto=child_text(h, "DbTo") or "",
        linkname=child_text(h, "LinkName") or "",
        query_key=child_text(h, "QueryKey") or None,
        web_env=web_env,
        info=child_text(h, "Info") or None,
        error=child_text(h, "ERROR") or None,
    )


def _idurlset_xml(s: etree._Element) -> IdUrlSet:
    return IdUrlSet(
        id=child_text(s, "Id") or "",
        obj_urls=[_objurl_xml(o) for o in children_named(s, "ObjUrl")],
        info=child_text(s, "Info") or None,
    )


def _objurl_xml(o: etree._Element) -> ObjUrl:
    prov = first_child(o, "Provider")
    return ObjUrl(
        url=child_text(o, "Url") or "",
        icon_url=child_text(o, "IconUrl") or None,
        link_name=child_text(o, "LinkName") or None,
        provider_name=child_text(prov, "Name") or None,
        provider_abbr=child_text(prov, "NameAbbr") or None,
        provider_id=child_text(prov, "Id") or None,
        provider_url=child_text(prov, "Url") or None,
        categories=child_texts(o, "Category"),
        attributes=child_texts(o, "Attribute"),
        subject_types=child_texts(o, "SubjectType"),
    )


def _idchecks_xml(lst: etree._Element | None) -> list[IdCheck]:
    out: list[IdCheck] = []
    for el in lst if lst is not None else ():
        name = markup.localname(el)
        if name == "Id":  # ncheck / lcheck: flags as attributes
            out.append(
                IdCheck(
                    id=markup.text_of(el),
                    has_neighbor=yes_no(el.get("HasNeighbor")),
                    has_linkout=yes_no(el.get("HasLinkOut")),
                )
            )
        elif name == "IdLinkSet":  # acheck
            id_el = first_child(el, "Id")
            out.append(
                IdCheck(
                    id=markup.text_of(id_el),
                    link_infos=[_linkinfo_xml(i) for i in children_named(el, "LinkInfo")],
                    has_neighbor=yes_no(id_el.get("HasNeighbor")) if id_el is not None else None,
                    has_linkout=yes_no(id_el.get("HasLinkOut")) if id_el is not None else None,
                )
            )
    return out


def _linkinfo_xml(i: etree._Element) -> LinkInfo:
    has_links = yes_no(i.get("HasLinks") or child_text(i, "HasLinks"))
    return LinkInfo(
        dbto=child_text(i, "DbTo") or "",
        linkname=child_text(i, "LinkName") or "",
        has_links=True if has_links is None else has_links,
        menu_tag=child_text(i, "MenuTag") or None,
        html_tag=child_text(i, "HtmlTag") or None,
        url=child_text(i, "Url") or None,
        priority=to_int(child_text(i, "Priority")),
    )


def _elink_json(data: bytes | str) -> ELinkResult:
    doc = load_json(data)
    if not isinstance(doc, dict):
        raise invalid_response("ELink JSON is not an object")
    errors = [e for e in [json_error(doc)] if e]
    sets = doc.get("linksets")
    if sets is None and not errors:
        raise invalid_response("ELink JSON has no 'linksets'")
    sets = sets if isinstance(sets, list) else []
    return _elink_checked(errors, [_linkset_json(ls) for ls in sets if isinstance(ls, dict)])


def _linkset_json(ls: dict[str, Any]) -> LinkSet:
    web_env = str_or_none(ls.get("webenv"))
    return LinkSet(
        error=json_error(ls),
        dbfrom=str(ls.get("dbfrom", "")),
        ids=[str(i) for i in as_list(ls.get("ids"))],  # a non-list "ids" reads as none
        link_dbs=[_linksetdb_json(d) for d in dicts(ls.get("linksetdbs"))],
        histories=[
            LinkSetDbHistory(
                dbto=str(h.get("dbto", "")),
                linkname=str(h.get("linkname", "")),
                query_key=str_or_none(h.get("querykey")),
                web_env=web_env,
                info=str_or_none(h.get("info")),
                error=json_error(h),
            )
            for h in dicts(ls.get("linksetdbhistories"))
        ],
        web_env=web_env,
        id_url_list=[_idurlset_json(s) for s in _idurl_entries(ls.get("idurllist"))],
        id_check_list=_idchecks_json(ls.get("idchecklist")),
    )


def _linksetdb_json(d: dict[str, Any]) -> LinkSetDb:
    links = []
    for k in as_list(d.get("links")):
        # Plain neighbors are bare id strings; neighbor_score gives {"id", "score"} objects.
        if isinstance(k, dict):
            links.append(Link(id=str(k.get("id", "")), score=to_int(k.get("score"))))
        else:
            links.append(Link(id=str(k)))
    return LinkSetDb(
        dbto=str(d.get("dbto", "")),
        linkname=str(d.get("linkname", "")),
        links=links,
        info=str_or_none(d.get("info")),
        error=json_error(d),
    )


def _idurl_entries(value: Any) -> list[dict[str, Any]]:
    # Seen both as a list of IdUrlSets and as {"idurlset": [...]} / {pmid: {...}} objects.
    if isinstance(value, list):
        return dicts(value)
    if isinstance(value, dict):
        inner = value.get("idurlset") or value.get("idurlsets")
        if isinstance(inner, list):
            return dicts(inner)
        return [{"id": k, **v} for k, v in value.items() if isinstance(v, dict)]
    return []


def _url_value(value: Any) -> str | None:
    if isinstance(value, dict):  # {"value": "...", "lng": "EN"} (or "$" from older converters)
        value = value.get("value", value.get("$"))
    return str_or_none(value)


def _idurlset_json(s: dict[str, Any]) -> IdUrlSet:
    objs = []
    for o in dicts(s.get("objurls")):
        prov = raw if isinstance(raw := o.get("provider"), dict) else {}
        objs.append(
            ObjUrl(
                url=_url_value(o.get("url")) or "",
                icon_url=_url_value(o.get("iconurl")),
                link_name=str_or_none(o.get("linkname")),
                provider_name=str_or_none(prov.get("name")),
                provider_abbr=str_or_none(prov.get("nameabbr")),
                provider_id=str_or_none(prov.get("id")),
                provider_url=_url_value(prov.get("url")),
                categories=str_list(o.get("categories", o.get("category"))),
                attributes=str_list(o.get("attributes", o.get("attribute"))),
                subject_types=str_list(o.get("subjecttypes", o.get("subjecttype"))),
            )
        )
    return IdUrlSet(id=_url_value(s.get("id")) or "", obj_urls=objs, info=str_or_none(s.get("info")))


def _idchecks_json(value: Any) -> list[IdCheck]:
    if not isinstance(value, dict):
        return []
    out = []
    for i in as_list(value.get("ids")):
        if isinstance(i, dict):
            out.append(
                IdCheck(
                    id=str(i.get("value", i.get("id", ""))),
                    has_neighbor=yes_no(i.get("hasneighbor")),
                    has_linkout=yes_no(i.get("haslinkout")),
                )
            )
        else:
            out.append(IdCheck(id=str(i)))
    for s in dicts(value.get("idlinksets")):
        infos = [
            LinkInfo(
                dbto=str(li.get("dbto", "")),
                linkname=str(li.get("linkname", "")),
                has_links=yes_no(li.get("haslinks")) is not False,
                menu_tag=str_or_none(li.get("menutag")),
                html_tag=str_or_none(li.get("htmltag")),
                url=_url_value(li.get("url")),
                priority=to_int(li.get("priority")),
            )
            for li in dicts(s.get("linkinfos"))
        ]
        out.append(IdCheck(id=str(s.get("id", "")), link_infos=infos))
    return out
