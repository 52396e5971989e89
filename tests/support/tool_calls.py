"""Calling a tool through a runtime as a test means it: ``answered`` expects an answer and checks
it against the tool's output schema; ``refused`` expects a clear error and returns it."""

from __future__ import annotations

from typing import Any

from medlit.testing import check_structured, tool_definitions


async def answered(rt: Any, tool: str, **args: Any) -> Any:
    out = await rt.call(tool, args)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == tool).output_schema
    check_structured(out.data, schema)
    return out


async def refused(rt: Any, tool: str, **args: Any) -> Any:
    out = await rt.call(tool, args)
    assert out.is_error, out.text
    return out.error
