"""What review_import reports of a file whose import ends while the report is read
(plugins/review/sources/importing.py import_state): it shows as running or complete, never as stopped
with the file half read."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from medlit.plugins.review.sources.importing import import_state


class EndingWorkspace:
    """A workspace whose import job ends as soon as the store is read."""

    def __init__(self) -> None:
        self.job: object | None = object()

    def running(self, set_id: int) -> object | None:
        return self.job


class StoreSeenMidImport:
    def __init__(self, ws: EndingWorkspace) -> None:
        self.ws = ws
        self.state = "running"

    async def searches(self, set_id: int) -> list[SimpleNamespace]:
        seen = SimpleNamespace(
            id=7, state=self.state, options={"import": {}}, found=None, source="Embase", error=None
        )
        self.ws.job, self.state = None, "complete"  # the job ends right after this read
        return [seen]

    async def files(self, set_id: int) -> dict[int, object]:
        return {}

    async def hit_rules(self, search_id: int) -> dict[str, int]:
        return {"new": 40}

    async def total(self, set_id: int) -> int:
        return 40


def test_an_import_ending_mid_report_reads_as_running_then_complete():
    ws = EndingWorkspace()
    store = StoreSeenMidImport(ws)
    row, search = SimpleNamespace(id=1, name="s"), SimpleNamespace(id=7)
    first = asyncio.run(import_state(ws, store, row, search))  # type: ignore[arg-type]
    assert first.running and not first.complete
    assert first.notice and "goes on in the server" in first.notice
    again = asyncio.run(import_state(ws, store, row, search))  # type: ignore[arg-type]
    assert again.complete and not again.running


class StoreOfACompleteImport(StoreSeenMidImport):
    """The search is marked complete while its job still closes (releasing the file's copy)."""

    async def searches(self, set_id: int) -> list[SimpleNamespace]:
        return [
            SimpleNamespace(
                id=7, state="complete", options={"import": {}}, found=40, source="Embase", error=None
            )
        ]


def test_a_complete_import_whose_job_still_closes_is_complete_and_not_running():
    ws = EndingWorkspace()  # its job is still there
    ws_store = StoreOfACompleteImport(ws)
    row, search = SimpleNamespace(id=1, name="s"), SimpleNamespace(id=7)
    out = asyncio.run(import_state(ws, ws_store, row, search))  # type: ignore[arg-type]
    assert out.complete and not out.running
    assert not out.notice or "goes on in the server" not in out.notice
