"""Input and output models of ``pubmed_fetch_fulltext`` (camelCase, as the peer servers use).

Outcomes and reasons are the chain's vocabulary (``TierOutcomeKind`` in core/types.py,
``UnavailableReason`` in core/resolution.py), used here as they are, never re-typed."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from medlit.core.plugin import (
    ArgumentError,
    IdKind,
    ToolInput,
    identifiers,
    kinds,
    markup,
    outputs,
    rendering,
)

from .describe import FETCH_LIMIT, MAX_IDS

IdType = IdKind
KIND_OF: dict[str, IdKind] = {
    field: kind for kind, field in identifiers.FIELD_OF.items()
}  # "pmcids" -> "pmcid"


def _ids(kind: IdKind, value: Any) -> list[str] | None:
    if value is None:
        return None
    try:
        parsed = identifiers.parse_list(kind, value)
    except identifiers.IdentifierError as exc:
        raise ArgumentError(
            str(exc),
            "Send PMC IDs in `pmcids` (e.g. 'PMC9575052'), PubMed IDs in `pmids` (e.g. '33533846') and DOIs "
            "in `dois` (e.g. '10.1038/s41586-020-2649-2'), one id per array element.",
        ) from None
    out: list[str] = []
    for ident in parsed:
        if ident.value not in out:
            out.append(ident.value)
    return out or None


# Upper bounds of the size knobs: far past any article, there only so that no input is unbounded.
SIZE_MAX = 10_000_000
Id = Annotated[str, Field(max_length=300)]  # one id as sent (a DOI URL is the longest)


class FulltextInput(ToolInput):
    # Each id list is folded to canonical ids by its before-validator; MAX_IDS is enforced over
    # all three together (_some_ids), so it is advertised per list without a per-list check.
    pmcids: list[Id] | None = Field(
        None,
        description="Bare digits and PMC URLs accepted. Example: ['PMC9575052'].",
        json_schema_extra={"maxItems": MAX_IDS},
    )
    pmids: list[Id] | None = Field(
        None,
        description="Numbers accepted. Example: ['33533846'].",
        json_schema_extra={"maxItems": MAX_IDS},
    )
    dois: list[Id] | None = Field(
        None,
        description="doi: and https://doi.org/ forms accepted. Example: ['10.1371/journal.pone.0046493'].",
        json_schema_extra={"maxItems": MAX_IDS},
    )
    sections: list[Annotated[str, Field(max_length=200)]] | None = Field(
        None,
        max_length=50,
        description="Only sections whose title has one of these words. Example: ['methods', 'results'].",
    )
    maxSections: int | None = Field(
        None,
        ge=1,
        le=1000,
        description="Top-level sections kept per article, after `sections`. Example: 5.",
    )
    includeTables: bool = Field(True, description="Tables, as text.")
    includeAssets: bool = Field(True, description="Figures and supplementary material.")
    includeReferences: bool = Field(False, description="The reference list.")
    maxCharacters: int | None = Field(
        None,
        ge=1,
        le=SIZE_MAX,
        description="Per-article budget for body, table and figure text; default none. Example: 8000.",
    )
    overflowMode: Literal["truncate", "outline"] = Field(
        "truncate",
        description="'outline' keeps every heading, splitting maxCharacters across sections. Example: 'outline'.",
    )
    maxCharactersPerSection: int | None = Field(
        None, ge=1, le=SIZE_MAX, description="Budget per top-level section. Example: 2000."
    )
    maxResponseCharacters: int | None = Field(
        None,
        ge=1,
        le=SIZE_MAX,
        description="Ceiling on the whole reply, default none; later articles are deferred whole. "
        "Example: 60000.",
    )
    responseFormat: outputs.ResponseFormat = outputs.response_format_field()

    @field_validator(*identifiers.FIELD_OF.values(), mode="before")
    @classmethod
    def _id_list(cls, v: Any, info: ValidationInfo) -> list[str] | None:
        return _ids(KIND_OF[info.field_name or ""], v)

    @field_validator("sections", mode="before")
    @classmethod
    def _sections(cls, v: Any) -> Any:  # a list of terms, or what type validation then refuses
        if v is None:
            return None
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list):
            return v
        out = []
        for term in v:
            if not isinstance(term, str):
                return v  # let the type check report it
            if term == "":
                continue
            cleaned = rendering.strip_invisible(term).strip()
            if not cleaned:
                raise ArgumentError(
                    f"sections element {term!r} holds no visible character, so it names no heading",
                    "Pass section titles such as ['Methods', 'Results'], or omit `sections` for the whole article.",
                )
            out.append(cleaned)
        return out or None

    @model_validator(mode="after")
    def _some_ids(self) -> FulltextInput:
        lists = [self.pmcids or [], self.pmids or [], self.dois or []]
        if not any(lists):
            raise ArgumentError(
                "no identifier given",
                'Name at least one article in `pmcids`, `pmids` or `dois`, e.g. {"pmcids": ["PMC9575052"]}.',
            )
        total = sum(len(k) for k in lists)
        if total > MAX_IDS:
            raise ArgumentError(
                f"{total} distinct identifiers given; one call accepts at most {MAX_IDS}",
                f"Split the ids over several calls of at most {MAX_IDS} (each fetches {FETCH_LIMIT}).",
            )
        return self


# -- output -----------------------------------------------------------------------------------
class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Author(_Out):
    lastName: str | None = None
    givenNames: str | None = None
    suffix: str | None = Field(
        None,
        description="Generational name suffix verbatim from the JATS <suffix> (e.g. 'Jr', 'IV'), never normalised; "
        "absent when the deposit gives none",
    )
    collectiveName: str | None = Field(None, description="Group or consortium name of a collective author")
    orcid: str | None = None


class Journal(_Out):
    title: str | None = None
    issn: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    elocationId: str | None = Field(None, description="Electronic article number, e.g. 'e20542'")


class PublicationDate(_Out):
    year: str | None = None
    month: str | None = None
    day: str | None = None


class LicenseOut(_Out):
    type: str | None = Field(
        None, description="License type, e.g. 'cc-by', as deposited or derived from its URL"
    )
    urls: list[str] | None = None
    text: str | None = None


BudgetCut = Literal["shortened", "emptied"]


class Subsection(_Out):
    title: str | None = Field(
        None, description="Subsection heading (its <title>, else its <label> when that is all it has)"
    )
    label: str | None = Field(
        None, description="Subsection label as printed, e.g. '2.1', when it carries one"
    )
    text: str = Field(description="Subsection text; deeper headings folded in as '#### Heading' lines")
    budgetCut: BudgetCut | None = Field(
        None, description="Set when `maxCharacters`/`maxCharactersPerSection` shortened or emptied this text"
    )


class Section(_Out):
    title: str | None = Field(
        None,
        description="Heading (its <title>, else its <label> when that is all it has, else the back-matter kind); "
        "absent for untitled text before the first heading",
    )
    label: str | None = Field(
        None,
        description="Section label as printed, e.g. '2', when it carries one (the `sections` filter reads `title`)",
    )
    text: str = Field(description="The section's own text (its subsections are in `subsections`)")
    subsections: list[Subsection] | None = None
    backMatter: bool | None = Field(
        None, description="True for acknowledgments, notes, appendices and the like"
    )
    budgetCut: BudgetCut | None = Field(
        None, description="Set when a character budget shortened or emptied this section's own text"
    )


class TablePartOut(_Out):
    caption: str | None = Field(None, description="The part's own caption, when its markup gives one")
    headerRowCount: int = Field(0, description="Leading rows of `rows` that are this part's header")
    columnCount: int = Field(0, description="Width of this part's grid; 0 when its cells are not extractable")
    rows: list[list[str]] = Field(
        description="This part's cells by row, spans expanded by repetition so the grid is rectangular"
    )
    unextractableReason: markup.UnextractableReason | None = Field(
        None, description="Why this part's `rows` is empty, set only then (codes as on the table)"
    )


class TableOut(_Out):
    id: str | None = None
    label: str | None = None
    caption: str | None = None
    footnotes: str | None = None
    sectionTitle: str | None = Field(None, description="Title of the innermost section holding the table")
    headerRowCount: int = Field(0, description="Leading rows of `rows` that are the header")
    rows: list[list[str]] = Field(
        description="Cells by row, spans expanded by repetition so the grid is rectangular. When `parts` is "
        "set, this is only the first part whose cells could be read"
    )
    unextractableReason: markup.UnextractableReason | None = Field(
        None,
        description="Why `rows` is empty, set only then: 'graphic-only' (deposited as an image with no cell "
        "markup), 'cals-tgroup' (CALS/OASIS <tgroup> markup, not extracted), 'no-rows' (the markup carries no "
        "row with a cell). Label and caption are still returned; read the cells on the PMC page (`pmcUrl`)",
    )
    parts: list[TablePartOut] | None = Field(
        None,
        description="Set only when the table holds several separately laid-out tables, each with its own "
        "header rows and column count: all of them in order (one of them repeats `rows`). Read these then",
    )


class AssetOut(_Out):
    assetType: Literal["figure", "supplementary-material", "media"]
    id: str | None = None
    label: str | None = None
    caption: str | None = None
    href: str | None = Field(
        None, description="The deposited file name, a pointer into the PMC deposit, not a URL"
    )
    sectionTitle: str | None = None
    frontMatter: bool | None = Field(
        None,
        description="True for a figure or file of the front matter rather than the body: a graphical abstract's "
        "figure (`sectionTitle` names its abstract), supplementary material listed with the article's "
        "metadata, a figure of the abstract",
    )


class ReferenceOut(_Out):
    id: str | None = None
    label: str | None = None
    citation: str
    pmid: str | None = None
    doi: str | None = None


class TriedTier(_Out):
    tier: str = Field(
        description="A full-text tier or an ID resolution step, as the tool description names them"
    )
    outcome: kinds.TierOutcomeKind
    detail: str | None = None


class StructuredFulltext(_Out):
    """Structured full text read from JATS, whatever tier served it."""

    kind: Literal["structured"] = "structured"
    source: str = Field(description="The source that served the article, as its tier labels it")
    viaSource: str = Field(description="The tier that served the JATS (the tool description lists them)")
    pmcId: str | None = None
    pmid: str | None = None
    doi: str | None = Field(None, description="DOI as the record spells it (compare case-insensitively)")
    sourceIds: dict[str, str] | None = Field(
        None, description="The serving source's own record ids, by the names its tier declares"
    )
    title: str | None = None
    articleType: str | None = None
    authors: list[Author] | None = None
    affiliations: list[str] | None = None
    journal: Journal | None = None
    publicationDate: PublicationDate | None = None
    keywords: list[str] | None = None
    abstract: str | None = None
    licenses: list[LicenseOut] | None = None
    sections: list[Section]
    tables: list[TableOut] | None = None
    assets: list[AssetOut] | None = None
    references: list[ReferenceOut] | None = None
    pmcUrl: str | None = None
    pubmedUrl: str | None = None
    triedTiers: list[TriedTier] | None = Field(
        None, description="How the chain reached it: every step before the serving tier, then its hit"
    )


def _doi_not_required(schema: dict[str, Any]) -> None:
    """An extracted article always has its DOI, but ``doi`` is listed as optional: lean output
    keeps every property an alternative of the ``oneOf`` requires, so a required ``doi`` here
    would send a structured article's missing DOI as ``null`` and make its schema nest an
    ``anyOf [string, null]`` inside the ``oneOf``, which strict clients refuse."""
    schema["required"] = [k for k in schema.get("required", ()) if k != "doi"]


class ExtractedFulltext(_Out):
    """Best-effort text extracted from a PDF or an HTML page, whatever tier served it."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_doi_not_required)

    kind: Literal["extracted"] = "extracted"
    source: str = Field(description="The source that served the text, as its tier labels it")
    viaSource: str = Field(description="The tier that served the text")
    contentFormat: kinds.ContentFormat
    doi: str
    sourceUrl: str = Field(description="URL the content was fetched from")
    content: str = Field(description="Full article text, Markdown or plain text per `contentFormat`")
    pmid: str | None = None
    pmcId: str | None = None
    title: str | None = None
    year: int | None = None
    journalName: str | None = None
    license: str | None = None
    version: str | None = Field(None, description="submittedVersion | acceptedVersion | publishedVersion")
    hostType: str | None = Field(None, description="publisher | repository")
    wordCount: int | None = None
    totalPages: int | None = None
    pubmedUrl: str | None = None
    budgetCut: BudgetCut | None = None
    triedTiers: list[TriedTier] | None = Field(
        None, description="How the chain reached it: every step before the serving tier, then its hit"
    )


