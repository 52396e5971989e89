"""pubmed_verify_references: does each reference exist, which record is it, what is wrong with it,
and has it been retracted or corrected? Over the reference matchers and notice providers plugins
declare (``medlit_reference_matchers``, ``medlit_notice_providers``).

The audit in its stages, a module each: reading the list (``reading.py``, refused input raises
before any request), looking up candidates (``lookup.py``), judging each candidate
(``compare.py``), deciding which work each reference is (``deciding.py``), the notices on the
matched works (``notices.py``), the answer (``results.py``) and its text (``render.py``).

Requests per call (whatever the number of references, up to 100): the matchers' ``identifiers``
stage once for every stated DOI and PMID (one batch per kind and source), their ``citation``
stage once for what is unsettled (one batched lookup), their ``search`` stage only for what is
still unsettled, matcher by matcher; then every notice provider once for all matched works.
Nothing is sent for input that is refused.
"""

from __future__ import annotations

import time

from medlit.core.plugin import ToolContext

from .deciding import decide
from .lookup import run_matchers
from .models import VerifyReferencesInput, VerifyReferencesOutput
from .notices import run_notices
from .reading import read_references, to_query
from .results import Coverage, call_notice, not_asked, reference_result, summarise
from .trail import require_a_matcher, trails

NOTICE_RESERVE = 10.0  # seconds of the call deadline kept for the notice lookups


async def verify_references(args: VerifyReferencesInput, ctx: ToolContext) -> VerifyReferencesOutput:
    host = ctx.services()
    catalog = host.catalog
    read, total = read_references(args.references)  # refused input raises here, before any request
    refs = [to_query(str(n + 1), s) for n, (_, s) in enumerate(read)]
    budget = host.call_deadline
    deadline = time.monotonic() + max(
        0.5, budget * 0.95 - 0.5
    )  # the runtime stops the handler at the deadline
    match_until = deadline - min(NOTICE_RESERVE, budget * 0.2)

    matchers = trails(catalog.matchers, "matcher")
    require_a_matcher(matchers, catalog)
    pool = await run_matchers(ctx, refs, matchers, match_until)
    failures = any(t.error is not None for _, t in matchers)
    decisions = [decide(r, pool.works(r.key), failures) for r in refs]

    providers = trails(catalog.notices, "notices")
    matched = [d.work for d in decisions if d.work is not None]
    found = await run_notices(ctx, matched, providers, deadline) if matched else {}

    matcher_trails = [t for _, t in matchers]
    off = not_asked(matcher_trails, catalog)
    results = [
        reference_result(n + 1, shown, s, ref, d, Coverage.of(ref.key, matcher_trails, off), found, pool)
        for n, ((shown, s), ref, d) in enumerate(zip(read, refs, decisions, strict=True))
    ]
    every_trail = [*matcher_trails, *(t for _, t in providers)]
    notice, over = call_notice(every_trail, catalog, total, len(refs))
    return VerifyReferencesOutput(
        results=results,
        summary=summarise(results),
        providers=[t.report() for t in every_trail],
        overLimit=over,
        notice=notice,
    )
