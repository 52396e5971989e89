"""Notices on the matched works: every notice provider asked once per identifier kind it accepts,
for every matched work of the call; the notices several sources give about one notice merged into
one entry; and a retraction a work's own title states when no source gave it as a notice."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from medlit.core.plugin import (
    MedlitError,
    NoticeProvider,
    RecordNotice,
    ReferenceCandidate,
    ToolContext,
    kinds,
)
from medlit.core.plugin import errors as E

from .compare import Work, title_notice
from .models import NoticeOut, NoticeSource
from .trail import Trail

SEVERITY: dict[kinds.NoticeKind, int] = {
    "retraction": 6,
    "withdrawal": 5,
    "partial_retraction": 4,
    "expression_of_concern": 3,
    "correction": 2,
    "erratum": 1,
}

Found = dict[tuple[str, str], list[RecordNotice]]  # notices by (id kind, id), DOIs lower-case


# -- asking the providers ---------------------------------------------------------------------------


async def run_notices(
    ctx: ToolContext, works: list[Work], providers: list[tuple[NoticeProvider, Trail]], until: float
) -> Found:
    """Notices by (kind, id) from every active provider, each asked once per id kind it accepts."""
    ids = _ids_to_ask(works)
    found: Found = {}
    await asyncio.gather(
        *(
            _ask(ctx, p, t, kind, ids.get(kind) or [], found, until)
            for p, t in providers
            if t.active
            for kind in sorted(p.accepts)
            if kind in ids
        )
    )
    rank = {p.name: (p.order, p.name) for p, _ in providers}
    for notices in found.values():
        notices.sort(key=lambda n: rank.get(n.source, (0, n.source)))  # provider order, not arrival order
    return found


def _ids_to_ask(works: list[Work]) -> dict[str, list[str]]:
    """Every PMID and DOI (lower-case) of the works' records, once each, in the order met."""
    ids: dict[str, list[str]] = {"pmid": [], "doi": []}
    for w in works:
        for r in w.records:
            if r.pmid and r.pmid not in ids["pmid"]:
                ids["pmid"].append(r.pmid)
            if r.doi and r.doi.lower() not in ids["doi"]:
                ids["doi"].append(r.doi.lower())
    return ids


async def _lookup(p: NoticeProvider, kind: Any, ids: list[str], ctx: ToolContext) -> Any:
    return await p.lookup(kind, ids, ctx)


async def _ask(
    ctx: ToolContext, p: NoticeProvider, t: Trail, kind: str, wanted: list[str], found: Found, until: float
) -> None:
    """One provider asked for one kind of id, within what is left of the call's time."""
    if not wanted:
        return
    left = until - time.monotonic()
    if left <= 0.5:
        t.error = MedlitError(E.CALL_DEADLINE_EXCEEDED, "not asked: out of time", recovery="Retry.")
        return
    t.stages.append(kind)
    out = await ctx.services().run_step(
        p.name,
        p.plugin,
        partial(_lookup, p, kind, wanted),
        limit=min(p.timeout, left),
        expect=Mapping,
        expected="a mapping of notices by id",
    )
    if out.error is not None or not isinstance(out.answer, Mapping):  # run_step checked the type
        t.error, t.detail = out.error, out.detail
        return
    _keep(found, p.name, kind, out.answer)


def _keep(found: Found, source: str, kind: str, answer: Mapping[Any, Any]) -> None:
    """The well-formed notices of one answer, stamped with the provider that gave them (whatever a
    provider puts there, the answer names who said it); anything else in the answer is dropped."""
    for key, notices in answer.items():
        if not isinstance(key, str) or not isinstance(notices, (list, tuple)):
            continue
        for n in notices:
            if isinstance(n, RecordNotice) and n.type in SEVERITY:
                stamped = replace(n, source=source)
                found.setdefault((kind, key.lower() if kind == "doi" else key), []).append(stamped)


# -- one work's notices -----------------------------------------------------------------------------


