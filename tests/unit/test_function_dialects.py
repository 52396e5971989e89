"""Every tool definition of every family, the toolset tools included, passes what Gemini's function
declarations and OpenAI's (non-strict) function calling accept, and the portable rule of both
schemas (tests/support/function_dialects.py states the rules and the choices);
tests/unit/test_schema_portability.py holds the Inspector's strict lint beside them."""

from __future__ import annotations

import pytest

from medlit.core.host import load_host
from medlit.core.server import meta_definitions
from medlit.core.settings import load_settings
from medlit.testing import tool_definitions

from support.function_dialects import (
    MIXED_UNIONS,
    gemini_problems,
    openai_problems,
    portable_problems,
)

ALL_ON = {
    "UNPAYWALL_EMAIL": "test@example.org",
    "OPENURL_RESOLVER": "https://resolver.example.org/openurl",
    "MEDLIT_SCHEMA_CACHE": "off",
}
HOST = load_host(load_settings(ALL_ON))


@pytest.fixture(scope="module")
def definitions():
    """Every family's tools, and the two tools that reach the families not listed."""
    listed = {d.name: d for d in tool_definitions(HOST) + meta_definitions(HOST)}
    assert {"medlit_toolsets", "medlit_call_tool", "review_search"} <= set(listed)
    assert {n for f in HOST.families.values() for n in f.tools} <= set(listed)
    return listed


def test_every_input_schema_is_a_valid_gemini_declaration(definitions):
    problems = [p for d in definitions.values() for p in gemini_problems(d.name, d.input_schema)]
    assert problems == []


def test_every_input_schema_is_accepted_by_openai_function_calling(definitions):
    problems = [p for d in definitions.values() for p in openai_problems(d.name, d.input_schema)]
    assert problems == []


def test_every_object_is_typed_and_every_union_carries_its_type(definitions):
    problems = [
        p
        for d in definitions.values()
        for schema in (d.input_schema, d.output_schema or {})
        for p in portable_problems(d.name, schema)
    ]
    assert problems == []


def test_the_mixed_unions_left_are_real(definitions):
    """An entry of the allowance that no longer names a union of different types goes."""
    from support.function_dialects import nodes

    for tool, path in MIXED_UNIONS:
        d = definitions[tool]
        found = dict(nodes(d.input_schema)) | dict(nodes(d.output_schema or {}))
        branches = found[path].get("anyOf")
        assert branches and len({b.get("type") for b in branches}) == len(branches) > 1, (tool, path)


def test_the_two_maps_gemini_refused_name_their_properties(definitions):
    arguments = definitions["medlit_call_tool"].input_schema["properties"]["arguments"]
    assert arguments["properties"]["responseFormat"]["enum"] == ["markdown", "json"]
    assert arguments["additionalProperties"] is True  # any tool's own arguments still pass
    queries = definitions["review_search"].input_schema["properties"]["queries"]
    assert set(queries["properties"]) == {"pubmed", "europepmc", "pubtator", "clinicaltrials", "preprints"}
    assert queries["additionalProperties"]["type"] == "string"  # another plugin's source


def test_the_advertised_single_forms_still_take_the_other():
    """authors advertises a list; a single string of names is still read."""
    from medlit.core.runtime import validate_arguments

    refs = validate_arguments(
        HOST.tools["pubmed_verify_references"], {"references": [{"title": "x", "authors": "Smith J"}]}
    )
    assert refs.references[0].authors == "Smith J"


