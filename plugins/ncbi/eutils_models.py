"""Typed results of the E-utilities and the PMC ID Converter.

Field names are snake_case versions of the E-utilities' own terms (``query_key``, ``web_env``,
``dbto``, ``linkname``) so a reader of the NCBI documentation recognises them. Every model is
plain data: the parsers in :mod:`eutils_parse` build them, tools serialise them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    # ``serialize_by_alias`` keeps the wire name ``from`` (a Python keyword) in dumps.
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


# ----------------------------------------------------------------------------- ESearch


class Translation(_Model):
    """One TranslationSet entry: how Entrez expanded part of the query."""

    from_: str = Field(alias="from")
    to: str


class TranslationTerm(_Model):
    """A TermSet of the TranslationStack (operators are kept as bare strings)."""

    term: str
    field: str = ""
    count: int | None = None
    explode: bool | None = None


class ESearchErrors(_Model):
    phrases_not_found: list[str] = Field(default_factory=list)
    fields_not_found: list[str] = Field(default_factory=list)


class ESearchWarnings(_Model):
    quoted_phrases_not_found: list[str] = Field(default_factory=list)
    phrases_ignored: list[str] = Field(default_factory=list)
    output_messages: list[str] = Field(default_factory=list)


class ESearchResult(_Model):
    count: int
    retmax: int | None = None
    retstart: int | None = None
    ids: list[str] = Field(default_factory=list)
    query_key: str | None = None
    web_env: str | None = None
    query_translation: str | None = None
    translation_set: list[Translation] = Field(default_factory=list)
    translation_stack: list[TranslationTerm | str] = Field(default_factory=list)
    errors: ESearchErrors = Field(default_factory=ESearchErrors)
    warnings: ESearchWarnings = Field(default_factory=ESearchWarnings)


# ----------------------------------------------------------------------------- EPost


class EPostResult(_Model):
    query_key: str
    web_env: str
    # Non-fatal ERROR text sent alongside a usable handle ("Some IDs have invalid value ...").
    warnings: list[str] = Field(default_factory=list)


# ----------------------------------------------------------------------------- ESummary


class DocSum(_Model):
    """One document summary; ``fields`` keeps the upstream names (v1 Item Name, v2 tag, JSON key)."""

    uid: str
    fields: dict[str, Any] = Field(default_factory=dict)


class DocSumError(_Model):
    """A per-id failure ("cannot get document summary", "Invalid uid ...")."""

    uid: str | None = None
    message: str


class ESummaryResult(_Model):
    docs: list[DocSum] = Field(default_factory=list)
    errors: list[DocSumError] = Field(default_factory=list)
    db_build: str | None = None


class PubMedDocSum(_Model):
    """A PubMed DocSum normalised across esummary v1 XML, v2 XML and JSON."""

    pmid: str
    title: str = ""
    authors: list[str] = Field(default_factory=list)
    last_author: str | None = None
    journal: str | None = None
    source: str | None = None
    pub_date: str | None = None
    epub_date: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = None
    pmcid: str | None = None
    pub_types: list[str] = Field(default_factory=list)
    lang: list[str] = Field(default_factory=list)
    has_abstract: bool | None = None


class MeshDocSum(_Model):
    """A MeSH esummary record (descriptor, supplementary concept or qualifier)."""

    uid: str
    ui: str | None = None
    name: str = ""
    entry_terms: list[str] = Field(default_factory=list)
    scope_note: str | None = None
    tree_numbers: list[str] = Field(default_factory=list)
    previous_indexing: list[str] = Field(default_factory=list)
    mapped_to: list[str] = Field(default_factory=list)
    record_type: Literal["descriptor", "supplementary", "qualifier"] | None = None


# ----------------------------------------------------------------------------- ELink


class Link(_Model):
    id: str
    score: int | None = None


class LinkSetDb(_Model):
    dbto: str = ""
    linkname: str = ""
    links: list[Link] = Field(default_factory=list)
    info: str | None = None  # "Empty result": no links, not an error
    error: str | None = None


class LinkSetDbHistory(_Model):
    dbto: str = ""
    linkname: str = ""
    query_key: str | None = None
    web_env: str | None = None
    info: str | None = None
    error: str | None = None


class ObjUrl(_Model):
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


class IdUrlSet(_Model):
    id: str
    obj_urls: list[ObjUrl] = Field(default_factory=list)
    info: str | None = None  # "No links"


class LinkInfo(_Model):
    """An acheck LinkInfo: this id has links of ``linkname`` (``has_links`` unless told otherwise)."""

    dbto: str = ""
    linkname: str = ""
    has_links: bool = True
    menu_tag: str | None = None
    html_tag: str | None = None
    url: str | None = None
    priority: int | None = None


class IdCheck(_Model):
    """cmd=acheck (``link_infos``), ncheck (``has_neighbor``) or lcheck (``has_linkout``)."""

    id: str
    link_infos: list[LinkInfo] = Field(default_factory=list)
    has_neighbor: bool | None = None
    has_linkout: bool | None = None


class LinkSet(_Model):
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


class ELinkResult(_Model):
    link_sets: list[LinkSet] = Field(default_factory=list)
    # A root-level <ERROR> that came with usable link sets (alone, it fails the call).
    errors: list[str] = Field(default_factory=list)


# ----------------------------------------------------------------------------- ESpell, EGQuery


class SpellSegment(_Model):
    kind: Literal["replaced", "original"]
    text: str


class ESpellResult(_Model):
    database: str | None = None
    query: str
    corrected_query: str = ""
    spelled_query: list[SpellSegment] = Field(default_factory=list)
    changed: bool = False


class EGQueryItem(_Model):
    db_name: str
    menu_name: str = ""
    count: int | None = None
    status: str = ""


class EGQueryResult(_Model):
    term: str
    results: list[EGQueryItem] = Field(default_factory=list)


# ----------------------------------------------------------------------------- ECitMatch


class CitMatch(_Model):
    """One citation's answer, in the order the citations were sent."""

    citation: str  # the citation string as sent
    journal: str = ""
    year: str = ""
    volume: str = ""
    first_page: str = ""
    author: str = ""
    key: str = ""
    status: Literal["matched", "not_found", "ambiguous"]
    pmid: str | None = None
    candidates: list[str] = Field(default_factory=list)
    detail: str | None = None  # "INVALID_JOURNAL", "14 citations", "no answer line"


# ----------------------------------------------------------------------------- ID Converter


class IdConvVersion(_Model):
    pmcid: str
    current: bool = False
    mid: str | None = None
    aiid: str | None = None


class IdConvRecord(_Model):
    requested_id: str | None = None
    pmcid: str | None = None
    pmid: str | None = None
    doi: str | None = None
    mid: str | None = None  # NIHMS manuscript id
    aiid: str | None = None
    status: Literal["ok", "error"] = "ok"
    errmsg: str | None = None
    live: bool = True
    release_date: str | None = None
    versions: list[IdConvVersion] = Field(default_factory=list)


class IdConvResult(_Model):
    status: str = "ok"
    response_date: str | None = None
    records: list[IdConvRecord] = Field(default_factory=list)
