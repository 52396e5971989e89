"""PubTator3's vocabulary: entity ids (``@GENE_BRAF``), concept types and relation types, with the
checks every tool applies to them before a request is sent."""

from __future__ import annotations

import re
from typing import Literal, get_args

from medlit.core.plugin import ArgumentError, rendering

# Concept types as PubTator3 spells them in ids and parameters, and as BioC annotations name them.
CONCEPTS: dict[str, str] = {
    "GENE": "Gene",
    "DISEASE": "Disease",
    "CHEMICAL": "Chemical",
    "VARIANT": "Variant",
    "SPECIES": "Species",
    "CELLLINE": "CellLine",
}
Concept = Literal["GENE", "DISEASE", "CHEMICAL", "VARIANT", "SPECIES", "CELLLINE"]
TYPE_ORDER = ("Gene", "Variant", "Disease", "Chemical", "Species", "CellLine")

# Relation types PubTator3 documents for its relation search and its relations endpoint.
RelationType = Literal[
    "treat",
    "cause",
    "cotreat",
    "convert",
    "compare",
    "interact",
    "associate",
    "positive_correlate",
    "negative_correlate",
    "prevent",
    "inhibit",
    "stimulate",
    "drug_interact",
]
RELATION_TYPES: tuple[str, ...] = get_args(RelationType)
# BioC relation infons name the same relations by their class; the display verbs are in RELATION_TYPES.
BIOC_RELATIONS = {
    "association": "associate",
    "positive_correlation": "positive_correlate",
    "negative_correlation": "negative_correlate",
    "bind": "interact",
    "cotreatment": "cotreat",
    "comparison": "compare",
    "drug_interaction": "drug_interact",
    "conversion": "convert",
}

MAX_ID_CHARS = 200
_ID = re.compile(r"^@?([A-Za-z]+)_(.+)$")
_BAD_NAME = re.compile(r"[\s|@]")
ENTITY_HINT = (
    "Give a PubTator entity id: '@' + type + '_' + name, e.g. '@GENE_BRAF', '@DISEASE_Melanoma', "
    "'@CHEMICAL_Doxorubicin', '@VARIANT_p.V600E_BRAF_human'; types: " + ", ".join(CONCEPTS) + ". "
    "For a name, look the id up with pubtator_find_entity first."
)


def concept_of(entity_id: str) -> str | None:
    """``@GENE_BRAF`` -> ``GENE``; ``None`` for anything that is not an entity id."""
    m = _ID.match(entity_id)
    if not m or m.group(1).upper() not in CONCEPTS:
        return None
    return m.group(1).upper()


def display_name(entity_id: str) -> str:
    """A readable name from an id: ``@DISEASE_Breast_Neoplasms`` -> ``Breast Neoplasms``."""
    m = _ID.match(entity_id)
    return m.group(2).replace("_", " ") if m else entity_id


def check_entity_id(value: str, field: str = "entity") -> str:
    """The id with its type prefix upper-cased and its ``@`` restored; ``ArgumentError`` (reason
    ``unknown_entity_id``) for a name, an unknown type or a malformed id."""
    text = rendering.strip_invisible(value).strip()
    if not text:
        raise ArgumentError(f"{field} is empty", ENTITY_HINT, reason="unknown_entity_id")
    short = text if len(text) <= 80 else text[:77] + "..."
    if len(text) > MAX_ID_CHARS:
        raise ArgumentError(
            f"{field} is longer than {MAX_ID_CHARS} characters", ENTITY_HINT, "unknown_entity_id"
        )
    m = _ID.match(text)
    if not m:
        raise ArgumentError(
            f"{field} {short!r} is not a PubTator entity id", ENTITY_HINT, reason="unknown_entity_id"
        )
    kind, name = m.group(1).upper(), m.group(2)
    if kind not in CONCEPTS:
        raise ArgumentError(
            f"{field} {short!r} names an unknown entity type {m.group(1)!r}",
            ENTITY_HINT,
            reason="unknown_entity_id",
        )
    if _BAD_NAME.search(name) or not name.strip("_"):
        raise ArgumentError(
            f"{field} {short!r} is not a PubTator entity id (the name part holds spaces, '|' or '@')",
            ENTITY_HINT,
            reason="unknown_entity_id",
        )
    return f"@{kind}_{name}"


# ----------------------------------------------------------------------------- search queries

_RELATION_CLAUSE = re.compile(r"(?i)(?<![\w@])relations:(\S*)")
_ENTITY_TOKEN = re.compile(r"(?<!\S)[(\"']*(@[^\s()\"']+)")
RELATION_HINT = (
    "Write a relation clause as relations:TYPE|ENTITY1|ENTITY2 with TYPE one of ANY, "
    + ", ".join(RELATION_TYPES)
    + "; ENTITY2 may be a type (DISEASE) for any entity of it. Example: "
    "'relations:treat|@CHEMICAL_Dabrafenib|@DISEASE_Melanoma'."
)


def _relation_clause(body: str) -> str:
    parts = body.split("|")
    shown = body if len(body) <= 80 else body[:77] + "..."
    if len(parts) != 3:
        raise ArgumentError(
            f"relation clause 'relations:{shown}' has {len(parts)} part(s); it needs TYPE|ENTITY1|ENTITY2",
            RELATION_HINT,
            reason="malformed_relation_query",
        )
    kind, first, second = parts
    if kind.upper() == "ANY":
        kind = "ANY"
    elif kind.lower() in RELATION_TYPES:
        kind = kind.lower()
    else:
        raise ArgumentError(
            f"relation clause 'relations:{shown}' names an unknown relation type {kind[:40]!r}",
            RELATION_HINT,
            reason="malformed_relation_query",
        )
    try:
        first = check_entity_id(first, "the relation's first entity")
        if second.upper() in CONCEPTS:
            second = second.upper()
        else:
            second = check_entity_id(second, "the relation's second entity")
    except ArgumentError as exc:
        raise ArgumentError(str(exc), RELATION_HINT, reason="malformed_relation_query") from None
    return f"relations:{kind}|{first}|{second}"


def check_query(query: str) -> str:
    """A search text with its entity ids and relation clauses checked and normalised. Free words
    pass as they are; an ``@`` token that is no entity id, or a relation clause that does not
    parse, is an :class:`ArgumentError`."""
    text = " ".join(rendering.strip_invisible(query).split())
    if not re.sub(r"[\s()\"'*]", "", text) or text.upper() in ("AND", "OR", "NOT"):
        raise ArgumentError(
            "query holds no search term",
            "Send words, entity ids or a relation clause, e.g. '@GENE_BRAF AND @DISEASE_Melanoma'.",
            reason="empty_query",
        )
    text = _RELATION_CLAUSE.sub(lambda m: _relation_clause(m.group(1)), text)

    def entity(m: re.Match[str]) -> str:
        token = m.group(1)
        if token.lower().startswith("@relations"):
            return m.group(0)
        return m.group(0)[: m.start(1) - m.start(0)] + check_entity_id(token, "query entity")

    parts = re.split(r"(relations:\S*)", text)  # relation clauses are checked above
    return "".join(p if p.startswith("relations:") else _ENTITY_TOKEN.sub(entity, p) for p in parts)
