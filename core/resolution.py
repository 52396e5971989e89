"""The full-text resolution chain: runs the tiers and ID resolvers plugins declare, in order, and
reports every step.

The chain knows no tier or resolver by name. It takes the tiers from the catalog (sorted by
``order`` after ``MEDLIT_TIER_ORDER_<NAME>`` overrides) and the resolvers from it too, folds refs
that name one article, and for each tier in turn:

- a tier whose plugin is not active (unconfigured: waiting on a setting) is ``not-attempted`` for every
  unresolved article, with a detail naming the variable it waits on; when the article carries
  an identifier that tier accepts, or one a declared resolver could turn into such an identifier,
  the tier is listed in ``unqueried`` (a deployment with it configured might serve the article);
- before an active tier, the pending articles that lack every identifier it accepts are given
  to the resolvers (by ``order``) that provide one of those kinds and accept an identifier the
  article carries. A resolver runs at most once per article (all such articles in one call) and
  its outcome joins the article's report like a tier's. Refs the new identifiers show to name
  one article are folded together;
- the tier is then called once with every still-unresolved article that carries one of its
  ``accepts`` identifiers, under its own ``timeout``; an exception or a timeout becomes
  ``service-error`` for exactly those articles and the chain goes on. An article it still cannot
  be asked about is ``not-attempted`` for it.

Steps never change the :class:`ArticleRef` they are given: they report the ids they learn in
``TierResult.ids`` (a DOI read from a front-matter-only record), which the chain carries to later
steps. After the last tier every article is either a hit (its payload stamped with the tier that
served it, the tier's source label and the record ids it declares) or has an ``unavailable``
reason: the most specific signal any step reported.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, get_args

from . import errors as E
from .context import Progress
from .errors import MedlitError
from .identifiers import ID_KINDS
from .net.wire import CALL_DEADLINE
from .types import (
    NO_SOURCE_ENABLED,
    OUTCOME_REASONS,
    ArticleRef,
    ChainResult,
    Declared,
    ExtractedTextArticle,
    FulltextTier,
    IdResolver,
    PluginState,
    Resolution,
    StepOutcome,
    StructuredArticle,
    TierAttempt,
    TierOptions,
    TierOutcomeKind,
    TierResult,
    ToolContext,
    UnavailableReason,
)

log = logging.getLogger("medlit.resolution")

OUTCOMES: frozenset[str] = frozenset(get_args(TierOutcomeKind))
REASON_OF: dict[TierOutcomeKind, UnavailableReason] = dict(OUTCOME_REASONS)
SPECIFICITY: tuple[UnavailableReason, ...] = tuple(reason for _, reason in OUTCOME_REASONS)

# One vocabulary (core/types.py): every outcome but these two has a reason, every reason is ranked.
assert set(REASON_OF) == OUTCOMES - {"hit", "not-attempted"}, "OUTCOME_REASONS must cover every outcome"
assert {*SPECIFICITY, NO_SOURCE_ENABLED} == set(get_args(UnavailableReason)), "every reason is ranked"


# -- merging ids that name one article --------------------------------------------------------
def _id_values(ref: ArticleRef) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for kind in ID_KINDS:
        value = getattr(ref, kind)
        if value:
            out.append((kind, value.lower() if kind == "doi" else value))
    return out


def _groups(refs: Sequence[ArticleRef]) -> list[list[int]]:
    """Indexes of refs that share any identifier (DOIs compared case-insensitively), grouped,
    each group in input order, groups ordered by their first member."""
    parent = list(range(len(refs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    seen: dict[tuple[str, str], int] = {}
    for i, ref in enumerate(refs):
        for ident in _id_values(ref):
            if ident in seen:
                a, b = find(seen[ident]), find(i)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                seen[ident] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(refs)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _absorb(target: ArticleRef, other: ArticleRef) -> ArticleRef:
    """``target`` with the ids it lacks from ``other`` and both refs' spellings."""
    merged = target.with_ids({"pmcid": other.pmcid, "pmid": other.pmid, "doi": other.doi})
    extra = tuple(r for r in other.requested if r not in target.requested)
    return replace(merged, requested=target.requested + extra) if extra else merged


