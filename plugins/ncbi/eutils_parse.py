"""Pure parsers for E-utilities and PMC ID Converter answers (no I/O).

NCBI reports many failures inside HTTP 200 bodies: ``<ERROR>`` elements, per-id DocSum errors,
``status: "error"`` JSON. Whole-call failures raise :class:`MedlitError`; per-id failures are
returned as data so a tool can explain them next to the records that did come back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

from lxml import etree

from medlit.core.errors import (
    BAD_REQUEST,
    INVALID_RESPONSE,
    RESOURCE_NOT_FOUND,
    UPSTREAM_ERROR,
    MedlitError,
    invalid_argument,
    upstream_error,
)
from medlit.core.xml import XMLRefused, localname, parse_xml, text_of

from .eutils_models import (
    CitMatch,
    DocSum,
    DocSumError,
    EGQueryItem,
    EGQueryResult,
    ELinkResult,
    EPostResult,
    ESearchErrors,
    ESearchResult,
    ESearchWarnings,
    ESpellResult,
    ESummaryResult,
    IdCheck,
    IdConvRecord,
    IdConvResult,
    IdConvVersion,
    IdUrlSet,
    Link,
    LinkInfo,
    LinkSet,
    LinkSetDb,
    LinkSetDbHistory,
    MeshDocSum,
    ObjUrl,
    PubMedDocSum,
    SpellSegment,
    Translation,
    TranslationTerm,
)

__all__ = [
    "CITATION_FORMAT",
    "build_ecitmatch_bdata",
    "is_json",
    "parse_citation_string",
    "parse_ecitmatch",
    "parse_efetch_error",
    "parse_egquery",
    "parse_elink",
    "parse_epost",
    "parse_esearch",
    "parse_espell",
    "parse_esummary",
    "parse_idconv",
    "parse_mesh_docsum",
    "parse_mesh_esummary",
    "pubmed_docsum",
]

SERVICE = "ncbi"
CITATION_FORMAT = "journal|year|volume|first_page|author|key|"
_CITATION_FIELDS = ("journal", "year", "volume", "first_page", "author", "key")

# Messages that mean "this db / id does not exist" rather than a fault worth retrying.
_NOT_FOUND_RE = re.compile(
    r"invalid db|invalid uid|invalid id|invalid value|not found|cannot get document summary"
    r"|can ?not retrieve|no such",
    re.IGNORECASE,
)
# Root-level ESummary ERROR texts that concern one id, not the whole call.
_PER_ID_RE = re.compile(r"invalid uid|uid=\s*\d+|cannot get document summary", re.IGNORECASE)
_UID_IN_MSG_RE = re.compile(r"(?:uid\s*=\s*|invalid uid\s+)(\S+?)(?:[:\s]|$)", re.IGNORECASE)


# ----------------------------------------------------------------------------- shared helpers


def _fail(message: str, **details: Any) -> MedlitError:
    return upstream_error(SERVICE, INVALID_RESPONSE, message, **details)


def _ncbi_error(messages: Iterable[str]) -> MedlitError:
    """Turn NCBI's in-body ERROR texts into one error; 'not found' kinds are not retryable."""
    msgs = [m for m in messages if m]
    text = "; ".join(msgs) or "NCBI reported an error"
    kind = RESOURCE_NOT_FOUND if any(_NOT_FOUND_RE.search(m) for m in msgs) else UPSTREAM_ERROR
    return upstream_error(SERVICE, kind, f"NCBI reported: {text}", ncbi_errors=msgs)


def _xml_root(data: bytes | str, expected: tuple[str, ...]) -> etree._Element:
    """Parse and check the root tag; a root ``<ERROR>`` raises the NCBI error it carries."""
    try:
        root = parse_xml(data)
    except (etree.XMLSyntaxError, XMLRefused) as exc:
        raise _fail(f"NCBI sent malformed XML ({exc})") from exc
    name = localname(root)
    if name == "ERROR":
        raise _ncbi_error([text_of(root)])
    if name not in expected:
        raise _fail(f"NCBI sent <{name}> where <{expected[0]}> was expected")
    return root


