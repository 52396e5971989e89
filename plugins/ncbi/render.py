"""Rendering pieces the NCBI tools share: History handle lines, record text blocks, the notices
about missing records and paging ceilings, and links to PubMed and PMC."""

from __future__ import annotations

from typing import Any

from medlit.core.plugin import rendering

from .inputs import PAGING_CEILING, PAGING_CEILING_DBS, HistoryHandle

PUBMED_URL = "https://pubmed.ncbi.nlm.nih.gov/"
PMC_URL = "https://pmc.ncbi.nlm.nih.gov/articles/"


def history_line(h: HistoryHandle | None) -> str:
    if h is None:
        return ""
    return f"History handle (pass unchanged as `history`): `{h.model_dump_json()}`"


def paging_advice(db: str, total: int) -> str | None:
    if db in PAGING_CEILING_DBS and total > PAGING_CEILING:
        return (
            f"{total:,} records match, but only the first {PAGING_CEILING:,} of a {db} result set can be paged "
            "through. Segment the search by date (mindate/maxdate with datetype='pdat', e.g. one year per "
            "search) to reach the rest."
        )
    return None


def no_match_notice(suggestion: str | None) -> str:
    return (
        "No records matched."
        + (f" NCBI suggests: {suggestion!r}." if suggestion else "")
        + " Check the spelling and [field] tags, or broaden the query."
    )


def fetch_notice(db: str, requested: int, found: int | None, by_uid: bool) -> str | None:
    if found == 0:
        return "No records came back: " + (
            "the ids are unknown to this database (EFetch silently omits them)."
            if by_uid
            else "the handle may have expired (re-run eutils_esearch) or retstart is past the end of the set."
        )
    if by_uid and found is not None and found < requested:
        return (
            f"{requested - found} of {requested} ids returned no record (unknown ids are silently omitted)."
        )
    return None


FETCH_HINT = (
    "Ask for fewer records per call (retmax, fewer uids) and page with retstart on a history handle, or use "
    "eutils_esummary when titles are enough."
)


def render_records(out: Any, args: Any, head: str, source: str) -> str:
    if args.response_format == "json":
        return rendering.cap_text(rendering.as_json(out, source), FETCH_HINT)
    parts = [head]
    if out.notice:
        parts.append(out.notice)
    parts.append(rendering.fence(out.text, source) if out.text else "(no record text)")
    if out.has_more and out.next_offset is not None:
        parts.append(f"Next page: retstart={out.next_offset} with the same history handle.")
    return rendering.cap_text("\n\n".join(parts), FETCH_HINT)


def pubmed_url(pmid: str) -> str:
    return f"{PUBMED_URL}{pmid}/"


def pmc_url(pmcid: str) -> str:
    return f"{PMC_URL}{pmcid}/"
