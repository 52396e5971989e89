"""Lean structured content (core/lean.py) and the warm-up that spares the first call its imports."""

from __future__ import annotations

import jsonschema
import pytest

from medlit.core.lazy import Lazy
from medlit.core.lean import compile_pruner, lean
from medlit.core.server import build_server
from medlit.testing import make_host, make_runtime

SCHEMA = {
    "$defs": {
        "Person": {
            "properties": {
                "name": {"type": "string"},
                "orcid": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "notes": {"items": {"type": "string"}, "type": "array"},
                "mentor": {"anyOf": [{"$ref": "#/$defs/Person"}, {"type": "null"}]},
            },
            "required": ["name"],
            "type": "object",
        },
        "Book": {
            "properties": {
                "kind": {"const": "book"},
                "isbn": {"type": "string"},
                "pages": {"type": "integer"},
            },
            "required": ["kind", "isbn"],
            "type": "object",
        },
        "Paper": {
            "properties": {
                "kind": {"const": "paper"},
                "doi": {"type": "string"},
                "pages": {"type": "integer"},
            },
            "required": ["kind"],
            "type": "object",
        },
    },
    "properties": {
        "items": {"items": {"oneOf": [{"$ref": "#/$defs/Book"}, {"$ref": "#/$defs/Paper"}]}, "type": "array"},
        "people": {"items": {"$ref": "#/$defs/Person"}, "type": "array"},
        "styles": {"additionalProperties": {"type": "string"}, "type": "object"},
        "total": {"type": "integer"},
        "required_but_null": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "required_but_empty": {"items": {"type": "string"}, "type": "array"},
        "truncated": {"type": "boolean"},
        "offset": {"type": "integer"},
        "notice": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "deferred": {"anyOf": [{"$ref": "#/$defs/Person"}, {"type": "null"}]},
    },
    "required": ["total", "required_but_null", "required_but_empty"],
    "type": "object",
}


def sample() -> dict:
    return {
        "items": [{"kind": "book", "isbn": "", "pages": 0}, {"kind": "paper", "doi": "", "pages": None}],
        "people": [
            {"name": "", "orcid": None, "notes": [], "mentor": {"name": "M", "orcid": "", "mentor": None}},
        ],
        "styles": {"apa": "", "ris": "TY  - JOUR"},
        "total": 0,
        "required_but_null": None,
        "required_but_empty": [],
        "truncated": False,
        "offset": 0,
        "notice": None,
        "deferred": None,
    }


def test_empty_optional_fields_go_required_fields_zeros_and_false_stay():
    out = lean(sample(), SCHEMA)
    assert out == {
        # a required property of one branch stays (Book.isbn); a zero stays
        "items": [{"kind": "book", "isbn": "", "pages": 0}, {"kind": "paper"}],
        "people": [{"name": "", "mentor": {"name": "M"}}],  # nested and recursive models too
        "styles": {"apa": "", "ris": "TY  - JOUR"},  # a map's entries are data
        "total": 0,
        "required_but_null": None,
        "required_but_empty": [],
        "truncated": False,
        "offset": 0,
    }
    jsonschema.validate(out, SCHEMA)


def test_an_object_left_empty_goes_unless_required_and_unknown_keys_stay():
    schema = {
        "properties": {"journal": {"properties": {"title": {"type": "string"}}, "type": "object"}},
        "type": "object",
    }
    assert lean({"journal": {"title": ""}, "extra": None}, schema) == {"extra": None}
    assert lean({"journal": {"title": "Gut"}}, None) == {"journal": {"title": "Gut"}}  # no schema: untouched


def test_every_tool_s_pruner_compiles_and_keeps_what_its_schema_requires():
    host = make_host(discover=True, env={"MEDLIT_SCHEMA_CACHE": "off"})
    from medlit.core.server import tool_definitions

    tools = [t for t in tool_definitions(host) if t.output_schema]
    assert len(tools) >= 20
    for tool in tools:
        pruner = compile_pruner(tool.output_schema)
        assert pruner.required == frozenset(tool.output_schema.get("required", ())), tool.name


def test_the_server_warms_up_once_the_session_is_initialised():
    server = build_server(make_host(discover=True, env={"MEDLIT_SCHEMA_CACHE": "off"}))
    assert server.get_notification_handler("notifications/initialized") is not None


@pytest.mark.anyio
async def test_warm_up_loads_every_served_tool_and_opens_the_clients():
    async with make_runtime(env={"MEDLIT_CACHE": "off"}, discover=True) as rt:
        assert rt._clients is None and not rt.warm_up_started
        done = rt.start_warm_up()
        assert done is not None and rt.start_warm_up() is done  # once
        await done
        assert rt._clients is not None
        lazy_handlers = [s.handler for s in rt.host.tools.values() if isinstance(s.handler, Lazy)]
        assert lazy_handlers and all(h.loaded for h in lazy_handlers)


@pytest.mark.anyio
async def test_a_failing_warm_up_breaks_nothing(monkeypatch):
    async with make_runtime(env={"MEDLIT_CACHE": "off"}, discover=True) as rt:
        spec = rt.host.tools["pubmed_spell_check"]

        assert spec.name == "pubmed_spell_check"

        def broken(_spec: object) -> None:
            raise RuntimeError("cannot import")

        monkeypatch.setattr("medlit.core.runtime.load_tool", broken, raising=True)
        await rt.start_warm_up()  # logged, never raised
        assert rt._clients is not None
        monkeypatch.undo()
        out = await rt.call("pubmed_spell_check", {"query": " "})  # the tool loads and answers
        assert out.is_error and out.error is not None and out.error.reason == "blank_query"
