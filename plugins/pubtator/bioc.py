"""Reading PubTator3's BioC JSON: documents, their annotations grouped into entities, relations.

Shapes accepted: ``{"PubTator3": [doc, ...]}`` (what the export endpoint sends), a BioC collection
``{"documents": [...]}``, a bare list of documents and one bare document. Within one document
``normalized_id`` comes as an int (NCBI Gene, Taxonomy), a string (MeSH, rsid) or ``null`` with
``valid: false`` (a mention PubTator could not normalise): every id is read as a string or
``None``, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from medlit.core.plugin import rendering

from .entities import BIOC_RELATIONS, TYPE_ORDER
from .models import AnnotatedDocument, Entity, Mention, Relation, RelationEnd

MAX_RELATIONS = 200  # per document: a full text can carry hundreds
_PMCID = re.compile(r"^(?:PMC)?(\d{1,10})$", re.IGNORECASE)
_PMID = re.compile(r"^0*(\d{1,10})$")
_SPACE = re.compile(r"\s+")


def documents(data: Any) -> list[Mapping[str, Any]]:
    """The documents of an answer; ``ValueError`` for anything that is not one (the client retries)."""
    if isinstance(data, dict):
        if "PubTator3" in data:
            items = data["PubTator3"] if data["PubTator3"] is not None else []
        elif "documents" in data:
            items = data["documents"] if data["documents"] is not None else []
        elif "passages" in data:
            items = [data]
        else:
            raise ValueError("not a PubTator3 export: no `PubTator3` document list")
    elif isinstance(data, list):
        items = data
    else:
        raise ValueError(f"not a PubTator3 export: a JSON {type(data).__name__}")
    if not isinstance(items, list) or not all(isinstance(d, dict) for d in items):
        raise ValueError("not a PubTator3 export: a document that is not an object")
    return items


def _id_text(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        text = value.strip()
        return text if text and text.lower() not in ("none", "null") else None
    return None


def _pmid(value: Any) -> str | None:
    text = _id_text(value)
    m = _PMID.match(text) if text else None
    return (m.group(1).lstrip("0") or None) if m else None


def _pmcid(value: Any) -> str | None:
    text = _id_text(value)
    m = _PMCID.match(text) if text else None
    return f"PMC{m.group(1)}" if m else None


def document_ids(doc: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The document's PMID and PMCID from its fields, ``_id`` (``"pmid|pmcid"``), ``id`` and the
    title passage's ``article-id_*`` infons; either may be ``None``."""
    head, _, tail = str(doc.get("_id") or "").partition("|")
    pmid = _pmid(doc.get("pmid")) or _pmid(head)
    pmcid = _pmcid(doc.get("pmcid")) or _pmcid(tail)
    raw_id = _id_text(doc.get("id"))
    if raw_id:
        if raw_id.upper().startswith("PMC"):
            pmcid = pmcid or _pmcid(raw_id)
        else:
            pmid = pmid or _pmid(raw_id)
    for passage in doc.get("passages") or []:
        infons = passage.get("infons") if isinstance(passage, dict) else None
        if isinstance(infons, dict):
            pmid = pmid or _pmid(infons.get("article-id_pmid"))
            pmcid = pmcid or _pmcid(infons.get("article-id_pmc"))
    return pmid, pmcid