def merge_refs(refs: Sequence[ArticleRef]) -> tuple[list[ArticleRef], dict[str, str]]:
    """Fold refs that share any identifier (same PMCID, PMID or DOI, DOIs compared
    case-insensitively) into one, keeping the first ref's key and order and the union of ids and
    requested spellings. Returns the merged refs and a map from every input key to the key of
    the ref it was folded into."""
    merged: list[ArticleRef] = []
    alias: dict[str, str] = {}
    for group in _groups(refs):
        target = refs[group[0]]
        for i in group[1:]:
            target = _absorb(target, refs[i])
        for i in group:
            alias[refs[i].key] = target.key
        merged.append(target)
    return merged, alias


def _fold(result: ChainResult) -> None:
    """Fold resolutions whose refs now share an identifier (a step revealed that two of the
    caller's ids name one article) into the first of them: ids, spellings and reports are
    united, and a hit of either is the article's hit."""
    groups = _groups([r.ref for r in result.resolutions])
    if all(len(g) == 1 for g in groups):
        return
    kept: list[Resolution] = []
    for group in groups:
        target = result.resolutions[group[0]]
        for i in group[1:]:
            other = result.resolutions[i]
            target.ref = _absorb(target.ref, other.ref)
            if target.hit is None and other.hit is not None:
                target.hit, target.served_by = other.hit, other.served_by
                # the hit's own report of its tier replaces the target's (a miss, say)
                target.tried = [a for a in target.tried if a.tier != other.served_by]
            names = {a.tier for a in target.tried}
            target.tried += [a for a in other.tried if a.tier not in names]
            target.unqueried += [t for t in other.unqueried if t not in target.unqueried]
            target.waiting_on = {**other.waiting_on, **target.waiting_on}
            target.resolvers_run |= other.resolvers_run
        kept.append(target)
    result.resolutions = kept


# -- the chain ----------------------------------------------------------------------------------
def most_specific(outcomes: Sequence[TierOutcomeKind]) -> UnavailableReason:
    """The ``unavailable`` reason for an unresolved article, from its steps' outcomes."""
    reasons = {reason for o in outcomes if (reason := REASON_OF.get(o)) is not None}
    if not reasons:
        return NO_SOURCE_ENABLED
    return next(r for r in SPECIFICITY if r in reasons)


def _kinds(kinds: frozenset[Any]) -> str:
    return " or ".join(sorted(kinds))


def _carries(ref: ArticleRef, kinds: frozenset[Any]) -> bool:
    return any(ref.has(kind) for kind in kinds)


ContextOf = Callable[[str, Progress | None], ToolContext]
"""A plugin's own context by plugin name (the runtime's), for the steps the chain runs."""


def step_context(ctx: ToolContext, plugin: str, contexts: ContextOf | None = None) -> ToolContext:
    """A step runs with its own plugin's context (settings, clients, cache), not the caller's."""
    if contexts is None or not plugin:
        return ctx
    return contexts(plugin, ctx.progress)


def _checked(result: Any, *, payload: bool) -> TierResult:
    """A step's answer for one article, or the service-error/parse-failed it amounts to.
    ``payload``: a hit must carry a typed article (tiers; resolvers carry none)."""
    if not isinstance(result, TierResult):
        return TierResult("service-error", f"returned {type(result).__name__}, not a TierResult")
    if result.outcome not in OUTCOMES or result.outcome == "not-attempted":
        return TierResult("service-error", f"reported an unknown outcome {result.outcome!r}")
    if (
        payload
        and result.outcome == "hit"
        and not isinstance(result.article, (StructuredArticle, ExtractedTextArticle))
    ):
        got = "no article" if result.article is None else f"a {type(result.article).__name__}"
        return TierResult(
            "parse-failed",
            result.detail or f"reported a hit with {got}, not a StructuredArticle or ExtractedTextArticle",
        )
    return result


