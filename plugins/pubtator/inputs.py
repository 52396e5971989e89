"""Input models of the PubTator3 tools, with their checks (entity ids, relation clauses, id lists)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from medlit.core.plugin import ArgumentError, IdKind, ToolInput, identifiers, outputs, rendering

from .entities import Concept, RelationType, check_entity_id, check_query

MAX_IDS = 100
MAX_ITEM_CHARS = 2_000  # one string may pack the whole list
_OTHER_FIELD = re.compile(r"; send it in `\w+`")
_LONG = re.compile(r"(\S{40})\S{20,}")
IDS_RECOVERY = (
    "Give up to 100 PMIDs (['22663011', '20516115']) in pmids, or PMCIDs (['PMC3040717']) in pmcids for "
    "open-access full text, never both; a DOI: convert it with pubmed_convert_ids."
)


class FindEntityInput(ToolInput):
    query: str = Field(
        max_length=200,
        description="A name or symbol, at least 2 characters. Example: 'BRAF'.",
        json_schema_extra={"minLength": 2},  # the validator below enforces it, with its own reason
    )
    concept: Concept | None = Field(None, description="Only this entity type. Example: 'GENE'.")
    limit: int = Field(10, ge=1, le=50, description="Suggestions to return. Example: 5.")
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("concept", mode="before")
    @classmethod
    def _concept(cls, v: Any) -> Any:
        return v.strip().upper().replace(" ", "").replace("_", "") if isinstance(v, str) else v

    @field_validator("query")
    @classmethod
    def _query(cls, v: str) -> str:
        text = " ".join(rendering.strip_invisible(v).split())
        if len(text.strip("@*\"'")) < 2:
            raise ArgumentError(
                "query is empty or shorter than 2 characters" if text else "query is empty",
                "Give an entity name or symbol, e.g. 'BRAF', 'breast cancer', 'doxorubicin'.",
                reason="empty_query",
            )
        return text


class SearchInput(ToolInput):
    query: str = Field(
        max_length=2000,
        description="Entity ids, relation clauses and words with AND/OR. Example: '@GENE_BRAF AND "
        "@DISEASE_Melanoma', 'relations:treat|@CHEMICAL_Dabrafenib|@DISEASE_Melanoma'.",
    )
    page: int = Field(1, ge=1, le=1000, description="Page of 10 hits, from 1 (at most 1000). Example: 2.")
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("query")
    @classmethod
    def _query(cls, v: str) -> str:
        return check_query(v)


def check_ids(kind: IdKind, value: Any) -> list[str]:
    """Distinct canonical ids in request order (prefixes, zero padding and packed strings folded)."""
    field = f"{kind}s"
    if value is None or (isinstance(value, (list, tuple, str)) and not value):
        raise ArgumentError(f"{field} is empty", IDS_RECOVERY, reason="empty_id_list")
    items: list[Any] = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(items) > MAX_IDS:
        raise ArgumentError(
            f"{len(items):,} {field} given; at most {MAX_IDS} per call",
            f"Split the list into calls of at most {MAX_IDS}.",
            reason="too_many_ids",
        )
    if any(isinstance(v, str) and len(v) > MAX_ITEM_CHARS for v in items):
        raise ArgumentError(
            f"a {field} entry is longer than {MAX_ITEM_CHARS:,} characters",
            IDS_RECOVERY,
            reason="malformed_id",
        )
    try:
        ids = identifiers.parse_list(kind, items)
    except identifiers.IdentifierError as exc:
        message = _LONG.sub(r"\1...", _OTHER_FIELD.sub("", str(exc)))[:500]  # never a value echoed at length
        raise ArgumentError(message, IDS_RECOVERY, reason="malformed_id") from None
    out = list(dict.fromkeys(i.value for i in ids))
    if not out:
        raise ArgumentError(f"{field} is empty", IDS_RECOVERY, reason="empty_id_list")
    if len(out) > MAX_IDS:
        raise ArgumentError(
            f"{len(out):,} distinct {field} given; at most {MAX_IDS} per call",
            f"Split the list into calls of at most {MAX_IDS}.",
            reason="too_many_ids",
        )
    return out


IdList = list[Annotated[str, Field(max_length=MAX_ITEM_CHARS)]]


class AnnotationsInput(ToolInput):
    pmids: IdList | None = Field(
        None,
        description="PubMed IDs (title and abstract), up to 100; one string may pack several. "
        "Example: ['22663011', '20516115'].",
        json_schema_extra={"maxItems": MAX_IDS},
    )
    pmcids: IdList | None = Field(
        None,
        description="PMC IDs for open-access full text, up to 100, instead of pmids. Example: ['PMC3040717'].",
        json_schema_extra={"maxItems": MAX_IDS},
    )
    mentionsPerEntity: int = Field(
        3, ge=0, le=50, description="Mentions listed per entity (all are counted). Example: 0."
    )
    maxResponseCharacters: int | None = Field(
        None,
        ge=1,
        le=10_000_000,
        description="Ceiling on the documents' JSON size; later documents are deferred whole. Example: 40000.",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("pmids", mode="before")
    @classmethod
    def _pmids(cls, v: Any) -> list[str] | None:
        return None if v is None else check_ids("pmid", v)

    @field_validator("pmcids", mode="before")
    @classmethod
    def _pmcids(cls, v: Any) -> list[str] | None:
        return None if v is None else check_ids("pmcid", v)

    @model_validator(mode="after")
    def _one_list(self) -> AnnotationsInput:
        if (self.pmids is None) == (self.pmcids is None):
            raise ArgumentError(
                "give exactly one of pmids or pmcids" if self.pmids else "pmids or pmcids is required",
                IDS_RECOVERY,
            )
        return self

    @property
    def kind(self) -> IdKind:
        return "pmid" if self.pmids is not None else "pmcid"

    @property
    def ids(self) -> list[str]:
        return self.pmids if self.pmids is not None else (self.pmcids or [])


class RelatedInput(ToolInput):
    entity: str = Field(
        max_length=200,
        description="A PubTator entity id (from pubtator_find_entity). Example: '@DISEASE_Melanoma'.",
    )
    relation: RelationType | None = Field(
        None,
        description="Only this relation (cotreat: given together; convert: one becomes the other); omit for any. "
        "Example: 'treat'.",
    )
    type: Concept | None = Field(None, description="Only related entities of this type. Example: 'CHEMICAL'.")
    limit: int = Field(20, ge=1, le=100, description="Related entities to return. Example: 10.")
    pmidsFor: int = Field(
        3, ge=0, le=10, description="Fetch PMIDs (one search each) for the top this many. Example: 0."
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    @field_validator("relation", mode="before")
    @classmethod
    def _relation(cls, v: Any) -> Any:
        return v.strip().lower().replace("-", "_").replace(" ", "_") if isinstance(v, str) else v

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: Any) -> Any:
        return v.strip().upper().replace(" ", "").replace("_", "") if isinstance(v, str) else v

    @field_validator("entity")
    @classmethod
    def _entity(cls, v: str) -> str:
        return check_entity_id(v)
