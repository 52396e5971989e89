"""E-utilities answers other than ELink, ECitMatch and MeSH: ESearch, EPost, ESummary (v1 XML,
v2 XML and JSON, per-id errors kept apart), the PubMed DocSum in one shape, ESpell, EGQuery, and
errors EFetch sends in place of records. Pure: no I/O.

NCBI reports many failures inside HTTP 200 bodies: ``<ERROR>`` elements, per-id DocSum errors,
``status: "error"`` JSON. Whole-call failures raise :class:`MedlitError`; per-id failures are
returned as data so a tool can explain them next to the records that did come back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Literal

from lxml import etree
from pydantic import Field

from medlit.core.plugin import identifiers, markup

from .body import (
    NcbiModel,
    as_dict,
    as_list,
    child_text,
    child_texts,
    children_named,
    dicts,
    error_texts,
    first_child,
    grandchildren,
    invalid_response,
    json_error,
    load_json,
    ncbi_error,
    scalar,
    str_list,
    str_or_none,
    to_int,
    xml_root,
    yes_no,
)

# Root-level ESummary ERROR texts that concern one id, not the whole call.
_PER_ID_RE = re.compile(r"invalid uid|uid=\s*\d+|cannot get document summary", re.IGNORECASE)
_UID_IN_MSG_RE = re.compile(r"(?:uid\s*=\s*|invalid uid\s+)(\S+?)(?:[:\s]|$)", re.IGNORECASE)


# ----------------------------------------------------------------------------- ESearch


class Translation(NcbiModel):
    """One TranslationSet entry: how Entrez expanded part of the query."""

    from_: str = Field(alias="from")
    to: str


class TranslationTerm(NcbiModel):
    """A TermSet of the TranslationStack (operators are kept as bare strings)."""

    term: str
    field: str = ""
    count: int | None = None
    explode: bool | None = None


class ESearchErrors(NcbiModel):
    phrases_not_found: list[str] = Field(default_factory=list)
    fields_not_found: list[str] = Field(default_factory=list)


class ESearchWarnings(NcbiModel):
    quoted_phrases_not_found: list[str] = Field(default_factory=list)
    phrases_ignored: list[str] = Field(default_factory=list)
    output_messages: list[str] = Field(default_factory=list)


class ESearchResult(NcbiModel):
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


class EPostResult(NcbiModel):
    query_key: str
    web_env: str
    # Non-fatal ERROR text sent alongside a usable handle ("Some IDs have invalid value ...").
    warnings: list[str] = Field(default_factory=list)


# ----------------------------------------------------------------------------- ESummary


class DocSum(NcbiModel):
    """One document summary; ``fields`` keeps the upstream names (v1 Item Name, v2 tag, JSON key)."""

    uid: str
    fields: dict[str, Any] = Field(default_factory=dict)


class DocSumError(NcbiModel):
    """A per-id failure ("cannot get document summary", "Invalid uid ...")."""

    uid: str | None = None
    message: str


class ESummaryResult(NcbiModel):
    docs: list[DocSum] = Field(default_factory=list)
    errors: list[DocSumError] = Field(default_factory=list)
    db_build: str | None = None


class PubMedDocSum(NcbiModel):
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


# ----------------------------------------------------------------------------- ESpell, EGQuery


class SpellSegment(NcbiModel):
    kind: Literal["replaced", "original"]
    text: str


class ESpellResult(NcbiModel):
    database: str | None = None
    query: str
    corrected_query: str = ""
    spelled_query: list[SpellSegment] = Field(default_factory=list)
    changed: bool = False


class EGQueryItem(NcbiModel):
    db_name: str
    menu_name: str = ""
    count: int | None = None
    status: str = ""


class EGQueryResult(NcbiModel):
    term: str
    results: list[EGQueryItem] = Field(default_factory=list)


# ----------------------------------------------------------------------------- ESearch


def parse_esearch(data: bytes | str, *, json_mode: bool) -> ESearchResult:
    """ESearch XML or JSON; an ERROR in the body raises, an empty hit list does not."""
    return _esearch_json(data) if json_mode else _esearch_xml(data)


def _esearch_xml(data: bytes | str) -> ESearchResult:
    root = xml_root(data, ("eSearchResult",))
    errors = error_texts(root)
    if errors:
        raise ncbi_error(errors)
    count = to_int(child_text(root, "Count"))
    if count is None:
        raise invalid_response("ESearch answer has no <Count>")
    return ESearchResult(
        count=count,
        retmax=to_int(child_text(root, "RetMax")),
        retstart=to_int(child_text(root, "RetStart")),
        ids=[t for t in child_texts(first_child(root, "IdList"), "Id") if t],
        query_key=child_text(root, "QueryKey") or None,
        web_env=child_text(root, "WebEnv") or None,
        query_translation=child_text(root, "QueryTranslation"),
        translation_set=[
            Translation(from_=child_text(t, "From") or "", to=child_text(t, "To") or "")
            for t in grandchildren(root, "TranslationSet", "Translation")
        ],
        translation_stack=_stack_xml(first_child(root, "TranslationStack")),
        errors=ESearchErrors(
            phrases_not_found=child_texts(first_child(root, "ErrorList"), "PhraseNotFound"),
            fields_not_found=child_texts(first_child(root, "ErrorList"), "FieldNotFound"),
        ),
        warnings=ESearchWarnings(
            quoted_phrases_not_found=child_texts(first_child(root, "WarningList"), "QuotedPhraseNotFound"),
            phrases_ignored=child_texts(first_child(root, "WarningList"), "PhraseIgnored"),
            output_messages=child_texts(first_child(root, "WarningList"), "OutputMessage"),
        ),
    )


def _stack_xml(stack: etree._Element | None) -> list[TranslationTerm | str]:
    out: list[TranslationTerm | str] = []
    for el in stack if stack is not None else ():
        name = markup.localname(el)
        if name == "OP":
            out.append(markup.text_of(el))
        elif name == "TermSet":
            out.append(
                TranslationTerm(
                    term=child_text(el, "Term") or "",
                    field=child_text(el, "Field") or "",
                    count=to_int(child_text(el, "Count")),
                    explode=yes_no(child_text(el, "Explode")),
                )
            )
    return out


def _esearch_json(data: bytes | str) -> ESearchResult:
    doc = load_json(data)
    err = json_error(doc)
    if err:
        raise ncbi_error([err])
    res = doc.get("esearchresult") if isinstance(doc, dict) else None
    if not isinstance(res, dict):
        raise invalid_response("ESearch JSON has no 'esearchresult' object")
    err = json_error(res)
    if err:
        raise ncbi_error([err])
    count = to_int(res.get("count"))
    if count is None:
        raise invalid_response("ESearch JSON has no 'count'")
    # Members of the wrong JSON type (a number for a list, a list for a string) read as absent.
    errlist = as_dict(res.get("errorlist"))
    warnlist = as_dict(res.get("warninglist"))
    translation = res.get("querytranslation")
    return ESearchResult(
        count=count,
        retmax=to_int(res.get("retmax")),
        retstart=to_int(res.get("retstart")),
        ids=str_list(res.get("idlist")),
        query_key=str_or_none(res.get("querykey")),
        web_env=str_or_none(res.get("webenv")),
        query_translation=translation if isinstance(translation, str) else None,
        translation_set=[
            Translation(from_=str(t.get("from", "")), to=str(t.get("to", "")))
            for t in dicts(res.get("translationset"))
        ],
        translation_stack=[
            _stack_item_json(x) for x in as_list(res.get("translationstack")) if x is not None
        ],
        errors=ESearchErrors(
            phrases_not_found=str_list(errlist.get("phrasesnotfound")),
            fields_not_found=str_list(errlist.get("fieldsnotfound")),
        ),
        warnings=ESearchWarnings(
            quoted_phrases_not_found=str_list(warnlist.get("quotedphrasesnotfound")),
            phrases_ignored=str_list(warnlist.get("phrasesignored")),
            output_messages=str_list(warnlist.get("outputmessages")),
        ),
    )


def _stack_item_json(item: Any) -> TranslationTerm | str:
    # JSON mixes TermSet objects with bare operator strings ("OR", "GROUP").
    if isinstance(item, dict):
        return TranslationTerm(
            term=str(item.get("term", "")),
            field=str(item.get("field", "")),
            count=to_int(item.get("count")),
            explode=yes_no(item.get("explode")),
        )
    return str(item)


# ----------------------------------------------------------------------------- EPost


def parse_epost(data: bytes | str) -> EPostResult:
    """EPost XML; ERRORs raise unless a usable handle came back with them (partial upload)."""
    root = xml_root(data, ("ePostResult",))
    errors = error_texts(root)
    query_key, web_env = child_text(root, "QueryKey"), child_text(root, "WebEnv")
    if not (query_key and web_env):
        raise ncbi_error(errors) if errors else invalid_response("EPost answer has no QueryKey/WebEnv")
    return EPostResult(query_key=query_key, web_env=web_env, warnings=errors)


# ----------------------------------------------------------------------------- ESummary


def parse_esummary(data: bytes | str, *, json_mode: bool) -> ESummaryResult:
    """ESummary v1 XML, v2.0 XML (DocumentSummarySet) or JSON, with per-id errors kept apart."""
    return _esummary_json(data) if json_mode else _esummary_xml(data)


def _esummary_xml(data: bytes | str) -> ESummaryResult:
    root = xml_root(data, ("eSummaryResult",))
    docs: list[DocSum] = []
    errors = _root_docsum_errors(error_texts(root))
    db_build = None
    for el in root:
        name = markup.localname(el)
        if name == "DocSum":
            docs.append(_docsum_v1(el))
        elif name == "DocumentSummarySet":
            db_build = child_text(el, "DbBuild") or db_build
            errors += _root_docsum_errors(error_texts(el))
            for ds in children_named(el, "DocumentSummary"):
                _docsum_v2(ds, docs, errors)
    return ESummaryResult(docs=docs, errors=errors, db_build=db_build)


def _root_docsum_errors(messages: list[str]) -> list[DocSumError]:
    """Root ERRORs about single ids become per-id errors; anything else fails the call."""
    whole = [m for m in messages if not _PER_ID_RE.search(m)]
    if whole:
        raise ncbi_error(whole)
    return [DocSumError(uid=_uid_in_message(m), message=m) for m in messages]


def _uid_in_message(message: str) -> str | None:
    m = _UID_IN_MSG_RE.search(message)
    return m.group(1) if m else None


def _docsum_v1(el: etree._Element) -> DocSum:
    fields = _group((item.get("Name") or "", _v1_value(item)) for item in children_named(el, "Item"))
    return DocSum(uid=child_text(el, "Id") or "", fields=fields)


# v1 Lists whose Item names are keys (idtype, history status), even when only one is present.
_V1_KEYED_LISTS = {"ArticleIds", "History"}


def _v1_value(item: etree._Element) -> Any:
    kind = item.get("Type") or "String"
    kids = children_named(item, "Item")
    if kind in ("List", "Structure") or kids:
        names = {k.get("Name") for k in kids}
        if kind == "List" and len(names) <= 1 and item.get("Name") not in _V1_KEYED_LISTS:
            return [_v1_value(k) for k in kids]
        return _group((k.get("Name") or "", _v1_value(k)) for k in kids)
    text = (item.text or "").strip()
    if kind == "Integer":
        return to_int(text) if text else None
    return text


def _group(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Dict from (name, value) pairs; a repeated name keeps all its values as a list."""
    grouped: dict[str, list[Any]] = {}
    for key, value in pairs:
        grouped.setdefault(key, []).append(value)
    return {k: vs[0] if len(vs) == 1 else vs for k, vs in grouped.items()}


