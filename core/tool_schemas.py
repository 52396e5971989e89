"""Tool schemas for ``tools/list`` without importing the tools.

Building ~50 JSON schemas from pydantic models, and importing the ~200 models behind them, was
most of the server's own start-up. Tools whose models are :func:`~medlit.core.lazy.lazy`
references get their schemas from a small JSON store instead, keyed by the references and a
fingerprint of the source they come from: the declaring plugin's files and core's (path, size,
modification time), the plugin's version, pydantic's and Python's. Any edit or upgrade changes the
key, so a stale schema is never served; a miss imports the models, builds the schemas and stores
them for the next launch. ``MEDLIT_SCHEMA_CACHE`` names the file, or ``off``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .lazy import Lazy, resolved

if TYPE_CHECKING:
    from .lean import Pruner
from .types import ToolSpec

log = logging.getLogger("medlit.schemas")

FORMAT = 7  # bump when lean_schema, compact_output, as_sent or the stored shape changes
KEEP = 256  # entries kept in the file: this launch's plus the most recently used others
CORE_DIR = Path(__file__).resolve().parent

Schemas = tuple[dict[str, Any], dict[str, Any]]

# The dialect listed output schemas declare. Without ``$schema`` a client reads 2020-12, and the
# Python SDK checks each output schema against its dialect's metaschema at the tool's first call:
# 2020-12's (``$dynamicRef`` across eight vocabularies) took 94 ms for ``pubmed_fetch_fulltext``'s,
# draft-07's 13 ms, in a call of ~250 ms. What :func:`as_sent` writes (``type``, ``properties``,
# ``required``, single-schema ``items``, ``enum``, ``anyOf``/``oneOf``, ``additionalProperties``)
# means the same in both; ``$defs`` does not, so a schema that keeps it keeps 2020-12.
OUTPUT_DIALECT = "http://json-schema.org/draft-07/schema#"


def lean_schema(schema: Any) -> Any:
    """Drop pydantic's auto-generated ``title`` annotations (they repeat the field names and make
    ``tools/list`` a third larger); a property that is *named* title is a dict and stays."""
    if isinstance(schema, dict):
        return {k: lean_schema(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [lean_schema(v) for v in schema]
    return schema


def compact_output(schema: Any) -> Any:
    """The same output schema, smaller: defaults, input bounds (``maxLength``, ``maximum``, ...)
    and ``additionalProperties: false`` go, since they say nothing about a result. Clients check the schema once per session (the Python SDK's meta-schema check
    took ~0.2 s for the largest) and some hosts show it to the model.

    Nullable values stay ``anyOf [{"type": T}, {"type": "null"}]``: every ``type`` is a single
    name, never ``[T, "null"]``, which clients mapping schemas onto a single-type dialect (the
    OpenAPI subset of Gemini function declarations; the MCP Inspector's ``--strict`` portability
    check) reject. :func:`portability_problems` states the rule; a test holds every tool to it."""
    if isinstance(schema, list):
        return [compact_output(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    return {k: compact_output(v) for k, v in schema.items() if not _says_nothing(k, v)}


# Keys that constrain what a client may *send*; of a result they say nothing a reader needs.
_INPUT_ONLY = frozenset({"default", "maxLength", "minLength", "maximum", "minimum", "maxItems", "minItems"})


def as_sent(schema: dict[str, Any]) -> dict[str, Any]:
    """The output schema of what the server *sends*: lean structured content (core/lean.py)
    leaves an optional property out instead of sending ``null``, so an optional ``X | None``
    property is listed as plain ``X``; and every ``$ref`` to a model that does not contain itself
    is written in place (recursive ones stay in ``$defs``). It declares :data:`OUTPUT_DIALECT`
    unless it keeps ``$defs``.

    Both halve what a client's check of a large result costs (the Python SDK validates every
    result with ``jsonschema``: a 57-record PubMed fetch took 122 ms against the schema as
    pydantic writes it, 58 ms against this one), and the schema gets smaller, not larger, since
    most models appear once. Required properties keep their ``null`` branch: they are always
    sent, ``null`` included, and so do the properties of a union's object alternatives and of
    recursive models (the pruner merges those, so one's requirement keeps another's null)."""
    defs: dict[str, Any] = schema.get("$defs") or {}
    recursive = {name for name in defs if _reaches(defs, name, name, set())}

    def walk(node: Any, collapse: bool) -> Any:
        if isinstance(node, list):
            return [walk(v, collapse) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref[len("#/$defs/") :]
            if name in defs and name not in recursive:
                rest = {k: walk(v, collapse) for k, v in node.items() if k != "$ref"}
                return {**walk(defs[name], collapse), **rest}
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k == "$defs":
                continue
            # Alternatives that are objects (a union of record kinds): the pruner keeps a
            # property that any of them requires, so none of them may refuse its null.
            union = k in ("anyOf", "oneOf") and isinstance(v, list) and sum(map(_is_object, v)) > 1
            out[k] = walk(v, collapse and not union)
        props = out.get("properties")
        if collapse and isinstance(props, dict) and out.get("type") == "object":
            required = set(out.get("required") or ())
            out["properties"] = {k: v if k in required else _not_null(v) for k, v in props.items()}
        return out

    result: dict[str, Any] = walk(schema, True)
    kept = {name: walk(defs[name], False) for name in sorted(recursive)}  # shared by every use
    if kept:
        result["$defs"] = kept
    from .lean import compile_pruner  # here: a launch served from the schema store never needs it

    settled: dict[str, Any] = portable(_settle_unions(result, compile_pruner(result)))
    if "$defs" in settled:  # `$defs` is 2020-12's keyword: a recursive model keeps that dialect
        return settled
    return {"$schema": OUTPUT_DIALECT, **settled}


def _settle_unions(node: Any, pruner: Pruner) -> Any:
    """Inside a union's alternatives, :func:`as_sent` kept every optional property's ``null``
    branch. The pruner compiled from the schema knows which of them can really be sent as
    ``null``: those some alternative requires (it merges the alternatives' requirements). Every
    other one is left out when empty, so its ``null`` branch goes: a strict client then sees no
    ``anyOf`` nested in a ``oneOf`` (``pubmed_fetch_fulltext`` had 78, four deep). ``$defs``
    (recursive models, shared) are left as they are."""
    if not isinstance(node, dict) or "$ref" in node:
        return node
    out = dict(node)
    for key in ("anyOf", "oneOf", "allOf"):
        branches = node.get(key)
        if isinstance(branches, list):
            out[key] = [_settle_unions(b, pruner) for b in branches]
    props = node.get("properties")
    if isinstance(props, dict):
        settled = {}
        for name, sub in props.items():
            child = pruner.props.get(name)
            if child is not None:
                sub = _settle_unions(sub, child)
            settled[name] = sub if name in pruner.required else _not_null(sub)
        out["properties"] = settled
    if isinstance(node.get("items"), dict) and pruner.items is not None:
        out["items"] = _settle_unions(node["items"], pruner.items)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and pruner.values is not None:
        out["additionalProperties"] = _settle_unions(extra, pruner.values)
    return out


def portable(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """``schema`` without the constructs strict clients refuse that pydantic writes: ``const``
    becomes a one-value ``enum`` (the Inspector's strict check and OpenAPI-subset dialects such as
    Gemini's know no ``const``), and a ``discriminator`` whose ``mapping`` names a ``$defs`` entry
    the document lacks (the alternatives were written in place) is dropped, since the
    discriminating property's one-value enum says the same."""
    if defs is None:
        defs = schema.get("$defs") or {} if isinstance(schema, dict) else {}
    if isinstance(schema, list):
        return [portable(v, defs) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for k, v in schema.items():
        if k == "const" and not isinstance(v, dict):
            out["enum"] = [v]
            kind = _json_type([v])
            if kind and "type" not in schema:
                out["type"] = kind
        elif k == "discriminator" and isinstance(v, dict):
            targets = (v.get("mapping") or {}).values()
            if all(isinstance(t, str) and t.removeprefix("#/$defs/") in defs for t in targets):
                out[k] = v
        elif k in ("enum", "default", "examples", "required") and not isinstance(v, dict):
            out[k] = v
        else:
            out[k] = portable(v, defs)
    if isinstance(out.get("enum"), list) and "type" not in out and _json_type(out["enum"]):
        out["type"] = _json_type(out["enum"])
    if "type" not in out and (shared := _union_type(out)):
        out["type"] = shared  # clients mapping onto a single-type dialect want it on the union
    return out


def _union_type(node: dict[str, Any]) -> str | None:
    """The one JSON type every alternative of the node's ``anyOf``/``oneOf`` has (an alternative
    with ``properties`` is an object); ``None`` for alternatives of different types (``T | null``
    among them)."""
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches and all(isinstance(b, dict) for b in branches):
            kinds = {b.get("type") or ("object" if "properties" in b else None) for b in branches}
            if len(kinds) == 1 and isinstance(next(iter(kinds)), str):
                return str(next(iter(kinds)))
    return None


def _json_type(values: list[Any]) -> str | None:
    """The one JSON type all ``values`` share, or ``None`` (mixed, or null among them)."""
    kinds = {
        "boolean"
        if isinstance(v, bool)
        else "integer"
        if isinstance(v, int)
        else "number"
        if isinstance(v, float)
        else "string"
        if isinstance(v, str)
        else None
        for v in values
    }
    return next(iter(kinds)) if len(kinds) == 1 and None not in kinds else None


def _is_object(node: Any) -> bool:
    return isinstance(node, dict) and ("properties" in node or "$ref" in node)


def _reaches(defs: dict[str, Any], start: str, target: str, seen: set[str]) -> bool:
    """Whether the model ``start`` refers (at any depth) to ``target``."""
    stack = [defs.get(start)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref[len("#/$defs/") :]
                if name == target:
                    return True
                if name not in seen:
                    seen.add(name)
                    stack.append(defs.get(name))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _not_null(prop: Any) -> Any:
    """An optional property's schema without its ``null`` branch (it is left out, never null)."""
    if not isinstance(prop, dict):
        return prop
    branches = prop.get("anyOf")
    if not isinstance(branches, list) or {"type": "null"} not in branches:
        return prop
    others = [b for b in branches if b != {"type": "null"}]
    rest = {k: v for k, v in prop.items() if k != "anyOf"}
    if len(others) == 1 and isinstance(others[0], dict) and not (set(others[0]) & set(rest)):
        return {**others[0], **rest}
    return {**rest, "anyOf": others} if others else prop


def _says_nothing(key: str, value: Any) -> bool:
    """A default, an input bound or a closed-object marker (the server's results never carry an
    extra key): a keyword, not a property named so (a property's value is a schema dict)."""
    if key in _INPUT_ONLY:
        return not isinstance(value, dict)
    return key == "additionalProperties" and value is False


def portability_problems(schema: Any) -> list[str]:
    """Where a schema uses a construct strict clients reject (the MCP Inspector's ``--strict``
    check, single-type dialects such as Gemini's function declarations): a ``type`` that is a
    list, an ``enum`` without a ``type``, a ``const``, a ``$ref`` or a ``discriminator.mapping``
    naming a ``$defs`` entry the document lacks, an ``anyOf``/``oneOf`` nested inside a ``oneOf``
    alternative. ``[]`` when portable."""
    defs = schema.get("$defs") or {} if isinstance(schema, dict) else {}
    out: list[str] = []

    def walk(node: Any, path: str, in_one_of: bool) -> None:
        if isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]", in_one_of)
            return
        if not isinstance(node, dict):
            return
        out.extend(f"{path or '/'}: {problem}" for problem in _node_problems(node, defs, in_one_of))
        for sub, sub_path, sub_in_one_of in _subschemas(node, path, in_one_of):
            walk(sub, sub_path, sub_in_one_of)

    walk(schema, "", False)
    return out


def _target_missing(ref: object, defs: dict[str, Any]) -> bool:
    return not (isinstance(ref, str) and ref.startswith("#/$defs/") and ref[len("#/$defs/") :] in defs)


def _node_problems(node: dict[str, Any], defs: dict[str, Any], in_one_of: bool) -> list[str]:
    """What one schema node uses that strict clients reject (its children are walked apart)."""
    problems: list[str] = []
    kind = node.get("type")
    if isinstance(kind, list):
        problems.append(f"type is an array {kind}")
    if "enum" in node and not isinstance(node["enum"], dict) and "type" not in node:
        problems.append("enum without a type")
    if "const" in node and not isinstance(node["const"], dict):
        problems.append("const (use a one-value enum)")
    if "$ref" in node and _target_missing(node["$ref"], defs):
        problems.append(f"$ref {node['$ref']} has no target")
    disc = node.get("discriminator")
    if isinstance(disc, dict):
        problems += [
            f"discriminator maps {value!r} to missing {ref}"
            for value, ref in (disc.get("mapping") or {}).items()
            if _target_missing(ref, defs)
        ]
    if in_one_of and any(isinstance(node.get(k), list) for k in ("anyOf", "oneOf")):
        problems.append("anyOf/oneOf nested inside a oneOf")
    return problems


def _subschemas(node: dict[str, Any], path: str, in_one_of: bool) -> Iterator[tuple[Any, str, bool]]:
    """The node's values that may hold schemas, each with its path and whether it sits inside a
    ``oneOf`` alternative; values that are data (enum, const, default, examples, ...) are not."""
    for k, v in node.items():
        if k in ("properties", "$defs", "patternProperties") and isinstance(v, dict):
            for name, sub in v.items():
                yield sub, f"{path}.{k}.{name}", in_one_of
        elif k == "oneOf":
            yield v, f"{path}.{k}", True
        elif k not in ("enum", "const", "default", "examples", "required", "discriminator"):
            yield v, f"{path}.{k}", in_one_of


def build_schemas(spec: ToolSpec) -> Schemas:
    """Import the tool's models (if lazy) and build its input and output schemas."""
    return (
        portable(lean_schema(resolved(spec.input_model).model_json_schema())),
        as_sent(
            compact_output(lean_schema(resolved(spec.output_model).model_json_schema(mode="serialization")))
        ),
    )


def tree_fingerprint(origin: str | Path) -> str:
    """A digest of the Python files of a package (``__init__.py`` names its folder) or module."""
    path = Path(origin)
    files: list[str] = []
    if path.name == "__init__.py":
        for dirpath, dirnames, filenames in os.walk(path.parent):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            for name in sorted(filenames):
                if name.endswith(".py"):
                    files.append(os.path.join(dirpath, name))
    else:
        files.append(str(path))
    h = hashlib.sha256()
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            continue
        h.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def default_store_path() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("medlit-mcp")) / "tool-schemas.json"


class SchemaStore:
    """The schema file, read once; :meth:`save` writes it back when something was added."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._entries: dict[str, dict[str, Any]] | None = None
        self._used: set[str] = set()
        self._dirty = False
        self._fingerprints: dict[str, str] = {}
        self.hits = self.misses = 0

    @classmethod
    def from_env(cls, env: dict[str, str] | Any) -> SchemaStore:
        raw = (env.get("MEDLIT_SCHEMA_CACHE") or "").strip()
        if raw.lower() == "off":
            return cls(None)
        return cls(Path(raw).expanduser() if raw else default_store_path())

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._entries is None:
            self._entries = {}
            if self.path is not None:
                try:
                    data = json.loads(self.path.read_bytes())
                    if isinstance(data, dict) and data.get("format") == FORMAT:
                        self._entries = {
                            k: v
                            for k, v in data.get("entries", {}).items()
                            if isinstance(v, dict) and isinstance(v.get("input"), dict)
                        }
                except (OSError, ValueError):
                    pass  # absent or damaged: rebuilt on this launch
        return self._entries

    def fingerprint(self, origin: str) -> str:
        if origin not in self._fingerprints:
            self._fingerprints[origin] = tree_fingerprint(origin) if origin else ""
        return self._fingerprints[origin]

    def key(self, spec: ToolSpec, origin: str, version: str | None) -> str | None:
        """The store key, or ``None`` for a tool with model classes (nothing to save importing)."""
        if not (isinstance(spec.input_model, Lazy) and isinstance(spec.output_model, Lazy)) or not origin:
            return None
        from pydantic.version import VERSION

        parts = [
            FORMAT,
            spec.input_model.ref,
            spec.output_model.ref,
            self.fingerprint(origin),
            self.fingerprint(str(CORE_DIR / "__init__.py")),
            version or "",
            VERSION,
            sys.version,
        ]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()

    def schemas(self, spec: ToolSpec, origin: str = "", version: str | None = None) -> Schemas:
        key = self.key(spec, origin, version) if self.path is not None else None
        if key is None:
            return build_schemas(spec)
        entry = self._load().get(key)
        if entry is not None and isinstance(entry.get("output"), dict):
            self.hits += 1
            self._used.add(key)
            return entry["input"], entry["output"]
        self.misses += 1
        schemas = build_schemas(spec)
        self._load()[key] = {"input": schemas[0], "output": schemas[1], "tool": spec.name, "t": time.time()}
        self._used.add(key)
        self._dirty = True
        return schemas

    def save(self) -> None:
        if not self._dirty or self.path is None or self._entries is None:
            return
        now = time.time()
        for key in self._used:
            self._entries[key]["t"] = now
        keep = sorted(self._entries.items(), key=lambda kv: -float(kv[1].get("t", 0)))[:KEEP]
        body = json.dumps({"format": FORMAT, "entries": dict(keep)}, separators=(",", ":")).encode()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tool-schemas.", dir=self.path.parent)
            with os.fdopen(fd, "wb") as f:
                f.write(body)
            os.replace(tmp, self.path)  # atomic: a concurrent reader sees the old or the new file
            self._dirty = False
        except OSError as exc:
            log.debug("tool schemas not stored at %s: %s", self.path, exc)
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)
