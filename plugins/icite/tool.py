"""pubmed_fetch_citation_metrics: NIH iCite metrics for up to 200 PMIDs per call, in one request.

Requests per call: one GET ``pubs?pmids=<the first 200 distinct>&fl=<mapped fields>`` (none when
every record is in the persistent cache). PMIDs past the first 200 are named in ``overLimit``,
never fetched; PMIDs iCite leaves out of its answer are named in ``unavailablePmids``. A record for
a PMID the call did not ask for fails the call: merging it would attach one paper's metrics to
another's request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from medlit.core.plugin import Response, ToolContext, errors, outputs, rendering

from .models import (
    CitationMetrics,
    CitationMetricsInput,
    CitationMetricsOutput,
    MetricsDeferred,
    OverLimit,
)
from .parse import envelope_records, pmid_of, read_record
from .service import BATCH, FL, PATH

NAME = "pubmed_fetch_citation_metrics"
NAMED = 20  # PMIDs a notice names per category; the records carry every status anyway
TITLE_CHARS = 64  # title and journal per table row: the table stays compact (JSON has them whole)


def _answer(resp: Response) -> list[Mapping[str, Any]]:
    return envelope_records(resp.json())


def match_records(records: Sequence[Mapping[str, Any]], asked: Sequence[str]) -> dict[str, Mapping[str, Any]]:
    """Each asked PMID's record (the first, if iCite repeats one). A record naming no asked PMID
    raises ``icite_unrequested_record``."""
    wanted = set(asked)
    found: dict[str, Mapping[str, Any]] = {}
    strays: list[str] = []
    for rec in records:
        pmid = pmid_of(rec)
        if pmid is None or pmid not in wanted:
            strays.append(pmid or "(no PMID)")  # never iCite's own text: it would reach the model unfenced
            continue
        found.setdefault(pmid, rec)
    if strays:
        raise errors.upstream_error(
            "icite",
            "unrequested_record",
            f"NIH iCite answered with {len(strays)} record(s) for PMIDs this call did not ask for "
            f"({', '.join(strays[:10])}{', ...' if len(strays) > 10 else ''}); the answer was not used, "
            "so no metrics are attached to the wrong article.",
            recovery="iCite gives the same answer for the same PMID list: retry with fewer PMIDs (or one at a "
            "time) to isolate the one it mismatches, and check it with pubmed_fetch_articles.",
            retryable=False,
            unrequested=strays[:50],
        )
    return found


def _named(pmids: list[str]) -> str:
    more = f" and {len(pmids) - NAMED} more" if len(pmids) > NAMED else ""
    return ", ".join(pmids[:NAMED]) + more


def _notice(
    records: list[CitationMetrics], unavailable: list[str], over: list[str], deferred: MetricsDeferred | None
) -> str | None:
    parts: list[str] = []
    if unavailable:
        parts.append(
            f"iCite has no record for {len(unavailable)} PMID(s) ({_named(unavailable)}): see unavailablePmids "
            "(iCite omits them silently; pubmed_fetch_articles tells whether PubMed has them)."
        )
    by: dict[str, list[str]] = {}
    for r in records:
        by.setdefault(r.scoring, []).append(r.pmid)
    if by.get("not-scored"):
        parts.append(f"Not yet scored by iCite (no metrics): {_named(by['not-scored'])}.")
    if by.get("no-rcr"):
        parts.append(f"No RCR (too recent or too few citations to benchmark): {_named(by['no-rcr'])}.")
    if by.get("provisional"):
        parts.append(
            f"Provisional RCR (recent papers; it can change as citations accrue): {_named(by['provisional'])}."
        )
    if over:
        parts.append(
            f"{len(over)} PMID(s) past the {BATCH}-per-call limit were not fetched: call again with "
            "overLimit.pmids."
        )
    if deferred is not None:
        parts.append(
            f"maxResponseCharacters={deferred.maxResponseCharacters:,} kept {deferred.returnedCharacters:,} "
            f"characters; {deferred.deferredCount} record(s) deferred whole: call again with pmids=deferred.ids "
            f"(the next one needs maxResponseCharacters >= {deferred.nextDeferredCharacters:,})."
        )
    return " ".join(parts) or None


async def fetch_metrics(args: CitationMetricsInput, ctx: ToolContext) -> CitationMetricsOutput:
    asked, over = args.pmids[:BATCH], args.pmids[BATCH:]
    resp = await ctx.client("icite").get(
        PATH, {"pmids": ",".join(asked), "fl": FL}, expect="json", parse=_answer
    )
    found = match_records(resp.parsed, asked)
    records = [read_record(found[p], p) for p in asked if p in found]
    unavailable = [p for p in asked if p not in found]
    split = outputs.apply_budget(records, args.maxResponseCharacters, lambda r: r.pmid, outputs.json_size)
    deferred = MetricsDeferred.from_split(split, args.maxResponseCharacters)
    return CitationMetricsOutput(
        records=split.kept,
        totalReturned=len(split.kept),
        unavailablePmids=unavailable,
        overLimit=OverLimit(pmids=over, limit=BATCH) if over else None,
        deferred=deferred,
        truncated=True if deferred is not None else None,
        notice=_notice(records, unavailable, over, deferred),
    )


# ----------------------------------------------------------------------------- rendering


def _num(value: float | None, digits: int = 2) -> str:
    """Rounded, trailing zeros dropped (``1.50`` -> ``1.5``, ``1.00`` -> ``1``); ``—`` for none."""
    if value is None:
        return "—"
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _rcr(r: CitationMetrics) -> str:
    if r.relativeCitationRatio is None:
        return "not scored" if r.scoring == "not-scored" else "none"
    return _num(r.relativeCitationRatio) + (" (prov.)" if r.rcrProvisional else "")


def _hamc(r: CitationMetrics) -> str:
    if r.human is None and r.animal is None and r.molecularCellular is None:
        return "—"
    return "/".join(_num(x) for x in (r.human, r.animal, r.molecularCellular))


_YN = {True: "Y", False: "N", None: "?"}


def _clinical(r: CitationMetrics) -> str:
    cites = "?" if r.clinicalCitationCount is None else str(r.clinicalCitationCount)
    return f"{_YN[r.isClinical]}/{cites}"


def _title(r: CitationMetrics) -> str:
    text = f"{r.title or ''} ({r.journal})" if r.journal else r.title or ""
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


def render_metrics(out: CitationMetricsOutput, args: CitationMetricsInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "icite")
    asked = min(len(args.pmids), BATCH)
    lines = [
        f"**{out.totalReturned} iCite record(s)** for {asked} PMID(s) fetched ({len(args.pmids)} distinct given)."
    ]
    if out.notice:
        lines.append(f"Notice: {out.notice}")
    if out.unavailablePmids:
        lines.append("Unavailable: " + ", ".join(out.unavailablePmids))
    if out.overLimit:
        lines.append("Over limit: " + ", ".join(out.overLimit.pmids))
    if out.deferred:
        lines.append("Deferred: " + ", ".join(out.deferred.ids))
    if out.records:
        rows = [
            [
                r.pmid,
                r.year or "",
                _rcr(r),
                _num(r.nihPercentile, 1),
                "—" if r.citationCount is None else r.citationCount,
                _num(r.citationsPerYear),
                _num(r.expectedCitationsPerYear),
                _num(r.fieldCitationRate),
                _num(r.apt),
                _hamc(r),
                _clinical(r),
                _YN[r.isResearchArticle],
                _title(r),
            ]
            for r in out.records
        ]
        headers = ["PMID", "Year", "RCR", "%ile", "Cites", "/yr", "Exp/yr", "FCR", "APT", "H/A/MC", "Clin",
                   "Res", "Title (journal)"]  # fmt: skip
        lines += [
            "",
            rendering.fence(rendering.md_table(headers, rows), "icite"),
            "",
            "RCR: relative citation ratio (1 = median NIH-funded paper of its field and year; prov. = "
            "provisional); %ile: NIH percentile; /yr, Exp/yr: citations per year, actual and expected; FCR: field "
            "citation rate; APT: approximate potential to translate; H/A/MC: human/animal/molecular-cellular "
            "shares; Clin: clinical article (Y/N) / clinical citations; Res: research article. iCite does not "
            "flag retractions: check pubmed_fetch_articles before relying on a record.",
        ]
    return rendering.cap_text("\n".join(lines), "Set maxResponseCharacters or fetch fewer PMIDs per call.")
