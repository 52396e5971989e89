"""The tools a host lists, by name, built at first use: a test module that parametrizes over tool
names (``sorted(host.tools)``) no longer builds every schema while pytest collects it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from medlit.testing import Host, tool_definitions


class ListedTools(Mapping[str, Any]):
    """``ListedTools(host)["pubmed_fetch"].output_schema``: :func:`medlit.testing.tool_definitions`
    of ``host`` by name, computed once, on the first lookup."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._tools: dict[str, Any] | None = None

    def _all(self) -> dict[str, Any]:
        if self._tools is None:
            self._tools = {d.name: d for d in tool_definitions(self.host)}
        return self._tools

    def __getitem__(self, name: str) -> Any:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())
