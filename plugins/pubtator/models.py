"""Output models of the PubTator3 tools (their JSON schemas are the tools' output schemas)."""

from __future__ import annotations

from pydantic import Field

from medlit.core.plugin import ToolOutput, outputs

# ----------------------------------------------------------------------------- pubtator_find_entity


class EntityMatch(ToolOutput):
    id: str = Field(description="PubTator entity id for searches and relations, e.g. '@GENE_BRAF'")
    type: str = Field(description="Gene, Disease, Chemical, Variant, Species or CellLine")
    name: str | None = Field(None, description="Preferred name")
    database: str | None = Field(None, description="Source database, e.g. 'ncbi_gene', 'ncbi_mesh'")
    databaseId: str | None = Field(
        None, description="Id in that database, e.g. '673' (NCBI Gene), 'D008545' (MeSH)"
    )
    description: str | None = Field(None, description="PubTator's note, e.g. 'All Species'")
    matchedOn: str | None = Field(None, description="What the name matched, e.g. 'Matched on name BRAF'")


class FindEntityOutput(ToolOutput):
    query: str
    concept: str | None = Field(None, description="The concept type the search was restricted to")
    matches: list[EntityMatch] = Field(description="Best match first")
    notice: str | None = None


# ----------------------------------------------------------------------------- pubtator_search


class SearchHit(ToolOutput):
    pmid: str
    pmcid: str | None = None
    title: str | None = None
    journal: str | None = None
    date: str | None = Field(None, description="YYYY-MM-DD")
    doi: str | None = None
    authors: list[str] = Field(default_factory=list, description="The first three authors")
    authorCount: int | None = None
    score: float | None = Field(None, description="PubTator's relevance score")
    passage: str | None = Field(
        None, description="The matched passage as plain text, matched words in **bold**"
    )
    passageEntities: list[str] = Field(
        default_factory=list, description="Entity ids PubTator annotated in the passage"
    )


class FacetValue(ToolOutput):
    value: str
    count: int


class SearchOutput(ToolOutput):
    query: str = Field(description="The query as sent (entity ids and relation clauses normalised)")
    page: int
    pageSize: int | None = None
    total: int = Field(description="Articles matching the query")
    totalPages: int | None = None
    nextPage: int | None = Field(None, description="Pass as page for the next hits; absent on the last page")
    hits: list[SearchHit]
    facets: dict[str, list[FacetValue]] = Field(
        default_factory=dict, description="Counts by journal, publication type and year (top values)"
    )
    notice: str | None = None


# ----------------------------------------------------------------------------- pubtator_annotations


class Mention(ToolOutput):
    text: str
    passage: str = Field(description="Passage type: title, abstract, or a full-text section")
    offset: int = Field(description="Character offset in the document")
    length: int | None = None


class Entity(ToolOutput):
    type: str = Field(description="Gene, Variant, Disease, Chemical, Species, CellLine, ...")
    id: str | None = Field(
        None, description="PubTator entity id, e.g. '@GENE_BRAF' (absent when not normalised)"
    )
    name: str | None = None
    normalizedId: str | None = Field(
        None, description="Database id: NCBI Gene, MeSH, dbSNP rsid, NCBI Taxonomy, Cellosaurus"
    )
    database: str | None = Field(None, description="e.g. ncbi_gene, ncbi_mesh, litvar, ncbi_taxonomy")
    identifier: str | None = Field(None, description="The raw identifier PubTator gives")
    valid: bool = Field(True, description="False when PubTator could not normalise the mention")
    hgvs: str | None = Field(None, description="Variants: HGVS, e.g. 'p.V600E'")
    rsid: str | None = Field(None, description="Variants: dbSNP id")
    mentionCount: int
    mentions: list[Mention] = Field(default_factory=list, description="The first mentionsPerEntity mentions")


class RelationEnd(ToolOutput):
    id: str | None = None
    name: str | None = None
    type: str | None = None


class Relation(ToolOutput):
    type: str = Field(description="Relation verb: treat, cause, associate, inhibit, interact, ...")
    kind: str | None = Field(None, description="BioC relation class, e.g. 'Positive_Correlation'")
    entity1: RelationEnd
    entity2: RelationEnd
    score: float | None = None


class AnnotatedDocument(ToolOutput):
    pmid: str | None = None
    pmcid: str | None = None
    title: str | None = None
    journal: str | None = None
    year: int | None = None
    fullText: bool = Field(description="True when passages beyond title and abstract were annotated")
    passageCount: int
    entityCount: int = Field(description="Distinct entities")
    mentionCount: int
    countsByType: dict[str, int] = Field(description="Distinct entities per type")
    entities: list[Entity] = Field(description="Grouped by type, most mentioned first")
    relationCount: int
    relations: list[Relation]
    relationsOmitted: int | None = Field(None, description="Relations past the per-document cap")


class AnnotationsDeferred(outputs.DeferredIds):
    """Documents `maxResponseCharacters` withheld (fetched, but not returned)."""

    ids: list[str] = Field(description="Ids withheld, in request order: call again with these (same field)")


class Unavailable(ToolOutput):
    ids: list[str]
    reason: str
    message: str
    retryable: bool


class AnnotationsOutput(ToolOutput):
    documents: list[AnnotatedDocument] = Field(description="In request order")
    totalReturned: int
    notFound: list[str] = Field(default_factory=list, description="Ids PubTator3 holds no document for")
    unavailable: list[Unavailable] = Field(
        default_factory=list, description="Ids whose request failed (the rest of the call was answered)"
    )
    deferred: AnnotationsDeferred | None = None
    truncated: bool | None = None
    notice: str | None = None


# ----------------------------------------------------------------------------- pubtator_related


class RelatedEntity(ToolOutput):
    id: str
    type: str | None = None
    name: str | None = None
    relation: str | None = None
    publications: int | None = Field(None, description="Articles PubTator counts for the relation")
    pmids: list[str] = Field(default_factory=list, description="PMIDs behind the relation (first page)")
    searchQuery: str = Field(description="pubtator_search query for every article behind it")


class RelatedFailure(ToolOutput):
    id: str
    reason: str
    message: str
    retryable: bool


class RelatedOutput(ToolOutput):
    entity: str
    relation: str | None = None
    type: str | None = None
    total: int = Field(description="Related entities PubTator3 returned")
    related: list[RelatedEntity] = Field(description="Most publications first")
    unavailable: list[RelatedFailure] = Field(
        default_factory=list, description="Related entities whose PMIDs could not be fetched"
    )
    notice: str | None = None