Article = Annotated[StructuredFulltext | ExtractedFulltext, Field(discriminator="kind")]


class Unavailable(_Out):
    id: str = Field(description="The identifier as requested (normalised)")
    idType: IdType = Field(description="The input field it was sent in")
    reason: kinds.UnavailableReason = Field(
        description="The most specific signal any step reported; 'service-error' is worth a retry"
    )
    triedTiers: list[TriedTier] = Field(
        description="Every step in chain order (ID resolution steps and tiers) with its outcome"
    )
    unqueriedTiers: list[str] | None = Field(
        None, description="Tiers switched off or unconfigured that could have served this id"
    )
    waitingOn: dict[str, str] | None = Field(
        None, description="Per unqueried tier, the environment variable that would enable it"
    )
    institutionalLink: str | None = Field(
        None,
        description="Link to the user's library resolver (when one is configured): licensed full text or "
        "an interlibrary-loan request; built, never fetched",
    )


class IdGroups(_Out):
    ids: list[str]
    idType: IdType | None = Field(None, description="The field every id was sent in, when they share one")
    pmcids: list[str] | None = None
    pmids: list[str] | None = None
    dois: list[str] | None = None


class FulltextDeferred(IdGroups):
    maxResponseCharacters: int
    returnedCharacters: int
    deferredCount: int
    nextDeferredCharacters: int = Field(description="Size of the first deferred article: the budget it needs")


