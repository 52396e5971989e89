"""Reading PubTator3's BioC JSON: documents, their annotations grouped into entities, relations.

Shapes accepted: ``{"PubTator3": [doc, ...]}`` (what the export endpoint sends), a BioC collection
``{"documents": [...]}``, a bare list of documents and one bare document. Within one document
``normalized_id`` comes as an int (NCBI Gene, Taxonomy), a string (MeSH, rsid) or ``null`` with
``valid: false`` (a mention PubTator could not normalise): every id is read as a string or
``None``, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .entities import BIOC_RELATIONS, TYPE_ORDER
from .models import AnnotatedDocument, Entity, Mention, Relation, RelationEnd
from .values import clean_text, id_text, read_float, read_int, read_pmcid, read_pmid

MAX_RELATIONS = 200  # per document: a full text can carry hundreds


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


def document_ids(doc: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The document's PMID and PMCID from its fields, ``_id`` (``"pmid|pmcid"``), ``id`` and the
    title passage's ``article-id_*`` infons; either may be ``None``."""
    head, _, tail = str(doc.get("_id") or "").partition("|")
    pmid = read_pmid(doc.get("pmid")) or read_pmid(head)
    pmcid = read_pmcid(doc.get("pmcid")) or read_pmcid(tail)
    raw_id = id_text(doc.get("id"))
    if raw_id:
        if raw_id.upper().startswith("PMC"):
            pmcid = pmcid or read_pmcid(raw_id)
        else:
            pmid = pmid or read_pmid(raw_id)
    for passage in doc.get("passages") or []:
        infons = passage.get("infons") if isinstance(passage, dict) else None
        if isinstance(infons, dict):
            pmid = pmid or read_pmid(infons.get("article-id_pmid"))
            pmcid = pmcid or read_pmcid(infons.get("article-id_pmc"))
    return pmid, pmcid


def _passage_type(infons: Mapping[str, Any]) -> str:
    """``title``/``abstract`` for PubMed passages; a full text's section (``INTRO``, ``METHODS``)."""
    section = clean_text(infons.get("section_type"), 40)
    kind = clean_text(infons.get("type"), 40)
    if section and kind and section.lower() != kind.lower() and kind.lower() not in ("paragraph", "front"):
        return f"{section}/{kind}"
    return section or kind or "passage"


def _entity_key(infons: Mapping[str, Any], text: str) -> tuple[str, str]:
    kind = str(infons.get("type") or "Unknown")
    accession = id_text(infons.get("accession"))
    if accession:
        return kind, accession
    normalized = id_text(infons.get("normalized_id"))
    if normalized and infons.get("valid") is not False:
        return kind, f"id:{normalized}"
    identifier = id_text(infons.get("identifier"))
    if identifier and infons.get("valid") is not False:
        return kind, f"identifier:{identifier}"
    return kind, f"text:{text.lower()}"


def _normalized(value: Any) -> str | None:
    """A normalised id as a string; variants' ``rs113488022##`` (LitVar's ``rsid#gene#...`` key)
    reads as its first part."""
    text = id_text(value)
    if text and "#" in text:
        text = next((p for p in text.split("#") if p), None)
    return text


def _year(doc: Mapping[str, Any], title_infons: Mapping[str, Any]) -> int | None:
    year = read_int(title_infons.get("year"))
    if year is None and isinstance(doc.get("date"), str):
        year = read_int(doc["date"][:4])
    return year if year is not None and 1000 <= year <= 2200 else None


