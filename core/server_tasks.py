"""The plugins' server tasks (``medlit_server_tasks``), run while the server serves over HTTP:
each on its own schedule, every run under its plugin's context and its timeout, a failed run
logged and the next one run as planned, all of them cancelled when the server stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from .types import ServerTask

if TYPE_CHECKING:
    from .runtime import Runtime

log = logging.getLogger("medlit.tasks")


@contextlib.asynccontextmanager
async def running(runtime: Runtime) -> AsyncIterator[list[asyncio.Task[None]]]:
    """Every active plugin's server tasks running for as long as the block lasts."""
    tasks = [
        asyncio.create_task(_every(spec, runtime), name=f"medlit server task {spec.name}")
        for spec in runtime.host.server_tasks
    ]
    try:
        yield tasks
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _every(spec: ServerTask, runtime: Runtime) -> None:
    while True:
        await asyncio.sleep(spec.every)
        await run_once(spec, runtime)


async def run_once(spec: ServerTask, runtime: Runtime) -> None:
    """One run of ``spec``: its failure (or its timeout) is logged, never raised."""
    try:
        await asyncio.wait_for(spec.run(runtime.context(spec.plugin)), spec.timeout)
    except TimeoutError:
        log.warning("server task %s (plugin %s) stopped after %gs", spec.name, spec.plugin, spec.timeout)
    except Exception:
        log.exception("server task %s (plugin %s) failed", spec.name, spec.plugin)
