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
    defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}
    done: dict[str, Pruner] = {}

    def build(node: Any, into: Pruner | None = None) -> Pruner:
        out = into or Pruner()
        if not isinstance(node, dict):
            return out
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref[len("#/$defs/") :]
            if name not in done:
                done[name] = Pruner()  # a recursive model's inner references end here
                build(defs.get(name), done[name])
            if into is None:
                return done[name]
            absorb(out, done[name])
        branches = [build(b) for key in ("anyOf", "oneOf", "allOf") for b in node.get(key) or ()]
        branches = [b for b in branches if b.props or b.values or b.items or b.required]
        plain = not any(k in node for k in ("properties", "additionalProperties", "items"))
        if into is None and plain and len(branches) == 1:
            return branches[0]  # `X | None`: X's own pruner, shared (a recursive model's included)
        for branch in branches:
            absorb(out, branch)
        props = node.get("properties")
        if isinstance(props, dict):
            out.required = out.required | frozenset(k for k in node.get("required", ()) if isinstance(k, str))
            for k, sub in props.items():
                child = build(sub)
                out.props[k] = merge(out.props[k], child) if k in out.props else child
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            out.values = merge(out.values, build(extra)) if out.values else build(extra)
        items = node.get("items")
        if isinstance(items, dict):
            out.items = merge(out.items, build(items)) if out.items else build(items)
        return out

    def absorb(into: Pruner, other: Pruner) -> None:
        """``other`` merged into ``into`` (this node's own pruner; ``other`` is left alone)."""
        into.required = into.required | other.required
        for k, v in other.props.items():
            into.props[k] = merge(into.props[k], v) if k in into.props else v
        into.values = (
            merge(into.values, other.values) if into.values and other.values else into.values or other.values
        )
        into.items = (
            merge(into.items, other.items) if into.items and other.items else into.items or other.items
        )

    def merge(a: Pruner, b: Pruner) -> Pruner:
        """A pruner for what either ``a`` or ``b`` describes (neither is changed)."""
        if a is b or not (b.props or b.values or b.items or b.required):
            return a
        if not (a.props or a.values or a.items or a.required):
            return b
        m = Pruner()
        absorb(m, a)
        absorb(m, b)
        return m

    return build(schema)


def lean(data: dict[str, Any], schema: dict[str, Any] | None) -> dict[str, Any]:
    """``data`` without the empty optional fields its output ``schema`` allows leaving out."""
    if not schema:
        return data
    result: dict[str, Any] = compile_pruner(schema)(data)
    return result