def _load_json(data: bytes | str) -> Any:
    """JSON with NCBI's quirks tolerated: BOM, leading blank lines, a leading ``//`` comment line."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    text = text.lstrip("\ufeff \t\r\n")
    while text.startswith("//"):
        text = text.split("\n", 1)[1].lstrip() if "\n" in text else ""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(f"NCBI sent malformed JSON ({exc.msg} at position {exc.pos})") from exc


def _child(el: etree._Element, name: str) -> etree._Element | None:
    for c in el:
        if localname(c) == name:
            return c
    return None


def _children(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el if localname(c) == name]


def _grandchildren(el: etree._Element, container: str, name: str) -> list[etree._Element]:
    box = _child(el, container)
    return [] if box is None else _children(box, name)


def _text(el: etree._Element | None, name: str) -> str | None:
    """Stripped text of the first ``name`` child, None when absent."""
    if el is None:
        return None
    c = _child(el, name)
    return None if c is None else text_of(c)


def _texts(el: etree._Element | None, name: str) -> list[str]:
    return [] if el is None else [text_of(c) for c in _children(el, name)]


def _error_texts(el: etree._Element) -> list[str]:
    """Non-empty ERROR children (ESpell sends an empty ``<ERROR/>`` on success)."""
    return [t for t in _texts(el, "ERROR") if t]


def _to_int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _yn(value: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    v = str(value).strip().lower()
    if v in ("y", "yes", "true", "1"):
        return True
    if v in ("n", "no", "false", "0"):
        return False
    return None


def _str_or_none(value: Any) -> str | None:
    if value is None:
        return None
    s = str(value).strip()
    return s or None


def _list(value: Any) -> list[Any]:
    """A JSON array member; null or a value of another type reads as empty (never iterate a str)."""
    return value if isinstance(value, list) else []


def _obj(value: Any) -> dict[str, Any]:
    """A JSON object member; null or a value of another type reads as empty."""
    return value if isinstance(value, dict) else {}


def _json_error(obj: Any) -> str | None:
    """An ``ERROR``/``error`` string member of a JSON object, if any."""
    if not isinstance(obj, dict):
        return None
    for key in ("ERROR", "error"):
        val = obj.get(key)
        if isinstance(val, str) and val.strip():
            return val.strip()
        if isinstance(val, list) and val:
            return "; ".join(str(v) for v in val)
    return None


def is_json(data: bytes | str) -> bool:
    """Whether an NCBI body is JSON (NCBI may answer a JSON request with XML or HTML)."""
    head = (
        data[:200].lstrip()
        if isinstance(data, str)
        else data[:200].lstrip(b"\xef\xbb\xbf \t\r\n").decode("latin-1")
    )
    return head.startswith(("{", "[", "//"))


# ----------------------------------------------------------------------------- ESearch


def parse_esearch(data: bytes | str, *, json_mode: bool) -> ESearchResult:
    """ESearch XML or JSON; an ERROR in the body raises, an empty hit list does not."""
    return _esearch_json(data) if json_mode else _esearch_xml(data)


def _esearch_xml(data: bytes | str) -> ESearchResult:
    root = _xml_root(data, ("eSearchResult",))
    errors = _error_texts(root)
    if errors:
        raise _ncbi_error(errors)
    count = _to_int(_text(root, "Count"))
    if count is None:
        raise _fail("ESearch answer has no <Count>")
    return ESearchResult(
        count=count,
        retmax=_to_int(_text(root, "RetMax")),
        retstart=_to_int(_text(root, "RetStart")),
        ids=[t for t in _texts(_child(root, "IdList"), "Id") if t],
        query_key=_text(root, "QueryKey") or None,
        web_env=_text(root, "WebEnv") or None,
        query_translation=_text(root, "QueryTranslation"),
        translation_set=[
            Translation(from_=_text(t, "From") or "", to=_text(t, "To") or "")
            for t in _grandchildren(root, "TranslationSet", "Translation")
        ],
        translation_stack=_stack_xml(_child(root, "TranslationStack")),
        errors=ESearchErrors(
            phrases_not_found=_texts(_child(root, "ErrorList"), "PhraseNotFound"),
            fields_not_found=_texts(_child(root, "ErrorList"), "FieldNotFound"),
        ),
        warnings=ESearchWarnings(
            quoted_phrases_not_found=_texts(_child(root, "WarningList"), "QuotedPhraseNotFound"),
            phrases_ignored=_texts(_child(root, "WarningList"), "PhraseIgnored"),
            output_messages=_texts(_child(root, "WarningList"), "OutputMessage"),
        ),
    )


def _stack_xml(stack: etree._Element | None) -> list[TranslationTerm | str]:
    out: list[TranslationTerm | str] = []
    for el in stack if stack is not None else ():
        name = localname(el)
        if name == "OP":
            out.append(text_of(el))
        elif name == "TermSet":
            out.append(
                TranslationTerm(
                    term=_text(el, "Term") or "",
                    field=_text(el, "Field") or "",
                    count=_to_int(_text(el, "Count")),
                    explode=_yn(_text(el, "Explode")),
                )
            )
    return out


def _esearch_json(data: bytes | str) -> ESearchResult:
    doc = _load_json(data)
    err = _json_error(doc)
    if err:
        raise _ncbi_error([err])
    res = doc.get("esearchresult") if isinstance(doc, dict) else None
    if not isinstance(res, dict):
        raise _fail("ESearch JSON has no 'esearchresult' object")
    err = _json_error(res)
    if err:
        raise _ncbi_error([err])
    count = _to_int(res.get("count"))
    if count is None:
        raise _fail("ESearch JSON has no 'count'")
    # Members of the wrong JSON type (a number for a list, a list for a string) read as absent.
    errlist = _obj(res.get("errorlist"))
    warnlist = _obj(res.get("warninglist"))
    translation = res.get("querytranslation")
    return ESearchResult(
        count=count,
        retmax=_to_int(res.get("retmax")),
        retstart=_to_int(res.get("retstart")),
        ids=_str_list(res.get("idlist")),
        query_key=_str_or_none(res.get("querykey")),
        web_env=_str_or_none(res.get("webenv")),
        query_translation=translation if isinstance(translation, str) else None,
        translation_set=[
            Translation(from_=str(t.get("from", "")), to=str(t.get("to", "")))
            for t in _dicts(res.get("translationset"))
        ],
        translation_stack=[_stack_item_json(x) for x in _list(res.get("translationstack")) if x is not None],
        errors=ESearchErrors(
            phrases_not_found=_str_list(errlist.get("phrasesnotfound")),
            fields_not_found=_str_list(errlist.get("fieldsnotfound")),
        ),
        warnings=ESearchWarnings(
            quoted_phrases_not_found=_str_list(warnlist.get("quotedphrasesnotfound")),
            phrases_ignored=_str_list(warnlist.get("phrasesignored")),
            output_messages=_str_list(warnlist.get("outputmessages")),
        ),
    )


def _stack_item_json(item: Any) -> TranslationTerm | str:
    # JSON mixes TermSet objects with bare operator strings ("OR", "GROUP").
    if isinstance(item, dict):
        return TranslationTerm(
            term=str(item.get("term", "")),
            field=str(item.get("field", "")),
            count=_to_int(item.get("count")),
            explode=_yn(item.get("explode")),
        )
    return str(item)


# ----------------------------------------------------------------------------- EPost


def parse_epost(data: bytes | str) -> EPostResult:
    """EPost XML; ERRORs raise unless a usable handle came back with them (partial upload)."""
    root = _xml_root(data, ("ePostResult",))
    errors = _error_texts(root)
    query_key, web_env = _text(root, "QueryKey"), _text(root, "WebEnv")
    if not (query_key and web_env):
        raise _ncbi_error(errors) if errors else _fail("EPost answer has no QueryKey/WebEnv")
    return EPostResult(query_key=query_key, web_env=web_env, warnings=errors)


# ----------------------------------------------------------------------------- ESummary


def parse_esummary(data: bytes | str, *, json_mode: bool) -> ESummaryResult:
    """ESummary v1 XML, v2.0 XML (DocumentSummarySet) or JSON, with per-id errors kept apart."""
    return _esummary_json(data) if json_mode else _esummary_xml(data)


def _esummary_xml(data: bytes | str) -> ESummaryResult:
    root = _xml_root(data, ("eSummaryResult",))
    docs: list[DocSum] = []
    errors = _root_docsum_errors(_error_texts(root))
    db_build = None
    for el in root:
        name = localname(el)
        if name == "DocSum":
            docs.append(_docsum_v1(el))
        elif name == "DocumentSummarySet":
            db_build = _text(el, "DbBuild") or db_build
            errors += _root_docsum_errors(_error_texts(el))
            for ds in _children(el, "DocumentSummary"):
                _docsum_v2(ds, docs, errors)
    return ESummaryResult(docs=docs, errors=errors, db_build=db_build)


def _root_docsum_errors(messages: list[str]) -> list[DocSumError]:
    """Root ERRORs about single ids become per-id errors; anything else fails the call."""
    whole = [m for m in messages if not _PER_ID_RE.search(m)]
    if whole:
        raise _ncbi_error(whole)
    return [DocSumError(uid=_uid_in_message(m), message=m) for m in messages]


def _uid_in_message(message: str) -> str | None:
    m = _UID_IN_MSG_RE.search(message)
    return m.group(1) if m else None


def _docsum_v1(el: etree._Element) -> DocSum:
    fields = _group((item.get("Name") or "", _v1_value(item)) for item in _children(el, "Item"))
    return DocSum(uid=_text(el, "Id") or "", fields=fields)


# v1 Lists whose Item names are keys (idtype, history status), even when only one is present.
_V1_KEYED_LISTS = {"ArticleIds", "History"}


def _v1_value(item: etree._Element) -> Any:
    kind = item.get("Type") or "String"
    kids = _children(item, "Item")
    if kind in ("List", "Structure") or kids:
        names = {k.get("Name") for k in kids}
        if kind == "List" and len(names) <= 1 and item.get("Name") not in _V1_KEYED_LISTS:
            return [_v1_value(k) for k in kids]
        return _group((k.get("Name") or "", _v1_value(k)) for k in kids)
    text = (item.text or "").strip()
    if kind == "Integer":
        return _to_int(text) if text else None
    return text


def _group(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Dict from (name, value) pairs; a repeated name keeps all its values as a list."""
    grouped: dict[str, list[Any]] = {}
    for key, value in pairs:
        grouped.setdefault(key, []).append(value)
    return {k: vs[0] if len(vs) == 1 else vs for k, vs in grouped.items()}


