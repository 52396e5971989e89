"""The citation indexes the provider plugins declare (``medlit_citation_indexes``): each answers
backward (references) and forward (citing works) for a batch of seeds from the fake's citation
graph, per seed, and a failed upstream is a failure, never "no references"."""

from __future__ import annotations

import pytest

import medlit.plugins.crossref as crossref_plugin
import medlit.plugins.europepmc as europepmc_plugin
import medlit.plugins.icite as icite_plugin
import medlit.plugins.ncbi as ncbi_plugin
import medlit.plugins.openalex as openalex_plugin
from medlit.core.plugin import CitationIndex, CitationQuery, MedlitError
from medlit.testing import host_for, make_runtime

from support.citation_routes import Graph, Work, install

pytestmark = pytest.mark.anyio

PLUGINS = {
    "openalex": openalex_plugin,
    "europepmc": europepmc_plugin,
    "pubmed": ncbi_plugin,
    "icite": icite_plugin,
    "crossref": crossref_plugin,
}
SERVICE = {
    "openalex": "openalex",
    "europepmc": "europepmc",
    "pubmed": "ncbi",
    "icite": "icite",
    "crossref": "crossref",
}


def graph() -> Graph:
    g = Graph()
    g.add(Work("W1", pmid="101", doi="10.1000/a", title="Seed A", year=2019, refs=["W2", "W3", "W9"]))
    g.add(Work("W2", pmid="102", doi="10.1000/b", title="Reference B", year=2010))
    g.add(Work("W3", pmid="103", doi="10.1000/c", title="Reference C", year=2012))
    g.add(Work("W4", pmid="104", doi="10.1000/d", title="Citing D", year=2021, refs=["W1", "W5"]))
    g.add(Work("W5", pmid="105", doi="10.1000/e", title="Seed E", year=2018, refs=["W3"]))
    g.add(Work("W6", pmid="106", doi="10.1000/f", title="Citing F", year=2022, refs=["W5"]))
    return g


def index_of(plugin) -> CitationIndex:
    (index,) = plugin.medlit_citation_indexes()
    return index


def test_every_provider_declares_its_index_in_the_catalog():
    catalog = host_for(env={"NCBI_EMAIL": "me@example.org"}).build_catalog()
    names = {d.record.name: d.record for d in catalog.citation_indexes}
    assert set(names) >= set(PLUGINS)
    assert names["crossref"].directions == frozenset({"backward"})
    for name in ("openalex", "europepmc", "pubmed", "icite"):
        assert names[name].directions == frozenset({"backward", "forward"})
        assert names[name].batch >= 1 and names[name].rate > 0
    assert names["pubmed"].accepts == ("pmid",) and names["openalex"].accepts[0] == "openalex"


def seeds_for(index: CitationIndex) -> tuple[str, tuple[str, str]]:
    kind = index.accepts[0] if index.accepts[0] != "pmcid" else "pmid"
    ids = {"openalex": ("W1", "W5"), "pmid": ("101", "105"), "doi": ("10.1000/a", "10.1000/e")}[kind]
    return kind, ids


def key(work) -> str:
    return work.pmid or work.doi or work.openalex


@pytest.mark.parametrize("name", list(PLUGINS))
async def test_backward_and_forward_per_seed(fake, name):
    install(fake, graph())
    index = index_of(PLUGINS[name])
    kind, ids = seeds_for(index)
    async with make_runtime(PLUGINS[name], env={"NCBI_EMAIL": "me@example.org"}, fake=fake) as rt:
        ctx = rt.context(PLUGINS[name].medlit_plugin_info().name)
        back = await index.chase(CitationQuery("backward", kind, ids), ctx)
        fwd = (
            await index.chase(CitationQuery("forward", kind, ids), ctx)
            if "forward" in index.directions
            else None
        )
    refs = {seed: sorted(key(w) for w in works) for seed, works in back.found.items()}
    a, e = ids
    expect_a = {"openalex": ["W9", "102", "103"], "doi": ["10.1000/b", "10.1000/c"]}.get(name, ["102", "103"])
    if name == "openalex":  # W9 is outside the graph: known by its OpenAlex id only
        assert sorted(refs[a]) == sorted(expect_a)
    else:
        assert refs[a] == sorted(
            ["10.1000/b", "10.1000/c"] if kind == "doi" and name == "crossref" else expect_a
        )
    assert len(refs[e]) == 1
    assert back.requests >= 1 and not back.failed
    if fwd is not None:
        citing = {seed: sorted(key(w) for w in works) for seed, works in fwd.found.items()}
        assert citing[a] == ["104"] and citing[e] == ["104", "106"]
    assert fake.rate_limited == []


@pytest.mark.parametrize("name", list(PLUGINS))
async def test_a_failed_index_is_failed_not_empty(fake, name):
    install(fake, graph())
    index = index_of(PLUGINS[name])
    kind, ids = seeds_for(index)
    fake.fault("500", SERVICE[name], times=20)
    async with make_runtime(PLUGINS[name], env={"NCBI_EMAIL": "me@example.org"}, fake=fake) as rt:
        ctx = rt.context(PLUGINS[name].medlit_plugin_info().name)
        try:
            answer = await index.chase(CitationQuery("backward", kind, ids), ctx)
        except MedlitError:
            return  # the whole batch failed, said so
    assert set(answer.failed) == set(ids) and not answer.found  # per seed, failed: never "no references"