def _docsum_v2(el: etree._Element, docs: list[DocSum], errors: list[DocSumError]) -> None:
    uid = el.get("uid") or child_text(el, "Id") or ""
    err = child_text(el, "error")
    if err:
        errors.append(DocSumError(uid=uid or _uid_in_message(err), message=err))
        return
    fields = _group((markup.localname(c), _v2_value(c)) for c in el if isinstance(c.tag, str))
    docs.append(DocSum(uid=uid, fields=fields))


def _v2_value(el: etree._Element) -> Any:
    kids = [c for c in el if isinstance(c.tag, str)]
    attrs = dict(el.attrib)
    if not kids:
        text = (el.text or "").strip()
        return {**attrs, "value": text} if attrs else text
    tags = {markup.localname(c) for c in kids}
    if len(tags) == 1 and (len(kids) > 1 or _is_list_container(el, kids[0])):
        return [_v2_value(c) for c in kids]
    return {**attrs, **_group((markup.localname(c), _v2_value(c)) for c in kids)}


def _is_list_container(parent: etree._Element, child: etree._Element) -> bool:
    # v2 DocSums wrap repeated values: <Lang><string/>, <Authors><Author/>, <History><PubMedPubDate/>.
    ptag, ctag = markup.localname(parent), markup.localname(child)
    return ctag[:1].islower() or ptag.endswith(("s", "List", "Set")) or ptag == "History"


