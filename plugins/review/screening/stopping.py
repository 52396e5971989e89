"""When priority screening may stop: the hypergeometric stopping test of Callaghan and
Müller-Hansen (2020, "Statistical stopping criteria for automated screening in systematic
reviews", Systematic Reviews 9:273; their package ``buscar``), which stops only when recall of
the target (95%) is reached with the stated confidence (95%).

The test. ``N`` records, ``screened`` of them decided in the order they were screened, ``r``
includes among them. Take the last ``n`` screened records (a *window*) as a sample drawn without
replacement from the ``N_w`` records that were unscreened when the window began, ``k`` includes
in it, ``r_w = r - k`` found before it. The null hypothesis is that recall is *below* the target,
i.e. the set holds at least ``R* = floor(r / target) + 1`` includes, so the window's urn held at
least ``K = R* - r_w`` of them; its p-value is ``P(X <= k)`` for ``X ~ Hypergeometric(N_w, K, n)``
(fewer includes in the sample than such an urn would give). Stop when ``p < 1 - confidence``.

Which windows. The paper's guarantee holds for a random sample; in priority order the most recent
records are the *likeliest* to be includes among those left, so treating them as a random sample
over-counts the includes still to find, which makes the test conservative (the paper's own
argument, and how buscar applies it to ranked screening). Like buscar's ``calculate_h0``, this
module tests *every* window that ends at the latest decision, one starting at each screened
record, and stops on the smallest p-value among them (the paper's procedure; its simulations, and
ours in docs/benchmarks.md, measure how often that stopped before the target). A window may begin
inside a batch (the records whose first title/abstract decision carries one timestamp, i.e. one
``review_screen`` call); within a batch the records are taken in key order, since the order they
were read in is not stored. Testing only windows that begin at a batch boundary, as this module
did before, gives up the windows that begin just after the batch's last include: a larger p-value,
a later stop.

Records without text. The test's premise is that the ranking put the records likeliest to be
includes first; for a record with no title or abstract it had no words to judge by, so the windows
say nothing about it. While such a record is undecided (``unranked``), the test does not stop, and
``upper95`` counts it as a possible include (the benchmarks found the one include of 60 such
records in Opiods left for last and a stop at 93% recall, before this rule).

Beside the test (issue 51). With few includes found the test cannot stop early: with 20 found,
its null hypothesis leaves two includes among hundreds of unscreened records, and only most of them
read makes that unlikely. So the answer *advises* stopping on a heuristic (:mod:`.stopping_advice`:
the knee of the gain curve, :mod:`.knee`, confirmed by a run of excludes long beside the records
left and by the ranked test at a lower confidence; ``basis`` 'knee', ``advised`` true,
``safe_to_stop`` still false: its assumption is stated, it guarantees nothing). Once the knee first
says the ranked yield has fallen, the answer offers the random sample of the records then
unscreened that gives the guarantee with no assumption about the ranking
(:mod:`.stopping_sample`: how many records it costs, and which). Beside it the answer
states the other route: how many more records in priority order the ranked test needs if none is
an include (``ranked_to_go``). The priority page serves the cheaper route first: the ranked test
reuses the run of excludes already read, so it is usually the cheaper; the sample is served first
when it costs less, or while a record without text holds the ranked test. When the sample holds no
include (or too few to matter), ``safe_to_stop`` turns true on ``basis`` 'random sample'. The
ranked test reads only the records screened in priority order and counts the sample's as still
unscreened (see :func:`estimate`). A record without title/abstract text holds the advice (the
ranking had no words for it) but not the sample's verdict: the sample's urn holds it like any other.

The estimate. For the (longest) window that gives the smallest p-value, ``upper95`` is the largest number of
includes still unscreened that the test cannot reject at the 5% level; ``estimate`` the window's
include rate times the records still unscreened; ``recallEstimate = r / (r + estimate)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from . import knee, stopping_advice, stopping_sample

TARGET = 0.95
CONFIDENCE = 0.95
METHOD = (
    "Hypergeometric stopping test (Callaghan & Müller-Hansen 2020, Syst Rev 9:273; buscar), ranked variant: "
    "the most recently screened records, as a sample of the records unscreened when they began, test "
    "H0 'recall < 95%'; safeToStop when p < 0.05 for some window ending at the latest decision and no "
    "record without title/abstract text is left undecided. Or a random sample of the records unscreened when "
    "the knee of the gain curve (Cormack & Grossman 2016) first fired finds too few includes for "
    "'recall < 95%' (p < 0.05, no assumption about the ranking). The knee's advice (confirmed by a run of "
    "excludes long beside the records left and the ranked test at 60% confidence) is not a guarantee."
)
Basis = Literal["ranked test", "random sample", "knee"]
SAMPLE_BEGUN = 10  # sample records read in its draw order from which it stays the route served
KNEE_ASSUMPTION = stopping_advice.ASSUMPTION


@dataclass(frozen=True)
class Estimate:
    screened: int
    includes_found: int
    remaining_estimate: int
    remaining_upper95: int
    recall_estimate: float | None
    safe_to_stop: bool
    p_value: float | None  # the smallest over the windows tested; None when nothing was tested
    method: str = METHOD
    basis: Basis | None = None  # why stopping is advised (None: not yet); see the module's docstring
    advised: bool = False  # stopping is advised: safe_to_stop, or the knee's heuristic
    sample_size: int = 0  # records of the random sample the guarantee needs in all (0: none offered)
    sample_screened: int = 0
    sample_includes: int = 0
    sample_keys: tuple[int, ...] = ()  # the sample's records still to screen, in draw order
    sample_first: bool = False  # the priority page serves them first (the cheaper route, see estimate)
    ranked_to_go: int | None = None  # records in priority order the ranked test needs if none is an include
    advice: str = ""  # what to do next, in plain words


@dataclass(frozen=True)
class Keys:
    """What the random sample is drawn by: every record's key, the screened records' keys in the
    order screened (parallel to the batches' flags), and the set's seed (its id)."""

    every: Sequence[int]
    screened: Sequence[int]
    seed: str


def estimate(
    total: int, batches: Sequence[Sequence[bool]], unranked: int = 0, keys: Keys | None = None
) -> Estimate:
    """The stopping rule over a set of ``total`` records, screened in ``batches`` (in the order
    they were screened; each batch a sequence of include flags), ``unranked`` of the records left
    having no title/abstract text to rank them by; with ``keys``, the random sample for the
    guarantee once the knee has fired (without, the knee's advice alone)."""
    at = knee.first(batches)
    ranked: Sequence[Sequence[bool]] = batches
    drawn: stopping_sample.Sample | None = None
    if at is not None and keys is not None:
        drawn, ranked = _sampled(batches, at, keys)
    # includes among the records the ranked test does not read (the sample's pages)
    elsewhere = sum(f for b in batches for f in b) - sum(f for b in ranked for f in b)
    # the ranked test reads the records screened in priority order only, and counts the sample's as
    # still unscreened: a window of random-sample records is no likelier than random to hold
    # includes (the test's caution gone), and taking the sample's records out of its urn would
    # judge the records left by the ranked tail, not by the sample (a simulated run then stopped
    # at 94% recall); the includes on the sample's pages count in its null hypothesis (once: an
    # include it reads itself counted twice made it easier to reject, a simulated run stopped at 93%)
    base = ranked_test(total, ranked, unranked, elsewhere)
    if drawn is not None:
        flags = [f for b in batches for f in b]
        left, found = total - len(flags), sum(flags)
        point = min(base.remaining_estimate, left)
        base = replace(
            base,
            screened=len(flags),
            includes_found=found,
            recall_estimate=round(found / (found + point), 4) if found + point else None,
            remaining_estimate=point,
            remaining_upper95=min(base.remaining_upper95, left),
            sample_size=drawn.size,
            sample_screened=drawn.screened,
            sample_includes=drawn.includes,
            sample_keys=drawn.to_screen,
        )
        if not drawn.guaranteed and not base.safe_to_stop:
            # the cheaper route to the guarantee is served: the ranked test reuses the run of
            # excludes already read, so without records lacking text it is usually the cheaper one
            to_go = None if unranked else _ranked_to_go(total, ranked, elsewhere)
            # once a page of the sample is read, it stays first: neither route's records count for
            # the other, so switching back and forth pays for both (a simulated run read to the end)
            begun = drawn.read >= SAMPLE_BEGUN
            first = to_go is None or begun or len(drawn.to_screen) < to_go
            base = replace(base, ranked_to_go=to_go, sample_first=first)
    if drawn is not None and drawn.guaranteed:  # first: it makes no assumption about the ranking
        return _advised(replace(base, safe_to_stop=True, basis="random sample", advised=True))
    if base.safe_to_stop:
        return _advised(replace(base, basis="ranked test", advised=True))
    if unranked:
        # the advice's assumption is about the ranking: a record without text was not ranked, so it
        # holds the advice (not the sample's verdict: its urn holds such records too)
        return _advised(base, textless=True)
    # the advice reads every record in the order screened, the sample's too: an include the sample
    # finds is evidence against its assumption and restarts the run (reading the priority pages
    # alone, a simulated run was advised at 67% recall after a sample that had found includes)
    flags = [f for b in batches for f in b]
    if not stopping_advice.advised(flags, total - len(flags), base.p_value):
        return _advised(base)
    if base.ranked_to_go is None:  # advised before the sample is offered: the ranked route's cost
        base = replace(base, ranked_to_go=_ranked_to_go(total, ranked, elsewhere))
    return _advised(replace(base, basis="knee", advised=True))


def _sampled(
    batches: Sequence[Sequence[bool]], at: int, keys: Keys
) -> tuple[stopping_sample.Sample, list[list[bool]]]:
    """The random sample drawn from the records unscreened when the knee fired (``at`` records
    screened), and the batches screened by priority: without the batches after the knee that are a
    run of the sample's draw order (the priority page serves the sample in that order, a page at a
    time; a batch taken by priority is hardly ever such a run, though most of its records may be in
    the sample: leaving those out starved the ranked test, a simulated run read to its end)."""
    flags = [f for b in batches for f in b]
    urn = sorted(set(keys.every) - set(keys.screened[:at]))
    drawn = stopping_sample.plan(
        urn, sum(flags[:at]), dict(zip(keys.screened, flags, strict=True)), sum(flags), keys.seed
    )
    ranked: list[list[bool]] = []
    start = 0
    for batch in batches:
        end = start + len(batch)
        if start < at or not _run_of(drawn.members, keys.screened[start:end]):
            ranked.append(list(batch))
        start = end
    return drawn, ranked


def _run_of(places: Mapping[int, int], batch: Sequence[int]) -> bool:
    """Whether the ``batch``'s keys are consecutive records of the sample's draw order."""
    at = [places.get(key) for key in batch]
    if not at or None in at:
        return False
    found = sorted(i for i in at if i is not None)
    return found[-1] - found[0] + 1 == len(found)


def _advised(e: Estimate, textless: bool = False) -> Estimate:
    return replace(e, advice=advice(e, textless))


def advice(e: Estimate, textless: bool = False) -> str:
    """What the rule says, in plain words: why it may stop, and what a guarantee costs
    (``textless``: records without title/abstract text are left, which hold the advice)."""
    if e.basis == "ranked test":
        return "Stop: the ranked test rejects 'recall < 95%' at the 5% level."
    if e.basis == "random sample":
        return (
            f"Stop: the random sample of {e.sample_screened:,} records rejects 'recall < 95%' at the 5% level "
            "(a guarantee, no assumption about the ranking)."
        )
    routes = _routes(e) if e.sample_size or e.ranked_to_go is not None else ""
    if e.basis == "knee":
        return f"Stopping is advised on the knee of the gain curve ({KNEE_ASSUMPTION}).{routes}"
    if e.sample_size and textless:
        return (
            "The ranked yield has fallen (the knee), but records without title/abstract text were not ranked, "
            f"so neither the knee nor the ranked test can vouch for them.{routes}"
        )
    if e.sample_size:
        return (
            "The ranked yield has fallen (the knee), but the run of excludes since the last include is still "
            f"short beside the records left unscreened (the advice needs at least {stopping_advice.LEFT_SHARE:.0%} "
            f"of them and the ranked test at {1 - stopping_advice.LEVEL:.0%} confidence): not yet advised.{routes}"
        )
    return "Not yet: screen the next batch in priority order."


def _routes(e: Estimate) -> str:
    """The routes to the guarantee (recall >= 95% with 95% confidence), their costs, which is served."""
    if not e.sample_size:
        return (
            f" For a guarantee (recall >= 95% with 95% confidence), screen {e.ranked_to_go:,} more records in "
            "priority order without an include (the ranked test)."
        )
    sample = (
        f"a random sample of {e.sample_size:,} of the records unscreened when the yield fell "
        f"({len(e.sample_keys):,} still to screen), which if it finds no further include rejects 'recall < "
        "95%' with no assumption about the ranking"
        + (f" (it has found {e.sample_includes}, which made it larger)" if e.sample_includes else "")
    )
    if e.ranked_to_go is None:
        either = sample
    else:
        either = f"either {e.ranked_to_go:,} more records in priority order without an include (the ranked test) or {sample}"
    first = (
        "serves the sample first, marked sample"
        if e.sample_first
        else "goes on in priority order (the cheaper)"
    )
    return f" For a guarantee (recall >= 95% with 95% confidence), screen {either}; order='priority' {first}."


def _ranked_to_go(total: int, ranked: Sequence[Sequence[bool]], elsewhere: int) -> int:
    """Records still to read in priority order before the ranked test says stop, if none of them
    is an include (all that are left, if even that is not enough): bisection, since each exclude
    read lowers the p-value."""
    left = total - sum(len(b) for b in ranked)

    def stops(r: int) -> bool:
        return ranked_test(total, [*ranked, [False] * r], 0, elsewhere).safe_to_stop

    if left <= 0 or not stops(left):
        return max(left, 0)
    lo, hi = 1, left
    while lo < hi:
        mid = (lo + hi) // 2
        if stops(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def ranked_test(
    total: int, batches: Sequence[Sequence[bool]], unranked: int = 0, elsewhere: int = 0
) -> Estimate:
    """The ranked variant of the hypergeometric test alone (see the module's docstring);
    ``elsewhere`` includes were found among records it counts as unscreened (the random sample's):
    they raise the number of includes its null hypothesis needs, never lower it."""
    import numpy as np
    from scipy.stats import hypergeom

    flags = [f for b in batches for f in b]
    screened, found = len(flags), sum(flags)
    left = max(total - screened, 0)
    if left == 0:
        return Estimate(
            screened, found, 0, 0, 1.0 if found else None, screened > 0, 0.0 if screened else None
        )
    if not flags:
        return Estimate(0, 0, 0, left, None, False, None)

    # H0: the set holds at least this many includes
    target_total = math.floor((found + elsewhere) / TARGET) + 1
    # window j: the last j + 1 records screened, as a sample of the urn unscreened when it began
    recent = np.asarray(flags[::-1], dtype=np.int64)
    ks = np.cumsum(recent)
    ns = np.arange(1, screened + 1, dtype=np.int64)
    urns = left + ns
    big_ks = np.minimum(np.maximum(target_total - (found - ks), 0), urns)
    ps = hypergeom.cdf(ks, urns, big_ks, ns)
    # the longest window of the smallest p-value: the most records behind the estimate below
    j = len(ps) - 1 - int(np.argmin(ps[::-1]))
    p, urn, n, k = float(ps[j]), int(urns[j]), int(ns[j]), int(ks[j])
    alpha = 1.0 - CONFIDENCE
    # the largest count of unscreened includes the window cannot reject: P(X <= k | K = k + m) >= alpha
    lo, hi = 0, left
    if float(hypergeom.cdf(k, urn, k + hi, n)) >= alpha:
        upper = hi
    else:
        while lo < hi:  # the p-value falls as m grows: bisect for the last m not rejected
            mid = (lo + hi + 1) // 2
            if float(hypergeom.cdf(k, urn, k + mid, n)) >= alpha:
                lo = mid
            else:
                hi = mid - 1
        upper = lo
    rate = k / n
    point = round(rate * left)
    recall = found / (found + point) if found + point else None
    unranked = min(max(unranked, 0), left)
    return Estimate(
        screened,
        found,
        point,
        min(upper + unranked, left),
        round(recall, 4) if recall is not None else None,
        p < alpha and not unranked,
        round(p, 6),
    )
