"""Checking a tool's result the way a client does: against the output schema the server lists."""

from __future__ import annotations

import copy
from typing import Any


def check_structured(data: Any, schema: dict[str, Any]) -> Any:
    """What the server would send as ``structuredContent`` for ``data`` (a ``CallOutcome.data``:
    null and empty optional fields left out, core/lean.py), validated against the tool's listed
    output ``schema`` as an MCP client validates it. Returns that lean copy; ``data`` is left as
    it was. Raises :class:`jsonschema.ValidationError` when it does not conform."""
    import jsonschema  # type: ignore[import-untyped]  # (the MCP SDK depends on it)

    from medlit.core.lean import compile_pruner

    sent = compile_pruner(schema)(copy.deepcopy(data))
    jsonschema.validate(sent, schema)
    return sent
