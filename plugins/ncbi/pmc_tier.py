"""The PMC full-text tier: one ``efetch db=pmc`` for every PMCID of the call, read as JATS.

Outcomes per article: ``hit`` (a body was read), ``no-body`` (front matter only: the publisher
does not allow the full text in XML), ``miss`` (efetch silently omitted the id: not in PMC),
``parse-failed`` (the article, or the whole answer, could not be read). A failed request raises
and the chain turns it into ``service-error``. A DOI or PMID read from the record is carried to
the :class:`ArticleRef` so later tiers can use it. A hit carries a
:class:`~medlit.core.plugin.StructuredArticle`; core shapes it into the tool's record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from medlit.core.plugin import (
    ArticleRef,
    IdKind,
    Response,
    StructuredArticle,
    TierOptions,
    TierResult,
    ToolContext,
    identifiers,
    markup,
)

BATCH_SIZE = 200  # efetch ids per request


def _digits(pmcid: str) -> str:
    return pmcid.upper().removeprefix("PMC")


def _root(resp: Response) -> Any:
    """The answer parsed inside the client's retry loop: a garbled or truncated body is asked
    again instead of failing every article of the batch."""
    return markup.parse_xml(resp.body)


def _articles(root: Any, include_references: bool) -> tuple[list[markup.FulltextArticle], list[str]]:
    """Read every <article> separately, so one broken article does not cost the others (its own
    bad XML is ``parse-failed``). Returns the articles read and a description of each that failed."""
    if markup.localname(root) == "article":
        elements = [root]
    else:
        # lxml's own tag filter ("{*}": any namespace or none), not a Python test of every one
        # of the set's ~20,000 elements: a tenth of a ten-article call went there
        elements = list(root.iter("{*}article"))
        # nested <article> (sub-articles are <sub-article>, but be safe): keep outermost only
        outer = set(elements)
        elements = [el for el in elements if not any(a in outer for a in el.iterancestors())]
    read: list[markup.FulltextArticle] = []
    failed: list[str] = []
    for el in elements:
        try:
            read.extend(markup.read_jats(el, include_references=include_references))
        except Exception as exc:  # the reader is pure; a failure means a record we cannot read
            failed.append(f"{type(exc).__name__}: {exc}")
    return read, failed


async def resolve_pmc(
    refs: Sequence[ArticleRef], ctx: ToolContext, options: TierOptions
) -> dict[str, TierResult]:
    """Fetch and read the PMC records of ``refs`` (each carries a PMCID)."""
    include_refs = options.include_references
    by_pmcid: dict[str, list[ArticleRef]] = {}
    for ref in refs:
        if ref.pmcid:
            by_pmcid.setdefault(ref.pmcid.upper(), []).append(ref)
    order = list(by_pmcid)
    found: dict[str, markup.FulltextArticle] = {}
    unreadable: dict[str, str] = {}  # pmcid -> why its answer could not be read
    for batch in identifiers.batches(order, BATCH_SIZE):
        # An answer that stays unreadable through the retries fails the request: the chain
        # reports it as this tier's service error (with its reason), not as the articles' fault.
        resp = await ctx.client("ncbi").post(
            "efetch.fcgi",
            {"db": "pmc", "id": ",".join(_digits(p) for p in batch), "retmode": "xml"},
            expect="xml",
            parse=_root,
        )
        articles, failed = _articles(resp.parsed, include_refs)
        unmatched: list[markup.FulltextArticle] = []
        for art in articles:
            pid = (art.ids.pmcid or "").upper()
            if pid in by_pmcid and pid not in found:
                found[pid] = art
            else:
                unmatched.append(art)
        missing = [p for p in batch if p not in found]
        # A record that names no PMCID (rare) can still be matched when exactly one id is open.
        if len(unmatched) == 1 and len(missing) == 1 and not unmatched[0].ids.pmcid:
            found[missing[0]] = unmatched[0]
            missing = []
        if failed:  # we cannot tell which id a record we could not read belonged to
            unreadable.update(
                {p: f"a record in the PMC answer could not be read ({failed[0]})" for p in missing}
            )
    out: dict[str, TierResult] = {}
    for pid in order:
        for ref in by_pmcid[pid]:
            if pid in unreadable:
                out[ref.key] = TierResult("parse-failed", f"{pid}: {unreadable[pid]}")
            else:
                out[ref.key] = _result(ref, pid, found.get(pid))
    return out


def _result(ref: ArticleRef, pid: str, art: markup.FulltextArticle | None) -> TierResult:
    if art is None:
        return TierResult("miss", f"PMC has no record for {pid}")
    # identifiers carried forward for later tiers
    found: dict[IdKind, str | None] = {"doi": art.ids.doi, "pmid": art.ids.pmid}
    ids = {k: v for k, v in found.items() if v}
    if not art.hasBody:
        return TierResult(
            "no-body",
            f"{pid} is in PMC with front matter only (the publisher does not allow the full text in XML)",
            ids=ids,
        )
    return TierResult("hit", "", StructuredArticle(art), ids=ids)