def _esummary_json(data: bytes | str) -> ESummaryResult:
    doc = load_json(data)
    if not isinstance(doc, dict):
        raise invalid_response("ESummary JSON is not an object")
    err = json_error(doc)
    if err:
        raise ncbi_error([err])
    errors: list[DocSumError] = []
    legacy = doc.get("esummaryresult")  # ["Invalid uid ..."] instead of a result object
    if isinstance(legacy, list):
        errors += _root_docsum_errors([str(m) for m in legacy if m])
    result = doc.get("result")
    if result is None:
        if errors:
            return ESummaryResult(errors=errors)
        raise invalid_response("ESummary JSON has no 'result' object")
    if not isinstance(result, dict):
        raise invalid_response("ESummary JSON 'result' is not an object")
    err = json_error(result)
    if err:
        errors += _root_docsum_errors([err])
    docs: list[DocSum] = []
    for uid in str_list(result.get("uids")):
        obj = result.get(uid)
        if not isinstance(obj, dict):
            errors.append(DocSumError(uid=uid, message="missing from the answer"))
            continue
        msg = json_error(obj)
        if msg:
            errors.append(DocSumError(uid=uid, message=msg))
            continue
        fields = {k: v for k, v in obj.items() if k != "uid"}
        docs.append(DocSum(uid=str(obj.get("uid") or uid), fields=fields))
    return ESummaryResult(docs=docs, errors=errors)


