"""review_import naming only ``set`` and ``database`` asks how that database's import goes: a
running import is reported without the file being sent again (and the answer waits for it as long
as a call may), the parts of a file being sent are counted, and a database with no import is
refused with what to do. Asking never stores a record twice."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from support.fake_upstream import Req, xml_response
from support.review_routes import paper, pubmed_xml
from support.tool_calls import answered, refused

pytestmark = pytest.mark.anyio

# Two records lacking abstracts: the import asks PubMed for them by PMID (fillMissing), and the
# test holds that answer back, so the import is running for as long as the test wants.
CSV = (
    "Title,Authors,Year,PMID,DOI,Abstract\n"
    "Synthetic trial 1 of insulin & asthma: a randomised study,Smith A,1999,30000001,,\n"
    "Synthetic trial 2,Lee C,2001,30000002,,\n"
)


@pytest.fixture
def gate(fake):
    """PubMed's EFetch answers only once the test opens the gate."""
    opened = asyncio.Event()

    async def efetch(req: Req) -> web.Response:
        await opened.wait()
        body = "".join(pubmed_xml(p) for p in (paper(1), paper(2)) if p.pmid in req.ids())
        return xml_response(f'<?xml version="1.0"?>\n<PubmedArticleSet>{body}</PubmedArticleSet>')

    fake.route("ncbi", "efetch.fcgi", efetch)
    return opened


async def test_a_running_import_is_asked_about_without_sending_the_file(review_runtime, gate):
    # a call waits 1 s for an import (MEDLIT_REVIEW_WAIT): each answer below comes while the gate
    # is shut, however fast or slow the machine; no request timeout or deadline cuts the gated
    # request short (its retries would outlast the import's deadline on a loaded machine)
    async with review_runtime(
        MEDLIT_CALL_DEADLINE="600", MEDLIT_REQUEST_TIMEOUT="600", MEDLIT_REVIEW_WAIT="1"
    ) as rt:
        first = await answered(rt, "review_import", set="s", database="Embase", content=CSV, format="csv")
        assert first.data["running"] and not first.data["complete"]
        asked = await answered(rt, "review_import", set="s", database="Embase")
        assert asked.data["running"] and not asked.data["complete"]
        assert asked.data["database"] == "Embase"
        other = await refused(rt, "review_import", set="s", database="Scopus")
        assert other.reason == "invalid_argument" and "No Scopus file" in other.message
        assert "content" in other.recovery

        gate.set()
        for _ in range(600):  # no clock: as many 1 s waits as the machine needs
            asked = await answered(rt, "review_import", set="s", database="Embase")
            if not asked.data["running"]:
                break
        assert asked.data["complete"] and asked.data["recordsInFile"] == 2 and asked.data["stored"] == 2
        assert asked.data["filled"] == {"abstract": {"pubmed": 2}}
        again = await answered(rt, "review_import", set="s", database="Embase")
        assert again.data["total"] == 2 and again.data["complete"]  # asking stores nothing


async def test_parts_held_are_counted_and_a_set_without_imports_is_refused(review_runtime):
    async with review_runtime() as rt:
        part = "TY  - JOUR\nTI  - Asthma in children\nER  - \n"
        await answered(rt, "review_import", set="p", database="Scopus", content=part, part=1, parts=3)
        held = await answered(rt, "review_import", set="p", database="Scopus")
        assert not held.data["running"] and held.data["stored"] == 0
        assert "1 of 3 parts" in held.data["notice"] and "send the rest" in held.data["notice"]
        none = await refused(rt, "review_import", set="nobody", database="Scopus")
        assert none.reason == "invalid_argument" and "No export file was given" in none.message
        both = await refused(rt, "review_import", set="p", database="Scopus", content=part, path="/x.ris")
        assert both.reason == "invalid_argument" and "not both" in both.message