def _inactive_why(state: PluginState, plugin: str) -> str:
    why = f"plugin {state.name or plugin!r} is {state.status}"
    var = state.waiting_on
    if var:
        why += f"; set {var}" + ("=true" if var.endswith("_ENABLED") else "") + " to enable it"
    elif state.detail:  # no variable helps: the host's account of why
        why += f" ({state.detail})"
    return why


async def run_chain(
    refs: Sequence[ArticleRef],
    ctx: ToolContext,
    options: TierOptions | None = None,
    *,
    tiers: Sequence[Declared[FulltextTier]] | None = None,
    resolvers: Sequence[Declared[IdResolver]] | None = None,
    contexts: ContextOf | None = None,
) -> ChainResult:
    """Run the tiers on ``refs`` (refs naming one article are folded first) and report per article.

    ``tiers`` and ``resolvers`` default to the catalog's (``ctx.host.catalog``): each record with
    the standing of its plugin (``active`` runs). ``contexts`` gives each step its own plugin's
    context (default: the host's, when it offers one).
    """
    options = options or TierOptions()
    catalog = ctx.host.catalog if ctx.host is not None else None
    pairs = list(tiers if tiers is not None else catalog.tiers if catalog is not None else ())
    steps = list(resolvers if resolvers is not None else catalog.resolvers if catalog is not None else ())
    merged, _ = merge_refs(refs)
    result = ChainResult([Resolution(ref) for ref in merged])
    run = _Run(ctx, options, steps, result, contexts or getattr(ctx.host, "context", None))
    for index, (tier, record) in enumerate(pairs):
        if not run.result.unresolved:
            break
        later = sum(1 for _, rec in pairs[index + 1 :] if rec.active)  # tiers still to come
        if not record.active:
            _skip_inactive(tier, record, run.result.unresolved, steps)
            continue
        await _ask_tier(tier, later, run)
    for res in run.result.resolutions:
        if not res.resolved:
            res.reason = most_specific([a.outcome for a in res.tried])
    await _progress(ctx, run.counter, "full-text chain done")
    return run.result


@dataclass
class _Run:
    """One run of the chain: what every step of it shares."""

    ctx: ToolContext
    options: TierOptions
    steps: list[Declared[IdResolver]]
    result: ChainResult
    contexts: ContextOf | None
    counter: list[int] = field(default_factory=lambda: [0])  # progress steps reported so far


async def _ask_tier(tier: FulltextTier, later: int, run: _Run) -> None:
    """One active tier over the unresolved articles: the resolvers first find the ids it accepts
    for those lacking one, then it is asked about every article it can take (the others are
    reported as not attempted), and its hits become the articles' hits."""
    result = run.result
    lacking = [r for r in result.unresolved if not _carries(r.ref, tier.accepts)]
    if lacking:
        await _resolve_ids(tier, lacking, run.steps, run.ctx, result, run.counter, later + 1, run.contexts)
    pending = result.unresolved
    batch = [r for r in pending if _carries(r.ref, tier.accepts)]
    for res in pending:
        if not _carries(res.ref, tier.accepts):
            res.tried.append(
                TierAttempt(
                    tier.name, "not-attempted", f"needs a {_kinds(tier.accepts)}, which this article lacks"
                )
            )
    if not batch:
        return
    await _progress(run.ctx, run.counter, f"{tier.name}: {len(batch)} article(s)")
    answers = await _call(
        tier.name,
        tier.plugin,
        step_limit(tier.timeout, later),
        partial(
            tier.resolve,
            [r.ref for r in batch],
            step_context(run.ctx, tier.plugin, run.contexts),
            run.options,
        ),
        result.errors,
    )
    for res, checked in _report(tier.name, batch, answers, payload=True):
        if checked.outcome == "hit" and checked.article is not None:  # _checked: a hit has one
            res.hit, res.served_by = replace(checked, article=_stamp(checked.article, tier)), tier.name
    _fold(result)  # a tier may have read an id that shows two refs are one article


