"""A cap stated in a field's description is the cap its schema enforces (issue 55): three tools said
"Served at most 100 (more: a notice)" while their schema's maximum was that 100, so a client
validating the schema refused the "more" before any notice could be given."""

from __future__ import annotations

import re

from medlit.core.host import load_host
from medlit.core.settings import load_settings

from support.listed import ListedTools

HOST = load_host(
    load_settings(
        {
            "UNPAYWALL_EMAIL": "test@example.org",
            "OPENURL_RESOLVER": "https://resolver.example.org/openurl",
            "MEDLIT_SCHEMA_CACHE": "off",
        }
    )
)
DEFINITIONS = ListedTools(HOST)
_STATED = re.compile(r"(?:at most|up to|1 to|maximum|max\.?)\s+([\d,]+)", re.IGNORECASE)


def _integer_fields(schema: dict) -> list[tuple[str, dict]]:
    return [
        (name, spec)
        for name, spec in (schema.get("properties") or {}).items()
        if spec.get("type") == "integer" and "maximum" in spec
    ]


def test_every_stated_integer_cap_is_the_schema_maximum():
    wrong = []
    for tool in sorted(HOST.tools):
        for name, spec in _integer_fields(DEFINITIONS[tool].input_schema):
            description = spec.get("description") or ""
            for stated in _STATED.findall(description):
                if int(stated.replace(",", "")) != spec["maximum"]:
                    wrong.append(f"{tool}.{name}: says {stated}, schema maximum {spec['maximum']}")
            if "more: a notice" in description:
                wrong.append(f"{tool}.{name}: promises a notice for values the schema refuses")
    assert wrong == []


def test_a_minimum_length_the_prose_states_is_in_the_schema():
    """pubtator_find_entity says "at least 2 characters": its schema says so too, and a shorter
    query is refused by the tool's own rule (its reason kept)."""
    from medlit.core.errors import MedlitError
    from medlit.core.runtime import validate_arguments

    query = DEFINITIONS["pubtator_find_entity"].input_schema["properties"]["query"]
    assert "at least 2 characters" in query["description"] and query["minLength"] == 2
    try:
        validate_arguments(HOST.tools["pubtator_find_entity"], {"query": "B"})
    except MedlitError as err:
        assert err.reason == "empty_query"
    else:
        raise AssertionError("a one-character query was accepted")