def notices_of(
    work: Work, found: Found, offered: Sequence[tuple[int, str, ReferenceCandidate]]
) -> list[NoticeOut]:
    """The notices on one matched work (on any of its records' ids), merged, with a retraction its
    title states; the gravest first."""
    keys = [("pmid", r.pmid) for r in work.records if r.pmid] + [
        ("doi", r.doi.lower()) for r in work.records if r.doi
    ]
    merged = merge_notices([x for k in dict.fromkeys(keys) for x in found.get(k, [])])
    return sorted([*title_notices(work, merged, offered), *merged], key=_gravest_first)


def title_notices(
    w: Work, notices: list[NoticeOut], offered: Sequence[tuple[int, str, ReferenceCandidate]]
) -> list[NoticeOut]:
    """A retraction the work's own title states, when no source gave it as a notice: Crossref keeps
    many retracted conference papers only as "Notice of Retraction: <title>", with no notice record."""
    if any(n.type in ("retraction", "withdrawal") for n in notices):
        return []
    for r in w.records:
        found = title_notice(r.title)
        if found is not None:
            kind, prefix = found
            label = f"title: {prefix}"
            # The provider whose record carries the title (works() keeps the candidates' objects).
            source = next((p for _, p, c in offered if c.record is r), None) or r.source or "?"
            return [
                NoticeOut(
                    type=kind,
                    source=source,
                    sources=[NoticeSource(source=source, type=kind, label=label)],
                )
            ]
    return []


def _gravest_first(n: NoticeOut) -> tuple[int, str]:
    return -SEVERITY[n.type], n.date or ""


def merge_notices(notices: list[RecordNotice]) -> list[NoticeOut]:
    """One entry per notice, whichever sources report it (matched by the notice's DOI or PMID); the
    gravest type wins and each source's own typing is kept. A notice without an id is folded into one
    of the same type that has an id."""
    return sorted((_merged(g) for g in _fold_anonymous(_group_by_id(notices))), key=_gravest_first)


def _ids(n: RecordNotice) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    if n.doi:
        out.add(("doi", n.doi.lower()))
    if n.pmid:
        out.add(("pmid", n.pmid))
    return out


def _group_by_id(notices: list[RecordNotice]) -> list[list[RecordNotice]]:
    """The notices grouped by a DOI or PMID they share; each notice without an id alone."""
    groups: list[list[RecordNotice]] = []
    for n in notices:
        ids = _ids(n)
        target = None
        if ids:
            target = next((g for g in groups if ids & {i for x in g for i in _ids(x)}), None)
        if target is None:
            groups.append([n])
        else:
            target.append(n)
    return groups


def _fold_anonymous(groups: list[list[RecordNotice]]) -> list[list[RecordNotice]]:
    """A group without any id joins the first group with an id that has a notice of its type: a
    source that gives no id is most likely naming that same notice."""
    anonymous = [g for g in groups if not any(x.doi or x.pmid for x in g)]
    named = [g for g in groups if g not in anonymous]
    for g in anonymous:
        home = next((h for h in named if any(x.type == g[0].type for x in h)), None)
        if home is not None:
            home.extend(g)
        else:
            named.append(g)
    return named


def _merged(g: list[RecordNotice]) -> NoticeOut:
    """One notice as every source in the group gives it: the gravest type, the earliest date."""
    kind = max((x.type for x in g), key=lambda k: SEVERITY[k])
    doi = next((x.doi for x in g if x.doi), None)
    pmid = next((x.pmid for x in g if x.pmid), None)
    dates = sorted(x.date for x in g if x.date)
    sources: list[NoticeSource] = []
    for x in g:
        label = f"{x.source}:{x.origin}" if x.origin else x.source
        ns = NoticeSource(source=label, type=x.type, label=x.label, id=x.doi or x.pmid, date=x.date)
        if ns not in sources:
            sources.append(ns)
    return NoticeOut(
        type=kind,
        id=doi or pmid,
        date=dates[0] if dates else None,
        source=", ".join(dict.fromkeys(s.source for s in sources)),
        sources=sources,
        disagreement=True if len({s.type for s in sources}) > 1 else None,
    )