def _stamp(article: Any, tier: FulltextTier) -> Any:
    """A hit's payload with the tier that served it, the tier's source label, and only the record
    ids the tier declares (a payload cannot add output fields of its own)."""
    ids = {k: v for k, v in article.record_ids.items() if k in tier.record_ids and v}
    return replace(article, tier=tier.name, source=tier.label, record_ids=ids)


async def _resolve_ids(
    tier: FulltextTier,
    lacking: Sequence[Resolution],
    steps: Sequence[Declared[IdResolver]],
    ctx: ToolContext,
    result: ChainResult,
    counter: list[int],
    later: int = 0,
    contexts: ContextOf | None = None,
) -> None:
    """Give the articles ``tier`` cannot be asked about to the resolvers that may find an id it
    accepts: each resolver once, with every eligible article, in ``order``; ``later`` tiers (this
    one included) still need time after them."""
    for resolver, record in steps:
        if not resolver.provides & tier.accepts:
            continue
        group = [
            r
            for r in lacking
            if not r.resolved
            and not _carries(r.ref, tier.accepts)
            and resolver.name not in r.resolvers_run
            and _carries(r.ref, resolver.accepts)
        ]
        if not group:
            continue
        for res in group:
            res.resolvers_run.add(resolver.name)
        if not record.active:
            why = _inactive_why(record, resolver.plugin)
            for res in group:
                res.tried.append(TierAttempt(resolver.name, "not-attempted", why))
            continue
        await _progress(ctx, counter, f"{resolver.name}: {len(group)} identifier(s)")
        answers = await _call(
            resolver.name,
            resolver.plugin,
            step_limit(resolver.timeout, later),
            partial(resolver.resolve, [r.ref for r in group], step_context(ctx, resolver.plugin, contexts)),
            result.errors,
        )
        _report(resolver.name, group, answers, payload=False)
    _fold(result)


def _report(
    name: str, group: Sequence[Resolution], answers: Mapping[str, Any] | TierAttempt, *, payload: bool
) -> list[tuple[Resolution, TierResult]]:
    """Add a step's outcome to each article's report: its own answer (checked; none is a miss), or
    the failure of the whole call. Returns the articles it answered, with their checked answers."""
    answered: list[tuple[Resolution, TierResult]] = []
    for res in group:
        if isinstance(answers, TierAttempt):  # the whole step failed
            res.tried.append(answers)
            continue
        answer = answers.get(res.ref.key)
        checked = (
            _checked(answer, payload=payload)
            if answer is not None
            else TierResult("miss", "no record returned")
        )
        res.tried.append(TierAttempt(name, checked.outcome, checked.detail))
        if checked.ids:  # what the step learned about the article, carried to later steps
            res.ref = res.ref.with_ids(checked.ids)
        answered.append((res, checked))
    return answered


def _servable_later(res: Resolution, tier: FulltextTier, steps: Sequence[Declared[IdResolver]]) -> bool:
    """Could ``tier`` have been asked about this article, were its plugin active? Yes when the
    article carries an id it accepts, or a declared resolver not yet run on it could find one."""
    if _carries(res.ref, tier.accepts):
        return True
    return any(
        r.provides & tier.accepts and r.name not in res.resolvers_run and _carries(res.ref, r.accepts)
        for r, _ in steps
    )


def _skip_inactive(
    tier: FulltextTier,
    record: PluginState,
    pending: Sequence[Resolution],
    steps: Sequence[Declared[IdResolver]],
) -> None:
    var = record.waiting_on
    why = _inactive_why(record, tier.plugin)
    for res in pending:
        if _servable_later(res, tier, steps):
            res.tried.append(TierAttempt(tier.name, "not-attempted", why))
            if tier.name not in res.unqueried:
                res.unqueried.append(tier.name)
                if var:
                    res.waiting_on[tier.name] = var
        else:
            res.tried.append(
                TierAttempt(
                    tier.name, "not-attempted", f"{why}; it would need a {_kinds(tier.accepts)} anyway"
                )
            )


