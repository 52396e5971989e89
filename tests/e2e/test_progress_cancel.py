"""Progress notifications reach the client; a cancelled call stops its upstream work."""

from __future__ import annotations

import asyncio

import anyio
import pytest
from pydantic import BaseModel

from medlit.core.plugin import PluginInfo, Probe, ServiceSpec, ToolSpec, hookimpl
from medlit.testing import Runtime, host_for, mcp_client

from support.environments import fake_env

pytestmark = pytest.mark.anyio


class Steps(BaseModel):
    steps: int = 3


class Done(BaseModel):
    done: int


async def stepper(args: Steps, ctx) -> Done:
    for i in range(args.steps):
        await ctx.client("stepper").get("step", expect="json")
        await ctx.progress(i + 1, args.steps, f"request {i + 1} of {args.steps}")
    return Done(done=args.steps)


class StepPlugin:
    @hookimpl
    def medlit_plugin_info(self):
        return PluginInfo(name="stepper", title="Stepper")

    @hookimpl
    def medlit_services(self):
        return [
            ServiceSpec("stepper", "Stepper", "https://stepper.example.org", rate=50.0, probe=Probe("step"))
        ]

    @hookimpl
    def medlit_tools(self):
        return [
            ToolSpec(
                name="step_tool",
                title="Steps",
                description="Makes several requests.",
                input_model=Steps,
                output_model=Done,
                handler=stepper,
            )
        ]


@pytest.fixture
def host(fake):
    fake.respond("stepper", "step", {"ok": True})
    env = fake_env(fake, MEDLIT_BASE_URL_STEPPER=fake.url("stepper"))
    return host_for(("stepper", StepPlugin()), env=env)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_progress_notifications(host, mode):
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress, total, message):
        seen.append((progress, total, message))

    async with mcp_client(host) as client:
        result = await client.call_tool("step_tool", {"steps": 3}, progress_callback=on_progress)
    assert result.structured_content == {"done": 3}
    assert [p for p, _, _ in seen] == [1, 2, 3] and seen[-1][1] == 3


async def test_cancellation_stops_upstream_work(host, fake):
    fake.fault("slow", "ncbi", "einfo.fcgi", times=5, delay=3.0)
    async with Runtime(host) as rt:
        async with mcp_client(host, runtime=rt) as client:
            with anyio.move_on_after(0.4):
                await client.call_tool("eutils_einfo", {"db": "pubmed"})
            await asyncio.sleep(0.3)
            ncbi = rt.clients["ncbi"]
            assert (
                ncbi.slots.sem._value == ncbi.config.concurrency
            )  # the request was abandoned, not left running
            await asyncio.sleep(0.5)
            assert len(fake.of("ncbi")) == 1  # and never retried
