"""Base models for tool inputs and outputs, the response-format argument every tool shares, the
control-character guard every input passes and the lean JSON schema tools are advertised with."""

from __future__ import annotations

import re
from typing import Any, Literal, Self, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import DEFAULT_REF_TEMPLATE, GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import core_schema

from .budget import BudgetSplit
from .errors import ArgumentError
from .render import TEXT_LIMIT, cap

# C0 controls except tab, newline and carriage return, plus DEL: never meaningful in a query, an
# id or a name, and some upstreams answer them with misleading (retryable-looking) errors.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def find_control_character(value: object, path: str = "") -> tuple[str, int, str] | None:
    """The first control character in ``value`` (strings, lists and objects walked): its field
    path, its position and the character; ``None`` when there is none."""
    if isinstance(value, str):
        m = CONTROL_CHARACTERS.search(value)
        return (path or "value", m.start(), m.group()) if m else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = find_control_character(v, f"{path}.{k}" if path else str(k))
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = find_control_character(v, f"{path}[{i}]")
            if found:
                return found
    return None


V = TypeVar("V")


def refuse_control_characters(value: V) -> V:
    """Raise ``ArgumentError`` naming the field when ``value`` holds a control character."""
    found = find_control_character(value)
    if found:
        where, pos, char = found
        raise ArgumentError(
            f"{where} holds a control character (U+{ord(char):04X}) at position {pos}",
            "Remove control characters (NUL, escape sequences, ...) from the value and call again.",
        )
    return value


class LeanJsonSchema(GenerateJsonSchema):
    """Tool input schemas without the ``anyOf [..., null]`` wrapper and the empty default (``null``,
    ``""``, ``[]``) every optional field would otherwise carry: an omitted field means "not given"
    (an explicit null is still accepted), and the wrapper made ``tools/list`` a fifth larger."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        json_schema = super().default_schema(schema)
        if "default" in json_schema and json_schema["default"] in (None, "", []):
            json_schema = {k: v for k, v in json_schema.items() if k != "default"}
        return json_schema


def inline_definitions(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace each ``$ref`` to ``#/$defs/...`` by the definition itself and drop ``$defs``: tool
    inputs nest small objects used once or twice, some MCP clients do not follow references, and
    the indirection costs more characters than it saves. Recursive models keep their ``$defs``."""
    defs = schema.get("$defs")
    if not defs:
        return schema
    prefix = "#/$defs/"

    class Recursive(Exception):
        pass

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(v, seen) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(prefix):
            name = ref[len(prefix) :]
            if name in seen:
                raise Recursive(name)
            inner = walk(defs[name], (*seen, name))
            return {**inner, **{k: walk(v, seen) for k, v in node.items() if k != "$ref"}}
        return {k: walk(v, seen) for k, v in node.items() if k != "$defs"}

    try:
        inlined: dict[str, Any] = walk(schema, ())
    except Recursive:
        return schema
    return inlined


class ToolInput(BaseModel):
    """Base for tool inputs: unknown fields are refused (the host refuses them for every tool
    anyway, with the list of accepted ones), surrounding white space is stripped and control
    characters are refused anywhere in the arguments."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @model_validator(mode="before")
    @classmethod
    def _no_control_characters(cls, data: object) -> object:
        return refuse_control_characters(data)

    @classmethod
    def model_json_schema(
        cls,
        by_alias: bool | None = True,  # pydantic 2.14 widened it to bool | None
        ref_template: str = DEFAULT_REF_TEMPLATE,
        schema_generator: type[GenerateJsonSchema] = LeanJsonSchema,
        mode: JsonSchemaMode = "validation",
        *,
        union_format: Literal["any_of", "primitive_type_array"] = "any_of",
    ) -> dict[str, Any]:
        schema = super().model_json_schema(
            by_alias is not False, ref_template, schema_generator, mode, union_format=union_format
        )
        return inline_definitions(schema) if ref_template == DEFAULT_REF_TEMPLATE else schema


class ResourceLink(BaseModel):
    """A resource a tool result points at (served as MCP ``resource_link`` content): a file the
    tool wrote, readable with ``resources/read``."""

    uri: str
    name: str
    mimeType: str | None = None
    title: str | None = None
    size: int | None = None


class Image(BaseModel):
    """An image a tool result carries (served as MCP ``image`` content, base64-encoded, so a host
    shows it inline): a chart the tool drew."""

    data: bytes
    mimeType: str = "image/png"


class ToolOutput(BaseModel):
    """Base for tool outputs: ``None`` fields are left out of the structured result. A result
    that points at resources it made (an export file) answers them from ``resource_links()``;
    the server adds each as a ``resource_link`` content block after the text. A result that
    carries images answers them from ``images()``: the server adds each as an ``image`` content
    block (keep the bytes out of the structured result: a field with ``exclude=True``)."""

    model_config = ConfigDict(extra="forbid")

    def resource_links(self) -> list[ResourceLink]:
        return []

    def images(self) -> list[Image]:
        return []


class DeferredIds(ToolOutput):
    """Records ``maxResponseCharacters`` withheld (fetched, but not returned); subclass it to say
    which argument takes the ids back (``ids``' description)."""

    ids: list[str] = Field(description="Ids withheld, in order: call again with these")
    deferredCount: int
    maxResponseCharacters: int = Field(description="The ceiling this response was budgeted against")
    returnedCharacters: int = Field(description="JSON characters the returned records account for")
    nextDeferredCharacters: int = Field(
        description="Size of the first deferred record: a follow-up call needs maxResponseCharacters at least this"
    )

    @classmethod
    def from_split(cls, split: BudgetSplit[V], ceiling: int | None) -> Self | None:
        """What :func:`apply_budget` deferred, or ``None`` when everything fit."""
        if split.deferred is None:
            return None
        return cls(
            ids=split.deferred.ids,
            deferredCount=split.deferred.count,
            maxResponseCharacters=ceiling or 0,
            returnedCharacters=split.used,
            nextDeferredCharacters=split.deferred.nextItemCharacters,
        )


ResponseFormat = Literal["markdown", "json"]


def response_format_field() -> ResponseFormat:
    """The ``responseFormat`` argument (``response_format`` accepted too): how the text block
    renders the result. Declare it under either attribute name; the schema shows ``responseFormat``."""
    default: ResponseFormat = "markdown"
    return Field(
        default,
        validation_alias=AliasChoices("responseFormat", "response_format"),
        # Repeated in every tool: what it does and its default, in as few words as say it.
        description="Text reply: default markdown. Example: 'json'.",
    )


RESPONSE_FORMAT_FIELD = response_format_field()


def cap_text(text: str, hint: str) -> str:
    """Cut a rendering with a tool-specific paging hint, leaving room for the notice itself so the
    host's generic 25,000-character cut never applies on top."""
    return cap(text, hint, limit=TEXT_LIMIT - 600)
