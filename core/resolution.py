"""The full-text resolution chain: runs the tiers plugins declare, in order, and reports every one.

The chain knows no tier by name. It takes the tiers from ``host.tiers()`` (sorted by ``order``
after ``MEDLIT_TIER_ORDER_<NAME>`` overrides) and, for each tier in turn:

- a tier whose plugin is not active (switched off, unconfigured) is ``not-attempted`` for every
  unresolved article, with a detail naming the variable it waits on; when the article carries
  an identifier that tier accepts, the tier is listed in ``unqueried`` (a deployment with it
  configured might resolve the article);
- an active tier is called once with every still-unresolved article that carries one of its
  ``accepts`` identifiers, under its own ``timeout``; an exception or a timeout becomes
  ``service-error`` for exactly those articles and the chain goes on;
- an article the tier cannot be asked about (it lacks every accepted identifier) gets the
  caller's *note* for that identifier kind when there is one (e.g. "the ID converter found no
  PMC copy" -> ``miss``), else ``not-attempted``.

Tiers may fill in identifiers on the :class:`ArticleRef` they are given (a DOI read from a
front-matter-only record is carried to later tiers). After the last tier every article is
either a hit or has an ``unavailable`` reason: the most specific signal any tier reported.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, get_args

from .errors import MedlitError
from .identifiers import ID_KINDS
from .types import ArticleRef, FulltextTier, TierOutcomeKind, TierResult, ToolContext

log = logging.getLogger("medlit.resolution")

OUTCOMES: frozenset[str] = frozenset(get_args(TierOutcomeKind))

# The ``unavailable`` reason each tier outcome stands for.
REASON_OF: dict[str, str] = {
    "miss": "not-found",
    "no-fulltext": "no-epmc-fulltext",
    "no-body": "no-body",
    "no-doi": "no-doi",
    "doi-lookup-failed": "doi-lookup-failed",
    "no-oa": "no-oa",
    "fetch-failed": "fetch-failed",
    "parse-failed": "parse-failed",
    "service-error": "service-error",
}
# Most specific first: a settled fact about the record (it exists but has no body; it has no
# open-access copy) beats a failure, a transient failure beats a "not found" that a failing
# tier might have contradicted.
SPECIFICITY: tuple[str, ...] = (
    "no-body",
    "no-oa",
    "no-epmc-fulltext",
    "parse-failed",
    "fetch-failed",
    "service-error",
    "doi-lookup-failed",
    "no-doi",
    "not-found",
)
ALL_SKIPPED = "no-pmc-fallback-disabled"

Note = tuple[TierOutcomeKind, str]  # (outcome, detail) for a tier that cannot be asked


@dataclass
class TierAttempt:
    tier: str
    outcome: TierOutcomeKind
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        out = {"tier": self.tier, "outcome": self.outcome}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass
class Resolution:
    """What the chain did for one article."""

    ref: ArticleRef
    tried: list[TierAttempt] = field(default_factory=list)
    hit: TierResult | None = None
    served_by: str | None = None  # tier name of the hit
    unqueried: list[str] = field(default_factory=list)  # inactive tiers that could have served it
    waiting_on: dict[str, str] = field(default_factory=dict)  # tier -> variable it waits on
    reason: str | None = None  # set when unresolved

    @property
    def resolved(self) -> bool:
        return self.hit is not None


@dataclass
class ChainResult:
    resolutions: list[Resolution]
    errors: list[MedlitError] = field(default_factory=list)  # upstream errors tiers raised
    tiers_run: list[str] = field(default_factory=list)

    @property
    def hits(self) -> list[Resolution]:
        return [r for r in self.resolutions if r.resolved]

    @property
    def unresolved(self) -> list[Resolution]:
        return [r for r in self.resolutions if not r.resolved]

    def all_failed_for_service_reasons(self) -> bool:
        """True when nothing resolved and every tier that was asked failed with a service error
        (a settled answer such as ``miss`` or ``no-body`` from any tier makes this False)."""
        if not self.resolutions or self.hits:
            return False
        attempted = [a for r in self.resolutions for a in r.tried if a.outcome != "not-attempted"]
        return bool(attempted) and all(a.outcome == "service-error" for a in attempted)


# -- merging ids that name one article --------------------------------------------------------
def _id_values(ref: ArticleRef) -> list[tuple[str, str]]:
    out = []
    for kind in ID_KINDS:
        value = getattr(ref, kind)
        if value:
            out.append((kind, value.lower() if kind == "doi" else value))
    return out


def merge_refs(refs: Sequence[ArticleRef]) -> tuple[list[ArticleRef], dict[str, str]]:
    """Fold refs that share any identifier (same PMCID, PMID or DOI, DOIs compared
    case-insensitively) into one, keeping the first ref's key and order and the union of ids and
    requested spellings. Returns the merged refs and a map from every input key to the key of
    the ref it was folded into."""
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
    merged: dict[int, ArticleRef] = {}
    alias: dict[str, str] = {}
    for i, ref in enumerate(refs):
        root = find(i)
        if root not in merged:
            merged[root] = ArticleRef(
                key=refs[root].key,
                pmcid=ref.pmcid,
                pmid=ref.pmid,
                doi=ref.doi,
                requested=tuple(ref.requested),
            )
        else:
            target = merged[root]
            for kind in ID_KINDS:
                if getattr(target, kind) is None and getattr(ref, kind):
                    setattr(target, kind, getattr(ref, kind))
            target.requested = target.requested + tuple(r for r in ref.requested if r not in target.requested)
        alias[ref.key] = merged[root].key
    return list(merged.values()), alias


# -- the chain ----------------------------------------------------------------------------------
def most_specific(outcomes: Sequence[str]) -> str:
    """The ``unavailable`` reason for an unresolved article, from its tiers' outcomes."""
    reasons = {REASON_OF[o] for o in outcomes if o in REASON_OF}
    if not reasons:
        return ALL_SKIPPED
    return next(r for r in SPECIFICITY if r in reasons)


