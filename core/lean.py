"""Lean structured content: a tool's result without its null and empty fields.

A result's optional fields that say nothing (``None``, ``[]``, ``{}``, ``""``) are left out of
``structuredContent``: about a quarter of the bytes of a PubMed fetch, which every client checks
against the tool's output schema and carries to its model. What decides is the output schema the
server lists: a property the schema *requires* always stays, whatever its value, and zeros and
``false`` always stay. Entries of a map (``additionalProperties``) and items of a list are data,
never dropped; objects inside them are made lean too.

A :class:`Pruner` is compiled once per output schema (``$ref`` resolved, ``anyOf`` branches
merged: a property required by any branch stays) and walks a result in one pass.
"""

from __future__ import annotations

from typing import Any

EMPTY: tuple[Any, ...] = (None, "", [], {})


class Pruner:
    """What one schema node says about pruning: the required properties, the pruners of its
    properties, of its map values and of its list items."""

    __slots__ = ("items", "props", "required", "values")

    def __init__(self) -> None:
        self.required: frozenset[str] = frozenset()
        self.props: dict[str, Pruner] = {}
        self.values: Pruner | None = None  # additionalProperties: a map's values
        self.items: Pruner | None = None

    def __call__(self, value: Any) -> Any:
        """``value`` made lean, in place (dicts and lists are the dumped result's own)."""
        if isinstance(value, dict):
            props, values, required = self.props, self.values, self.required
            drop = []
            for key, sub in value.items():
                child = props.get(key)
                if child is not None and isinstance(sub, dict | list):
                    sub = child(sub)
                elif child is None and values is not None and isinstance(sub, dict | list):
                    values(sub)
                    continue  # a map's entries are data
                if key not in required and key in props and (sub is None or sub in EMPTY):
                    drop.append(key)
            for key in drop:
                del value[key]
        elif isinstance(value, list) and self.items is not None:
            items = self.items
            for sub in value:
                if isinstance(sub, dict | list):
                    items(sub)
        return value


def compile_pruner(schema: dict[str, Any]) -> Pruner:
    """The pruner of an output schema (its ``$defs`` resolved within the document)."""
    return _Compiler(schema).build(schema)


class _Compiler:
    """Builds the pruners of one schema document; each ``$defs`` entry is built once and shared."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}
        self.done: dict[str, Pruner] = {}

    def build(self, node: Any, into: Pruner | None = None) -> Pruner:
        """The pruner of ``node`` (built into ``into`` when given): its reference, its branches
        (``anyOf``/``oneOf``/``allOf``) and its own properties, map values and items, merged."""
        out = into or Pruner()
        if not isinstance(node, dict):
            return out
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = self._definition(ref[len("#/$defs/") :])
            if into is None:
                return target
            _absorb(out, target)
        branches = [self.build(b) for key in ("anyOf", "oneOf", "allOf") for b in node.get(key) or ()]
        branches = [b for b in branches if _describes(b)]
        plain = not any(k in node for k in ("properties", "additionalProperties", "items"))
        if into is None and plain and len(branches) == 1:
            return branches[0]  # `X | None`: X's own pruner, shared (a recursive model's included)
        for branch in branches:
            _absorb(out, branch)
        self._own(node, out)
        return out

    def _definition(self, name: str) -> Pruner:
        if name not in self.done:
            self.done[name] = Pruner()  # a recursive model's inner references end here
            self.build(self.defs.get(name), self.done[name])
        return self.done[name]

    def _own(self, node: dict[str, Any], out: Pruner) -> None:
        """The node's own ``properties`` (and which are required), ``additionalProperties`` and
        ``items``, merged into ``out``."""
        props = node.get("properties")
        if isinstance(props, dict):
            out.required = out.required | frozenset(k for k in node.get("required", ()) if isinstance(k, str))
            for k, sub in props.items():
                child = self.build(sub)
                out.props[k] = _merge(out.props[k], child) if k in out.props else child
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            out.values = _merge(out.values, self.build(extra)) if out.values else self.build(extra)
        items = node.get("items")
        if isinstance(items, dict):
            out.items = _merge(out.items, self.build(items)) if out.items else self.build(items)


def _describes(p: Pruner) -> bool:
    """Whether a pruner prunes anything (an empty one is any value, left as it is)."""
    return bool(p.props or p.values or p.items or p.required)


def _absorb(into: Pruner, other: Pruner) -> None:
    """``other`` merged into ``into`` (this node's own pruner; ``other`` is left alone)."""
    into.required = into.required | other.required
    for k, v in other.props.items():
        into.props[k] = _merge(into.props[k], v) if k in into.props else v
    into.values = (
        _merge(into.values, other.values) if into.values and other.values else into.values or other.values
    )
    into.items = _merge(into.items, other.items) if into.items and other.items else into.items or other.items


def _merge(a: Pruner, b: Pruner) -> Pruner:
    """A pruner for what either ``a`` or ``b`` describes (neither is changed)."""
    if a is b or not _describes(b):
        return a
    if not _describes(a):
        return b
    m = Pruner()
    _absorb(m, a)
    _absorb(m, b)
    return m


def lean(data: dict[str, Any], schema: dict[str, Any] | None) -> dict[str, Any]:
    """``data`` without the empty optional fields its output ``schema`` allows leaving out."""
    if not schema:
        return data
    result: dict[str, Any] = compile_pruner(schema)(data)
    return result