class OverLimit(IdGroups):
    limit: int = Field(description="Distinct identifiers one call fetches")


class SubsectionLedger(_Out):
    title: str | None = None
    label: str | None = Field(None, description="Label as printed (e.g. '2.1'), when it carries one")
    originalCharacters: int
    returnedCharacters: int
    truncated: bool


class SectionLedger(SubsectionLedger):
    subsections: list[SubsectionLedger] | None = None


class ArticleLedger(_Out):
    id: str
    source: str
    originalCharacters: int
    returnedCharacters: int
    sections: list[SectionLedger] | None = None
    omittedTables: int | None = None
    omittedTableNames: list[str] | None = None
    omittedAssets: int | None = None
    omittedAssetNames: list[str] | None = None


class Truncation(_Out):
    mode: Literal["truncate", "outline"]
    maxCharacters: int | None = None
    maxCharactersPerSection: int | None = None
    originalCharacters: int
    returnedCharacters: int
    omittedSections: int
    omittedTables: int | None = None
    omittedAssets: int | None = None
    articles: list[ArticleLedger]


class OmittedSection(_Out):
    title: str | None = None
    label: str | None = Field(None, description="Section label as printed (e.g. '2'), when it carries one")


class SectionCapArticle(_Out):
    id: str
    omittedSections: list[OmittedSection]


class SectionCap(_Out):
    maxSections: int
    articles: list[SectionCapArticle]


class FulltextOutput(_Out):
    articles: list[Article] = Field(
        description="Articles in routing order (pmcids, pmids, dois); an article several ids name appears once"
    )
    totalReturned: int
    unavailable: list[Unavailable] | None = Field(
        None, description="Ids with no returnable full text, each with the tiers it went through"
    )
    deferred: FulltextDeferred | None = Field(
        None, description="Articles withheld by maxResponseCharacters: re-request these ids"
    )
    overLimit: OverLimit | None = Field(
        None, description="Ids past the per-call fetch limit, not fetched: re-request them"
    )
    truncation: Truncation | None = None
    sectionCap: SectionCap | None = None
    truncated: bool | None = Field(
        None, description="True when a budget, maxSections, deferral or the per-call limit left something out"
    )
    notice: str | None = None
