"""PubMed records are parsed once per answer and shared, never copied, by the process record
cache: the research workflow search -> fetch 5 -> cite 5 -> convert 5 costs 4 requests cold and
none repeated, whatever options the fetch read its records with (issue 25)."""

from __future__ import annotations

import pytest

from medlit.core import xml as core_xml
from medlit.plugins.ncbi.client import RECORD_CACHE_KEY
from medlit.testing import check_structured

from support.pubmed_fakes import install, output_schema, record_index

pytestmark = pytest.mark.anyio

FETCH_OPTIONS = [
    {},
    {"includeGrants": True},
    {"includeInvestigators": True},
    {"includeGrants": True, "includeInvestigators": True},
    {"includeMesh": False},
]


async def _ok(rt, name: str, args: dict) -> dict:
    res = await rt.call(name, args)
    assert not res.is_error, res.text
    return res.data


@pytest.mark.parametrize("persistent", [False, True], ids=["no-persistent-cache", "persistent-cache"])
@pytest.mark.parametrize("options", FETCH_OPTIONS, ids=lambda o: ",".join(o) or "defaults")
async def test_workflow_costs_four_requests_cold_and_none_repeated(
    make_runtime, fake, tmp_path, options, persistent
):
    """Cold: esearch, esummary, efetch, the ID converter; citing the records just fetched costs
    nothing, even without the persistent cache (which would answer a second efetch itself).
    Repeated in the same process: nothing with the persistent cache (the default outside tests);
    without it, no efetch."""
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    env = {"MEDLIT_CACHE": f"sqlite:///{tmp_path / 'cache.sqlite3'}"} if persistent else {}
    async with make_runtime(**env) as rt:

        async def workflow() -> None:
            found = await _ok(
                rt, "pubmed_search_articles", {"query": "mitochondria", "maxResults": 5, "summaryCount": 5}
            )
            pmids = found["pmids"]
            assert len(pmids) == 5 and len(found["summaries"]) == 5
            fetched = await _ok(rt, "pubmed_fetch_articles", {"pmids": pmids, **options})
            assert fetched["totalReturned"] == 5
            cited = await _ok(rt, "pubmed_format_citations", {"pmids": pmids, "format": ["apa", "bibtex"]})
            assert cited["totalFormatted"] == 5
            converted = await _ok(rt, "pubmed_convert_ids", {"idType": "pmid", "ids": pmids})
            assert converted["records"]

        await workflow()
        cold = [r.path for r in fake.requests]
        # "" is the ID converter
        assert sorted(cold) == ["", "efetch.fcgi", "esearch.fcgi", "esummary.fcgi"], cold
        await workflow()
        warm = [r.path for r in fake.requests[len(cold) :]]
        assert warm == [] if persistent else "efetch.fcgi" not in warm, warm


async def test_a_read_with_fewer_options_never_answers_one_with_more(rt, fake):
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    pmid = "18719013"  # a consortium record with investigators
    plain = await _ok(rt, "pubmed_fetch_articles", {"pmids": [pmid]})
    assert "investigators" not in plain["articles"][0] or not plain["articles"][0]["investigators"]
    full = await _ok(rt, "pubmed_fetch_articles", {"pmids": [pmid], "includeInvestigators": True})
    assert full["articles"][0]["investigators"]
    assert [r.path for r in fake.requests] == ["efetch.fcgi", "efetch.fcgi"]
    # ... and the read with more answers the plain one again exactly as the plain read did
    again = await _ok(rt, "pubmed_fetch_articles", {"pmids": [pmid]})
    assert again == plain
    assert len(fake.requests) == 2


async def test_cached_answer_equals_the_fresh_one_and_records_are_shared(rt, fake):
    """The records every caller gets are the cached objects themselves (no copies), frozen, and
    a cached answer is the same as the fresh one after every tool that reads them ran."""
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    pmids = sorted(record_index())
    schema = output_schema(rt, "pubmed_fetch_articles")
    first = await _ok(rt, "pubmed_fetch_articles", {"pmids": pmids})
    check_structured(first, schema)
    await _ok(
        rt,
        "pubmed_format_citations",
        {"pmids": pmids[:50], "format": ["apa", "mla", "vancouver", "bibtex", "ris"]},
    )
    second = await _ok(rt, "pubmed_fetch_articles", {"pmids": pmids})
    assert second == first
    assert [r.path for r in fake.requests] == ["efetch.fcgi"]
    cache = rt.caches["ncbi"][RECORD_CACHE_KEY]
    record = cache[(pmids[0], False, False)][1]
    with pytest.raises(ValueError, match="frozen"):
        record.title = "changed"


async def test_one_xml_parse_per_efetch_answer(rt, fake, monkeypatch):
    """The service's inspector and the PubMed parser read one tree (Response.xml())."""
    if not record_index():
        pytest.skip("shared corpus not present")
    install(fake)
    parsed: list[int] = []
    real = core_xml.parse_xml

    def counting(data, **kw):
        parsed.append(len(data))
        return real(data, **kw)

    monkeypatch.setattr("medlit.core.net.wire.parse_xml", counting)
    monkeypatch.setattr("medlit.core.plugin.markup.parse_xml", counting)  # what plugins call
    await _ok(rt, "pubmed_fetch_articles", {"pmids": sorted(record_index())[:10]})
    assert len(fake.requests) == 1 and len(parsed) == 1
