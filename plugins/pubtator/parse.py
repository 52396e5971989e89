"""Reading PubTator3's search, autocomplete and relations answers.

Autocomplete comes in two shapes: the current one (``_id``, ``biotype``, ``name``, ``db``,
``db_id``, ``description``, ``match``) and an older one without ``db``/``db_id``; both read, the
database id left out when the answer has none. Search hits mark annotated spans in ``text_hl`` as
``@GENE_BRCA1 @GENE_672 @@@<m>BRCA1</m>@@@`` (the entity ids, then the text between ``@@@``;
``<m>`` marks a matched word); an empty search answers ``facets: {}``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from medlit.core.plugin import rendering

from .entities import CONCEPTS, concept_of, display_name
from .models import EntityMatch, FacetValue, SearchHit
from .values import clean_text, id_text, read_int, read_pmcid, read_pmid

FACET_VALUES = 12  # values kept per facet
_SPAN = re.compile(r"((?:@[^\s@]+\s+)+)@@@(.*?)@@@", re.S)
_MARK = re.compile(r"</?m>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]{0,200})?/?>")
_SPACE = re.compile(r"\s+")


def plain(value: Any, limit: int) -> str | None:
    """Display text: markup stripped, entities decoded, white space collapsed."""
    if not isinstance(value, str):
        return None
    text = html.unescape(_TAG.sub("", _MARK.sub("", value)))
    return clean_text(text, limit)


# ----------------------------------------------------------------------------- autocomplete


def _type_of(item: Mapping[str, Any], entity_id: str) -> str:
    concept = concept_of(entity_id)
    if concept:
        return CONCEPTS[concept]
    biotype = str(item.get("biotype") or item.get("type") or "").upper().replace(" ", "")
    return CONCEPTS.get(biotype, str(item.get("biotype") or "Unknown"))


def autocomplete_items(data: Any) -> list[Mapping[str, Any]]:
    """The suggestions of an answer (a list, or a list under ``results``/``data``)."""
    if isinstance(data, dict):
        for key in ("results", "data", "entities"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            raise ValueError("not a PubTator3 autocomplete answer: no list of suggestions")
    if not isinstance(data, list):
        raise ValueError(f"not a PubTator3 autocomplete answer: a JSON {type(data).__name__}")
    return [i for i in data if isinstance(i, dict)]


def read_match(item: Mapping[str, Any]) -> EntityMatch | None:
    entity_id = id_text(item.get("_id")) or id_text(item.get("id")) or id_text(item.get("accession"))
    if not entity_id or not entity_id.startswith("@"):
        return None
    database = clean_text(item.get("db") or item.get("database"), 60)
    db_id = id_text(item.get("db_id") if "db_id" in item else item.get("database_id"))
    if db_id and database == "ncbi_mesh" and db_id.upper().startswith("MESH:"):
        db_id = db_id[5:]
    return EntityMatch(
        id=entity_id[:200],
        type=_type_of(item, entity_id),
        name=clean_text(item.get("name"), 300) or display_name(entity_id),
        database=database,
        databaseId=db_id,
        description=clean_text(item.get("description"), 300),
        matchedOn=plain(item.get("match"), 300),
    )


# ----------------------------------------------------------------------------- search


def passage(text_hl: Any) -> tuple[str | None, list[str]]:
    """``text_hl`` as plain text (matched words in ``**bold**``) and the entity ids it annotates."""
    if not isinstance(text_hl, str):
        return None, []
    ids: list[str] = []

    def span(m: re.Match[str]) -> str:
        ids.extend(t for t in m.group(1).split() if concept_of(t))
        return m.group(2)

    text = _SPAN.sub(span, rendering.strip_invisible(text_hl))
    text = text.replace("<m>", "**").replace("</m>", "**")
    text = html.unescape(_TAG.sub("", text))
    return clean_text(text, 1500), list(dict.fromkeys(ids))


def _date(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    m = re.match(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", value.strip())
    if not m:
        return None
    return "-".join(p for p in m.groups() if p)


def read_hit(item: Mapping[str, Any]) -> SearchHit | None:
    pmid = read_pmid(item.get("pmid")) or read_pmid(item.get("_id"))
    if pmid is None:
        return None
    text, ids = passage(item.get("text_hl"))
    authors = [a for a in (clean_text(x, 120) for x in item.get("authors") or [] if isinstance(x, str)) if a]
    score = item.get("score")
    doi = clean_text(item.get("doi"), 300)
    return SearchHit(
        pmid=pmid,
        pmcid=read_pmcid(item.get("pmcid")),
        title=plain(item.get("title"), 1000),
        journal=clean_text(item.get("journal"), 300),
        date=_date(item.get("date")),
        doi=doi if doi and "/" in doi else None,
        authors=authors[:3],
        authorCount=len(authors) or None,
        score=float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None,
        passage=text,
        passageEntities=ids,
    )


def read_facets(data: Any) -> dict[str, list[FacetValue]]:
    """``facets.facet_fields`` as ``{name: [{value, count}]}``: lists of ``{name, value}`` objects or
    Solr's flat ``[value, count, ...]``; an empty ``{}`` is no facets."""
    if not isinstance(data, dict):
        return {}
    fields = data.get("facet_fields", data)
    if not isinstance(fields, dict):
        return {}
    out: dict[str, list[FacetValue]] = {}
    for name, values in fields.items():
        rows: list[FacetValue] = []
        if isinstance(values, list) and values and all(isinstance(v, dict) for v in values):
            for v in values:
                count = read_int(v.get("value") if "value" in v else v.get("count"))
                label = clean_text(str(v.get("name")) if v.get("name") is not None else None, 200)
                if label and count is not None:
                    rows.append(FacetValue(value=label, count=count))
        elif isinstance(values, list):
            for label, count in zip(values[::2], values[1::2], strict=False):
                n = read_int(count)
                if isinstance(label, (str, int)) and n is not None:
                    rows.append(FacetValue(value=str(label)[:200], count=n))
        if rows and isinstance(name, str):
            out[name[:60]] = rows[:FACET_VALUES]
    return out