def _docsum_v2(el: etree._Element, docs: list[DocSum], errors: list[DocSumError]) -> None:
    uid = el.get("uid") or _text(el, "Id") or ""
    err = _text(el, "error")
    if err:
        errors.append(DocSumError(uid=uid or _uid_in_message(err), message=err))
        return
    fields = _group((localname(c), _v2_value(c)) for c in el if isinstance(c.tag, str))
    docs.append(DocSum(uid=uid, fields=fields))


def _v2_value(el: etree._Element) -> Any:
    kids = [c for c in el if isinstance(c.tag, str)]
    attrs = dict(el.attrib)
    if not kids:
        text = (el.text or "").strip()
        return {**attrs, "value": text} if attrs else text
    tags = {localname(c) for c in kids}
    if len(tags) == 1 and (len(kids) > 1 or _is_list_container(el, kids[0])):
        return [_v2_value(c) for c in kids]
    return {**attrs, **_group((localname(c), _v2_value(c)) for c in kids)}


def _is_list_container(parent: etree._Element, child: etree._Element) -> bool:
    # v2 DocSums wrap repeated values: <Lang><string/>, <Authors><Author/>, <History><PubMedPubDate/>.
    ptag, ctag = localname(parent), localname(child)
    return ctag[:1].islower() or ptag.endswith(("s", "List", "Set")) or ptag == "History"


