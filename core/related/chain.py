"""Asking the related-article providers in order until one answers.

Each provider runs under its own plugin's context (its own clients, settings and cache), under
its own timeout and never past the call's budget. A provider whose plugin is not active is listed
as ``not-queried`` with the variable that would enable it; one that raises is ``failed`` with its
reason; one that knows no related article (``total == 0``) is ``empty`` and the next is asked, so
a provider with partial coverage (ELink's PMC-derived citations) does not hide a later one's list.
Timeouts and failures are worded by the step runner the full-text chain uses (``run_step``).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .. import errors as E
from ..errors import MedlitError
from ..identifiers import IdentifierError, normalize_pmid
from ..resolution import report_progress, run_step, step_context, step_limit
from ..types import Declared, RelatedProvider, RelatedQuery, RelatedResult, ToolContext
from .models import Outcome


@dataclass
class Attempt:
    provider: RelatedProvider
    outcome: Outcome
    detail: str = ""
    error: MedlitError | None = None
    variable: str | None = None
    result: RelatedResult | None = None


@dataclass
class Asked:
    """Every attempt in order and the one whose list is the answer (``None``: nobody answered)."""

    attempts: list[Attempt] = field(default_factory=list)
    answer: Attempt | None = None

    @property
    def queried(self) -> list[Attempt]:
        return [a for a in self.attempts if a.outcome != "not-queried"]


OnEmpty = Callable[[Attempt], Awaitable[None]]


def clean(result: RelatedResult, source: str) -> RelatedResult:
    """A provider's answer made safe to use: canonical, distinct PMIDs without the source itself
    (a value that is no PMID counts as a dropped row), scores only for returned PMIDs."""
    pmids: list[str] = []
    dropped = max(0, int(result.dropped or 0))
    raw_scores = result.scores or {}
    scores: dict[str, float] = {}
    for raw in result.pmids or []:
        try:
            pmid = normalize_pmid(str(raw))
        except IdentifierError:
            dropped += 1
            continue
        if pmid == source or pmid in pmids:
            continue
        pmids.append(pmid)
        score = raw_scores.get(raw, raw_scores.get(pmid))
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            scores[pmid] = float(score)
    total = result.total if isinstance(result.total, int) and result.total >= 0 else None
    return RelatedResult(
        pmids=pmids,
        total=total,
        detail=str(result.detail or ""),
        scores=scores,
        dropped=dropped,
        notice=str(result.notice or ""),
    )


def is_empty(result: RelatedResult, query: RelatedQuery) -> bool:
    """The provider knows no related article of this kind (not: this page is past the end)."""
    if result.total is not None:
        return result.total == 0
    return query.offset == 0 and not result.pmids and not result.dropped


async def _answer(provider: RelatedProvider, query: RelatedQuery, ctx: ToolContext) -> Any:
    """The provider's answer, cleaned inside the step (a malformed list fails as its plugin's
    fault); an answer that is no RelatedResult is passed on for ``run_step`` to refuse."""
    raw = await provider.resolve(query, ctx)
    return clean(raw, query.pmid) if isinstance(raw, RelatedResult) else raw


async def ask(
    ctx: ToolContext,
    pairs: Sequence[Declared[RelatedProvider]],
    query: RelatedQuery,
    *,
    until: float,
    on_empty: OnEmpty,
) -> Asked:
    """Ask ``pairs`` (provider, plugin record) in order, for the query's kind, until one answers
    with a non-empty list. ``on_empty`` runs after each empty answer (it may raise to stop, e.g.
    when the source PMID turns out not to exist). ``until`` is a ``time.monotonic()`` instant no
    provider may run past."""
    asked = Asked()
    step = 0
    askable = [p.record.name for p in pairs if query.kind in p.record.kinds and p.state.active]
    for provider, record in pairs:
        if query.kind not in provider.kinds:
            continue
        if not record.active:
            asked.attempts.append(
                Attempt(provider, "not-queried", record.detail, variable=record.waiting_on or None)
            )
            continue
        left = until - time.monotonic()
        if left <= 0.5:
            err = MedlitError(
                E.CALL_DEADLINE_EXCEEDED,
                "not asked: the call ran out of time before this provider's turn",
                recovery="Retry the call.",
            )
            asked.attempts.append(Attempt(provider, "failed", err.message, error=err))
            continue
        step += 1
        await report_progress(ctx, step, f"asking {provider.name} ({query.kind} of PMID {query.pmid})")
        out = await run_step(
            provider.name,
            provider.plugin,
            # an equal share of what is left while other providers may still be asked
            step_limit(provider.timeout, len(askable) - askable.index(provider.name) - 1, until),
            partial(_answer, provider, query, step_context(ctx, provider.plugin)),
            RelatedResult,  # anything else is its plugin's fault
            "a RelatedResult",
        )
        if out.error is not None:
            asked.attempts.append(Attempt(provider, "failed", out.error.message, error=out.error))
            continue
        result: RelatedResult = out.answer
        if is_empty(result, query):
            attempt = Attempt(provider, "empty", result.detail, result=result)
            asked.attempts.append(attempt)
            await on_empty(attempt)
            continue
        attempt = Attempt(provider, "answered", result.detail, result=result)
        asked.attempts.append(attempt)
        asked.answer = attempt
        break
    return asked