def test_the_rules_find_each_construct():
    bad = {
        "type": "object",
        "properties": {
            "free": {"type": "object"},
            "either": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "kinds": {"oneOf": [{"properties": {"a": {"type": "string"}}}]},
            "n": {"type": "integer", "enum": [1, 2]},
            "loose": {"description": "no type"},
            "ref": {"$ref": "#/$defs/X"},
            "list": {"type": ["string", "null"]},
        },
        "required": ["gone"],
    }
    assert gemini_problems("t", bad) == [
        "t/: required names undeclared ['gone']",
        "t.properties.free: object without properties",
        "t.properties.kinds: oneOf",
        "t.properties.kinds: no type",
        "t.properties.kinds.oneOf[0]: no type",
        "t.properties.n: enum of non-strings",
        "t.properties.loose: no type",
        "t.properties.ref: $ref",
        "t.properties.ref: no type",
        "t.properties.list: type ['string', 'null']",
    ]
    assert portable_problems("t", bad) == [
        "t.properties.free: object without properties or typed additionalProperties",
        "t.properties.either: union without a top-level type",
        "t.properties.kinds: union without a top-level type",
    ]
    assert openai_problems("t", {"anyOf": [{"type": "string"}]}) == [
        "t: parameters are not an object",
        "t: anyOf at the top level",
    ]
    assert openai_problems("t", bad) == ["t.properties.list: type is a list"]
    # a nullable pair, a typed map and a typed union pass
    fine = {
        "type": "object",
        "properties": {
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "map": {"type": "object", "additionalProperties": {"type": "string"}},
            "kinds": {
                "type": "object",
                "oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}}],
            },
        },
    }
    assert portable_problems("t", fine) == []


def test_the_default_search_says_what_else_exists_and_in_which_family(definitions):
    """A model with the default list learns from the search tool which family holds the review
    workflow, raw E-utilities, PubTator and registers, and that medlit_toolsets enables them."""
    desc = definitions["pubmed_search_articles"].description
    tail = desc[desc.index("Other families") :]
    assert "medlit_toolsets" in tail
    for family in ("review:", "europepmc:", "eutils:", "pubtator:", "trials:"):
        assert family in tail, family
    assert "screening" in tail and "PRISMA" in tail
    assert (
        "review_export (review family, via medlit_toolsets)"
        in definitions["pubmed_format_citations"].description
    )


def test_nothing_invites_calling_an_unlisted_tool_directly():
    """Hosts that refuse a tool not in their list: the server's words send a model through
    enable or medlit_call_tool, never to call an unlisted tool by its name."""
    from medlit.core.server import instructions
    from medlit.core.toolset_tools import listing, render

    host = load_host(load_settings({"MEDLIT_SCHEMA_CACHE": "off"}))
    text = instructions(host)
    assert "call the tool by name" not in text and "medlit_call_tool" in text
    listed = render({"action": "list", "toolsets": listing(host, host.listed_families)})
    assert "call its tools by name" not in listed
    assert "not listed: enable it, or run its tools through medlit_call_tool" in listed


@pytest.mark.parametrize(
    "tool",
    [
        "pubmed_search_articles",
        "pubmed_fetch_articles",
        "pubmed_spell_check",
        "pubmed_convert_ids",
        "pubmed_lookup_citation",
        "pubmed_format_citations",
        "pubmed_find_related",
        "pubmed_verify_references",
    ],
)
def test_a_pubmed_pointer_to_an_unlisted_tool_names_its_family(definitions, tool):
    import re

    desc = definitions[tool].description
    family_of = {t: f for f, fam in HOST.families.items() for t in fam.tools}
    for named in set(re.findall(r"\b[a-z]+_[a-z_]+[a-z]\b", desc)) & set(family_of):
        family = family_of[named]
        if family != "pubmed":
            assert f"{family} family" in desc or f"{family}:" in desc, (tool, named, family)
            # and the way to it (issue 55's grading: a family named without its route is a dead end)
            assert f"{family} family, via medlit_toolsets" in desc or "(medlit_toolsets):" in desc, (
                tool,
                named,
            )


def test_tools_of_one_other_family_share_one_route():
    desc = tool_definitions(HOST)
    related = next(d for d in desc if d.name == "pubmed_find_related").description
    assert "eutils_elink or eutils_link_then_fetch (eutils family, via medlit_toolsets)" in related
