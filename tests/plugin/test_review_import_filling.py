"""review_import fills what an imported record lacks from the metadata providers (issue 51),
against the fake: abstracts and titles by PMID from PubMed (one EFetch for the batch) and by DOI
from Crossref, each filled field marked with its provider in review_records and the exports; a
provider that fails is said so with the records it left unfilled; ``fillMissing=false`` asks
nobody."""

from __future__ import annotations

import functools

import pytest
from aiohttp import web

from support import crossref_routes
from support.fake_upstream import Req, xml_response
from support.review_routes import paper, pubmed_xml
from support.tool_calls import answered

pytestmark = pytest.mark.anyio

# paper(n)'s PMID is 30000000 + n: 1 and 2 are known to the fake PubMed, 9 is not
CSV = (
    "Title,Authors,Year,PMID,DOI,Abstract\n"
    "Synthetic trial 1 of insulin & asthma: a randomised study,Smith A,1999,30000001,,\n"
    ",Lee C,2001,30000002,,\n"
    "Deposited abstracts in a registry,Khan A,2020,,10.5555/deposited.3,\n"
    "Already complete,Ortiz R,2018,30000009,,The file's own abstract.\n"
    "No identifier at all,Dahl E,2017,,,\n"
)
CROSSREF_WORK = {
    "DOI": "10.5555/deposited.3",
    "type": "journal-article",
    "title": ["Deposited abstracts in a registry"],
    "author": [{"family": "Khan", "given": "Ali"}],
    "issued": {"date-parts": [[2020]]},
    "abstract": "<jats:title>Abstract</jats:title><jats:p>Registries hold &amp; deposit.</jats:p>"
    "<jats:p>Second paragraph.</jats:p>",
}


def efetch(req: Req) -> web.Response:
    known = {p.pmid: p for p in (paper(1), paper(2))}
    body = "".join(pubmed_xml(known[i]) for i in req.ids() if i in known)
    return xml_response(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>{body}</PubmedArticleSet>'
    )


@pytest.fixture
def runtime_for(review_runtime, fake):
    fake.route("ncbi", "efetch.fcgi", efetch)
    crossref_routes.install(fake, works=[CROSSREF_WORK], corpus=False)
    return functools.partial(review_runtime, MEDLIT_EUROPEPMC_RATE="200")


async def records(rt, name):
    page = await answered(rt, "review_records", set=name, brief=False)
    return {r.get("pmid") or r.get("doi") or r["title"]: r for r in page.data["records"]}


async def test_abstracts_and_titles_are_filled_by_pmid_and_doi_and_marked(runtime_for, fake):
    async with runtime_for() as rt:
        out = await answered(rt, "review_import", set="filled", database="Embase", content=CSV, format="csv")
        d = out.data
        assert d["complete"] and d["stored"] == 5
        assert d["filled"] == {"abstract": {"pubmed": 2, "crossref": 1}, "title": {"pubmed": 1}}
        assert d["fillFailed"] is None
        assert (
            "Filled from metadata providers: 3 abstracts (crossref 1, pubmed 2); 1 titles (pubmed 1)"
            in out.text
        )
        # the three PMIDs that lack something in one EFetch, the DOI in one Crossref request
        assert len(fake.of("ncbi", "efetch.fcgi")) == 1
        assert sorted(fake.of("ncbi", "efetch.fcgi")[0].ids()) == ["30000001", "30000002"]
        assert len(fake.of("crossref", "works")) == 1
        by = await records(rt, "filled")
        assert by["30000001"]["abstract"] == paper(1).abstract
        assert by["30000001"]["filled"] == {"abstract": "pubmed"}
        assert by["30000002"]["title"] == paper(2).title  # the file gave no title
        assert by["30000002"]["filled"] == {"abstract": "pubmed", "title": "pubmed"}
        assert by["10.5555/deposited.3"]["abstract"] == "Registries hold & deposit.\n\nSecond paragraph."
        assert by["10.5555/deposited.3"]["filled"] == {"abstract": "crossref"}
        assert (
            by["30000009"]["abstract"] == "The file's own abstract." and by["30000009"].get("filled") is None
        )
        assert by["No identifier at all"].get("filled") is None
        ris = await answered(rt, "review_export", set="filled", format="ris")
        text, _ = await rt.read_resource(ris.data["uri"])
        assert text.count("N1  - Filled at import: abstract from pubmed\n") == 1
        assert text.count("N1  - Filled at import: abstract from pubmed; title from pubmed\n") == 1
        assert text.count("N1  - Filled at import: abstract from crossref\n") == 1
        # the same file again stores nothing and fills nothing, and its counts say so (issue 55)
        again = await answered(
            rt, "review_import", set="filled", database="Embase", content=CSV, format="csv"
        )
        assert again.data["filled"] == {} and "imported into the set before" in again.data["notice"]
        assert len(fake.of("ncbi", "efetch.fcgi")) == 1


async def test_a_failing_provider_is_said_with_the_records_it_left(runtime_for, fake):
    fake.fault("503", "ncbi", "efetch.fcgi", times=20)
    async with runtime_for() as rt:
        out = await answered(rt, "review_import", set="down", database="Embase", content=CSV, format="csv")
        d = out.data
        assert d["complete"] and d["stored"] == 5  # stored as the file gave them
        assert d["filled"] == {"abstract": {"crossref": 1}}  # Crossref still answered for its DOI
        [failure] = d["fillFailed"]
        assert (failure["ids"], failure["records"]) == ("PMIDs", 2)
        assert failure["message"] == "NCBI E-utilities answered HTTP 503 (a server error)"
        assert (
            "Filling by PMIDs failed for 2 records: NCBI E-utilities answered HTTP 503 (a server error); they "
            "are stored as the file gave them." in d["notice"]
        )
        by = await records(rt, "down")
        assert by["30000001"].get("abstract") is None and by["30000001"].get("filled") is None


async def test_fill_missing_false_asks_no_provider(runtime_for, fake):
    async with runtime_for() as rt:
        out = await answered(
            rt, "review_import", set="asis", database="Embase", content=CSV, format="csv", fillMissing=False
        )
        assert out.data["complete"] and out.data["filled"] is None and out.data["fillFailed"] is None
        assert fake.of("ncbi", "efetch.fcgi") == [] and fake.of("crossref", "works") == []
        by = await records(rt, "asis")
        assert by["30000001"].get("abstract") is None and "Filled from" not in out.text
