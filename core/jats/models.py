"""Typed records for a JATS full-text article, as produced by :func:`medlit.core.jats.reader.read_jats`.

Field names are camelCase because these records are serialised straight into tool results.

Sections are a FLAT list in document order rather than a tree: each :class:`Section` carries
``path`` (the breadcrumb of headings, its own title last; ``""`` for an untitled ``<sec>``) and
``level`` (``len(path)``; 0 for untitled text outside any ``<sec>``, e.g. before the first one). A flat list is what response budgeting
needs: it can cut after any section without re-walking a tree, and a reader can rebuild the
tree from ``path``. Each section's ``text`` holds only its own text, not its subsections'.
Sections nested deeper than ``max_depth`` are folded into their deepest kept ancestor, their
headings kept inline as ``#### Heading`` lines.

Text conventions inside ``text``: paragraphs separated by a blank line; lists as ``- item``
(ordered lists ``1.``, ``a.``, ``i.``); quotes as ``> `` lines; code/preformat fenced with
triple backticks; formulas as ``$tex$`` or linearised MathML (``x^2``, ``(a)/(b)``, ``√(x)``);
numeric superscripts in prose as powers (``10^−5``, ``Ca^2+``), citation superscripts as ``[1,2]``;
figures, tables and supplementary material leave ``[Figure 1]``-style markers where they stood
and are listed in ``assets`` / ``tables``. Front-matter figures and files outside the main
abstract (a graphical abstract's figure, supplementary material listed in ``<article-meta>``)
leave no marker and are listed with ``frontMatter=True``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "UNEXTRACTABLE_REASONS",
    "ArticleIds",
    "Asset",
    "Author",
    "Dates",
    "FulltextArticle",
    "Journal",
    "License",
    "Reference",
    "RelatedArticle",
    "Section",
    "SubArticle",
    "Table",
    "TablePart",
    "UnextractableReason",
]


UnextractableReason = Literal["graphic-only", "cals-tgroup", "no-rows"]

UNEXTRACTABLE_REASONS: dict[str, str] = {
    "graphic-only": "the table was deposited only as an image, with no cell markup",
    "cals-tgroup": "the table uses the CALS/OASIS <tgroup> model, which is not extracted",
    "no-rows": "the table markup carries no rows",
}
"""Why a table's ``rows`` are empty, by code, as a sentence for notices and rendered text."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ArticleIds(_Record):
    pmcid: str | None = None  # normalised "PMC123"
    pmid: str | None = None
    doi: str | None = None


class Author(_Record):
    name: str  # "Given Surname Suffix", or the group name when collective
    surname: str | None = None
    givenNames: str | None = None
    suffix: str | None = None  # generational suffix verbatim from <suffix>, e.g. "Jr", "III"
    collective: bool = False
    orcid: str | None = None  # bare id "0000-0002-1825-0097"
    affiliationIndexes: list[int] = Field(default_factory=list)  # 0-based into FulltextArticle.affiliations


class Journal(_Record):
    title: str | None = None
    issn: list[str] = Field(default_factory=list)
    volume: str | None = None
    issue: str | None = None
    fpage: str | None = None
    lpage: str | None = None
    pages: str | None = None  # "fpage-lpage", or page-range
    elocationId: str | None = None
    publisher: str | None = None


class Dates(_Record):
    """Dates as "YYYY", "YYYY-MM" or "YYYY-MM-DD"."""

    published: str | None = None  # epub, else print, else collection date
    epub: str | None = None
    ppub: str | None = None
    received: str | None = None
    accepted: str | None = None


class License(_Record):
    type: str | None = None  # license-type attribute, else derived from a Creative Commons URL
    href: str | None = None
    text: str | None = None


class Section(_Record):
    title: str | None = None  # <title>; else the <label> when that is the only heading; else the kind (back)
    label: str | None = None  # <label> as printed, e.g. "2.1"; never part of ``title`` when both exist
    path: list[str] = Field(default_factory=list)  # breadcrumb of headings, own title last
    level: int = 0  # len(path); 0 = untitled text before the first <sec>
    kind: Literal["body", "back"] = "body"
    text: str = ""


class TablePart(_Record):
    """One ``<table>`` of a ``<table-wrap>`` that holds several, laid out on its own."""

    caption: str | None = None  # the table's own <caption> (XHTML) or <title> (CALS), rarely present
    headerRows: int = 0
    columnCount: int = 0  # width of ``rows``; 0 when no cell can be read
    rows: list[list[str]] = Field(default_factory=list)  # rectangular; spans expanded by repetition
    unextractableReason: UnextractableReason | None = None  # set (and rows empty) as on Table


class Table(_Record):
    id: str | None = None
    label: str | None = None
    caption: str | None = None
    footnotes: list[str] = Field(default_factory=list)
    section: list[str] = Field(default_factory=list)  # path of the owning section
    # The wrap's table; with several, the first whose cells can be read (it is also in ``parts``).
    headerRows: int = 0
    rows: list[list[str]] = Field(default_factory=list)  # rectangular; spans expanded by repetition
    # Set (and rows empty) when no cell can be read: one of UNEXTRACTABLE_REASONS' keys.
    unextractableReason: UnextractableReason | None = None
    # Only when the wrap holds 2+ tables (each with its own header and width): all, in order.
    parts: list[TablePart] = Field(default_factory=list)


class Asset(_Record):
    kind: Literal["figure", "supplementary", "media"]
    id: str | None = None
    label: str | None = None
    caption: str | None = None
    section: list[str] = Field(default_factory=list)
    href: str | None = None  # xlink:href of the file (graphic for figures)
    # In the front matter (an abstract, e.g. a graphical abstract, or <article-meta>), not the body.
    frontMatter: bool = False


class Reference(_Record):
    id: str | None = None
    label: str | None = None
    text: str = ""  # the citation rendered as one line
    pmid: str | None = None
    doi: str | None = None
    year: str | None = None
    title: str | None = None
    source: str | None = None


class RelatedArticle(_Record):
    type: str | None = None  # related-article-type, e.g. "corrected-article"
    href: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    text: str | None = None


class SubArticle(_Record):
    """A sub-article or response (eLife decision letter, author response, PLoS peer review)."""

    id: str | None = None
    articleType: str | None = None
    title: str | None = None
    doi: str | None = None
    sections: list[Section] = Field(default_factory=list)


class FulltextArticle(_Record):
    ids: ArticleIds = Field(default_factory=ArticleIds)
    title: str | None = None
    articleType: str | None = None
    authors: list[Author] = Field(default_factory=list)
    affiliations: list[str] = Field(default_factory=list)
    journal: Journal = Field(default_factory=Journal)
    dates: Dates = Field(default_factory=Dates)
    keywords: list[str] = Field(default_factory=list)
    abstract: str | None = None  # main abstract only; structured sections as "Title: text" lines
    licenses: list[License] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)  # body, flat, document order
    backMatter: list[Section] = Field(
        default_factory=list
    )  # kind="back": ack, notes, footnotes, glossary, appendices
    tables: list[Table] = Field(default_factory=list)
    assets: list[Asset] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)  # only with include_references=True
    hasBody: bool = False  # False for front-matter-only records (publisher-restricted PMC)
    subArticles: list[SubArticle] = Field(default_factory=list)
    related: list[RelatedArticle] = Field(default_factory=list)
    characterCount: int = 0  # characters of all text fields above, for response budgeting
