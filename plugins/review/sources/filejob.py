"""Storing an imported file's records, batch by batch, each batch committed with the position
after it (the search's cursor): a server killed mid-import resumes from the last committed batch,
reading the file again from the copy the store keeps until the import completes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from ..identity import placing
from ..readers import Entry, ReadResult, read
from ..screening import restoring
from ..sets.jobs import Job
from ..store import Incoming, SearchRow, Store

log = logging.getLogger("medlit.review")

BATCH = 500  # records a transaction: big enough to amortise it, small enough to report progress


def input_ids(entries: Sequence[Entry]) -> list[str]:
    """Each record's id in the set's log of input records: the file's own id (RIS ID or AN,
    EndNote rec-number, BibTeX key, WoS UT, PMID...), else ``#position``; an id the file repeats
    is told apart by its position (``id#position``), so no record of the file is taken for
    another."""
    seen: set[str] = set()
    out = []
    for e in entries:
        own = (e.input_id or "").strip()[:180] or f"#{e.position}"
        if own in seen:
            own = f"{own}#{e.position}"
        seen.add(own)
        out.append(own)
    return out


def incoming(entries: Sequence[Entry]) -> list[Incoming]:
    return [Incoming(sid, e.data, e.position) for sid, e in zip(input_ids(entries), entries, strict=True)]


async def run_file(
    store: Store | None, job: Job, search: SearchRow, result: ReadResult | None = None
) -> None:
    """Store the file's records from the search's cursor on; ``result``: the file as the call read
    it (else it is read again from the store's copy: a resumed import)."""
    assert store is not None
    spec = search.options.get("import") or {}
    try:
        if result is None:
            content = await store.file_content(search.id)
            if content is None:
                await store.finish_search(
                    search.id,
                    "failed",
                    "import_file_missing: the file is no longer held; import it again",
                    retryable=0,
                )
                return
            result = await asyncio.to_thread(read, content, spec.get("fileName"), spec.get("format"))
        records = incoming(result.entries)
        total = len(records) + len(result.skipped)
        done = int(search.cursor or 0)
        job.found[search.id] = total
        job.fetched[search.id] = done
        while True:
            batch = records[done : done + BATCH]
            after = done + len(batch)
            await placing.add_batch(
                store, search, batch, found=total, cursor=str(after) if after < len(records) else None
            )
            done = after
            job.fetched[search.id] = done + len(result.skipped) * (done >= len(records))
            await job.report(f"{search.source}: {done:,} of {len(records):,} records stored")
            if done >= len(records):
                break
        # a screened set's export brings its decisions: restored once every record is placed
        await restoring.restore(store, search.set_id, search.id, input_ids(result.entries), result.entries)
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
