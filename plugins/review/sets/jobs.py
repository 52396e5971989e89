"""A review set's running work: one task per set over its unfinished searches and imports,
whose progress a waiting call reports."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from medlit.core.plugin import ToolContext

log = logging.getLogger("medlit.review")


@dataclass
class Job:
    """An import running in this process: one task over the searches of one set."""

    set_id: int
    searches: list[int]
    task: asyncio.Task[None] | None = None
    watcher: ToolContext | None = None  # the call waiting on the import: its progress is reported
    fetched: dict[int, int] = field(default_factory=dict)
    found: dict[int, int] = field(default_factory=dict)
    notices: dict[int, str] = field(default_factory=dict)
    key: str | None = None  # an imported file's digest: a call with the same file joins this job
    database: str | None = None  # an imported file's database: a call naming only it asks the state
    search: object | None = None  # the imported file's search row, once its file is read
    error: Exception | None = None  # why the file could not be read (said to the next call with it)
    said: str = ""  # the last progress message: a call that starts waiting is told it at once

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    async def report(self, message: str) -> None:
        self.said = message
        done = sum(self.fetched.values())
        total = sum(self.found.values()) or None
        if self.watcher is not None:
            with contextlib.suppress(Exception):
                await self.watcher.progress(done, total, message)


def log_failure(task: asyncio.Task[None]) -> None:
    """A job task's done callback: an import's own failures are stored in its searches; anything
    else is logged, not lost."""
    if not task.cancelled() and task.exception() is not None:
        log.error("a review import failed", exc_info=task.exception())
