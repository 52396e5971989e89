"""What the function-calling dialects of the large model hosts accept of a tool's schema, as rules
a test applies to every tool definition (tests/unit/test_function_dialects.py).

**Gemini** (function declarations, an OpenAPI 3.0 subset; also what sanitising hosts such as Gemini
CLI or OpenAI-compatible Gemini endpoints send on): ``type`` is one of six names, never a list;
every node has a ``type`` (a typeless node is refused) except an ``anyOf`` whose alternatives are
typed (accepted as ``{"anyOf": [{"type": "string"}, {"type": "null"}]}`` is); an object has
non-empty ``properties`` (``properties: should be non-empty for OBJECT type``), and ``properties``
and ``required`` appear on objects only, ``required`` naming declared properties; an array has one
``items`` schema; an ``enum`` lists strings on a string; no ``$ref``/``$defs`` (no cycles to
follow), ``const``, ``oneOf``, ``allOf``, ``not`` or ``patternProperties``. Gemini reads only the
input schema (a function's parameters).

**OpenAI** function calling, non-strict (``strict`` left false, what MCP hosts send: the Agents SDK
converts MCP schemas to strict only when asked): the parameters are an object at the root, with
no ``anyOf``/``oneOf``/``allOf``/``enum``/``not`` at the top level. Strict mode is not held: it
makes every property required (an optional argument would have to be sent as ``null``) and every
object closed, which changes what a call means for the optional arguments almost every tool has;
a host asking for strict converts the schema itself.

**Portable** (both schemas, every client, beside the MCP Inspector's ``--strict`` lint): every
object has ``properties`` or a typed ``additionalProperties``; every union carries its one
``type`` at the top, except ``T | null`` (a required nullable result: a top-level type would have
to be a list, or OpenAPI's ``nullable``, which JSON Schema validators ignore) and the unions of
different types a caller may really send (:data:`MIXED_UNIONS`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
# Keys Gemini's declarations do not know, or refuse, in a parameters schema.
GEMINI_REFUSED = ("$ref", "$defs", "const", "oneOf", "allOf", "not", "patternProperties")

# Unions of different JSON types that stay: each is a form callers send, with no single type to
# carry at the top. Every alternative is typed (Gemini accepts such an anyOf).
MIXED_UNIONS = {
    # one style as a string (a peer server's call shape, tests/plugin/test_pubmed_peer_parity.py) or a list
    ("pubmed_format_citations", ".properties.format"),
    # a reference as text in any style, or as fields
    ("pubmed_verify_references", ".properties.references.items"),
    # a record's key (an integer) or its PMID, DOI or PMCID (text): 12 and "12" differ
    ("review_screen", ".properties.decisions.items.properties.id"),
    ("review_screen", ".properties.refused.items.properties.id"),  # the same id, echoed
    # ESummary's document fields as NCBI types them
    ("eutils_esummary", ".properties.records.items.properties.fields.additionalProperties"),
}


def nodes(schema: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema node under ``schema`` with its path (values that are data are skipped)."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key, value in schema.items():
        if key in ("properties", "$defs", "patternProperties") and isinstance(value, dict):
            for name, sub in value.items():
                yield from nodes(sub, f"{path}.{key}.{name}")
        elif key in ("items", "additionalProperties", "not"):
            yield from nodes(value, f"{path}.{key}")
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from nodes(sub, f"{path}.{key}[{i}]")


def _union(node: dict[str, Any]) -> list[Any] | None:
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            return list(node[key])
    return None


def _is_nullable_pair(branches: list[Any]) -> bool:
    return len(branches) == 2 and {"type": "null"} in branches


def portable_problems(tool: str, schema: dict[str, Any]) -> list[str]:
    """Objects without properties or typed additionalProperties; unions without a top type."""
    out = []
    for path, node in nodes(schema):
        extra = node.get("additionalProperties")
        typed_extra = isinstance(extra, dict) and ("type" in extra or _union(extra))
        branches = _union(node)
        if node.get("type") == "object" and not node.get("properties") and not typed_extra and not branches:
            out.append(f"{tool}{path}: object without properties or typed additionalProperties")
        if branches and "type" not in node and not _is_nullable_pair(branches):
            if (tool, path) not in MIXED_UNIONS:
                out.append(f"{tool}{path}: union without a top-level type")
    return out


def gemini_problems(tool: str, schema: dict[str, Any]) -> list[str]:
    """What a Gemini function declaration refuses in ``schema`` (a tool's input schema)."""
    out = []
    for path, node in nodes(schema):
        where = f"{tool}{path or '/'}"
        kind = node.get("type")
        branches = _union(node)
        out += [f"{where}: {key}" for key in GEMINI_REFUSED if key in node]
        if kind is None:
            if not (branches and all(isinstance(b, dict) and "type" in b for b in branches)):
                out.append(f"{where}: no type")
        elif not (isinstance(kind, str) and kind in TYPES):
            out.append(f"{where}: type {kind!r}")
        if kind == "object" and not node.get("properties") and not branches:
            out.append(f"{where}: object without properties")
        if kind not in (None, "object") and ("properties" in node or "required" in node):
            out.append(f"{where}: properties or required on a {kind}")
        missing = set(node.get("required") or ()) - set(node.get("properties") or {})
        if missing:
            out.append(f"{where}: required names undeclared {sorted(missing)}")
        if kind == "array" and not isinstance(node.get("items"), dict):
            out.append(f"{where}: array without one items schema")
        if "enum" in node and (kind != "string" or not all(isinstance(v, str) for v in node["enum"])):
            out.append(f"{where}: enum of non-strings")
    return out


def openai_problems(tool: str, schema: dict[str, Any]) -> list[str]:
    """What OpenAI's (non-strict) function calling refuses in a parameters schema."""
    out = []
    if schema.get("type") != "object":
        out.append(f"{tool}: parameters are not an object")
    out += [
        f"{tool}: {key} at the top level"
        for key in ("anyOf", "oneOf", "allOf", "enum", "not")
        if key in schema
    ]
    out += [
        f"{tool}{path}: type is a list" for path, node in nodes(schema) if isinstance(node.get("type"), list)
    ]
    return out