def _kinds(tier: FulltextTier) -> str:
    return " or ".join(sorted(tier.accepts))


def _accepts(tier: FulltextTier, ref: ArticleRef) -> bool:
    return any(ref.has(kind) for kind in tier.accepts)


def _tier_context(ctx: ToolContext, tier: FulltextTier) -> ToolContext:
    """The tier runs with its own plugin's context (settings, clients, cache), not the caller's."""
    runtime = ctx.runtime
    if runtime is None or not tier.plugin:
        return ctx
    return runtime.context(tier.plugin, ctx.progress)


def _checked(result: Any) -> TierResult:
    if not isinstance(result, TierResult):
        return TierResult("service-error", f"tier returned {type(result).__name__}, not a TierResult")
    if result.outcome not in OUTCOMES or result.outcome == "not-attempted":
        return TierResult("service-error", f"tier reported an unknown outcome {result.outcome!r}")
    if result.outcome == "hit" and result.article is None:
        return TierResult("parse-failed", result.detail or "tier reported a hit without an article")
    return result


async def run_chain(
    refs: Sequence[ArticleRef],
    ctx: ToolContext,
    options: Mapping[str, Any] | None = None,
    *,
    tiers: Sequence[tuple[FulltextTier, Any]] | None = None,
    notes: Mapping[str, Mapping[str, Note]] | None = None,
) -> ChainResult:
    """Run every tier on ``refs`` (already merged: one ref per article) and report per article.

    ``tiers`` defaults to ``ctx.runtime.host.tiers()``: ``(tier, plugin_record)`` pairs where the record
    has ``status`` (``active`` runs) and ``waiting_on``. ``notes[ref.key][kind]`` explains why
    an article lacks an identifier kind (see the module docs).
    """
    options = options or {}
    notes = notes or {}
    pairs = list(tiers if tiers is not None else ctx.runtime.host.tiers())
    result = ChainResult([Resolution(ref) for ref in refs])
    total = len(pairs)
    for index, (tier, record) in enumerate(pairs):
        pending = [r for r in result.resolutions if not r.resolved]
        if not pending:
            break
        status = getattr(record, "status", "active")
        if status != "active":
            _skip_inactive(tier, record, pending)
            continue
        batch = [r for r in pending if _accepts(tier, r.ref)]
        in_batch = {id(r) for r in batch}
        for res in pending:
            if id(res) in in_batch:
                continue
            own = notes.get(res.ref.key, {})
            note = next((own[k] for k in sorted(tier.accepts) if k in own), None)
            if note is not None:
                res.tried.append(TierAttempt(tier.name, note[0], note[1]))
            else:
                res.tried.append(
                    TierAttempt(
                        tier.name, "not-attempted", f"needs a {_kinds(tier)}, which this article lacks"
                    )
                )
        if not batch:
            continue
        await _progress(ctx, index, total, f"{tier.name}: {len(batch)} article(s)")
        result.tiers_run.append(tier.name)
        answers = await _call_tier(tier, batch, ctx, options, result.errors)
        for res in batch:
            answer = answers.get(res.ref.key)
            if isinstance(answer, TierAttempt):  # the whole tier failed
                res.tried.append(answer)
                continue
            checked = _checked(answer) if answer is not None else TierResult("miss", "no record returned")
            res.tried.append(TierAttempt(tier.name, checked.outcome, checked.detail))
            if checked.outcome == "hit":
                res.hit, res.served_by = checked, tier.name
    for res in result.resolutions:
        if not res.resolved:
            res.reason = most_specific([a.outcome for a in res.tried])
    await _progress(ctx, total, total, "full-text chain done")
    return result