def _text(value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    text = _SPACE.sub(" ", rendering.strip_invisible(value)).strip()
    return text[:limit] or None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _passage_type(infons: Mapping[str, Any]) -> str:
    """``title``/``abstract`` for PubMed passages; a full text's section (``INTRO``, ``METHODS``)."""
    section = _text(infons.get("section_type"), 40)
    kind = _text(infons.get("type"), 40)
    if section and kind and section.lower() != kind.lower() and kind.lower() not in ("paragraph", "front"):
        return f"{section}/{kind}"
    return section or kind or "passage"


def _entity_key(infons: Mapping[str, Any], text: str) -> tuple[str, str]:
    kind = str(infons.get("type") or "Unknown")
    accession = _id_text(infons.get("accession"))
    if accession:
        return kind, accession
    normalized = _id_text(infons.get("normalized_id"))
    if normalized and infons.get("valid") is not False:
        return kind, f"id:{normalized}"
    identifier = _id_text(infons.get("identifier"))
    if identifier and infons.get("valid") is not False:
        return kind, f"identifier:{identifier}"
    return kind, f"text:{text.lower()}"


def _normalized(value: Any) -> str | None:
    """A normalised id as a string; variants' ``rs113488022##`` (LitVar's ``rsid#gene#...`` key)
    reads as its first part."""
    text = _id_text(value)
    if text and "#" in text:
        text = next((p for p in text.split("#") if p), None)
    return text


def _year(doc: Mapping[str, Any], title_infons: Mapping[str, Any]) -> int | None:
    year = _int(title_infons.get("year"))
    if year is None and isinstance(doc.get("date"), str):
        year = _int(doc["date"][:4])
    return year if year is not None and 1000 <= year <= 2200 else None


def _infons(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    infons = obj.get("infons")
    return infons if isinstance(infons, dict) else {}


def _end(role: Any) -> RelationEnd:
    if not isinstance(role, dict):
        return RelationEnd(id=_id_text(role))
    return RelationEnd(
        id=_id_text(role.get("accession")) or _id_text(role.get("identifier")),
        name=_text(role.get("name"), 300),
        type=_text(role.get("type"), 40),
    )


def _display_verbs(doc: Mapping[str, Any]) -> dict[frozenset[str], str]:
    """``relations_display`` names (``"cause|@CHEMICAL_x|@DISEASE_y"``) by their pair of ids."""
    out: dict[frozenset[str], str] = {}
    for item in doc.get("relations_display") or []:
        name = item.get("name") if isinstance(item, dict) else item
        if isinstance(name, str) and name.count("|") == 2:
            verb, a, b = name.split("|")
            out.setdefault(frozenset((a, b)), verb)
    return out


def read_relations(doc: Mapping[str, Any]) -> list[Relation]:
    verbs = _display_verbs(doc)
    out: list[Relation] = []
    raw = list(doc.get("relations") or [])
    for passage in doc.get("passages") or []:
        if isinstance(passage, dict):
            raw += list(passage.get("relations") or [])
    for rel in raw:
        if not isinstance(rel, dict):
            continue
        infons = _infons(rel)
        first, second = _end(infons.get("role1")), _end(infons.get("role2"))
        kind = _text(infons.get("type"), 60)
        pair = frozenset(i for i in (first.id, second.id) if i)
        verb = verbs.get(pair) or BIOC_RELATIONS.get((kind or "").lower()) or (kind or "related").lower()
        out.append(
            Relation(type=verb, kind=kind, entity1=first, entity2=second, score=_float(infons.get("score")))
        )
    return out


def read_document(doc: Mapping[str, Any], mentions_per_entity: int) -> AnnotatedDocument:
    """One document's entities (grouped by type and normalised id, counted, mentions in order) and
    relations."""
    pmid, pmcid = document_ids(doc)
    passages = [p for p in doc.get("passages") or [] if isinstance(p, dict)]
    title_infons: Mapping[str, Any] = {}
    title = None
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    mention_total = 0
    full_text = False
    for passage in passages:
        infons = _infons(passage)
        ptype = _passage_type(infons)
        if ptype.lower() not in ("title", "abstract"):
            full_text = True
        if title is None and str(infons.get("type", "")).lower().startswith("title"):
            title, title_infons = _text(passage.get("text"), 2000), infons
        for ann in passage.get("annotations") or []:
            if not isinstance(ann, dict):
                continue
            ainf = _infons(ann)
            text = _text(ann.get("text"), 300) or ""
            key = _entity_key(ainf, text)
            group = groups.get(key)
            if group is None:
                group = groups[key] = {"infons": ainf, "mentions": [], "count": 0, "text": text}
            group["count"] += 1
            mention_total += 1
            if len(group["mentions"]) < mentions_per_entity:
                locs = ann.get("locations") if isinstance(ann.get("locations"), list) else []
                loc = locs[0] if locs and isinstance(locs[0], dict) else {}
                group["mentions"].append(
                    Mention(
                        text=text,
                        passage=ptype,
                        offset=_int(loc.get("offset")) or 0,
                        length=_int(loc.get("length")),
                    )
                )
    entities = []
    for (kind, _), group in groups.items():
        inf = group["infons"]
        valid = inf.get("valid") is not False
        normalized = _normalized(inf.get("normalized_id")) if valid else None
        name = _text(inf.get("name"), 300) or group["text"] or None
        entities.append(
            Entity(
                type=kind,
                id=_id_text(inf.get("accession")) if valid else None,
                name=name,
                normalizedId=normalized,
                database=_text(inf.get("database"), 60),
                identifier=_text(inf.get("identifier"), 300),
                valid=valid,
                hgvs=_text(inf.get("hgvs"), 200),
                rsid=_text(inf.get("rsid"), 40),
                mentionCount=group["count"],
                mentions=group["mentions"],
            )
        )
    rank = {t: i for i, t in enumerate(TYPE_ORDER)}
    entities.sort(key=lambda e: (rank.get(e.type, len(rank)), e.type, -e.mentionCount, e.name or ""))
    counts: dict[str, int] = {}
    for e in entities:
        counts[e.type] = counts.get(e.type, 0) + 1
    relations = read_relations(doc)
    return AnnotatedDocument(
        pmid=pmid,
        pmcid=pmcid,
        title=title,
        journal=_text(doc.get("journal"), 300),
        year=_year(doc, title_infons),
        fullText=full_text,
        passageCount=len(passages),
        entityCount=len(entities),
        mentionCount=mention_total,
        countsByType=counts,
        entities=entities,
        relationCount=len(relations),
        relations=relations[:MAX_RELATIONS],
        relationsOmitted=(len(relations) - MAX_RELATIONS) if len(relations) > MAX_RELATIONS else None,
    )