@dataclass
class SearchPage:
    hits: list[SearchHit]
    total: int
    total_pages: int | None
    page_size: int | None
    current: int | None
    facets: dict[str, list[FacetValue]] = field(default_factory=dict)
    skipped: int = 0


def read_search(data: Any) -> SearchPage:
    """One search page; ``ValueError`` for an answer that is not one (the client retries it)."""
    if not isinstance(data, dict) or not isinstance(data.get("results", []), list):
        raise ValueError("not a PubTator3 search answer: no `results` list")
    if "results" not in data and "count" not in data:
        raise ValueError("not a PubTator3 search answer: neither `results` nor `count`")
    raw = [r for r in data.get("results") or [] if isinstance(r, dict)]
    hits = [h for h in (read_hit(r) for r in raw) if h is not None]
    total = read_int(data.get("count"))
    return SearchPage(
        hits=hits,
        total=total if total is not None else len(hits),
        total_pages=read_int(data.get("total_pages")),
        page_size=read_int(data.get("page_size")),
        current=read_int(data.get("current")),
        facets=read_facets(data.get("facets")),
        skipped=len(data.get("results") or []) - len(hits),
    )


# ----------------------------------------------------------------------------- relations


@dataclass
class RelationRow:
    source: str
    target: str
    type: str | None
    publications: int | None
    pmids: list[str]


_SOURCE = ("source", "e1", "entity1", "subject")
_TARGET = ("target", "e2", "entity2", "object")
_COUNT = ("publications", "count", "pmid_count", "publication_count", "n")
_PMIDS = ("pmids", "pmid_list", "publication_ids", "pmid")


def _first(item: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if item.get(name) is not None:
            return item[name]
    return None


def relation_rows(data: Any) -> list[RelationRow]:
    """Rows of a relations answer (a list, or a list under ``relations``/``results``/``data``);
    ``ValueError`` for anything else."""
    if isinstance(data, dict):
        for key in ("relations", "results", "data"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            raise ValueError("not a PubTator3 relations answer: no list of relations")
    if not isinstance(data, list):
        raise ValueError(f"not a PubTator3 relations answer: a JSON {type(data).__name__}")
    rows = []
    for item in data:
        if not isinstance(item, dict):
            continue
        source, target = id_text(_first(item, _SOURCE)), id_text(_first(item, _TARGET))
        if not source or not target:
            continue
        count = _first(item, _COUNT)
        pmids_raw = _first(item, _PMIDS)
        if isinstance(count, list):  # the publications themselves
            pmids_raw, count = pmids_raw or count, len(count)
        pmids = []
        if isinstance(pmids_raw, list):
            pmids = [p for p in (read_pmid(x) for x in pmids_raw) if p]
        elif isinstance(pmids_raw, str):
            pmids = [p for p in (read_pmid(x) for x in re.split(r"[\s,;]+", pmids_raw)) if p]
        kind = clean_text(_first(item, ("type", "relation", "rel_type")), 40)
        rows.append(
            RelationRow(source[:200], target[:200], kind.lower() if kind else None, read_int(count), pmids)
        )
    return rows