STEP_GRACE = 0.25  # past its limit a step's requests have stopped on their own; then the guard


def step_limit(timeout: float, later: int, until: float | None = None) -> float:
    """How long one step may run: its own ``timeout``, and while ``later`` steps may still be
    needed after it, no more than an equal share of what is left of the call (``until``, a
    ``time.monotonic()`` instant, defaults to the call deadline in flight). A hung step is cut at
    its share, so the next one still answers within the call: with a 50 s call and three tiers,
    the first gets ~16.7 s, the second half of what remains, the last all of it. An equal share
    is the largest that leaves every later step as much as this one, whatever they each need."""
    deadline = until if until is not None else CALL_DEADLINE.get()
    if deadline is None:
        return timeout
    left = max(deadline - time.monotonic(), 0.0)
    return min(timeout, left / (later + 1))


async def run_step(
    name: str,
    plugin: str,
    limit: float,
    call: Callable[[], Awaitable[Any]],
    expect: type | tuple[type, ...] = object,
    expected: str = "",
) -> StepOutcome:
    """Run one provider call (a full-text tier, an ID resolver, a related-article provider) under
    its timeout, never raising: what it raised, a timeout (the chain's, or the step's own, named as
    such), an answer that is not an ``expect`` (``expected`` words it) or any other exception
    comes back as the error it amounts to, named after the provider or its plugin."""
    started = time.monotonic()
    # The step's requests stop at its limit themselves (and name their service, e.g.
    # ncbi_deadline_exceeded); this guard stops a step that goes on without a request.
    current = CALL_DEADLINE.get()
    token = CALL_DEADLINE.set(min(started + limit, current if current is not None else float("inf")))
    budget = asyncio.timeout(limit + STEP_GRACE)
    try:
        async with budget:
            answer = await call()
        if isinstance(answer, expect):
            return StepOutcome(answer)
        detail = f"{name} returned {type(answer).__name__}, not {expected}"
        error = E.plugin_fault(plugin, detail)
    except TimeoutError as exc:
        if budget.expired():
            detail = f"{name} did not answer within {limit:.3g} s"
        else:  # the step's own timeout (e.g. a socket's), not the chain's: say what it was
            detail = f"{name} timed out on its own: {type(exc).__name__}" + (f": {exc}" if str(exc) else "")
        error = E.upstream_error(name, E.DEADLINE_EXCEEDED, detail)
        detail = f"{error.reason}: {detail}"  # named like every other failure a report carries
    except MedlitError as err:
        error = err
        detail = f"{err.reason}: {err.message}"
    except Exception as exc:  # a broken step must never break the chain
        log.exception("step %s of plugin %s failed", name, plugin)
        detail = f"{name} failed unexpectedly: {type(exc).__name__}: {exc}"
        error = E.plugin_fault(plugin, detail)
    finally:
        CALL_DEADLINE.reset(token)
    log.info("step %s failed after %.2fs: %s", name, time.monotonic() - started, detail)
    return StepOutcome(error=error, detail=detail)


async def _call(
    name: str,
    plugin: str,
    limit: float,
    call: Callable[[], Awaitable[Any]],
    errors: list[MedlitError],
) -> Mapping[str, Any] | TierAttempt:
    """Run one step. Returns its answers by key, or the failure every article of the call gets
    (recorded in ``errors`` too)."""
    out = await run_step(name, plugin, limit, call, Mapping, "a mapping of results by key")
    if out.error is None and isinstance(out.answer, Mapping):  # run_step checked it is one
        return out.answer
    error = out.error or E.plugin_fault(plugin, f"{name} returned no mapping")
    errors.append(error)
    return TierAttempt(name, "service-error", out.detail or error.message)


async def _progress(ctx: ToolContext, counter: list[int], message: str) -> None:
    counter[0] += 1
    await report_progress(ctx, counter[0], message)


async def report_progress(ctx: ToolContext, step: float, message: str) -> None:
    """A progress notification, best effort: a failing one never fails the call."""
    await ctx.report(step, message)