def _skip_inactive(tier: FulltextTier, record: Any, pending: Sequence[Resolution]) -> None:
    var = getattr(record, "waiting_on", "") or ""
    status = getattr(record, "status", "inactive")
    why = f"plugin {getattr(record, 'name', tier.plugin) or tier.plugin!r} is {status}"
    if var:
        why += f"; set {var}" + ("=true" if var.endswith("_ENABLED") else "") + " to enable it"
    for res in pending:
        if _accepts(tier, res.ref):
            res.tried.append(TierAttempt(tier.name, "not-attempted", why))
            if tier.name not in res.unqueried:
                res.unqueried.append(tier.name)
                if var:
                    res.waiting_on[tier.name] = var
        else:
            res.tried.append(
                TierAttempt(tier.name, "not-attempted", f"{why}; it would need a {_kinds(tier)} anyway")
            )


async def _call_tier(
    tier: FulltextTier,
    batch: Sequence[Resolution],
    ctx: ToolContext,
    options: Mapping[str, Any],
    errors: list[MedlitError],
) -> Mapping[str, Any]:
    started = time.monotonic()
    budget = asyncio.timeout(tier.timeout)
    try:
        async with budget:
            answers = await tier.resolve([r.ref for r in batch], _tier_context(ctx, tier), options)
        if isinstance(answers, Mapping):
            return answers
        detail = f"tier returned {type(answers).__name__}, not a mapping of results by key"
    except TimeoutError as exc:
        if budget.expired():
            detail = f"{tier.name} did not answer within {tier.timeout:g} s"
        else:  # the tier's own timeout (e.g. a socket's), not the chain's: say what it was
            detail = f"tier timed out on its own: {type(exc).__name__}" + (f": {exc}" if str(exc) else "")
    except MedlitError as err:
        errors.append(err)
        detail = f"{err.reason}: {err.message}"
    except Exception as exc:  # a broken tier must never break the chain
        log.exception("full-text tier %s failed", tier.name)
        detail = f"tier failed unexpectedly: {type(exc).__name__}: {exc}"
    log.info("tier %s failed after %.2fs: %s", tier.name, time.monotonic() - started, detail)
    failure = TierAttempt(tier.name, "service-error", detail)
    return {r.ref.key: failure for r in batch}


async def _progress(ctx: ToolContext, done: float, total: float, message: str) -> None:
    try:
        await ctx.progress(done, total or None, message)
    except Exception:  # progress is best effort
        log.debug("progress notification failed", exc_info=True)
