"""Storing an imported file's records, batch by batch, each batch committed with the position
after it (the search's cursor): a server killed mid-import resumes from the last committed batch,
reading the file again from the copy the store keeps until the import completes.

The records are read as they are stored (:func:`..readers.read.stream`), never held whole: before
storing, the file is read through once without keeping its records (:func:`survey`: how many, the
skipped ones, the databases named; a file over the record cap is refused there, as soon as the
cap is passed), then again a batch at a time. Why: a file of 500,000 records read whole held
773 MB before the cap refused it (issue 50); read this way, an import holds its file's bytes and
one batch.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

from medlit.core.plugin import ToolContext

from ..identity import placing
from ..readers import Entry, Skipped
from ..readers.read import stream
from ..screening import restoring
from ..sets.jobs import Job
from ..store import Incoming, SearchRow, Store
from . import filling

log = logging.getLogger("medlit.review")

BATCH = 500  # records a transaction: big enough to amortise it, small enough to report progress


@dataclass
class Survey:
    """A file read through once, its records not kept: what its import records before storing."""

    format: str
    entries: int = 0
    skipped: list[Skipped] = field(default_factory=list)  # the first ``kept`` of them
    skipped_count: int = 0
    databases: set[str] = field(default_factory=set)
    notices: list[str] = field(default_factory=list)

    @property
    def records(self) -> int:
        return self.entries + self.skipped_count


class TooManyRecords(Exception):
    """The file holds more than the cap: ``seen`` records read when it was passed."""

    def __init__(self, seen: int) -> None:
        super().__init__(seen)
        self.seen = seen


def survey(raw: bytes, name: str | None, format: str | None, cap: int | None, kept: int) -> Survey:
    """Read ``raw`` through, keeping only counts, the first ``kept`` skipped records and the
    databases named; raises :class:`TooManyRecords` at the record past ``cap`` (the rest of the file
    not read), and the readers' ``ReadError``."""
    s = stream(raw, name, format)
    out = Survey(s.format)
    for r in s.records:
        if isinstance(r, Entry):
            out.entries += 1
            if r.database:
                out.databases.add(r.database)
        else:
            out.skipped_count += 1
            if len(out.skipped) < kept:
                out.skipped.append(r)
        if cap is not None and out.records > cap:
            raise TooManyRecords(out.records)
    out.notices = s.notices
    return out


class InputIds:
    """Each record's id in the set's log of input records: the file's own id (RIS ID or AN,
    EndNote rec-number, BibTeX key, WoS UT, PMID...), else ``#position``; an id the file repeats
    is told apart by its position (``id#position``), so no record of the file is taken for
    another. Given in file order, a batch at a time (the ids seen so far kept, not the records)."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def of(self, e: Entry) -> str:
        own = (e.input_id or "").strip()[:180] or f"#{e.position}"
        if own in self.seen:
            own = f"{own}#{e.position}"
        self.seen.add(own)
        return own


@dataclass
class Reading:
    """The file's entries being stored: the next batches, their ids, and the decisions they carry
    (an export of a screened set: restored once every record is placed)."""

    entries: Iterator[Entry]
    ids: InputIds = field(default_factory=InputIds)
    carried: list[tuple[str, tuple[dict[str, str], ...]]] = field(default_factory=list)

    def take(self, n: int) -> list[Incoming]:
        out: list[Incoming] = []
        for e in self.entries:
            sid = self.ids.of(e)
            if e.decisions:
                self.carried.append((sid, e.decisions))
            out.append(Incoming(sid, e.data, e.position))
            if len(out) >= n:
                break
        return out


async def run_file(
    store: Store | None,
    job: Job,
    search: SearchRow,
    raw: bytes | None = None,
    surveyed: Survey | None = None,
    ctx: ToolContext | None = None,
) -> None:
    """Store the file's records from the search's cursor on; ``raw`` and ``surveyed``: the file and
    its survey as the call made them (else the file is read again from the store's copy: a
    resumed import). ``ctx``: the call's context, whose metadata providers fill what records lack
    (:mod:`.filling`) unless the import was asked not to (``fillMissing``)."""
    assert store is not None
    spec = search.options.get("import") or {}
    name, fmt = spec.get("fileName"), spec.get("format")
    try:
        content = raw if raw is not None else await store.file_content(search.id)
        if content is None:
            await store.finish_search(
                search.id,
                "failed",
                "import_file_missing: the file is no longer held; import it again",
                retryable=0,
            )
            return
        if surveyed is None:
            surveyed = await asyncio.to_thread(survey, content, name, fmt, None, 0)
        filler = ctx if ctx is not None and spec.get("fillMissing", True) else None
        reading = Reading(_entries(content, name, fmt))
        await _store_batches(store, job, search, reading, surveyed, filler)
        await store.release_file(search.id)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the batch was rolled back whole: the cursor before it stands
        why = getattr(exc, "message", None) or f"{type(exc).__name__}"
        log.warning("importing a file into set %s failed: %s", search.set_id, why)
        try:
            await store.finish_search(search.id, "failed", f"import_failed: {why}"[:1000], retryable=1)
        except Exception:  # the store itself is down: the search stays 'running', resumable
            log.warning("recording the failed import of set %s failed too", search.set_id)


def _entries(content: bytes, name: str | None, fmt: str | None) -> Iterator[Entry]:
    return (r for r in stream(content, name, fmt).records if isinstance(r, Entry))


async def _store_batches(
    store: Store, job: Job, search: SearchRow, reading: Reading, surveyed: Survey, filler: ToolContext | None
) -> None:
    total, entries = surveyed.records, surveyed.entries
    tally = filling.Tally.of(search.options)
    options = dict(search.options)
    done = int(search.cursor or 0)
    job.found[search.id] = total
    job.fetched[search.id] = done
    if done:  # (stored before a restart: read past, their ids counted so the next ones match)
        await asyncio.to_thread(reading.take, done)
    while True:
        batch = await asyncio.to_thread(reading.take, BATCH)
        after = done + len(batch)
        kept = None
        if filler is not None and any(filling.wanted(r.data) for r in batch):
            await job.report(f"{search.source}: filling what records lack from the metadata providers")
            batch = await filling.fill(filler, batch, tally)
            options["import"] = {**options.get("import", {}), filling.OPTION: tally.as_option()}
            kept = options
        await placing.add_batch(
            store, search, batch, found=total, cursor=str(after) if after < entries else None, options=kept
        )
        done = after
        job.fetched[search.id] = done + surveyed.skipped_count * (done >= entries)
        await job.report(f"{search.source}: {done:,} of {entries:,} records stored")
        if done >= entries or not batch:
            break
    # a screened set's export brings its decisions: restored once every record is placed
    await restoring.restore(store, search.set_id, search.id, reading.carried)