def _infons(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    infons = obj.get("infons")
    return infons if isinstance(infons, dict) else {}


def _end(role: Any) -> RelationEnd:
    if not isinstance(role, dict):
        return RelationEnd(id=id_text(role))
    return RelationEnd(
        id=id_text(role.get("accession")) or id_text(role.get("identifier")),
        name=clean_text(role.get("name"), 300),
        type=clean_text(role.get("type"), 40),
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
        kind = clean_text(infons.get("type"), 60)
        pair = frozenset(i for i in (first.id, second.id) if i)
        verb = verbs.get(pair) or BIOC_RELATIONS.get((kind or "").lower()) or (kind or "related").lower()
        out.append(
            Relation(
                type=verb, kind=kind, entity1=first, entity2=second, score=read_float(infons.get("score"))
            )
        )
    return out


@dataclass
class _Group:
    """The annotations of one entity: the first one's infons and text, how many, the first few."""

    infons: Mapping[str, Any]
    text: str
    count: int = 0
    mentions: list[Mention] = field(default_factory=list)


@dataclass
class _Passages:
    """What a document's passages hold: its title, its entities' annotations and whether it is
    more than a title and an abstract."""

    title: str | None = None
    title_infons: Mapping[str, Any] = field(default_factory=dict)
    groups: dict[tuple[str, str], _Group] = field(default_factory=dict)
    mention_total: int = 0
    full_text: bool = False


def _mention(ann: Mapping[str, Any], text: str, ptype: str) -> Mention:
    """A mention where its first location puts it."""
    locs = ann.get("locations") if isinstance(ann.get("locations"), list) else []
    loc = locs[0] if locs and isinstance(locs[0], dict) else {}
    return Mention(
        text=text,
        passage=ptype,
        offset=read_int(loc.get("offset")) or 0,
        length=read_int(loc.get("length")),
    )


def _tally(read: _Passages, passage: Mapping[str, Any], mentions_per_entity: int) -> None:
    """One passage into the reading: its type, a title once, each annotation counted under its
    entity (the first ``mentions_per_entity`` kept as mentions)."""
    infons = _infons(passage)
    ptype = _passage_type(infons)
    if ptype.lower() not in ("title", "abstract"):
        read.full_text = True
    if read.title is None and str(infons.get("type", "")).lower().startswith("title"):
        read.title, read.title_infons = clean_text(passage.get("text"), 2000), infons
    for ann in passage.get("annotations") or []:
        if not isinstance(ann, dict):
            continue
        ainf = _infons(ann)
        text = clean_text(ann.get("text"), 300) or ""
        group = read.groups.setdefault(_entity_key(ainf, text), _Group(ainf, text))
        group.count += 1
        read.mention_total += 1
        if len(group.mentions) < mentions_per_entity:
            group.mentions.append(_mention(ann, text, ptype))


def _entity(kind: str, group: _Group) -> Entity:
    """An entity from its annotations: an invalid one (PubTator could not normalise it) keeps no
    id."""
    inf = group.infons
    valid = inf.get("valid") is not False
    return Entity(
        type=kind,
        id=id_text(inf.get("accession")) if valid else None,
        name=clean_text(inf.get("name"), 300) or group.text or None,
        normalizedId=_normalized(inf.get("normalized_id")) if valid else None,
        database=clean_text(inf.get("database"), 60),
        identifier=clean_text(inf.get("identifier"), 300),
        valid=valid,
        hgvs=clean_text(inf.get("hgvs"), 200),
        rsid=clean_text(inf.get("rsid"), 40),
        mentionCount=group.count,
        mentions=group.mentions,
    )


def read_document(doc: Mapping[str, Any], mentions_per_entity: int) -> AnnotatedDocument:
    """One document's entities (grouped by type and normalised id, counted, mentions in order) and
    relations."""
    pmid, pmcid = document_ids(doc)
    passages = [p for p in doc.get("passages") or [] if isinstance(p, dict)]
    read = _Passages()
    for passage in passages:
        _tally(read, passage, mentions_per_entity)
    entities = [_entity(kind, group) for (kind, _), group in read.groups.items()]
    rank = {t: i for i, t in enumerate(TYPE_ORDER)}
    entities.sort(key=lambda e: (rank.get(e.type, len(rank)), e.type, -e.mentionCount, e.name or ""))
    counts: dict[str, int] = {}
    for e in entities:
        counts[e.type] = counts.get(e.type, 0) + 1
    relations = read_relations(doc)
    return AnnotatedDocument(
        pmid=pmid,
        pmcid=pmcid,
        title=read.title,
        journal=clean_text(doc.get("journal"), 300),
        year=_year(doc, read.title_infons),
        fullText=read.full_text,
        passageCount=len(passages),
        entityCount=len(entities),
        mentionCount=read.mention_total,
        countsByType=counts,
        entities=entities,
        relationCount=len(relations),
        relations=relations[:MAX_RELATIONS],
        relationsOmitted=(len(relations) - MAX_RELATIONS) if len(relations) > MAX_RELATIONS else None,
    )