# ----------------------------------------------------------------------------- PubMed DocSum


def pubmed_docsum(doc: DocSum) -> PubMedDocSum:
    """Normalise a PubMed DocSum from v1 XML, v2 XML or JSON into one shape."""
    f = {k.lower(): v for k, v in doc.fields.items()}
    ids = _article_ids(f.get("articleids"))
    return PubMedDocSum(
        # The uid is the PMID for db=pubmed; a db=pmc DocSum names it in its ArticleIds.
        pmid=_nonzero(ids.get("pubmed")) or _nonzero(ids.get("pmid")) or doc.uid,
        title=scalar(f.get("title")) or "",
        authors=_author_names(f),
        last_author=scalar(f.get("lastauthor")),
        journal=scalar(f.get("fulljournalname")) or scalar(f.get("source")),
        source=scalar(f.get("source")),
        pub_date=scalar(f.get("pubdate")),
        epub_date=scalar(f.get("epubdate")),
        volume=scalar(f.get("volume")),
        issue=scalar(f.get("issue")),
        pages=scalar(f.get("pages")),
        doi=ids.get("doi") or _doi_from_elocation(f.get("elocationid")),
        pmcid=_pmcid_from(ids.get("pmc") or ids.get("pmcid")),
        pub_types=str_list(f.get("pubtypelist", f.get("pubtype"))),
        lang=str_list(f.get("langlist", f.get("lang"))),
        has_abstract=_has_abstract(f),
    )


