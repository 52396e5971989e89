"""The Crossref plugin against the fake: DOI batches (``filter=doi:``, out-of-order answers matched
back), the plain-text 404 of ``works/<doi>``, JSON 400s worded from their message list, 500s
retried, the polite pool (``mailto``, concurrency), pacing that follows ``x-rate-limit-*``, the
reference matcher, notices from ``updated-by``/``update-to`` and ``filter=updates:``, and the
metadata provider other plugins reach through ``ctx.lookup_metadata``."""

from __future__ import annotations

import json

import pytest

import medlit.plugins.crossref as crossref_plugin
from medlit.core.plugin import MedlitError, ReferenceQuery
from medlit.plugins.crossref import client, provider
from medlit.testing import make_runtime

from support import crossref_routes
from support.corpus import corpus_bytes
from support.fake_upstream import Req, json_response

pytestmark = pytest.mark.anyio

WAKEFIELD = "10.1016/s0140-6736(97)11096-0"
MEHRA = "10.1016/s0140-6736(20)31180-6"
WATSON = "10.1038/171737a0"


def rt_for(fake, **env: str):
    return make_runtime(crossref_plugin, env=env, fake=fake)


def synthetic(n: int) -> dict:
    return {
        "DOI": f"10.5555/batch.{n}",
        "type": "journal-article",
        "title": [f"Work {n}"],
        "issued": {"date-parts": [[2020]]},
    }


async def test_dois_in_batches_of_40_answered_out_of_order(fake):
    crossref_routes.install(fake, works=[synthetic(n) for n in range(95)], corpus=False)
    dois = [f"10.5555/batch.{n}" for n in range(100)]
    async with rt_for(fake, CROSSREF_EMAIL="me@example.org") as rt:
        ctx = rt.context("crossref")
        found = await client.works_by_doi(ctx, dois)
        again = await client.works_by_doi(ctx, dois[:10])
    assert list(found) == dois[:95]  # in the order asked, the five unknown absent
    assert all(found[d].doi == d for d in found) and len(again) == 10
    reqs = fake.of("crossref", "works")
    assert len(reqs) == 3  # 40 + 40 + 20; the repeat came from the process cache
    assert sorted(len(r.params["filter"].split(",")) for r in reqs) == [20, 40, 40]
    assert all(r.params["mailto"] == "me@example.org" and "score" in r.params["select"] for r in reqs)


async def test_corpus_records_through_the_filter(fake):
    crossref_routes.install(fake)
    async with rt_for(fake) as rt:
        found = await client.works_by_doi(rt.context("crossref"), [WATSON, WAKEFIELD, MEHRA])
    if len(found) < 3:
        pytest.skip("shared corpus not found")
    assert [n.type for n in found[WAKEFIELD].notices] == ["correction", "retraction"]
    assert found[WATSON].notices == []
    (req,) = fake.of("crossref", "works")
    assert "mailto" not in req.params  # no CROSSREF_EMAIL: the public pool


async def test_unknown_doi_is_plain_text_404_and_none(fake):
    fake.respond(
        "crossref",
        "works/10.1371/notarealdoi",
        corpus_bytes("crossref/errors/works_404_resource_not_found.txt"),
        status=404,
        content_type="text/plain",
    )
    async with rt_for(fake) as rt:
        ctx = rt.context("crossref")
        assert await client.work(ctx, "10.1371/notarealdoi") is None
        assert await client.work(ctx, "10.1371/notarealdoi") is None  # remembered
    assert len(fake.of("crossref")) == 1


async def test_a_doi_with_a_comma_is_read_alone(fake):
    doi = "10.5555/a,b"
    work = {"DOI": doi, "title": ["Comma"], "type": "journal-article"}
    fake.respond("crossref", f"works/{doi}", {"status": "ok", "message-type": "work", "message": work})
    async with rt_for(fake) as rt:
        found = await client.works_by_doi(rt.context("crossref"), [doi])
    assert found[doi].metadata.title == "Comma"
    assert fake.of("crossref", "works") == []  # no filter could carry it


async def test_json_400_is_worded_from_its_message_list_and_never_retried(fake):
    fake.respond(
        "crossref",
        "works",
        json.loads(corpus_bytes("crossref/errors/works_400_validation_failure_query_with_doi.json")),
        status=400,
    )
    async with rt_for(fake) as rt:
        with pytest.raises(MedlitError) as info:
            await client.bibliographic(rt.context("crossref"), "anything")
    err = info.value
    assert err.reason == "crossref_bad_request" and not err.retryable
    assert "This route does not support field query parameters" in err.message
    assert len(fake.of("crossref")) == 1


async def test_500_is_retried_then_reported(fake):
    body = json.loads(corpus_bytes("crossref/errors/works_cursor_500_exception_stacktrace.json"))
    fake.respond("crossref", "works", body, status=500)
    async with rt_for(fake, MEDLIT_MAX_RETRIES="1") as rt:
        with pytest.raises(MedlitError) as info:
            await client.works_by_doi(rt.context("crossref"), ["10.5555/x"])
    assert info.value.reason == "crossref_server_error" and info.value.retryable
    assert len(fake.of("crossref")) == 2


