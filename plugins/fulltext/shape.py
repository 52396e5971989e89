"""Shaping full text for ``pubmed_fetch_fulltext``: tier payloads to output records, the
``sections`` filter, ``maxSections`` and the character budgets with their ledger.

Order of work per article: convert -> filter (`sections`) -> drop tables/assets/references as
asked -> cap (`maxSections`) -> budget (`maxCharacters`, `maxCharactersPerSection`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from medlit.core.plugin import ArticleRef, ExtractedTextArticle, markup

from .models import (
    ArticleLedger,
    AssetOut,
    Author,
    ExtractedFulltext,
    Journal,
    LicenseOut,
    OmittedSection,
    PublicationDate,
    ReferenceOut,
    Section,
    SectionLedger,
    StructuredFulltext,
    Subsection,
    SubsectionLedger,
    TableOut,
    TablePartOut,
)

_Float = TypeVar("_Float", TableOut, AssetOut)
OUTLINE_FLOOR = 100  # a part whose outline share is under this returns heading-only
_ASSET_TYPE: dict[str, Literal["figure", "supplementary-material", "media"]] = {
    "figure": "figure",
    "supplementary": "supplementary-material",
    "media": "media",
}
_MARKER_WORDS = ("[Figure", "[Supplementary", "[Media", "[Video", "[Audio")


# A record's landing page for an identifier kind, from the plugins that declare one
# (PluginInfo.id_links): ``link("pmid", "123")``.
IdLink = Callable[[str, str | None], str | None]


def no_link(kind: str, value: str | None) -> str | None:
    return None


# -- conversion -------------------------------------------------------------------------------
def _date(value: str | None) -> PublicationDate | None:
    if not value:
        return None
    parts = value.split("-")
    return PublicationDate(
        year=parts[0] or None,
        month=parts[1] if len(parts) > 1 else None,
        day=parts[2] if len(parts) > 2 else None,
    )


def _strip_asset_markers(text: str) -> str:
    lines = [ln for ln in text.split("\n") if not ln.strip().startswith(_MARKER_WORDS)]
    out = "\n".join(lines)
    while "\n\n\n" in out:
        out = out.replace("\n\n\n", "\n\n")
    return out.strip()


def to_structured(
    art: markup.FulltextArticle,
    via: str,
    *,
    source: str = "",
    include_assets: bool = True,
    source_ids: Mapping[str, str] | None = None,
    link: IdLink = no_link,
    ref: ArticleRef | None = None,
) -> StructuredFulltext:
    """A JATS record as the tool's structured record (sections nested two levels deep), labelled
    with the serving tier's ``source`` and carrying the source's own record ids (``source_ids``, as
    the tier declared them); ids the record lacks come from the article's ``ref`` (given or learned
    along the chain), as for extracted text, and the landing-page links follow them."""
    ids = art.ids
    known = ref or ArticleRef(key="")
    pmcid, pmid, doi = ids.pmcid or known.pmcid, ids.pmid or known.pmid, ids.doi or known.doi
    journal = _journal_out(art)
    return StructuredFulltext(
        source=source or via,
        viaSource=via,
        sourceIds={k: str(v) for k, v in (source_ids or {}).items() if v} or None,
        pmcId=pmcid,
        pmid=pmid,
        doi=doi,
        title=art.title,
        articleType=art.articleType,
        authors=_authors_out(art) or None,
        affiliations=art.affiliations or None,
        journal=journal if journal.model_dump(exclude_none=True) else None,
        publicationDate=_date(art.dates.published),
        keywords=art.keywords or None,
        abstract=art.abstract,
        licenses=[
            LicenseOut(type=lic.type, urls=[lic.href] if lic.href else None, text=lic.text)
            for lic in art.licenses
        ]
        or None,
        sections=_sections_out(art, include_assets),
        tables=[_table_out(t) for t in art.tables] or None,
        assets=_assets_out(art) or None,
        references=[
            ReferenceOut(id=r.id, label=r.label, citation=r.text, pmid=r.pmid, doi=r.doi)
            for r in art.references
        ]
        or None,
        pmcUrl=link("pmcid", pmcid),
        pubmedUrl=link("pmid", pmid),
    )


def _sections_out(art: markup.FulltextArticle, include_assets: bool) -> list[Section]:
    """Body then back matter, two levels deep: a deeper section becomes a subsection of the
    section before it, unless that one is on the other side of the body/back boundary."""
    sections: list[Section] = []
    for sec in [*art.sections, *art.backMatter]:
        text = sec.text if include_assets else _strip_asset_markers(sec.text)
        back = True if sec.kind == "back" else None
        if sec.level >= 2 and sections and sections[-1].backMatter == back:
            parent = sections[-1]
            sub = Subsection(title=sec.title, label=sec.label, text=text)
            parent.subsections = (parent.subsections or []) + [sub]
        else:
            sections.append(Section(title=sec.title or None, label=sec.label, text=text, backMatter=back))
    return sections


def _journal_out(art: markup.FulltextArticle) -> Journal:
    j = art.journal
    return Journal(
        title=j.title,
        issn=j.issn[0] if j.issn else None,
        volume=j.volume,
        issue=j.issue,
        pages=j.pages,
        elocationId=j.elocationId,
    )


def _authors_out(art: markup.FulltextArticle) -> list[Author]:
    return [
        Author(collectiveName=a.name, orcid=a.orcid)
        if a.collective
        else Author(lastName=a.surname, givenNames=a.givenNames, suffix=a.suffix, orcid=a.orcid)
        for a in art.authors
    ]


def _assets_out(art: markup.FulltextArticle) -> list[AssetOut]:
    return [
        AssetOut(
            assetType=_ASSET_TYPE.get(a.kind, "media"),
            id=a.id,
            label=a.label,
            caption=a.caption,
            href=a.href,
            sectionTitle=next((p for p in reversed(a.section) if p), None),
            frontMatter=a.frontMatter or None,
        )
        for a in art.assets
    ]


def to_extracted(
    art: ExtractedTextArticle, ref: ArticleRef, via: str, link: IdLink = no_link
) -> ExtractedFulltext | None:
    """Extracted text as the tool's extracted record, labelled with the serving tier's source; ids
    the payload lacks come from the article's ref (given or learned along the chain). None when no
    DOI is known at all."""
    doi = art.doi or ref.doi
    if not doi:
        return None
    pmid = art.pmid or ref.pmid
    return ExtractedFulltext(
        source=art.source or via,
        viaSource=via,
        contentFormat=art.content_format,
        doi=doi,
        sourceUrl=art.source_url,
        content=art.content,
        pmid=pmid,
        pmcId=art.pmcid or ref.pmcid,
        title=art.title,
        year=art.year,
        journalName=art.journal,
        license=art.license,
        version=art.version,
        hostType=art.host_type,
        wordCount=art.word_count,
        totalPages=art.page_count,
        pubmedUrl=link("pmid", pmid),
    )


def _table_out(t: markup.Table) -> TableOut:
    parts = [
        TablePartOut(
            caption=p.caption,
            headerRowCount=p.headerRows,
            columnCount=p.columnCount,
            rows=p.rows,
            unextractableReason=p.unextractableReason,
        )
        for p in t.parts
    ]
    return TableOut(
        id=t.id,
        label=t.label,
        caption=t.caption,
        footnotes="\n".join(t.footnotes) or None,
        sectionTitle=next((p for p in reversed(t.section) if p), None),
        headerRowCount=t.headerRows,
        rows=t.rows,
        unextractableReason=t.unextractableReason,
        parts=parts or None,
    )


def article_id(art: StructuredFulltext | ExtractedFulltext) -> str:
    """The id ledgers name an article by: PMCID, PMID, DOI, whichever it carries first."""
    ids = getattr(art, "sourceIds", None) or {}
    return art.pmcId or art.pmid or art.doi or next(iter(ids.values()), None) or "article"


# -- sections filter --------------------------------------------------------------------------
def _keep_floats(art: StructuredFulltext, keep: Callable[[str | None], bool]) -> None:
    """Tables and assets follow their sections: keep those whose section title ``keep`` accepts."""
    if art.tables:
        art.tables = [t for t in art.tables if keep(t.sectionTitle)] or None
    if art.assets:
        art.assets = [a for a in art.assets if keep(a.sectionTitle)] or None


def _matches(title: str | None, terms: Sequence[str]) -> bool:
    low = (title or "").lower()
    return bool(low) and any(t.lower() in low for t in terms)


def filter_sections(art: StructuredFulltext, terms: Sequence[str]) -> bool:
    """Keep sections whose title (at any depth) contains a term; parents of matching
    subsections stay as breadcrumbs. Tables/assets follow their sections. Returns True when
    anything matched."""
    kept: list[Section] = []
    keep_titles: set[str] = set()  # titles (top-level or subsection) whose content survives
    for sec in art.sections:
        if _matches(sec.title, terms):
            kept.append(sec)
            keep_titles.add(sec.title or "")
            keep_titles.update(s.title or "" for s in sec.subsections or [])
            continue
        subs = [s for s in sec.subsections or [] if _matches(s.title, terms)]
        if subs:
            kept.append(sec.model_copy(update={"text": "", "subsections": subs}))
            keep_titles.update(s.title or "" for s in subs)
    art.sections = kept
    keep_titles.discard("")
    _keep_floats(art, lambda title: title in keep_titles)
    return bool(kept)


def cap_sections(art: StructuredFulltext, max_sections: int) -> list[OmittedSection]:
    """Keep the first ``max_sections`` top-level sections; tables/assets of dropped ones go too."""
    if len(art.sections) <= max_sections:
        return []
    dropped = art.sections[max_sections:]
    art.sections = art.sections[:max_sections]
    gone = {s.title for s in dropped} | {sub.title for s in dropped for sub in s.subsections or []}
    kept = {s.title for s in art.sections} | {sub.title for s in art.sections for sub in s.subsections or []}
    gone -= kept
    _keep_floats(art, lambda title: title not in gone)
    return [OmittedSection(title=s.title, label=s.label) for s in dropped]


# -- budgets ----------------------------------------------------------------------------------
def cut_words(text: str, allowance: float) -> str:
    """``text`` shortened to at most ``allowance`` characters, ending at a word boundary.
    Text that is one unbroken token is cut at the allowance; text whose first word does not fit
    comes back empty."""
    if allowance >= len(text):
        return text
    n = max(0, int(allowance))
    if n == 0:
        return ""
    if not any(ch.isspace() for ch in text):
        return text[:n]
    head = text[: n + 1]
    cut = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    if cut <= 0:
        return ""
    return text[:cut].rstrip()


def table_cost(t: TableOut) -> int:
    # every part counts; `rows` then repeats one of them, which is not read twice
    grids = [p.rows for p in t.parts] if t.parts else [t.rows]
    return (
        len(t.label or "")
        + len(t.caption or "")
        + len(t.footnotes or "")
        + sum(len(p.caption or "") for p in t.parts or [])
        + sum(len(c) for rows in grids for row in rows for c in row)
    )


def asset_cost(a: AssetOut) -> int:
    return len(a.label or "") + len(a.caption or "") + len(a.href or "")


def section_size(sec: Section) -> int:
    return len(sec.text) + sum(len(s.text) for s in sec.subsections or [])


def _name(label: str | None, ident: str | None, word: str, n: int) -> str:
    if label and label.strip().isdigit() and word == "supplementary":
        return f"Supplementary material {label.strip()}"
    return label or ident or f"{word} {n}"


@dataclass
class BudgetReport:
    ledger: ArticleLedger
    omitted_sections: int = 0
    sections: list[SectionLedger] = field(default_factory=list)


def _fair_shares(needs: Sequence[int], budget: float, floor: float) -> list[int]:
    """Split ``budget`` evenly over parts with ``needs``, giving what a short part does not need to
    the others. A part whose share would be under ``floor`` (and under its need) gets 0 (heading
    only), emptying the last such part first, and the split is redone."""
    active = [i for i, n in enumerate(needs) if n > 0]
    while True:
        alloc = [0] * len(needs)
        remaining, left = budget, len(active)
        for i in sorted(active, key=lambda i: needs[i]):
            share = remaining / left if left else 0
            give = needs[i] if needs[i] <= share else share
            alloc[i] = needs[i] if give >= needs[i] else math.floor(give)
            remaining -= alloc[i]
            left -= 1
        starved = [i for i in active if alloc[i] < needs[i] and alloc[i] < floor]
        if not starved:
            return alloc
        active.remove(starved[-1])


def _apply(sec: Section, own: float, sub_allow: Sequence[float]) -> None:
    orig = sec.text
    sec.text = cut_words(sec.text, own)
    if sec.text != orig:
        sec.budgetCut = "emptied" if not sec.text else "shortened"
    for sub, allow in zip(sec.subsections or [], sub_allow, strict=False):
        before = sub.text
        sub.text = cut_words(sub.text, allow)
        if sub.text != before:
            sub.budgetCut = "emptied" if not sub.text else "shortened"


def _ledger_for(sec: Section, orig_own: int, orig_subs: list[int]) -> SectionLedger:
    subs = sec.subsections or []
    returned = len(sec.text) + sum(len(s.text) for s in subs)
    original = orig_own + sum(orig_subs)
    entry = SectionLedger(
        title=sec.title,
        label=sec.label,
        originalCharacters=original,
        returnedCharacters=returned,
        truncated=returned < original,
    )
    if entry.truncated and orig_subs:
        entry.subsections = [
            SubsectionLedger(
                title=s.title,
                label=s.label,
                originalCharacters=o,
                returnedCharacters=len(s.text) if s is not None else 0,
                truncated=(len(s.text) if s is not None else 0) < o,
            )
            for s, o in zip(subs, orig_subs, strict=False)
        ]
    return entry


def _truncate_group(
    sections: list[Section], remaining: float, per_section: float, report: BudgetReport
) -> tuple[list[Section], float]:
    """Document-order filling: early sections stay whole, later ones are cut or dropped."""
    kept: list[Section] = []
    for sec in sections:
        orig_own = len(sec.text)
        orig_subs = [len(s.text) for s in sec.subsections or []]
        size = orig_own + sum(orig_subs)
        if size == 0:
            kept.append(sec)
            report.sections.append(_ledger_for(sec, 0, orig_subs))
            continue
        allow = min(remaining, per_section)
        if allow < 1:
            report.omitted_sections += 1
            report.sections.append(
                SectionLedger(
                    title=sec.title,
                    label=sec.label,
                    originalCharacters=size,
                    returnedCharacters=0,
                    truncated=True,
                )
            )
            continue
        own = min(allow, orig_own)
        sec_text_cut = cut_words(sec.text, own)
        left = allow - len(sec_text_cut)
        sub_allow: list[float] = []
        for n in orig_subs:
            sub_allow.append(left if left >= 1 else 0)
            left -= min(n, max(left, 0))
        _apply(sec, own, sub_allow)
        # subsections the budget emptied are dropped in truncate mode
        subs_before = sec.subsections or []
        ledger = _ledger_for(sec, orig_own, orig_subs)
        survivors = [s for s, n in zip(subs_before, orig_subs, strict=False) if s.text or n == 0]
        report.omitted_sections += sum(
            1 for s, n in zip(subs_before, orig_subs, strict=False) if n and not s.text
        )
        sec.subsections = survivors or None
        used = ledger.returnedCharacters
        remaining -= used
        if used == 0:
            report.omitted_sections += 1
            report.sections.append(ledger)
            continue
        kept.append(sec)
        report.sections.append(ledger)
    return kept, remaining


def _outline_group(sections: list[Section], budget: float, per_section: float, report: BudgetReport) -> float:
    """Every heading stays; the budget is split evenly per level. Returns what is left."""
    floor = min(OUTLINE_FLOOR, per_section)
    sizes = [section_size(s) for s in sections]
    needs = [min(n, per_section) if math.isfinite(per_section) else n for n in sizes]
    needs_int = [int(n) for n in needs]
    shares = _fair_shares(needs_int, budget, floor) if math.isfinite(budget) else needs_int
    used_total = 0
    for sec, share in zip(sections, shares, strict=True):
        orig_own = len(sec.text)
        orig_subs = [len(s.text) for s in sec.subsections or []]
        parts = [orig_own, *orig_subs]
        inner = _fair_shares(parts, share, floor) if share < sum(parts) else parts
        _apply(sec, inner[0], inner[1:])
        ledger = _ledger_for(sec, orig_own, orig_subs)
        used_total += ledger.returnedCharacters
        report.sections.append(ledger)
    return budget - used_total


def _spend(
    items: Sequence[_Float],
    remaining: float,
    budgeted: bool,
    cost: Callable[[_Float], int],
    name: Callable[[_Float, int], str],
) -> tuple[list[_Float], list[str], float]:
    """Tables or assets in order while the budget lasts (all when not ``budgeted``): the kept ones,
    the names of those left out (every one after the first that does not fit) and what is left."""
    if not budgeted:
        return list(items), [], remaining
    kept: list[_Float] = []
    omitted: list[str] = []
    for n, item in enumerate(items, 1):
        price = cost(item)
        if omitted or price > remaining:
            omitted.append(name(item, n))
            continue
        kept.append(item)
        remaining -= price
    return kept, omitted, remaining


def apply_budget_structured(
    art: StructuredFulltext,
    max_chars: int | None,
    per_section: int | None,
    mode: str,
) -> BudgetReport | None:
    """Spend ``max_chars`` on body sections, then tables, assets, back matter. Returns the
    ledger entry when anything was removed, else None."""
    if max_chars is None and per_section is None:
        return None
    budget: float = max_chars if max_chars is not None else math.inf
    cap: float = per_section if per_section is not None else math.inf
    body = [s for s in art.sections if not s.backMatter]
    back = [s for s in art.sections if s.backMatter]
    tables = art.tables or []
    assets = art.assets or []
    original = sum(map(section_size, art.sections))
    if max_chars is not None:
        original += sum(map(table_cost, tables)) + sum(map(asset_cost, assets))
    report = BudgetReport(
        ledger=ArticleLedger(
            id=article_id(art), source=art.source, originalCharacters=0, returnedCharacters=0
        )
    )
    if mode == "outline":
        remaining = _outline_group(body, budget, cap, report)
        kept_body = body
    else:
        kept_body, remaining = _truncate_group(body, budget, cap, report)
    kept_tables, omitted_tables, remaining = _spend(
        tables, remaining, max_chars is not None, table_cost, lambda t, n: _name(t.label, t.id, "table", n)
    )
    kept_assets, omitted_assets, remaining = _spend(
        assets,
        remaining,
        max_chars is not None,
        asset_cost,
        lambda a, n: _name(
            a.label, a.id, "supplementary" if a.assetType == "supplementary-material" else "asset", n
        ),
    )
    if mode == "outline":
        _outline_group(back, max(remaining, 0), cap, report)
        kept_back = back
    else:
        kept_back, remaining = _truncate_group(back, max(remaining, 0), cap, report)
    art.sections = kept_body + kept_back
    art.tables = kept_tables or None
    art.assets = kept_assets or None
    returned = sum(map(section_size, art.sections))
    if max_chars is not None:
        returned += sum(map(table_cost, kept_tables)) + sum(map(asset_cost, kept_assets))
    if returned >= original:
        return None
    led = report.ledger
    led.originalCharacters, led.returnedCharacters = original, returned
    led.sections = report.sections or None
    if omitted_tables:
        led.omittedTables, led.omittedTableNames = len(omitted_tables), omitted_tables
    if omitted_assets:
        led.omittedAssets, led.omittedAssetNames = len(omitted_assets), omitted_assets
    return report


def apply_budget_text(art: ExtractedFulltext, max_chars: int | None) -> BudgetReport | None:
    """Best-effort text has one body: cut it at a word boundary."""
    if max_chars is None or len(art.content) <= max_chars:
        return None
    original = len(art.content)
    art.content = cut_words(art.content, max_chars)
    art.budgetCut = "shortened" if art.content else "emptied"
    return BudgetReport(
        ledger=ArticleLedger(
            id=article_id(art),
            source=art.source,
            originalCharacters=original,
            returnedCharacters=len(art.content),
        )
    )
