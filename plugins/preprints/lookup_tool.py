"""preprints_lookup: bioRxiv and medRxiv preprints by DOI, every version and the journal article.

One details request per DOI (a second server only when the first does not know it) and one
``/pubs`` request per preprint that became a journal article, paced by the client. A few workers
take DOIs in order and stop starting new ones when the call's deadline is near: what was not
looked up comes back in ``deferred`` rather than the whole call failing at its deadline.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from urllib.parse import quote

from medlit.core.plugin import MedlitError, ToolContext, errors, rendering, wire

from .inputs import LookupInput
from .models import Failure, LookupOutput, Preprint
from .parse import collection, preprint, publication
from .service import NAME, SERVERS

WORKERS = 4  # DOIs in progress at once: the client's pacer decides when each request goes
UNBOUNDED = 3600.0  # outside a tool call (a test, a script): no deadline to speak of
# Seconds before the call's deadline after which no new DOI is started: MARGIN, or a quarter of a
# short call's time (a 4-second deadline still looks one DOI up rather than none)
MARGIN = 5.0
# cut by the call's deadline: the request's own, the call's, or the pacer's queue that could not start it in time
_LATE = frozenset({errors.DEADLINE_EXCEEDED, errors.CALL_DEADLINE_EXCEEDED, errors.QUEUE_FULL})
_MEDRXIV = re.compile(r"^10\.1101/\d{4}\.\d{2}\.\d{2}\.2\d{7}$")  # medRxiv's 8-digit serials


def servers_for(doi: str, asked: str) -> tuple[str, ...]:
    if asked != "auto":
        return (asked,)
    first = "medrxiv" if _MEDRXIV.match(doi) else "biorxiv"
    return (first, *(s for s in SERVERS if s != first))


@dataclass
class Run:
    args: LookupInput
    ctx: ToolContext
    deadline: float  # time.monotonic() instant the call must answer by
    found: dict[str, Preprint] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)
    failed: dict[str, MedlitError] = field(default_factory=dict)
    late: set[str] = field(default_factory=set)  # cut by the call's deadline: deferred, not failed
    late_error: MedlitError | None = None  # the last of those cuts, said when nothing else answered
    requests: int = 0
    margin: float = MARGIN

    def __post_init__(self) -> None:
        self.margin = min(MARGIN, self.time_left() / 4)

    def request_deadline(self) -> float:
        return self.deadline - 1.0  # a request cut here leaves a second to answer what was found

    async def get(self, path: str) -> object:
        self.requests += 1
        resp = await self.ctx.client(NAME).get(path, {}, expect="json", deadline=self.request_deadline())
        return resp.json()

    async def one(self, doi: str) -> None:
        for server in servers_for(doi, self.args.server):
            records = collection(await self.get(f"details/{server}/{quote(doi, safe='/')}/na/json"))
            if records:
                break
        else:
            self.missing.add(doi)
            return
        found = preprint(doi, server, records, abstract=self.args.includeAbstract)
        if found.published is not None:
            try:
                link = publication(
                    collection(await self.get(f"pubs/{server}/{quote(doi, safe='/')}/na/json")),
                    found.published.doi,
                )
            except MedlitError:
                link = None  # the journal DOI from details stands; its date is unknown this time
            if link is not None:
                found = found.model_copy(update={"published": link})
        self.found[doi] = found

    def time_left(self) -> float:
        return self.deadline - time.monotonic()

    async def worker(self, queue: list[str]) -> None:
        while queue and self.time_left() > self.margin:
            doi = queue.pop(0)
            try:
                await self.one(doi)
            except MedlitError as err:
                if err.kind in _LATE:
                    self.late.add(doi)
                    self.late_error = err
                else:
                    self.failed[doi] = err


def _notice(out: LookupOutput) -> str | None:
    notes = []
    if out.notFound:
        notes.append(f"{len(out.notFound)} DOI(s) are on neither bioRxiv nor medRxiv (notFound).")
    if out.failed:
        notes.append(f"{len(out.failed)} look-up(s) failed (failed): ask again for those DOIs.")
    if out.deferred:
        notes.append(
            f"{len(out.deferred)} DOI(s) were not looked up before the call's deadline (deferred): send them again."
        )
    return " ".join(notes) or None


async def lookup_preprints(args: LookupInput, ctx: ToolContext) -> LookupOutput:
    run = Run(args, ctx, wire.call_deadline(UNBOUNDED))
    queue = list(args.dois)
    await asyncio.gather(*(run.worker(queue) for _ in range(min(WORKERS, len(queue)))))
    if not run.found and not run.missing:  # nothing answered: the service's failure, as it is
        if run.failed and not run.late:
            raise next(iter(run.failed.values()))
        if (
            run.late_error is not None and not run.failed
        ):  # it never answered in time (a 503 retried to the end)
            raise run.late_error
    out = LookupOutput(
        preprints=[run.found[d] for d in args.dois if d in run.found],
        notFound=[d for d in args.dois if d in run.missing],
        failed=[Failure(doi=d, reason=e.reason, retryable=bool(e.retryable)) for d, e in run.failed.items()],
        deferred=[d for d in args.dois if d in run.late or d in queue],
        requests=run.requests,
    )
    return out.model_copy(update={"notice": _notice(out)})


def _preprint_md(p: Preprint) -> str:
    lines = [f"{p.doi} ({p.server}, v{p.latestVersion}) {p.title or '(no title)'}", f"   {p.url}"]
    if p.authors:
        lines.append("   " + (p.authors if len(p.authors) < 300 else p.authors[:297] + "..."))
    for v in p.versions:
        bits = [f"v{v.version}", v.date or "", v.license or "", v.category or "", v.type or ""]
        lines.append(
            "   - " + ", ".join(b for b in bits if b) + (f": {v.title}" if v.title and v.version > 1 else "")
        )
    if p.published:
        pub = p.published
        lines.append(f"   Published: {pub.doi}" + "".join(f", {x}" for x in (pub.journal, pub.date) if x))
    else:
        lines.append("   Not (yet) published in a journal, as far as the server knows.")
    if p.abstract:
        lines.append("   " + p.abstract)
    return "\n".join(lines)


def render_lookup(out: LookupOutput, args: LookupInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "biorxiv-preprints")
    head = [f"**{len(out.preprints)} preprint(s)** of {len(args.dois)} DOI(s); {out.requests} request(s)."]
    if out.notice:
        head.append(f"Notice: {out.notice}")
    for label, values in (("Not found", out.notFound), ("Deferred", out.deferred)):
        if values:
            head.append(f"{label}: " + ", ".join(values))
    if out.failed:
        head.append("Failed: " + ", ".join(f"{f.doi} ({f.reason})" for f in out.failed))
    body = "\n".join(_preprint_md(p) for p in out.preprints)
    text = "\n".join(head)
    if body:
        text += "\n\n" + rendering.fence(body, "biorxiv-preprints")
    text += "\n\nFull text: pubmed_fetch_fulltext with the DOI (Europe PMC carries many preprints' text)."
    return rendering.cap_text(text, "Look up fewer DOIs per call or use responseFormat 'json'.")