def _esummary_json(data: bytes | str) -> ESummaryResult:
    doc = _load_json(data)
    if not isinstance(doc, dict):
        raise _fail("ESummary JSON is not an object")
    err = _json_error(doc)
    if err:
        raise _ncbi_error([err])
    errors: list[DocSumError] = []
    legacy = doc.get("esummaryresult")  # ["Invalid uid ..."] instead of a result object
    if isinstance(legacy, list):
        errors += _root_docsum_errors([str(m) for m in legacy if m])
    result = doc.get("result")
    if result is None:
        if errors:
            return ESummaryResult(errors=errors)
        raise _fail("ESummary JSON has no 'result' object")
    if not isinstance(result, dict):
        raise _fail("ESummary JSON 'result' is not an object")
    err = _json_error(result)
    if err:
        errors += _root_docsum_errors([err])
    docs: list[DocSum] = []
    for uid in _str_list(result.get("uids")):
        obj = result.get(uid)
        msg = _json_error(obj) if isinstance(obj, dict) else "missing from the answer"
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
        title=_s(f.get("title")) or "",
        authors=_author_names(f),
        last_author=_s(f.get("lastauthor")),
        journal=_s(f.get("fulljournalname")) or _s(f.get("source")),
        source=_s(f.get("source")),
        pub_date=_s(f.get("pubdate")),
        epub_date=_s(f.get("epubdate")),
        volume=_s(f.get("volume")),
        issue=_s(f.get("issue")),
        pages=_s(f.get("pages")),
        doi=ids.get("doi") or _doi_from_elocation(f.get("elocationid")),
        pmcid=_pmcid_from(ids.get("pmc") or ids.get("pmcid")),
        pub_types=_str_list(f.get("pubtypelist", f.get("pubtype"))),
        lang=_str_list(f.get("langlist", f.get("lang"))),
        has_abstract=_has_abstract(f),
    )


def _nonzero(value: str | None) -> str | None:
    return value if value and value.strip("0") else None