async def test_pacing_follows_the_announced_rate(fake):
    fake.respond(
        "crossref",
        "works",
        {"status": "ok", "message": {"items": [], "total-results": 0}},
        headers={"x-rate-limit-limit": "3", "x-rate-limit-interval": "1s"},
    )
    async with rt_for(fake) as rt:
        cr = rt.clients["crossref"]
        assert cr.pacer.rate == 5.0  # starts low
        assert cr.slots.sem._value == 1  # the public pool's concurrency
        await client.works_by_doi(rt.context("crossref"), ["10.5555/x"])
        assert cr.pacer.rate == 3.0  # lowered to what the pool announces
    fake.respond(
        "crossref",
        "works",
        {"status": "ok", "message": {"items": [], "total-results": 0}},
        headers={"x-rate-limit-limit": "10000", "x-rate-limit-interval": "1s"},
    )
    async with rt_for(fake, CROSSREF_EMAIL="me@example.org") as rt:
        cr = rt.clients["crossref"]
        assert cr.slots.sem._value == 3  # the polite pool's
        await client.works_by_doi(rt.context("crossref"), ["10.5555/y"])
        assert cr.pacer.rate == 50.0  # never past ten times the declared start


async def test_matcher_stages(fake):
    cr = crossref_routes.install(fake, works=[], corpus=False)
    near = json.loads(
        corpus_bytes("crossref/works_query_bibliographic/unstructured_ref_wrong_volume_nomatch_rows5.json")
    )
    cr.script(lambda q: "CERMINE" in q, near)
    for item in near["message"]["items"]:
        cr.add(item)
    refs = [
        ReferenceQuery(key="1", doi="10.1007/s10032-015-0249-8"),
        ReferenceQuery(
            key="2", text="P. Szostek, ... “CERMINE: ...,” IJDAR, vol. 14, no. 40, pp. 310–335, 2016."
        ),
        ReferenceQuery(key="3", title="Nothing like it"),
    ]
    async with rt_for(fake) as rt:
        ctx = rt.context("crossref")
        by_id = await provider.match(refs, "identifiers", ctx)
        searched = await provider.match(refs[1:], "search", ctx)
        assert await provider.match(refs, "citation", ctx) == {}
    assert [c.via for c in by_id["1"]] == ["doi"] and set(by_id) == {"1"}
    assert round(searched["2"][0].score or 0, 1) == 127.5 and len(searched["2"]) == 5
    bib = [
        r.params["query.bibliographic"]
        for r in fake.of("crossref", "works")
        if "query.bibliographic" in r.params
    ]
    assert len(bib) == 2 and all(
        r.params["rows"] == "5" for r in fake.of("crossref", "works") if "query.bibliographic" in r.params
    )


async def test_notices_from_both_fields_and_from_filter_updates(fake):
    target = {"DOI": "10.5555/target", "type": "journal-article", "title": ["Target"]}
    notice = {
        "DOI": "10.5555/notice",
        "type": "journal-article",
        "title": ["Retraction notice"],
        "update-to": [
            {
                "DOI": "10.5555/TARGET",
                "type": "retraction",
                "source": "publisher",
                "updated": {"date-parts": [[2021, 5, 1]]},
            }
        ],
    }
    crossref_routes.install(fake, works=[target, notice])
    async with rt_for(fake) as rt:
        got = await provider.notices(
            "doi", ["10.5555/target", WAKEFIELD, "10.5555/unknown"], rt.context("crossref")
        )
    assert [(n.type, n.doi, n.date) for n in got["10.5555/target"]] == [
        ("retraction", "10.5555/notice", "2021-05-01")
    ]
    assert "10.5555/unknown" not in got
    updates = [r for r in fake.of("crossref", "works") if r.params.get("filter", "").startswith("updates:")]
    assert len(updates) == 1 and updates[0].params["filter"].count("updates:") == 3
    if WAKEFIELD in got:  # the corpus record
        assert {(n.type, n.origin) for n in got[WAKEFIELD]} == {
            ("retraction", "retraction-watch"),
            ("correction", "retraction-watch"),
        }
    assert await provider.notices("pmid", ["1"], rt.context("crossref")) == {}


async def test_metadata_provider_for_dois_other_plugins_use(fake):
    crossref_routes.install(fake, works=[synthetic(1)], corpus=False)
    async with rt_for(fake) as rt:
        ctx = rt.context("crossref")
        found = await ctx.lookup_metadata("doi", ["10.5555/BATCH.1", "10.5555/none"])
        assert await ctx.lookup_metadata("pmid", ["1"]) == {}
    assert list(found) == ["10.5555/BATCH.1"] and found["10.5555/BATCH.1"].title == "Work 1"
    assert found["10.5555/BATCH.1"].source == "crossref"


async def test_a_failed_list_answer_in_200_is_refused(fake):
    def handler(req: Req):
        return json_response(
            {"status": "failed", "message-type": "validation-failure", "message": [{"message": "bad"}]}
        )

    fake.route("crossref", "works", handler)
    async with rt_for(fake, MEDLIT_MAX_RETRIES="0") as rt:
        with pytest.raises(MedlitError) as info:
            await client.works_by_doi(rt.context("crossref"), ["10.5555/x"])
    assert info.value.reason == "crossref_invalid_response" and "bad" in info.value.message


async def test_openurl_links_a_doi_pubmed_lacks_with_crossref_metadata(fake, make_runtime):
    """The OpenURL plugin reads DOIs through ctx.lookup_metadata: Crossref answers for them."""
    work = synthetic(7) | {
        "container-title": ["Proceedings of the Bench Workshop"],
        "author": [{"family": "Confer", "given": "Carl"}],
        "volume": "3",
        "page": "11-19",
        "ISSN": ["1234-5678"],
    }
    crossref_routes.install(fake, works=[work], corpus=False)
    async with make_runtime(OPENURL_RESOLVER="https://resolver.example.org/openurl") as rt:
        out = await rt.call("pubmed_institutional_link", {"dois": ["10.5555/batch.7"]})
    assert out.data is not None, out.text
    text = str(out.data)
    assert "Work+7" in text or "Work%207" in text or "Work 7" in text
    assert "Confer" in text and "1234-5678" in text
    assert len(fake.of("crossref", "works")) == 1
