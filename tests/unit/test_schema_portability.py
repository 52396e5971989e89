"""Every tool's input and output schema, every plugin on, passes the portability rule strict
clients apply (the MCP Inspector's ``--strict`` check, OpenAPI-subset dialects): no dangling
``$ref`` or ``discriminator.mapping``, no ``anyOf``/``oneOf`` nested inside a ``oneOf``, every
``enum`` typed, no ``const``. tests/e2e/test_inspector.py runs the Inspector itself."""

from __future__ import annotations

import pytest

from medlit.core.host import load_host
from medlit.core.settings import load_settings
from medlit.core.tool_schemas import as_sent, compact_output, portability_problems, portable

from support.listed import ListedTools

ALL_ON = {
    "UNPAYWALL_EMAIL": "test@example.org",
    "OPENURL_RESOLVER": "https://resolver.example.org/openurl",
    "MEDLIT_SCHEMA_CACHE": "off",
}
HOST = load_host(load_settings(ALL_ON))
DEFINITIONS = ListedTools(HOST)  # the schemas are built by the first test, not at collection


@pytest.mark.parametrize("tool", sorted(HOST.tools))
def test_every_input_and_output_schema_is_portable(tool):
    d = DEFINITIONS[tool]
    assert portability_problems(d.input_schema) == []
    assert portability_problems(d.output_schema or {}) == []


def test_the_rule_finds_each_construct():
    bad = {
        "type": "object",
        "properties": {
            "strand": {"enum": ["plus", 1]},
            "idtype": {"const": "acc", "type": "string"},
            "ref": {"$ref": "#/$defs/Gone"},
            "items": {
                "oneOf": [{"properties": {"doi": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}],
                "discriminator": {"propertyName": "kind", "mapping": {"a": "#/$defs/Gone"}},
            },
        },
    }
    assert portability_problems(bad) == [
        ".properties.strand: enum without a type",
        ".properties.idtype: const (use a one-value enum)",
        ".properties.ref: $ref #/$defs/Gone has no target",
        ".properties.items: discriminator maps 'a' to missing #/$defs/Gone",
        ".properties.items.oneOf[0].properties.doi: anyOf/oneOf nested inside a oneOf",
    ]
    # a reference to a definition the document has, and a property *named* const or enum, are fine
    fine = {
        "$defs": {"A": {"type": "string"}},
        "properties": {"a": {"$ref": "#/$defs/A"}, "const": {"type": "string"}, "enum": {"type": "string"}},
    }
    assert portability_problems(fine) == []


def test_const_becomes_a_typed_one_value_enum_and_a_dangling_discriminator_goes():
    schema = {
        "properties": {"kind": {"const": "x"}, "n": {"enum": [1, 2]}},
        "discriminator": {"propertyName": "kind", "mapping": {"x": "#/$defs/X"}},
    }
    assert portable(schema) == {
        "properties": {"kind": {"enum": ["x"], "type": "string"}, "n": {"enum": [1, 2], "type": "integer"}}
    }
    kept = {
        "$defs": {"X": {"type": "object"}},
        "discriminator": {"propertyName": "k", "mapping": {"x": "#/$defs/X"}},
    }
    assert portable(kept) == kept


def test_optional_fields_of_union_alternatives_lose_null_unless_an_alternative_requires_them():
    """Lean output keeps a property that any alternative requires (sent as null in the others),
    and leaves out every other empty one: only the former may be null."""
    nullable = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    a = {
        "type": "object",
        "properties": {"k": {"const": "a"}, "doi": nullable, "x": nullable},
        "required": ["k"],
    }
    b = {
        "type": "object",
        "properties": {"k": {"const": "b"}, "x": {"type": "string"}},
        "required": ["k", "x"],
    }
    schema = {"type": "object", "properties": {"r": {"oneOf": [a, b]}}, "required": ["r"]}
    sent = as_sent(compact_output(schema))
    first = sent["properties"]["r"]["oneOf"][0]["properties"]
    assert first["doi"] == {"type": "string"}  # never sent as null: left out
    assert first["x"] == nullable  # b requires x, so a sends its missing x as null
    assert portability_problems(sent) == [
        ".properties.r.oneOf[0].properties.x: anyOf/oneOf nested inside a oneOf"
    ]


def test_fulltext_output_has_no_nesting_and_no_dangling_mapping():
    """Before: a discriminator mapping to two removed $defs and 78 anyOf-null wrappers, four deep."""
    import json

    text = json.dumps(DEFINITIONS["pubmed_fetch_fulltext"].output_schema)
    assert "discriminator" not in text and "$ref" not in text
    assert text.count('{"type": "null"}') == 0
