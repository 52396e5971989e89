"""pubmed_verify_references: does each reference exist, which record is it, what is wrong with it,
and has it been retracted or corrected? Over the reference matchers and notice providers plugins
declare (``medlit_reference_matchers``, ``medlit_notice_providers``).

Requests per call (whatever the number of references, up to 100): the matchers' ``identifiers``
stage once for every stated DOI and PMID (one batch per kind and source), their ``citation``
stage once for what is unsettled (one batched lookup), their ``search`` stage only for what is
still unsettled, matcher by matcher; then every notice provider once for all matched works.
Nothing is sent for input that is refused.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from medlit.core.plugin import (
    MedlitError,
    NoticeProvider,
    RecordMetadata,
    RecordNotice,
    ReferenceCandidate,
    ReferenceMatcher,
    ReferenceQuery,
    ToolContext,
    identifiers,
    kinds,
    rendering,
)
from medlit.core.plugin import errors as E

from .compare import Verdict, Work, judge, title_notice
from .models import (
    MAX_REFERENCES,
    CandidateOut,
    Confidence,
    Discrepancy,
    Evidence,
    Match,
    MatchedRecord,
    NoticeOut,
    NoticeSource,
    OverLimit,
    ProviderReport,
    ReferenceFields,
    ReferenceResult,
    StatedOut,
    Summary,
    VerifyReferencesInput,
    VerifyReferencesOutput,
)
from .names import parse_authors
from .parse import count_entries, parse_reference, split_entries
from .stated import StatedReference

STAGES: tuple[kinds.MatchStage, ...] = ("identifiers", "citation", "search")
NOTICE_RESERVE = 10.0  # seconds of the call deadline kept for the notice lookups
SEVERITY: dict[kinds.NoticeKind, int] = {
    "retraction": 6,
    "withdrawal": 5,
    "partial_retraction": 4,
    "expression_of_concern": 3,
    "correction": 2,
    "erratum": 1,
}
AMBIGUITY_MARGIN = 0.05
MAX_ENTRIES_READ = 10 * MAX_REFERENCES  # entries split out of pasted blobs before the cut


# -- reading the input (no I/O) ---------------------------------------------------------------------


def _fields_to_stated(f: ReferenceFields) -> StatedReference:
    if isinstance(f.authors, str):
        authors = parse_authors(f.authors)
    else:
        authors = [a2 for a in f.authors or [] if (a2 := (parse_authors(a) or [a.strip()])[0])]
    year = None
    if f.year is not None:
        text = str(f.year).strip()
        if not (text.isdigit() and 1000 <= int(text) <= 2999):
            raise E.invalid_argument(
                f"year {text[:20]!r} is not a four-digit year", "Give the year as e.g. 2015."
            )
        year = int(text)
    first = last = None
    if f.pages is not None:
        parts = [p.strip() for p in str(f.pages).replace("–", "-").replace("—", "-").split("-", 1)]
        first, last = parts[0] or None, (parts[1] if len(parts) > 1 and parts[1] else None)
    return StatedReference(
        title=f.title,
        authors=authors,
        journal=f.journal,
        year=year,
        volume=str(f.volume) if f.volume is not None else None,
        issue=str(f.issue) if f.issue is not None else None,
        first_page=first,
        last_page=last,
        doi=f.doi,
        pmid=str(f.pmid) if f.pmid is not None else None,
        style="fields",
    )


def _checked_ids(s: StatedReference, index: int, strict: bool) -> None:
    """Canonical DOI and PMID; a malformed one given as a field is refused, one read from text dropped."""
    for attr, norm in (("doi", identifiers.normalize_doi), ("pmid", identifiers.normalize_pmid)):
        value = getattr(s, attr)
        if not value:
            continue
        try:
            setattr(s, attr, norm(value))
        except identifiers.IdentifierError as exc:
            if strict:
                raise E.invalid_argument(
                    f"references[{index}].{attr}: {exc}",
                    "Give a DOI like '10.1038/171737a0' and a PMID of digits, or leave the field out.",
                ) from None
            setattr(s, attr, None)


def read_references(items: Sequence[str | ReferenceFields]) -> tuple[list[tuple[str, StatedReference]], int]:
    """Every reference of the input, in order (BibTeX/RIS blobs split into entries), and how many
    entries there were in all (more than :data:`MAX_REFERENCES`: the rest is over the limit)."""
    out: list[tuple[str, StatedReference]] = []
    total = 0
    for i, item in enumerate(items):
        if isinstance(item, ReferenceFields):
            s = _fields_to_stated(item)
            _checked_ids(s, i, strict=True)
            shown = "; ".join(f"{k}={v}" for k, v in item.model_dump(exclude_none=True).items())
            total += 1
            if len(out) < MAX_REFERENCES:
                out.append((shown, s))
            continue
        n = count_entries(item)
        total += n
        if len(out) >= MAX_REFERENCES:
            continue
        if total > MAX_ENTRIES_READ:
            raise E.invalid_argument(
                f"references[{i}] holds {n:,} entries; a call audits at most {MAX_REFERENCES}",
                f"Send at most {MAX_REFERENCES} references per call (split the file and call again).",
                entries=total,
            )
        for entry in split_entries(item):
            if len(out) >= MAX_REFERENCES:
                break
            try:
                s = parse_reference(entry)
            except Exception as exc:  # a library's parse error: the entry cannot be read
                raise E.invalid_argument(
                    f"references[{i}] could not be read: {str(exc)[:160]}",
                    "Fix the entry (BibTeX: @type{key, field = {value}}; RIS: 'TY  - JOUR' ... 'ER  - '), or give "
                    "it as plain text or fields.",
                ) from None
            _checked_ids(s, i, strict=False)
            if not (s.title or s.authors or s.journal or s.doi or s.pmid or (s.text and len(s.text) >= 10)):
                raise E.invalid_argument(
                    f"references[{i}] has nothing to match on: {entry[:80]!r}",
                    "Give the reference's text, or at least a title, a DOI or a PMID.",
                    reason="empty_reference",
                )
            out.append((entry, s))
    return out, total


def to_query(key: str, s: StatedReference) -> ReferenceQuery:
    return ReferenceQuery(
        key=key,
        text=s.text,
        title=s.title,
        authors=tuple(s.authors),
        journal=s.journal,
        year=s.year,
        volume=s.volume,
        issue=s.issue,
        first_page=s.first_page,
        last_page=s.last_page,
        doi=s.doi,
        pmid=s.pmid,
    )


# -- asking the matchers ------------------------------------------------------------------------------


@dataclass
class Trail:
    """What one provider was asked and how it went."""

    name: str
    kind: str
    plugin: str
    active: bool
    detail: str = ""
    variable: str | None = None
    stages: list[str] = field(default_factory=list)
    asked_keys: set[str] = field(default_factory=set)
    late_keys: set[str] = field(default_factory=set)  # references the call's deadline kept from it
    error: MedlitError | None = None

    def report(self) -> ProviderReport:
        if not self.active:
            outcome = "not-queried"
        elif self.error is not None:
            outcome = "failed"
        else:
            outcome = "answered" if self.stages else "not-queried"
        detail = self.detail
        if self.active and not self.stages and not detail:
            detail = "nothing to ask it"
        return ProviderReport(
            provider=self.name,
            kind="matcher" if self.kind == "matcher" else "notices",
            outcome=outcome,  # type: ignore[arg-type]
            stages=self.stages,
            detail=detail,
            reason=self.error.reason if self.error else None,
            variable=self.variable if not self.active else None,
        )


@dataclass
class Pool:
    """Every candidate every matcher offered, per reference, in matcher order (whatever order
    parallel answers arrive in, so the same upstream answers always give the same result)."""

    found: dict[str, list[tuple[int, str, ReferenceCandidate]]] = field(default_factory=dict)

    def add(self, provider: str, answer: object, keys: set[str], order: int = 0) -> None:
        if not isinstance(answer, Mapping):
            return
        for key, cands in answer.items():
            if key not in keys or not isinstance(cands, (list, tuple)):
                continue
            got = self.found.setdefault(key, [])
            got.extend(
                (order, provider, c)
                for c in list(cands)[:10]
                if isinstance(c, ReferenceCandidate) and isinstance(c.record, RecordMetadata)
            )
            got.sort(key=lambda entry: entry[0])  # stable: a matcher's own order kept

    def works(self, key: str) -> list[Work]:
        """The candidates of one reference folded into works (one per DOI or PMID shared)."""
        works: list[Work] = []
        for _, provider, c in self.found.get(key, []):
            r = c.record
            ids = _ids_of([r])
            target = next((w for w in works if ids & _ids_of(w.records)), None)
            if target is None:
                target = Work()
                works.append(target)
            if not any(_same_record(r, x) for x in target.records):
                target.records.append(r)
            if provider not in target.providers:
                target.providers.append(provider)
            if c.via not in target.via:
                target.via.append(c.via)
            if c.score is not None and (target.score is None or c.score > target.score):
                target.score = c.score
        return works


def _ids_of(records: Sequence[RecordMetadata]) -> set[tuple[str, str]]:
    out = {("doi", r.doi.lower()) for r in records if r.doi}
    return out | {("pmid", r.pmid) for r in records if r.pmid}


def _same_record(a: RecordMetadata, b: RecordMetadata) -> bool:
    return (a.source, a.doi, a.pmid, a.title) == (b.source, b.doi, b.pmid, b.title)


def _id_only(ref: ReferenceQuery) -> bool:
    return bool(ref.doi or ref.pmid) and not (ref.title or ref.authors or ref.journal or ref.year)


def _accepted(ref: ReferenceQuery, works: list[Work]) -> list[tuple[Work, Verdict]]:
    out = []
    for w in works:
        v = judge(ref, w)
        if v.same_work:
            out.append((w, v))
    return sorted(out, key=lambda wv: -wv[1].agreement)


def _settled(ref: ReferenceQuery, pool: Pool) -> bool:
    works = pool.works(ref.key)
    if _id_only(ref):
        return any(_by_stated_id(ref, w) for w in works)
    return bool(_accepted(ref, works))


def _by_stated_id(ref: ReferenceQuery, w: Work) -> bool:
    return bool(
        (ref.doi and ref.doi in {(r.doi or "").lower() for r in w.records})
        or (ref.pmid and ref.pmid in {r.pmid for r in w.records})
    )


async def _resolve(
    m: ReferenceMatcher, refs: list[ReferenceQuery], stage: kinds.MatchStage, ctx: ToolContext
) -> Any:
    return await m.resolve(refs, stage, ctx)


async def _ask(
    ctx: ToolContext,
    m: ReferenceMatcher,
    trail: Trail,
    refs: list[ReferenceQuery],
    stage: kinds.MatchStage,
    pool: Pool,
    until: float,
) -> None:
    left = until - time.monotonic()
    if left <= 0.5:
        trail.error = trail.error or MedlitError(
            E.CALL_DEADLINE_EXCEEDED,
            "not asked: the call ran out of time",
            recovery="Retry with fewer references.",
        )
        trail.late_keys |= {r.key for r in refs}
        return
    trail.stages.append(stage)
    trail.asked_keys |= {r.key for r in refs}
    out = await ctx.services().run_step(
        m.name,
        m.plugin,
        partial(_resolve, m, refs, stage),
        limit=min(m.timeout, left),
        expect=Mapping,
        expected="a mapping of candidates by reference key",
    )
    if out.error is not None:
        # The first failure is the cause worth naming: a later stage that then runs out of time (its
        # retries used the time) must not hide the reset or the garbled answer behind it.
        trail.error = trail.error or out.error
        trail.detail = trail.detail or out.detail
        return
    pool.add(m.name, out.answer, {r.key for r in refs}, m.order)


def _wants(ref: ReferenceQuery, stage: kinds.MatchStage) -> bool:
    if stage == "identifiers":
        return bool(ref.doi or ref.pmid)
    if stage == "citation":
        return bool(ref.journal and ref.volume and ref.first_page)
    return not _id_only(ref) or bool(ref.text and not (ref.doi or ref.pmid))


async def run_matchers(
    ctx: ToolContext, refs: list[ReferenceQuery], matchers: list[tuple[ReferenceMatcher, Trail]], until: float
) -> Pool:
    pool = Pool()
    active = [(m, t) for m, t in matchers if t.active]
    step = 0
    # Identifiers: every matcher checks every stated id (a DOI is checked, not believed), in parallel.
    with_ids = [r for r in refs if _wants(r, "identifiers")]
    if with_ids:
        step += 1
        await ctx.report(step, f"checking {len(with_ids)} stated DOI(s)/PMID(s)")
        await asyncio.gather(
            *(
                _ask(ctx, m, t, with_ids, "identifiers", pool, until)
                for m, t in active
                if "identifiers" in m.stages
            )
        )
    later: tuple[kinds.MatchStage, ...] = ("citation", "search")
    for stage in later:
        for m, t in active:
            if stage not in m.stages:
                continue
            todo = [r for r in refs if _wants(r, stage) and not _settled(r, pool)]
            if not todo:
                continue
            step += 1
            await ctx.report(step, f"{m.name}: {stage} for {len(todo)} reference(s)")
            await _ask(ctx, m, t, todo, stage, pool, until)
    return pool


# -- notices ------------------------------------------------------------------------------------------


async def _lookup(p: NoticeProvider, kind: Any, ids: list[str], ctx: ToolContext) -> Any:
    return await p.lookup(kind, ids, ctx)


async def run_notices(
    ctx: ToolContext, works: list[Work], providers: list[tuple[NoticeProvider, Trail]], until: float
) -> dict[tuple[str, str], list[RecordNotice]]:
    """Notices by (kind, id) from every active provider, each asked once per id kind it accepts."""
    ids: dict[str, list[str]] = {"pmid": [], "doi": []}
    for w in works:
        for r in w.records:
            if r.pmid and r.pmid not in ids["pmid"]:
                ids["pmid"].append(r.pmid)
            if r.doi and r.doi.lower() not in ids["doi"]:
                ids["doi"].append(r.doi.lower())
    found: dict[tuple[str, str], list[RecordNotice]] = {}

    async def one(p: NoticeProvider, t: Trail, kind: str) -> None:
        wanted = ids.get(kind) or []
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
        for key, notices in out.answer.items():
            if not isinstance(key, str) or not isinstance(notices, (list, tuple)):
                continue
            for n in notices:
                if isinstance(n, RecordNotice) and n.type in SEVERITY:
                    stamped = replace(n, source=p.name)
                    found.setdefault((kind, key.lower() if kind == "doi" else key), []).append(stamped)

    await asyncio.gather(
        *(one(p, t, kind) for p, t in providers if t.active for kind in sorted(p.accepts) if kind in ids)
    )
    rank = {p.name: (p.order, p.name) for p, _ in providers}
    for notices in found.values():
        notices.sort(key=lambda n: rank.get(n.source, (0, n.source)))  # provider order, not arrival order
    return found


def merge_notices(notices: list[RecordNotice]) -> list[NoticeOut]:
    """One entry per notice, whichever sources report it (matched by the notice's DOI or PMID); the
    gravest type wins and each source's own typing is kept. A notice without an id is folded into one
    of the same type that has an id."""
    groups: list[list[RecordNotice]] = []
    for n in notices:
        ids = {("doi", (n.doi or "").lower()) if n.doi else None, ("pmid", n.pmid) if n.pmid else None} - {
            None
        }
        target = None
        if ids:
            target = next(
                (
                    g
                    for g in groups
                    if ids
                    & (
                        {("doi", (x.doi or "").lower()) for x in g if x.doi}
                        | {("pmid", x.pmid) for x in g if x.pmid}
                    )
                ),
                None,
            )
        if target is None:
            groups.append([n])
        else:
            target.append(n)
    anonymous = [g for g in groups if not any(x.doi or x.pmid for x in g)]
    named = [g for g in groups if g not in anonymous]
    for g in anonymous:
        home = next((h for h in named if any(x.type == g[0].type for x in h)), None)
        if home is not None:
            home.extend(g)
        else:
            named.append(g)
    out = []
    for g in named:
        kind = max((x.type for x in g), key=lambda k: SEVERITY[k])
        doi = next((x.doi for x in g if x.doi), None)
        pmid = next((x.pmid for x in g if x.pmid), None)
        dates = sorted(x.date for x in g if x.date)
        sources = []
        for x in g:
            label = f"{x.source}:{x.origin}" if x.origin else x.source
            ns = NoticeSource(source=label, type=x.type, label=x.label, id=x.doi or x.pmid, date=x.date)
            if ns not in sources:
                sources.append(ns)
        out.append(
            NoticeOut(
                type=kind,
                id=doi or pmid,
                date=dates[0] if dates else None,
                source=", ".join(dict.fromkeys(s.source for s in sources)),
                sources=sources,
                disagreement=True if len({s.type for s in sources}) > 1 else None,
            )
        )
    return sorted(out, key=lambda n: (-SEVERITY[n.type], n.date or ""))


# -- deciding ---------------------------------------------------------------------------------------


def _record(w: Work) -> MatchedRecord:
    def pick(attr: str) -> Any:
        return w.first(attr)

    first, last = pick("first_page"), None
    for r in w.records:
        if r.first_page == first and r.last_page:
            last = r.last_page
            break
    authors: list[str] = []
    for r in w.records:
        if r.authors:
            authors = list(r.authors[:6])
            break
    return MatchedRecord(
        pmid=pick("pmid"),
        doi=pick("doi"),
        pmcid=pick("pmcid"),
        title=pick("title"),
        authors=authors,
        journal=pick("container_abbrev") or pick("container_title"),
        year=pick("year"),
        volume=pick("volume"),
        issue=pick("issue"),
        pages=f"{first}-{last}" if first and last else first,
        type=pick("kind"),
    )


def _why(v: Verdict) -> str:
    agree = [f for f, s in v.fields.items() if s == "same"]
    differ = [f for f, s in v.fields.items() if s in ("close", "different")]
    return ("agrees on " + ", ".join(agree) if agree else "nothing agrees") + (
        "; differs on " + ", ".join(differ) if differ else ""
    )


def cite(r: MatchedRecord) -> str:
    """A work named the way a reader recognises it: first author, year, title, journal."""
    parts = [x for x in ((r.authors or [""])[0], str(r.year or "")) if x]
    head = " ".join(parts)
    title = f"“{r.title}”" if r.title else ""
    return ", ".join(x for x in (head, title, r.journal or "") if x) or (r.doi or r.pmid or "?")


def _owner(ref: ReferenceQuery, field: str, works: list[Work], matched: Work | None) -> Work | None:
    """The work a stated DOI or PMID resolves to, when it is not the matched one (a chimera by id)."""
    wanted = ref.doi if field == "doi" else ref.pmid
    if not wanted:
        return None
    for w in works:
        if w is matched:
            continue
        have = {(r.doi or "").lower() for r in w.records} if field == "doi" else {r.pmid for r in w.records}
        if wanted in have:
            return w
    return None


def _title_notices(
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


def _candidate(w: Work, v: Verdict) -> CandidateOut:
    return CandidateOut(record=_record(w), providers=list(w.providers), score=w.score, why=_why(v))


@dataclass
class Decision:
    match: Match
    confidence: Confidence
    work: Work | None = None
    verdict: Verdict | None = None
    candidates: list[CandidateOut] | None = None
    chimera: bool = False
    note: str | None = None


def decide(ref: ReferenceQuery, works: list[Work], failures: bool) -> Decision:
    if _id_only(ref):
        hits = [w for w in works if _by_stated_id(ref, w)]
        if not hits:
            return Decision(
                "not_found", "low" if failures else "high", note="no source knows the stated identifier"
            )
        w = hits[0]
        conf: Confidence = "high" if len(w.providers) > 1 else "medium"
        return Decision(
            "verified",
            conf,
            w,
            judge(ref, w),
            note="only an identifier was given: it exists, nothing else to compare",
        )
    accepted = _accepted(ref, works)
    by_id = [w for w in works if _by_stated_id(ref, w)]
    if not accepted and by_id and ref.title is None:
        # No title to compare: the stated id names the work unless its record contradicts the rest.
        w = by_id[0]
        v = judge(ref, w)
        differ = [f for f in ("authors", "year", "journal", "volume", "pages") if v.fields[f] == "different"]
        if len(differ) <= 1:
            if v.discrepancies:
                return Decision(
                    "mismatch", "medium", w, v, note="no title given: the stated identifier's record differs"
                )
            return Decision(
                "verified", "medium", w, v, note="no title given: the stated identifier's record agrees"
            )
    if not accepted:
        verdicts = sorted(((w, judge(ref, w)) for w in works), key=lambda wv: -wv[1].agreement)
        near = [_candidate(w, v) for w, v in verdicts[:3]] or None
        if by_id:
            w = by_id[0]
            v = judge(ref, w)
            label = "DOI" if ref.doi and ref.doi in {(r.doi or "").lower() for r in w.records} else "PMID"
            return Decision(
                "mismatch",
                "high",
                w,
                v,
                near,
                note=f"the stated {label} belongs to another paper ({cite(_record(w))}); the stated work "
                "itself was not found",
            )
        return Decision("not_found", "low" if failures else ("medium" if works else "high"), candidates=near)
    stated_hit = next(((w, v) for w, v in accepted if _by_stated_id(ref, w)), None)
    if stated_hit is not None and stated_hit[1].fields["title"] in ("same", "close"):
        accepted = [stated_hit, *[wv for wv in accepted if wv is not stated_hit]]  # the stated id, confirmed
    top_w, top_v = accepted[0]
    rivals = [
        (w, v)
        for w, v in accepted[1:]
        if top_v.agreement - v.agreement <= AMBIGUITY_MARGIN and v.fields["title"] == top_v.fields["title"]
    ]
    if rivals and not any(_by_stated_id(ref, w) for w, _ in [accepted[0], *rivals]):
        return Decision(
            "ambiguous",
            "low",
            candidates=[_candidate(w, v) for w, v in [accepted[0], *rivals]][:5],
            note="more than one record fits equally well: add the DOI, year or pages",
        )
    if rivals:
        top_w, top_v = next((w, v) for w, v in [accepted[0], *rivals] if _by_stated_id(ref, w))
    if top_v.chimera:
        return Decision(
            "mismatch",
            "high",
            top_w,
            top_v,
            chimera=True,
            note="the title is real, but its first author and journal are another paper's",
        )
    if top_v.discrepancies:
        doi_wrong = any(f == "doi" for f, _, _ in top_v.discrepancies)
        return Decision(
            "mismatch", "high" if doi_wrong or len(top_w.providers) > 1 else "medium", top_w, top_v
        )
    strong = sum(1 for f in ("authors", "year", "journal") if top_v.fields[f] == "same")
    conf = (
        "high" if (top_v.fields["title"] == "same" and strong >= 2) or len(top_w.providers) > 1 else "medium"
    )
    return Decision("verified", conf, top_w, top_v)


# -- the tool -----------------------------------------------------------------------------------------


def _stated(s: StatedReference) -> StatedOut:
    pages = f"{s.first_page}-{s.last_page}" if s.first_page and s.last_page else s.first_page
    return StatedOut(
        style=s.style,
        title=s.title,
        firstAuthor=s.authors[0] if s.authors else None,
        journal=s.journal,
        year=s.year,
        volume=s.volume,
        issue=s.issue,
        pages=pages,
        doi=s.doi,
        pmid=s.pmid,
    )


def _inactive_why(record: Any) -> str:
    detail = getattr(record, "detail", "") or getattr(record, "status", "")
    return f"{record.name}: {detail}"


async def verify_references(args: VerifyReferencesInput, ctx: ToolContext) -> VerifyReferencesOutput:
    host = ctx.services()
    catalog = host.catalog
    read, total = read_references(args.references)  # refused input raises here, before any request
    refs = [to_query(str(n + 1), s) for n, (_, s) in enumerate(read)]
    started = time.monotonic()
    budget = host.call_deadline
    deadline = started + max(0.5, budget * 0.95 - 0.5)  # the runtime stops the handler at the deadline
    match_until = deadline - min(NOTICE_RESERVE, budget * 0.2)

    matchers = [
        (
            m,
            Trail(
                m.name,
                "matcher",
                m.plugin,
                rec.active,
                "" if rec.active else rec.detail,
                rec.waiting_on or None,
            ),
        )
        for m, rec in catalog.matchers
    ]
    if not any(t.active for _, t in matchers):
        raise MedlitError(
            E.UNAVAILABLE,
            "No reference matcher is active: "
            + ("; ".join(f"{t.name} ({t.detail})" for _, t in matchers) or "none is installed")
            + (f" {catalog.switched_off_hint()}" if catalog.switched_off else ""),
            recovery="Enable a plugin that declares one (see medlit plugins), then restart the server.",
        )
    pool = await run_matchers(ctx, refs, matchers, match_until)
    failures = {t.name for _, t in matchers if t.error is not None}
    decisions = [decide(r, pool.works(r.key), bool(failures)) for r in refs]

    notice_providers = [
        (
            p,
            Trail(
                p.name,
                "notices",
                p.plugin,
                rec.active,
                "" if rec.active else rec.detail,
                rec.waiting_on or None,
            ),
        )
        for p, rec in catalog.notices
    ]
    matched = [d.work for d in decisions if d.work is not None]
    notices = await run_notices(ctx, matched, notice_providers, deadline) if matched else {}

    results: list[ReferenceResult] = []
    for n, ((shown, s), ref, d) in enumerate(zip(read, refs, decisions, strict=True)):
        asked = [t.name for _, t in matchers if ref.key in t.asked_keys]
        not_asked = [f"{t.name} ({t.detail or 'off'})" for _, t in matchers if not t.active] + [
            f"{p.name} (switched off: {p.waiting_on}=true enables it)" for p in catalog.switched_off
        ]
        failed = [t for _, t in matchers if ref.key in t.asked_keys and t.error is not None]
        late = [t.name for _, t in matchers if ref.key in t.late_keys]
        note = d.note
        if late:
            note = (
                (note + "; ") if note else ""
            ) + f"not asked: the call ran out of time ({', '.join(late)})"
        if failed:
            note = ((note + "; ") if note else "") + "; ".join(
                f"{t.name} failed ({t.error.reason if t.error else '?'})" for t in failed
            )
        match = d.match
        # A source that failed (or was never asked in time) is not one that answered "no": a paper
        # only it knows would read as non-existent. Not found is said only when every source answered.
        unsure = [t.name for t in failed] + [name for name in late if name not in {t.name for t in failed}]
        if match == "not_found" and unsure:
            match = "unverified"
            answered = [a for a in asked if a not in unsure]
            note = ((note + "; ") if note else "") + (
                f"unverifiable for now: {', '.join(unsure)} could not be asked or failed"
                + (f"; not found by {', '.join(answered)}" if answered else "")
                + "; retry later"
            )
            if not_asked:
                note += "; not asked: " + ", ".join(not_asked)
        if match == "not_found":
            asked_text = ", ".join(asked) or "no source"
            note = ((note + "; ") if note else "") + f"not found by {asked_text}"
            if not_asked:
                note += "; not asked: " + ", ".join(not_asked)
        work_notices: list[NoticeOut] = []
        if d.work is not None:
            keys = [("pmid", r.pmid) for r in d.work.records if r.pmid] + [
                ("doi", r.doi.lower()) for r in d.work.records if r.doi
            ]
            raw = [x for k in dict.fromkeys(keys) for x in notices.get(k, [])]
            work_notices = merge_notices(raw)
            work_notices = sorted(
                [*_title_notices(d.work, work_notices, pool.found.get(ref.key, [])), *work_notices],
                key=lambda x: (-SEVERITY[x.type], x.date or ""),
            )
        works = pool.works(ref.key)
        discrepancies = []
        for f, st, ac in d.verdict.discrepancies if d.verdict and d.match != "verified" else []:
            owner = _owner(ref, f, works, d.work) if f in ("doi", "pmid") else None
            belongs = _record(owner) if owner is not None else None
            discrepancies.append(Discrepancy(field=f, stated=st, actual=ac, belongsTo=belongs))  # type: ignore[arg-type]
            if belongs is not None:
                note = ((note + "; ") if note else "") + (
                    f"the stated {f.upper()} is another paper's: {cite(belongs)}"
                )
        results.append(
            ReferenceResult(
                index=n + 1,
                input=shown if len(shown) <= 200 else shown[:197] + "...",
                stated=_stated(s),
                match=match,
                confidence=d.confidence,
                retryable=True if match == "unverified" else None,
                record=_record(d.work) if d.work is not None else None,
                discrepancies=discrepancies,
                notices=work_notices,
                candidates=d.candidates,
                chimera=True if d.chimera else None,
                evidence=Evidence(
                    asked=asked,
                    agreed=list(d.work.providers) if d.work else [],
                    via=list(d.work.via) if d.work else [],
                    notAsked=not_asked,
                    failed=unsure,
                    note=note,
                ),
            )
        )
    summary = Summary()
    for r in results:
        setattr(summary, r.match, getattr(summary, r.match) + 1)
        if r.notices:
            summary.withNotices += 1
        if any(x.type in ("retraction", "withdrawal") for x in r.notices):
            summary.retracted += 1
    reports = [t.report() for _, t in matchers] + [t.report() for _, t in notice_providers]
    parts: list[str] = []
    off = [f"{t.name} ({t.detail or 'off'})" for _, t in [*matchers, *notice_providers] if not t.active]
    off += [f"{p.name} (switched off: {p.waiting_on}=true enables it)" for p in catalog.switched_off]
    if off:
        names = ", ".join(dict.fromkeys(off))
        parts.append(f"Not asked: {names}; results rest on the other sources.")
    broken = [t for _, t in [*matchers, *notice_providers] if t.error is not None]
    if broken:
        parts.append(
            "Failed: "
            + "; ".join(f"{t.name} ({t.error.reason if t.error else '?'})" for t in broken)
            + ". References only they could settle are reported unverified (not not_found), and notices "
            "they hold are missing: retry later."
        )
    over = None
    if total > len(refs):
        over = OverLimit(count=total - len(refs), firstIndex=len(refs) + 1)
        parts.append(
            f"{total - len(refs)} reference(s) past the first {MAX_REFERENCES} were not audited; send them in another call."
        )
    return VerifyReferencesOutput(
        results=results, summary=summary, providers=reports, overLimit=over, notice=" ".join(parts) or None
    )


# -- rendering ----------------------------------------------------------------------------------------

MAX_CANDIDATES_SHOWN = 3
CANDIDATES_SHOWN_FOR = ("not_found", "unverified")


def severity_mark(r: ReferenceResult) -> str:
    """The row's severity as a marker, so the table can keep the order the list was pasted in (a
    reader checks it against their manuscript) and still show what to look at first: ``!!!``
    retracted or withdrawn, ``!!`` not found, unverified or a mismatch, ``!`` ambiguous or another
    notice, blank when verified without notices."""
    if any(n.type in ("retraction", "withdrawal") for n in r.notices):
        return "!!!"
    if r.match in ("not_found", "unverified", "mismatch"):
        return "!!"
    if r.match == "ambiguous" or r.notices:
        return "!"
    return ""


def _ids(rec: MatchedRecord) -> str:
    return " ".join(
        x for x in (f"PMID {rec.pmid}" if rec.pmid else "", f"doi:{rec.doi}" if rec.doi else "") if x
    )


def render_references(out: VerifyReferencesOutput, args: VerifyReferencesInput) -> str:
    if args.responseFormat == "json":
        return rendering.cap_text(rendering.as_json(out, "references"), "Audit fewer references per call.")
    s = out.summary
    lines = [
        f"## Reference audit: {len(out.results)} reference(s)",
        f"verified {s.verified} · mismatch {s.mismatch} · ambiguous {s.ambiguous} · not found {s.not_found} · "
        + (f"unverified {s.unverified} (a source failed: retry later) · " if s.unverified else "")
        + f"retracted {s.retracted} · with notices {s.withNotices}",
    ]
    rows = []
    nearest: list[str] = []
    for r in out.results:  # the order given: results[i] is the i-th reference pasted
        rec = r.record
        found = ""
        if rec is not None:
            found = f"{(rec.authors or ['?'])[0]} {rec.year or ''} {(rec.title or '')[:70]} ({_ids(rec)})"
        issues = "; ".join(
            f"{d.field}: {d.stated or '-'} → {d.actual or '-'}"[:90]
            + (f" (the stated {d.field.upper()} is {cite(d.belongsTo)[:120]})" if d.belongsTo else "")
            for d in r.discrepancies
        )
        if r.chimera:
            issues = "chimera; " + issues
        notes = "; ".join(f"{n.type.upper()} {n.id or ''} ({n.source})" for n in r.notices)
        if r.match == "ambiguous" and r.candidates:
            found = " | ".join(f"{c.record.pmid or c.record.doi}" for c in r.candidates)
        if r.match in CANDIDATES_SHOWN_FOR and r.candidates:
            nearest.append(f"#{r.index} ({r.match}), nearest records, none accepted:")
            nearest += [
                f"- {cite(c.record)[:160]} ({_ids(c.record) or 'no id'}; {', '.join(c.providers)}): {c.why}"
                for c in r.candidates[:MAX_CANDIDATES_SHOWN]
            ]
        rows.append(
            [
                r.index,
                severity_mark(r),
                r.match,
                r.confidence,
                notes,
                issues,
                found,
                ", ".join(r.evidence.agreed or r.evidence.asked),
            ]
        )
    lines.append(
        rendering.fence(
            rendering.md_table(
                ["#", "!", "Match", "Conf.", "Notices", "Discrepancies", "Record", "Sources"], rows
            ),
            "references",
        )
    )
    lines.append(
        "`!!!` retracted or withdrawn · `!!` not found, unverified or mismatch · `!` ambiguous or a notice"
    )
    if nearest:
        lines.append("\n".join(nearest))
    if out.notice:
        lines.append(f"**Notice:** {out.notice}")
    trail = "; ".join(
        f"{p.provider} {p.kind} {p.outcome}"
        + (f" ({p.reason or p.variable or ''})" if (p.reason or p.variable) else "")
        for p in out.providers
    )
    lines.append(f"Providers: {trail}")
    return rendering.cap_text(
        "\n\n".join(lines), "Audit fewer references per call, or ask for responseFormat 'json'."
    )
