"""A tool as the host runs it: :class:`LoadedTool`, a :class:`~medlit.core.types.ToolSpec` with its
lazy references imported (host-side; a plugin never sees one)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic

from .lazy import resolved
from .types import In, Out, ToolHandler, ToolRender, ToolSpec


@dataclass(frozen=True)
class LoadedTool(Generic[In, Out]):
    """A :class:`ToolSpec` whose models and callables are the objects themselves."""

    spec: ToolSpec[In, Out]
    input_model: type[In]
    output_model: type[Out]
    handler: ToolHandler[In, Out]
    render: ToolRender[Out, In] | None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def plugin(self) -> str:
        return self.spec.plugin


def load_tool(spec: ToolSpec[In, Out]) -> LoadedTool[In, Out]:
    """``spec`` with its lazy references imported (the first call pays the import)."""
    return LoadedTool(
        spec=spec,
        input_model=resolved(spec.input_model),
        output_model=resolved(spec.output_model),
        handler=resolved(spec.handler),
        render=resolved(spec.render),
    )