def _nonzero(value: str | None) -> str | None:
    return value if value and value.strip("0") else None


def _author_names(f: dict[str, Any]) -> list[str]:
    if "authorlist" in f:  # v1: a List of Author strings
        return str_list(f["authorlist"])
    names = []
    for a in as_list(f.get("authors")):  # not a list (an attribute-only <Authors/>, a JSON slip): none
        if isinstance(a, str):
            names.append(a.strip())
            continue
        if not isinstance(a, dict):
            continue
        low = {k.lower(): v for k, v in a.items()}
        kind = (scalar(low.get("authtype")) or "Author").lower()
        name = scalar(low.get("name"))
        # Editors and other contributor kinds of book records are not authors.
        if name and kind in ("author", "collectivename"):
            names.append(name)
    return names


def _article_ids(value: Any) -> dict[str, str]:
    """{idtype: value} from v1 (name -> value dict) or v2/JSON ([{idtype, value}]) ArticleIds."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str) and v.strip():
                out.setdefault(k.lower(), v.strip())
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                low = {k.lower(): v for k, v in item.items()}
                kind, val = scalar(low.get("idtype")), scalar(low.get("value"))
                if kind and val:
                    out.setdefault(kind.lower(), val)
    return out


def _doi_from_elocation(value: Any) -> str | None:
    m = re.search(r"doi:\s*(10\.\S+)", scalar(value) or "", re.IGNORECASE)
    return m.group(1).rstrip(".;,") if m else None


def _pmcid_from(value: str | None) -> str | None:
    # v2 sends the pmcid idtype as "pmc-id: PMC1762328;manuscript-id: ...", the pmc idtype as "PMC1762328".
    m = re.search(r"PMC\d+(?:\.\d+)?", value or "", re.IGNORECASE)
    try:
        return identifiers.normalize_pmcid(m.group(0)) if m else None
    except identifiers.IdentifierError:
        return None


def _has_abstract(f: dict[str, Any]) -> bool | None:
    if "hasabstract" in f:
        v = f["hasabstract"]
        return None if v in (None, "") else bool(to_int(v))
    if "attributes" in f:
        return any(a.lower() == "has abstract" for a in str_list(f["attributes"]))
    return None


# ----------------------------------------------------------------------------- ESpell, EGQuery


_SEGMENT_KINDS: dict[str, Literal["replaced", "original"]] = {"replaced": "replaced", "original": "original"}


def parse_espell(data: bytes | str) -> ESpellResult:
    """ESpell XML; an empty CorrectedQuery means no suggestion (``changed`` False)."""
    root = xml_root(data, ("eSpellResult",))
    errors = error_texts(root)
    if errors:
        raise ncbi_error(errors)
    query = child_text(root, "Query") or ""
    corrected = child_text(root, "CorrectedQuery") or ""
    segments = []
    spelled = first_child(root, "SpelledQuery")
    for el in spelled if spelled is not None else ():
        kind = _SEGMENT_KINDS.get(markup.localname(el).lower())
        # Segment text keeps its spaces (" AND mus "): the segments concatenate to the query.
        if kind is not None and el.text:
            segments.append(SpellSegment(kind=kind, text=el.text))
    changed = bool(corrected) and corrected.strip().lower() != query.strip().lower()
    return ESpellResult(
        database=child_text(root, "Database"),
        query=query,
        corrected_query=corrected,
        spelled_query=segments,
        changed=changed,
    )


def parse_egquery(data: bytes | str) -> EGQueryResult:
    """EGQuery XML (``<Result>``): per-database counts; a non-numeric count becomes None."""
    root = xml_root(data, ("Result", "eGQueryResult"))
    errors = error_texts(root)
    if errors:
        raise ncbi_error(errors)
    holder = first_child(root, "eGQueryResult") if markup.localname(root) == "Result" else root
    items = [
        EGQueryItem(
            db_name=child_text(it, "DbName") or "",
            menu_name=child_text(it, "MenuName") or "",
            count=to_int(child_text(it, "Count")),
            status=child_text(it, "Status") or "",
        )
        for it in children_named(holder if holder is not None else root, "ResultItem")
    ]
    return EGQueryResult(term=child_text(root, "Term") or "", results=items)


# ----------------------------------------------------------------------------- EFetch errors


_ROOT_TAG_RE = re.compile(rb"<\s*([A-Za-z_][\w.\-]*)")
_TEXT_ERROR_PREFIXES = ("error:", "error occurred", "cannot ", "can't ")


def parse_efetch_error(data: bytes | str) -> str | None:
    """The error message when an efetch body is an error in disguise, else None.

    Catches ``<eFetchResult><ERROR>``, a root ``<ERROR>`` and text bodies starting "Error:" /
    "Cannot"; an empty ``PubmedArticleSet`` is not an error (unknown ids are silently omitted).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    head = raw[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<"):
        return _efetch_xml_error(raw, head)
    if head.startswith(b"{"):
        return json_error(_safe_json(raw))
    first = head.decode("utf-8", errors="replace").split("\n", 1)[0].strip()
    return first if first.lower().startswith(_TEXT_ERROR_PREFIXES) else None


def _root_tag(head: bytes) -> str | None:
    # Skip the prolog, DOCTYPE and comments: the root is the first tag that is not <? or <!.
    for m in _ROOT_TAG_RE.finditer(re.sub(rb"<!--.*?-->|<\?.*?\?>|<!DOCTYPE[^>]*>", b"", head, flags=re.S)):
        return m.group(1).decode("ascii", errors="replace")
    return None


def _efetch_xml_error(raw: bytes, head: bytes) -> str | None:
    root_name = _root_tag(head)
    if root_name not in ("ERROR", "eFetchResult"):
        return None
    try:
        root = markup.parse_xml(raw)
    except (etree.XMLSyntaxError, markup.XMLRefused):
        m = re.search(rb"<ERROR>(.*?)</ERROR>", raw, re.S)
        return m.group(1).decode("utf-8", errors="replace").strip() if m else "malformed eFetchResult"
    if markup.localname(root) == "ERROR":
        return markup.text_of(root) or "NCBI returned an empty ERROR"
    errors = [markup.text_of(e) for e in root.iter("ERROR") if markup.text_of(e)]
    return "; ".join(errors) or None


def _safe_json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        return None


def count_records(text: str, db: str, rettype: str | None, retmode: str) -> int | None:
    """Records in an EFetch answer, for the formats whose records can be told apart; else None."""
    if retmode == "xml":
        if db == "pubmed":
            return len(re.findall(r"<Pubmed(?:Book)?Article>", text))
        if db == "pmc":
            return len(re.findall(r"<article[\s>]", text))
        return None
    if rettype in ("fasta", "fasta_cds_na", "fasta_cds_aa"):
        return text.count("\n>") + (1 if text.startswith(">") else 0)
    if rettype == "medline":
        return len(re.findall(r"(?m)^PMID- ", text))
    if db == "pubmed" and rettype == "abstract":
        return len(re.findall(r"(?:\A|\n\n)\d+\. ", text.strip())) or (1 if text.strip() else 0)
    return None
