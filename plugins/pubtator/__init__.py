"""NCBI PubTator3 provider plugin: literature by genes, variants, diseases, chemicals, species and
cell lines (normalised entities) and the relations PubTator3 extracted between them.

Declarations only: models, parsers and handlers are named by lazy references and imported at a
tool's first call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import (
    PluginInfo,
    SearchSource,
    SettingSpec,
    ToolSpec,
    errors,
    hookimpl,
    lazy_module,
)

from . import service

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import annotations_tool as _annotations_tool
    from . import entity_tool as _entity_tool
    from . import inputs as _inputs
    from . import models as _models
    from . import related_tool as _related_tool
    from . import review_source as _review_source
    from . import search_tool as _search_tool
else:  # run time: each attribute is a lazy reference, imported at its first use
    _annotations_tool = lazy_module(".annotations_tool", __name__)
    _entity_tool = lazy_module(".entity_tool", __name__)
    _inputs = lazy_module(".inputs", __name__)
    _models = lazy_module(".models", __name__)
    _related_tool = lazy_module(".related_tool", __name__)
    _review_source = lazy_module(".review_source", __name__)
    _search_tool = lazy_module(".search_tool", __name__)

# The review workspace's source: whole searches, ten records a page (PubTator3's search page).
SEARCH_SOURCE = SearchSource(
    name="pubtator",
    title="PubTator3",
    run=_review_source.run_pubtator,
    syntax="PubTator3 (@GENE_BRAF AND @DISEASE_Melanoma)",
    order=30,
    batch=10,
    description="PubTator3 entity, relation and text search, ten records a request.",
)

FIND_ENTITY = ToolSpec(
    name="pubtator_find_entity",
    title="Find a PubTator entity id",
    description=(
        "Look up PubTator3 entity ids for a gene, disease, chemical, variant, species or cell line name "
        "('BRAF' -> @GENE_BRAF, NCBI Gene 673), with type and database id, optionally one concept type. "
        "Use it first: pubtator_search and pubtator_related take these ids. For MeSH headings in PubMed "
        "queries use pubmed_lookup_mesh. One request; no match is an empty list."
    ),
    input_model=_inputs.FindEntityInput,
    output_model=_models.FindEntityOutput,
    handler=_entity_tool.find_entity,
    render=_entity_tool.render_find_entity,
    guide="a gene, disease, chemical or variant name, want its PubTator entity id",
    capabilities=frozenset({"vocabulary"}),
)

SEARCH = ToolSpec(
    name="pubtator_search",
    title="Search PubTator3",
    description=(
        "Search PubMed and PMC by normalised entities and extracted relations: '@GENE_BRAF AND "
        "@DISEASE_Melanoma' (co-occurrence, synonyms included), 'relations:treat|@CHEMICAL_x|@DISEASE_y' "
        "(TYPE may be ANY), or words. Returns total, PMIDs, titles, the matched passage and facets; 10 hits "
        "a page. Get ids with pubtator_find_entity; for MeSH, field tags and filters use "
        "pubmed_search_articles. One request per page; no match: total 0, no hits."
    ),
    input_model=_inputs.SearchInput,
    output_model=_models.SearchOutput,
    handler=_search_tool.search_pubtator,
    render=_search_tool.render_search,
    guide="entity ids or relations, want the articles mentioning them",
)

ANNOTATIONS = ToolSpec(
    name="pubtator_annotations",
    title="Fetch PubTator3 annotations",
    description=(
        "Fetch the genes, variants, diseases, chemicals, species and cell lines PubTator3 found in up to 100 "
        "known articles, per article grouped by entity with type, normalised id (NCBI Gene, MeSH, dbSNP, "
        "Taxonomy), mentions and counts, plus their relations. Exactly one of pmids (title and abstract) or "
        "pmcids (open-access full text). Unknown ids are listed in notFound. To find articles by entity use "
        "pubtator_search; to read them pubmed_fetch_articles or pubmed_fetch_fulltext."
    ),
    input_model=_inputs.AnnotationsInput,
    output_model=_models.AnnotationsOutput,
    handler=_annotations_tool.fetch_annotations,
    render=_annotations_tool.render_annotations,
    guide="PMIDs / PMCIDs, want the genes, diseases, chemicals and variants they mention",
)

RELATED = ToolSpec(
    name="pubtator_related",
    title="Find related PubTator entities",
    description=(
        "Find the entities linked to one PubTator entity by extracted relations, e.g. chemicals that treat "
        "@DISEASE_Melanoma: article counts, the PMIDs behind the top ones and a pubtator_search query for each. "
        "Get the id with pubtator_find_entity; the articles of one known pair: pubtator_search. One request, "
        "plus one search per entity in pmidsFor."
    ),
    input_model=_inputs.RelatedInput,
    output_model=_models.RelatedOutput,
    handler=_related_tool.related,
    render=_related_tool.render_related,
    guide="an entity, want entities related to it (a disease's treating chemicals)",
)


@hookimpl
def medlit_plugin_info() -> PluginInfo:
    return PluginInfo(
        name="pubtator",
        title="NCBI PubTator3",
        description="Entity and relation search over PubMed and PMC, and the annotations of articles "
        "(genes, variants, diseases, chemicals, species, cell lines) from NCBI PubTator3.",
        toolsets={
            "pubtator": "PubTator3: articles by gene, variant, disease or chemical and their relations."
        },
        settings=(
            SettingSpec(
                service.RATE_SETTING,
                f"PubTator3 requests/s (default {service.RATE:g}); above it only with MEDLIT_BASE_URL_PUBTATOR "
                "(tests)",
                kind="number",
            ),
        ),
        error_kinds=(
            errors.ErrorKind(
                "unknown_entity_id", "Find the entity's id with pubtator_find_entity, e.g. '@GENE_BRAF'."
            ),
            errors.ErrorKind(
                "malformed_relation_query", "Write a relation as relations:TYPE|@ENTITY_A|@ENTITY_B."
            ),
            errors.ErrorKind("empty_query", "Give a name or a query of at least one character."),
        ),
    )


@hookimpl
def medlit_services():
    return [service.SERVICE]


@hookimpl
def medlit_tools():
    return [FIND_ENTITY, SEARCH, ANNOTATIONS, RELATED]


@hookimpl
def medlit_search_sources():
    return [SEARCH_SOURCE]