def _s(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("value")
    return _str_or_none(value) if isinstance(value, str | int) else None


def _str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [s for v in value if (s := _s(v))]
    return []


def _author_names(f: dict[str, Any]) -> list[str]:
    if "authorlist" in f:  # v1: a List of Author strings
        return _str_list(f["authorlist"])
    names = []
    for a in _list(f.get("authors")):  # not a list (an attribute-only <Authors/>, a JSON slip): none
        if isinstance(a, str):
            names.append(a.strip())
            continue
        if not isinstance(a, dict):
            continue
        low = {k.lower(): v for k, v in a.items()}
        kind = (_s(low.get("authtype")) or "Author").lower()
        name = _s(low.get("name"))
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
                kind, val = _s(low.get("idtype")), _s(low.get("value"))
                if kind and val:
                    out.setdefault(kind.lower(), val)
    return out


def _doi_from_elocation(value: Any) -> str | None:
    m = re.search(r"doi:\s*(10\.\S+)", _s(value) or "", re.IGNORECASE)
    return m.group(1).rstrip(".;,") if m else None


def _pmcid_from(value: str | None) -> str | None:
    # v2 sends the pmcid idtype as "pmc-id: PMC1762328;", the pmc idtype as "PMC1762328".
    m = re.search(r"PMC\d+", value or "", re.IGNORECASE)
    return m.group(0).upper() if m else None


def _has_abstract(f: dict[str, Any]) -> bool | None:
    if "hasabstract" in f:
        v = f["hasabstract"]
        return None if v in (None, "") else bool(_to_int(v))
    if "attributes" in f:
        return any(a.lower() == "has abstract" for a in _str_list(f["attributes"]))
    return None


# ----------------------------------------------------------------------------- MeSH


_MESH_UID_PREFIX = {"68": "D", "67": "C", "81": "Q"}
_MESH_KIND = {"D": "descriptor", "C": "supplementary", "Q": "qualifier"}
_TREE_NUMBER_RE = re.compile(r"^[A-Z]\d{2}(\.\d{3})*$")


def parse_mesh_esummary(data: bytes | str, *, json_mode: bool) -> list[MeshDocSum]:
    """Convenience: every MeSH record of an esummary db=mesh answer."""
    return [parse_mesh_docsum(d) for d in parse_esummary(data, json_mode=json_mode).docs]


def parse_mesh_docsum(doc: DocSum) -> MeshDocSum:
    """A MeSH DocSum (v2 XML ``DS_*`` tags or JSON ``ds_*`` keys) as a typed record."""
    f = {k.lower(): v for k, v in doc.fields.items()}
    terms = _str_list(f.get("ds_meshterms"))
    ui = _s(f.get("ds_meshui")) or _mesh_ui_from_uid(doc.uid)
    return MeshDocSum(
        uid=doc.uid,
        ui=ui,
        name=_s(f.get("ds_meshheading")) or (terms[0] if terms else ""),
        entry_terms=terms[1:],
        scope_note=_s(f.get("ds_scopenote")),
        tree_numbers=_tree_numbers(f.get("ds_idxlinks")),
        previous_indexing=_str_list(f.get("ds_previousindexing")),
        mapped_to=_str_list(f.get("ds_headingmappedtolist")) or _str_list(f.get("ds_headingmappedto")),
        record_type=_mesh_record_type(_s(f.get("ds_recordtype")), ui),
    )


def _mesh_ui_from_uid(uid: str) -> str | None:
    # Entrez MeSH uids encode the UI: ord(letter) + digits (68009203 -> D009203).
    prefix = _MESH_UID_PREFIX.get(uid[:2])
    return prefix + uid[2:] if prefix and len(uid) > 2 else None


def _mesh_record_type(declared: str | None, ui: str | None) -> Any:
    if declared:
        low = declared.lower()
        for kind in ("descriptor", "supplementary", "qualifier"):
            if low.startswith(kind[:4]):
                return kind
    return _MESH_KIND.get((ui or "")[:1])


def _tree_numbers(links: Any) -> list[str]:
    out = []
    for link in links if isinstance(links, list) else [links]:
        if isinstance(link, dict):
            low = {k.lower(): v for k, v in link.items()}
            tn = _s(low.get("treenum"))
            # Supplementary records carry placeholders like "@3065", which are not tree numbers.
            if tn and _TREE_NUMBER_RE.match(tn) and tn not in out:
                out.append(tn)
    return out


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
        raise _ncbi_error([*root_errors, *set_errors])
    return ELinkResult(link_sets=sets, errors=root_errors)


def _elink_xml(data: bytes | str) -> ELinkResult:
    root = _xml_root(data, ("eLinkResult",))
    sets = [_linkset_xml(ls) for ls in _children(root, "LinkSet")]
    return _elink_checked(_error_texts(root), sets)


def _linkset_xml(ls: etree._Element) -> LinkSet:
    web_env = _text(ls, "WebEnv") or None
    return LinkSet(
        error="; ".join(_error_texts(ls)) or None,
        dbfrom=_text(ls, "DbFrom") or "",
        ids=[t for t in _texts(_child(ls, "IdList"), "Id") if t],
        link_dbs=[_linksetdb_xml(db) for db in _children(ls, "LinkSetDb")],
        histories=[_history_xml(h, web_env) for h in _children(ls, "LinkSetDbHistory")],
        web_env=web_env,
        id_url_list=[_idurlset_xml(s) for s in _grandchildren(ls, "IdUrlList", "IdUrlSet")],
        id_check_list=_idchecks_xml(_child(ls, "IdCheckList")),
    )


def _linksetdb_xml(db: etree._Element) -> LinkSetDb:
    return LinkSetDb(
        dbto=_text(db, "DbTo") or "",
        linkname=_text(db, "LinkName") or "",
        links=[
            Link(id=_text(k, "Id") or "", score=_to_int(_text(k, "Score"))) for k in _children(db, "Link")
        ],
        info=_text(db, "Info") or None,
        error=_text(db, "ERROR") or None,
    )


def _history_xml(h: etree._Element, web_env: str | None) -> LinkSetDbHistory:
    return LinkSetDbHistory(
        dbto=_text(h, "DbTo") or "",
        linkname=_text(h, "LinkName") or "",
        query_key=_text(h, "QueryKey") or None,
        web_env=web_env,
        info=_text(h, "Info") or None,
        error=_text(h, "ERROR") or None,
    )


def _idurlset_xml(s: etree._Element) -> IdUrlSet:
    return IdUrlSet(
        id=_text(s, "Id") or "",
        obj_urls=[_objurl_xml(o) for o in _children(s, "ObjUrl")],
        info=_text(s, "Info") or None,
    )


def _objurl_xml(o: etree._Element) -> ObjUrl:
    prov = _child(o, "Provider")
    return ObjUrl(
        url=_text(o, "Url") or "",
        icon_url=_text(o, "IconUrl") or None,
        link_name=_text(o, "LinkName") or None,
        provider_name=_text(prov, "Name") or None,
        provider_abbr=_text(prov, "NameAbbr") or None,
        provider_id=_text(prov, "Id") or None,
        provider_url=_text(prov, "Url") or None,
        categories=_texts(o, "Category"),
        attributes=_texts(o, "Attribute"),
        subject_types=_texts(o, "SubjectType"),
    )


def _idchecks_xml(lst: etree._Element | None) -> list[IdCheck]:
    out: list[IdCheck] = []
    for el in lst if lst is not None else ():
        name = localname(el)
        if name == "Id":  # ncheck / lcheck: flags as attributes
            out.append(
                IdCheck(
                    id=text_of(el),
                    has_neighbor=_yn(el.get("HasNeighbor")),
                    has_linkout=_yn(el.get("HasLinkOut")),
                )
            )
        elif name == "IdLinkSet":  # acheck
            id_el = _child(el, "Id")
            out.append(
                IdCheck(
                    id=text_of(id_el),
                    link_infos=[_linkinfo_xml(i) for i in _children(el, "LinkInfo")],
                    has_neighbor=_yn(id_el.get("HasNeighbor")) if id_el is not None else None,
                    has_linkout=_yn(id_el.get("HasLinkOut")) if id_el is not None else None,
                )
            )
    return out


def _linkinfo_xml(i: etree._Element) -> LinkInfo:
    has_links = _yn(i.get("HasLinks") or _text(i, "HasLinks"))
    return LinkInfo(
        dbto=_text(i, "DbTo") or "",
        linkname=_text(i, "LinkName") or "",
        has_links=True if has_links is None else has_links,
        menu_tag=_text(i, "MenuTag") or None,
        html_tag=_text(i, "HtmlTag") or None,
        url=_text(i, "Url") or None,
        priority=_to_int(_text(i, "Priority")),
    )


def _elink_json(data: bytes | str) -> ELinkResult:
    doc = _load_json(data)
    if not isinstance(doc, dict):
        raise _fail("ELink JSON is not an object")
    errors = [e for e in [_json_error(doc)] if e]
    sets = doc.get("linksets")
    if sets is None and not errors:
        raise _fail("ELink JSON has no 'linksets'")
    sets = sets if isinstance(sets, list) else []
    return _elink_checked(errors, [_linkset_json(ls) for ls in sets if isinstance(ls, dict)])


def _linkset_json(ls: dict[str, Any]) -> LinkSet:
    web_env = _str_or_none(ls.get("webenv"))
    return LinkSet(
        error=_json_error(ls),
        dbfrom=str(ls.get("dbfrom", "")),
        ids=[str(i) for i in _list(ls.get("ids"))],  # a non-list "ids" reads as none
        link_dbs=[_linksetdb_json(d) for d in _dicts(ls.get("linksetdbs"))],
        histories=[
            LinkSetDbHistory(
                dbto=str(h.get("dbto", "")),
                linkname=str(h.get("linkname", "")),
                query_key=_str_or_none(h.get("querykey")),
                web_env=web_env,
                info=_str_or_none(h.get("info")),
                error=_json_error(h),
            )
            for h in _dicts(ls.get("linksetdbhistories"))
        ],
        web_env=web_env,
        id_url_list=[_idurlset_json(s) for s in _idurl_entries(ls.get("idurllist"))],
        id_check_list=_idchecks_json(ls.get("idchecklist")),
    )


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _linksetdb_json(d: dict[str, Any]) -> LinkSetDb:
    links = []
    for k in _list(d.get("links")):
        # Plain neighbors are bare id strings; neighbor_score gives {"id", "score"} objects.
        if isinstance(k, dict):
            links.append(Link(id=str(k.get("id", "")), score=_to_int(k.get("score"))))
        else:
            links.append(Link(id=str(k)))
    return LinkSetDb(
        dbto=str(d.get("dbto", "")),
        linkname=str(d.get("linkname", "")),
        links=links,
        info=_str_or_none(d.get("info")),
        error=_json_error(d),
    )


def _idurl_entries(value: Any) -> list[dict[str, Any]]:
    # Seen both as a list of IdUrlSets and as {"idurlset": [...]} / {pmid: {...}} objects.
    if isinstance(value, list):
        return _dicts(value)
    if isinstance(value, dict):
        inner = value.get("idurlset") or value.get("idurlsets")
        if isinstance(inner, list):
            return _dicts(inner)
        return [{"id": k, **v} for k, v in value.items() if isinstance(v, dict)]
    return []


def _url_value(value: Any) -> str | None:
    if isinstance(value, dict):  # {"value": "...", "lng": "EN"} (or "$" from older converters)
        value = value.get("value", value.get("$"))
    return _str_or_none(value)


def _idurlset_json(s: dict[str, Any]) -> IdUrlSet:
    objs = []
    for o in _dicts(s.get("objurls")):
        prov = o.get("provider") if isinstance(o.get("provider"), dict) else {}
        objs.append(
            ObjUrl(
                url=_url_value(o.get("url")) or "",
                icon_url=_url_value(o.get("iconurl")),
                link_name=_str_or_none(o.get("linkname")),
                provider_name=_str_or_none(prov.get("name")),
                provider_abbr=_str_or_none(prov.get("nameabbr")),
                provider_id=_str_or_none(prov.get("id")),
                provider_url=_url_value(prov.get("url")),
                categories=_str_list(o.get("categories", o.get("category"))),
                attributes=_str_list(o.get("attributes", o.get("attribute"))),
                subject_types=_str_list(o.get("subjecttypes", o.get("subjecttype"))),
            )
        )
    return IdUrlSet(id=_url_value(s.get("id")) or "", obj_urls=objs, info=_str_or_none(s.get("info")))


def _idchecks_json(value: Any) -> list[IdCheck]:
    if not isinstance(value, dict):
        return []
    out = []
    for i in _list(value.get("ids")):
        if isinstance(i, dict):
            out.append(
                IdCheck(
                    id=str(i.get("value", i.get("id", ""))),
                    has_neighbor=_yn(i.get("hasneighbor")),
                    has_linkout=_yn(i.get("haslinkout")),
                )
            )
        else:
            out.append(IdCheck(id=str(i)))
    for s in _dicts(value.get("idlinksets")):
        infos = [
            LinkInfo(
                dbto=str(li.get("dbto", "")),
                linkname=str(li.get("linkname", "")),
                has_links=_yn(li.get("haslinks")) is not False,
                menu_tag=_str_or_none(li.get("menutag")),
                html_tag=_str_or_none(li.get("htmltag")),
                url=_url_value(li.get("url")),
                priority=_to_int(li.get("priority")),
            )
            for li in _dicts(s.get("linkinfos"))
        ]
        out.append(IdCheck(id=str(s.get("id", "")), link_infos=infos))
    return out


# ----------------------------------------------------------------------------- ESpell, EGQuery


def parse_espell(data: bytes | str) -> ESpellResult:
    """ESpell XML; an empty CorrectedQuery means no suggestion (``changed`` False)."""
    root = _xml_root(data, ("eSpellResult",))
    errors = _error_texts(root)
    if errors:
        raise _ncbi_error(errors)
    query = _text(root, "Query") or ""
    corrected = _text(root, "CorrectedQuery") or ""
    segments = []
    spelled = _child(root, "SpelledQuery")
    for el in spelled if spelled is not None else ():
        kind = localname(el).lower()
        # Segment text keeps its spaces (" AND mus "): the segments concatenate to the query.
        if kind in ("replaced", "original") and el.text:
            segments.append(SpellSegment(kind=kind, text=el.text))  # type: ignore[arg-type]
    changed = bool(corrected) and corrected.strip().lower() != query.strip().lower()
    return ESpellResult(
        database=_text(root, "Database"),
        query=query,
        corrected_query=corrected,
        spelled_query=segments,
        changed=changed,
    )


def parse_egquery(data: bytes | str) -> EGQueryResult:
    """EGQuery XML (``<Result>``): per-database counts; a non-numeric count becomes None."""
    root = _xml_root(data, ("Result", "eGQueryResult"))
    errors = _error_texts(root)
    if errors:
        raise _ncbi_error(errors)
    holder = _child(root, "eGQueryResult") if localname(root) == "Result" else root
    items = [
        EGQueryItem(
            db_name=_text(it, "DbName") or "",
            menu_name=_text(it, "MenuName") or "",
            count=_to_int(_text(it, "Count")),
            status=_text(it, "Status") or "",
        )
        for it in _children(holder if holder is not None else root, "ResultItem")
    ]
    return EGQueryResult(term=_text(root, "Term") or "", results=items)


# ----------------------------------------------------------------------------- ECitMatch


def parse_citation_string(s: str) -> dict[str, str]:
    """Validate ``journal|year|volume|first_page|author|key|`` (trailing pipe optional)."""
    raw = (s or "").strip()
    body = raw[:-1] if raw.endswith("|") else raw
    parts = [p.strip() for p in body.split("|")]
    if len(parts) > 6 and not any(parts[6:]):
        parts = parts[:6]  # extra empty fields from doubled trailing pipes
    recovery = (
        f"Format each citation as {CITATION_FORMAT} (six pipe-separated fields; leave unknown ones "
        "empty), e.g. 'proc natl acad sci u s a|1991|88|3248|mann bj|Art1|'."
    )
    if len(parts) != 6:
        raise invalid_argument(
            f"Citation {raw!r} has {len(parts)} pipe-separated fields; {CITATION_FORMAT} needs 6.",
            recovery,
            citation=raw,
        )
    if not any(parts[:5]):
        raise invalid_argument(f"Citation {raw!r} has no bibliographic fields.", recovery, citation=raw)
    return dict(zip(_CITATION_FIELDS, parts, strict=True))


def build_ecitmatch_bdata(citations: list[dict[str, Any]]) -> str:
    """The ``bdata`` value: one ``journal|year|volume|first_page|author|key|`` per citation, CR-joined."""

    def clean(value: Any) -> str:
        # A pipe or line break inside a value would shift every following field.
        return re.sub(r"[|\r\n]+", " ", str(value if value is not None else "")).strip()

    lines = ["|".join(clean(c.get(k)) for k in _CITATION_FIELDS) + "|" for c in citations]
    return "\r".join(lines)


def parse_ecitmatch(text: str, citations_sent: list[str]) -> list[CitMatch]:
    """One CitMatch per citation sent, matched to answer lines by key (falling back to order)."""
    answers = [_citmatch_line(line) for line in text.splitlines() if line.strip()]
    sent = [_lenient_citation(c) for c in citations_sent]
    sent_keys = {f["key"] for f in sent if f["key"]}
    used: set[int] = set()
    out = []
    for i, (raw, fields) in enumerate(zip(citations_sent, sent, strict=True)):
        idx = _pick_answer(answers, used, fields["key"], i, sent_keys)
        if idx is None:
            out.append(CitMatch(citation=raw, **fields, status="not_found", detail="no answer line"))
            continue
        used.add(idx)
        status, pmid, candidates, detail = answers[idx][1]
        out.append(
            CitMatch(citation=raw, **fields, status=status, pmid=pmid, candidates=candidates, detail=detail)
        )
    return out


def _lenient_citation(s: str) -> dict[str, str]:
    parts = [p.strip() for p in (s or "").strip().removesuffix("|").split("|")]
    return dict(zip(_CITATION_FIELDS, parts + [""] * 6, strict=False))


def _pick_answer(
    answers: list[tuple[str, Any]], used: set[int], key: str, position: int, sent_keys: set[str]
) -> int | None:
    if key:
        for j, (akey, _) in enumerate(answers):
            if j not in used and akey == key:
                return j
    # Order fallback, unless that line plainly belongs to another citation's key.
    if position < len(answers) and position not in used:
        akey = answers[position][0]
        if not akey or akey not in sent_keys:
            return position
    return None


def _citmatch_line(line: str) -> tuple[str, tuple[str, str | None, list[str], str | None]]:
    """(key, (status, pmid, candidates, detail)) from ``journal|year|volume|page|author|key|PMID``."""
    parts = line.rstrip("\r\n").split("|")
    key = parts[5].strip() if len(parts) > 6 else ""
    return key, _citmatch_status(parts[-1].strip() if len(parts) > 1 else line.strip())


def _citmatch_status(value: str) -> tuple[str, str | None, list[str], str | None]:
    if value.isdigit():
        return "matched", value, [], None
    upper = value.upper()
    if upper.startswith("AMBIGUOUS"):
        rest = value[len("AMBIGUOUS") :].strip()
        if "citation" in rest.lower():  # "AMBIGUOUS (14 citations)": too many to list
            return "ambiguous", None, [], rest.strip("() ")
        return "ambiguous", None, re.findall(r"\d+", rest), None
    if upper.startswith("NOT_FOUND"):
        detail = value.split(";", 1)[1].strip() if ";" in value else None
        return "not_found", None, [], detail or None
    return "not_found", None, [], value or None


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
        return _json_error(_safe_json(raw))
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
        root = parse_xml(raw)
    except (etree.XMLSyntaxError, XMLRefused):
        m = re.search(rb"<ERROR>(.*?)</ERROR>", raw, re.S)
        return m.group(1).decode("utf-8", errors="replace").strip() if m else "malformed eFetchResult"
    if localname(root) == "ERROR":
        return text_of(root) or "NCBI returned an empty ERROR"
    errors = [text_of(e) for e in root.iter("ERROR") if text_of(e)]
    return "; ".join(errors) or None


def _safe_json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        return None


# ----------------------------------------------------------------------------- ID Converter


def parse_idconv(data: bytes | str) -> IdConvResult:
    """PMC ID Converter JSON (api/v1 and the old v1.0) or XML; top-level errors raise."""
    return _idconv_json(data) if is_json(data) else _idconv_xml(data)


def _idconv_fail(message: str) -> MedlitError:
    # A top-level status=error is the converter rejecting the request (e.g. "ID type ... is unknown").
    return upstream_error(
        SERVICE,
        BAD_REQUEST,
        f"PMC ID Converter reported: {message}",
        recovery="Send PMIDs (digits), PMCIDs (PMC<digits>) or DOIs (10.x/...), one kind per call.",
        endpoint="pmc_idconv",
    )


def _idconv_json(data: bytes | str) -> IdConvResult:
    doc = _load_json(data)
    if not isinstance(doc, dict):
        raise _fail("ID Converter JSON is not an object")
    status = str(doc.get("status", "ok")).lower()
    if status == "error":
        raise _idconv_fail(unquote(str(doc.get("message") or doc.get("errmsg") or "unknown error")))
    records = [_idconv_record(r) for r in _dicts(doc.get("records"))]
    _fill_requested_ids(records, doc.get("request"))
    return IdConvResult(
        status=status,
        response_date=_str_or_none(doc.get("responseDate", doc.get("response-date"))),
        records=records,
    )


def _fill_requested_ids(records: list[IdConvRecord], request: Any) -> None:
    """The old v1.0 API does not echo ``requested-id``: recover it from the request echo."""
    if all(r.requested_id for r in records):
        return
    if isinstance(request, str):  # "email=..;ids=a%2Cb;idtype=pmid;tool=.."
        parts = dict(p.split("=", 1) for p in request.split(";") if "=" in p)
        ids, idtype = unquote(parts.get("ids", "")).split(","), parts.get("idtype")
    elif isinstance(request, dict):
        raw_ids = request.get("ids") or []
        ids = raw_ids if isinstance(raw_ids, list) else str(raw_ids).split(",")
        idtype = request.get("idtype")
    else:
        return
    ids = [str(i).strip() for i in ids if str(i).strip()]
    for i, rec in enumerate(records):
        if rec.requested_id:
            continue
        if len(ids) == len(records):  # answers come back in request order
            rec.requested_id = ids[i]
        elif idtype in ("pmid", "pmcid", "doi", "mid"):
            rec.requested_id = getattr(rec, idtype)


def _get(obj: dict[str, Any], *names: str) -> Any:
    for n in names:
        if n in obj:
            return obj[n]
    return None


def _idconv_record(r: dict[str, Any]) -> IdConvRecord:
    status = "error" if str(r.get("status", "ok")).lower() == "error" else "ok"
    live = _yn(r.get("live"))
    versions = [
        IdConvVersion(
            pmcid=str(v.get("pmcid", "")),
            current=_yn(v.get("current")) is True,
            mid=_str_or_none(v.get("mid")),
            aiid=_str_or_none(v.get("aiid")),
        )
        for v in _dicts(r.get("versions"))
    ]
    return IdConvRecord(
        requested_id=_str_or_none(_get(r, "requested-id", "requested_id", "requestedId")),
        pmcid=_norm_pmcid(r.get("pmcid")),
        pmid=_str_or_none(r.get("pmid")),
        doi=_str_or_none(r.get("doi")),
        mid=_str_or_none(r.get("mid")) or next((v.mid for v in versions if v.mid), None),
        aiid=_str_or_none(r.get("aiid")),
        status=status,
        errmsg=_str_or_none(r.get("errmsg")),
        # An error record says live=false only because nothing was found; embargo is live=false + ok.
        live=live if live is not None else True,
        release_date=_str_or_none(_get(r, "release-date", "release_date", "releaseDate")),
        versions=versions,
    )


def _norm_pmcid(value: Any) -> str | None:
    s = _str_or_none(value)
    if not s:
        return None
    m = re.fullmatch(r"(?:PMC)?(\d+)(\.\d+)?", s, re.IGNORECASE)
    return f"PMC{m.group(1)}{m.group(2) or ''}" if m else s


def _idconv_xml(data: bytes | str) -> IdConvResult:
    root = _xml_root(data, ("pmcids",))
    status = (root.get("status") or "ok").lower()
    if status == "error":
        raise _idconv_fail(unquote(root.get("message") or _text(root, "message") or text_of(root)))
    records = []
    for rec in _children(root, "record"):
        attrs: dict[str, Any] = dict(rec.attrib)
        if "errmsg" not in attrs and _text(rec, "errmsg"):
            attrs["errmsg"] = _text(rec, "errmsg")
        vers = _child(rec, "versions")
        attrs["versions"] = [dict(v.attrib) for v in _children(vers, "version")] if vers is not None else []
        records.append(_idconv_record(attrs))
    return IdConvResult(status=status, response_date=root.get("responseDate"), records=records)
