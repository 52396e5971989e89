"""The text rendering of ``pubmed_fetch_fulltext``: headline counts, each article as markdown
with its text fenced as untrusted data (named after the tier that served it), then the
unavailable ids with every step of their report."""

from __future__ import annotations

from medlit.core.plugin import markup, rendering

from .models import (
    BudgetCut,
    ExtractedFulltext,
    FulltextInput,
    FulltextOutput,
    Section,
    StructuredFulltext,
    TableOut,
    TriedTier,
)
from .shape import article_id


def _heading(label: str | None, title: str | None) -> str:
    """'2.1 Methods'; the title alone when the label is missing or is the title."""
    if label and title and label != title:
        return f"{label} {title}"
    return title or label or "(untitled)"


def _render_pmc(art: StructuredFulltext) -> str:
    lines = [f"## {art.title or article_id(art)}"]
    ids = [f"PMCID {art.pmcId}" if art.pmcId else "", f"PMID {art.pmid}" if art.pmid else ""]
    ids += [f"DOI {art.doi}" if art.doi else "", f"via {art.viaSource}"]
    lines.append(" · ".join(i for i in ids if i) + _chain(art.triedTiers))
    body = _front_matter(art)
    for sec in art.sections:
        body += _render_section(sec)
    for t in art.tables or []:
        body += ["", *_render_table(t)]
    body += _back_lists(art)
    lines.append(rendering.fence("\n".join(body).strip(), art.viaSource))
    return "\n".join(lines)


def _front_matter(art: StructuredFulltext) -> list[str]:
    """Where it was published, who wrote it (the first twelve) and the abstract."""
    body: list[str] = []
    if art.journal and art.journal.title:
        j = art.journal
        where = ", ".join(x for x in (j.title, j.volume and f"vol {j.volume}", j.pages or j.elocationId) if x)
        year = art.publicationDate.year if art.publicationDate else None
        body.append(f"{where}{f' ({year})' if year else ''}")
    if art.authors:
        names = [
            a.collectiveName or " ".join(x for x in (a.givenNames, a.lastName, a.suffix) if x)
            for a in art.authors
        ]
        body.append("Authors: " + ", ".join(names[:12]) + (" et al." if len(names) > 12 else ""))
    if art.abstract:
        body += ["", "### Abstract", art.abstract]
    return body


def _section_text(text: str | None, budget_cut: BudgetCut | None) -> list[str]:
    """A section's text and, when the character budget shortened it, a marker saying so."""
    out = [text] if text else []
    if budget_cut:
        out.append(f"[… text {budget_cut} by the character budget]")
    return out


def _render_section(sec: Section) -> list[str]:
    head = _heading(sec.label, sec.title)
    body = ["", f"### {head}" + (" [back matter]" if sec.backMatter else "")]
    body += _section_text(sec.text, sec.budgetCut)
    for sub in sec.subsections or []:
        body += ["", f"#### {_heading(sub.label, sub.title)}"]
        body += _section_text(sub.text, sub.budgetCut)
    return body


def _back_lists(art: StructuredFulltext) -> list[str]:
    """Figures and supplementary files, then references."""
    body: list[str] = []
    if art.assets:
        body += ["", "### Figures and supplementary material"]
        body += [
            f"- {a.label or a.assetType}: {a.caption or ''}"
            + (f" (file {a.href})" if a.href else "")
            + (_front_note(a.sectionTitle) if a.frontMatter else "")
            for a in art.assets
        ]
    if art.references:
        body += ["", "### References"]
        body += [f"{r.label or '-'} {r.citation}" for r in art.references]
    return body


def _front_note(where: str | None) -> str:
    """Where a front-matter asset sits, e.g. ' [front matter: Abstract (graphical)]'."""
    return f" [front matter: {where}]" if where else " [front matter]"


def _render_table(t: TableOut) -> list[str]:
    lines = [f"**{t.label or 'Table'}**" + (f": {t.caption}" if t.caption else "")]
    if t.parts:  # several tables in one: each its own markdown table under its own header
        for n, part in enumerate(t.parts, 1):
            lines += ["", f"Part {n} of {len(t.parts)}" + (f": {part.caption}" if part.caption else "")]
            lines.append(_render_grid(part.rows, part.headerRowCount, part.unextractableReason))
    elif t.rows or t.unextractableReason:
        lines.append(_render_grid(t.rows, t.headerRowCount, t.unextractableReason))
    if t.footnotes:
        lines.append(t.footnotes)
    return lines


def _render_grid(rows: list[list[str]], header_rows: int, unextractable: str | None) -> str:
    """A grid as a markdown table, its header rows joined per column; else why it has no cells."""
    if not rows:
        why = markup.UNEXTRACTABLE_REASONS.get(unextractable or "", unextractable)
        return f"(cells not extractable [{unextractable}]: {why})"
    width = max(len(r) for r in rows)
    head_rows = rows[:header_rows]
    header = [" / ".join(dict.fromkeys(r[c] for r in head_rows if c < len(r))) for c in range(width)]
    header = header if head_rows else [f"col {c + 1}" for c in range(width)]
    return rendering.md_table(header, [r + [""] * (width - len(r)) for r in rows[header_rows:]])


def _render_text(art: ExtractedFulltext) -> str:
    head = f"## {art.title or art.doi}\nDOI {art.doi} · {art.contentFormat} from {art.sourceUrl} (via {art.viaSource})"
    return head + _chain(art.triedTiers) + "\n" + rendering.fence(art.content, art.viaSource)


def _chain(tried: list[TriedTier] | None) -> str:
    """' (pmc: miss -> europepmc: hit)': how the chain reached the article."""
    if not tried or len(tried) < 2:
        return ""
    return " (" + " -> ".join(f"{t.tier}: {t.outcome}" for t in tried) + ")"


def render_fulltext(out: FulltextOutput, args: FulltextInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "fulltext")
    parts = [
        f"**{out.totalReturned} full-text article(s)**"
        + (f", {len(out.unavailable)} id(s) unavailable" if out.unavailable else "")
        + (f", {out.deferred.deferredCount} deferred" if out.deferred else "")
        + (f", {len(out.overLimit.ids)} over the per-call limit" if out.overLimit else "")
    ]
    if out.notice:
        parts.append(f"Note: {out.notice}")
    for art in out.articles:
        parts.append(_render_pmc(art) if isinstance(art, StructuredFulltext) else _render_text(art))
    if out.unavailable:
        parts.append("## Unavailable")
        for u in out.unavailable:
            tiers = "; ".join(
                f"{t.tier}: {t.outcome}" + (f" ({t.detail})" if t.detail else "") for t in u.triedTiers
            )
            parts.append(f"- {u.idType} {u.id}: **{u.reason}** — {tiers}")
            if u.institutionalLink:
                parts[-1] += f"\n  Library access: {u.institutionalLink}"
    return "\n\n".join(parts)
