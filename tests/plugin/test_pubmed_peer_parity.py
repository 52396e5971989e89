"""A call written for the peer pubmed-mcp-server (same field names, values in its ranges) is valid here.

Each argument set below uses every input field the peer's schema offers for that tool, at values the peer
accepts; our input model must accept it, and our advertised schema too once a count is clipped to the
maximum the schema states (what the tool serves), without any request.
"""

import jsonschema
import pytest

from medlit.core.loaded import load_tool
from medlit.testing import tool_definitions

pytestmark = pytest.mark.anyio

PEER_CALLS = {
    "pubmed_search_articles": {
        "query": "asthma",
        "author": "Smith J",
        "journal": "Thorax",
        "meshTerms": ["Asthma"],
        "publicationTypes": ["Review", "Meta-Analysis"],
        "language": "english",
        "species": "humans",
        "hasAbstract": True,
        "freeFullText": True,
        "dateRange": {"minDate": "2020/01/01", "maxDate": "2024/12", "dateType": "edat"},
        "sort": "pub_date",
        "offset": 9998,
        "maxResults": 10_000,
        "summaryCount": 500,
    },
    "pubmed_fetch_articles": {
        "pmids": ["33533846", "31452104"],
        "includeMesh": False,
        "includeGrants": True,
        "includeInvestigators": True,
        "maxResponseCharacters": 1,
    },
    "pubmed_fetch_fulltext": {
        "pmcids": ["PMC9575052", "9575052"],
        "pmids": ["33533846"],
        "dois": ["10.1371/journal.pone.0046493"],
        "sections": ["methods"],
        "maxSections": 1,
        "overflowMode": "outline",
        "includeAssets": False,
        "includeTables": False,
        "includeReferences": True,
        "maxCharacters": 1,
        "maxCharactersPerSection": 1,
        "maxResponseCharacters": 1,
    },
    "pubmed_format_citations": {"pmids": ["33533846"], "format": "bibtex"},
    "pubmed_spell_check": {"query": "alzhiemer diseese"},
    "pubmed_lookup_mesh": {"query": "asthma", "offset": 10, "maxResults": 500, "includeDetails": False},
    "pubmed_lookup_citation": {
        "citations": [
            {
                "key": "Art1",
                "journal": "proc natl acad sci u s a",
                "year": " 1991 ",
                "volume": "88",
                "firstPage": "3248",
                "authorName": "mann bj",
            }
        ]
    },
    "pubmed_convert_ids": {"ids": ["PMC3531190", "3531190"], "idType": "pmcid"},
}


@pytest.mark.parametrize("name", sorted(PEER_CALLS))
async def test_peer_shaped_call_is_valid(rt, fake, name):
    tool = next(t for t in tool_definitions(rt.host) if t.name == name)
    args = PEER_CALLS[name]
    # The schema states what is served (issue 33): a count above it is clipped to the advertised
    # maximum for a client that checks the schema; sent as is, we still accept it (served at the
    # cap with a notice).
    props = tool.input_schema["properties"]
    clipped = {
        k: min(v, props[k]["maximum"]) if isinstance(v, int) and "maximum" in props[k] else v
        for k, v in args.items()
    }
    jsonschema.validate(clipped, tool.input_schema)  # a client that checks the schema lets it through
    load_tool(rt.host.tools[name]).input_model.model_validate(args)  # and so do we, unclipped
    assert fake.requests == []


async def test_format_citations_takes_one_style_or_a_list(rt):
    tool = next(t for t in tool_definitions(rt.host) if t.name == "pubmed_format_citations")
    fmt = tool.input_schema["properties"]["format"]
    assert fmt["default"] == "apa"
    for value in ("apa", "all", ["mla", "ris"]):
        jsonschema.validate({"pmids": ["1"], "format": value}, tool.input_schema)
    for value in ("chicago", [], ["apa", "harvard"]):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"pmids": ["1"], "format": value}, tool.input_schema)


@pytest.mark.parametrize(
    ("name", "field", "limit"),
    [
        ("pubmed_fetch_articles", "pmids", 200),
        ("pubmed_format_citations", "pmids", 50),
        ("pubmed_convert_ids", "ids", 200),
    ],
)
async def test_id_list_limits_are_in_the_schema(rt, name, field, limit):
    tool = next(t for t in tool_definitions(rt.host) if t.name == name)
    prop = tool.input_schema["properties"][field]
    assert (prop["minItems"], prop["maxItems"]) == (1, limit)


async def test_search_offset_ceiling_is_in_the_schema(rt, fake):
    tool = next(t for t in tool_definitions(rt.host) if t.name == "pubmed_search_articles")
    assert tool.input_schema["properties"]["offset"]["maximum"] == 9998
    out = await rt.call("pubmed_search_articles", {"query": "asthma", "offset": 9999})
    assert out.is_error and out.error.reason == "offset_out_of_range" and fake.requests == []
