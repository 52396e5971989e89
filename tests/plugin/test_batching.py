"""Concurrent calls share requests: record requests for different ids that wait at once for the
pacer (or a slot) ride in one batched request, each caller handed exactly its own records.

Counted at the fake: 100 concurrent single-PMID tool calls send at most a few efetch requests
(one efetch takes 200 ids), every id is asked once, a missing id is missing for its caller only, a
5xx is retried once for the whole batch, a caller cancelled mid-wait leaves the others their
answers; the same for the ID converter, ESummary JSON and iCite. The persistent cache on or off.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from medlit.core.plugin import MedlitError

from support.fake_upstream import Req, json_response, xml_response

pytestmark = pytest.mark.anyio

PMIDS = [str(31000000 + i) for i in range(100)]
MISSING = PMIDS[37]  # PubMed has no record for it


def _article(pmid: str) -> str:
    return (
        f"<PubmedArticle><MedlineCitation><PMID>{pmid}</PMID><Article><Journal><JournalIssue>"
        "<PubDate><Year>2021</Year></PubDate></JournalIssue><Title>Journal of Batches</Title></Journal>"
        f"<ArticleTitle>Record {pmid}.</ArticleTitle></Article></MedlineCitation>"
        f"<PubmedData><ArticleIdList><ArticleId IdType='pubmed'>{pmid}</ArticleId></ArticleIdList>"
        "</PubmedData></PubmedArticle>"
    )


def efetch(req: Req):
    found = [i for i in req.ids() if i != MISSING]
    return xml_response(
        f"<PubmedArticleSet>{''.join(_article(i) for i in reversed(found))}</PubmedArticleSet>"
    )


def idconv(req: Req):
    ids = req.params.get("ids", "").split(",")
    records = [
        {"pmid": i, "requested-id": i, "pmcid": f"PMC{int(i) - 30000000}"}
        if i != MISSING
        else {"requested-id": i, "status": "error", "errmsg": "Identifier not found in PMC"}
        for i in ids
    ]
    return json_response({"status": "ok", "records": list(reversed(records))})


def esummary(req: Req):
    ids = [i for i in req.ids() if i != MISSING]
    result: dict = {"uids": ids}
    for i in ids:
        result[i] = {"uid": i, "pubdate": "2021", "source": "J Batch", "title": f"Record {i}."}
    return json_response({"header": {"type": "esummary", "version": "0.3"}, "result": result})


def icite(req: Req):
    ids = [i for i in req.params.get("pmids", "").split(",") if i and i != MISSING]
    return json_response({"meta": {}, "data": [{"pmid": int(i), "citation_count": int(i[-2:])} for i in ids]})


def install(fake) -> None:
    fake.route("ncbi", "efetch.fcgi", efetch)
    fake.route("idconv", "", idconv)
    fake.route("ncbi", "esummary.fcgi", esummary)
    fake.route("icite", "pubs", icite)


def asked(reqs: list[Req], param: str) -> list[str]:
    return [i for r in reqs for i in r.params.get(param, "").split(",") if i]


async def _fetch_all(rt, pmids=PMIDS):
    return await asyncio.gather(*(rt.call("pubmed_fetch_articles", {"pmids": [p]}) for p in pmids))


@pytest.mark.parametrize("cache", ["off", "sqlite"])
async def test_a_hundred_single_pmid_fetches_share_a_few_requests(make_runtime, fake, tmp_path, cache):
    install(fake)
    env = {"MEDLIT_CACHE": "off" if cache == "off" else f"sqlite:///{tmp_path / 'c.sqlite3'}"}
    async with make_runtime(**env) as rt:
        busy = []
        if cache != "off":
            # Callers reach the client one cache lookup after another, over longer than the test
            # pace (40/s) leaves between two requests: every slot is held meanwhile (as a burst at
            # NCBI's own 3/s would), so they all wait, together.
            fake.fault("slow", "ncbi", "einfo.fcgi", times=3, delay=1.5)
            ncbi = rt.clients["ncbi"]
            busy = [asyncio.create_task(ncbi.get("einfo.fcgi", {"db": f"db{n}"})) for n in range(3)]
            await asyncio.sleep(0.05)
        outs = await _fetch_all(rt)
        await asyncio.gather(*busy, return_exceptions=True)
        sent = fake.of("ncbi", "efetch.fcgi")
        assert 1 <= len(sent) <= 3, [len(r.ids()) for r in sent]
        assert sorted(asked(sent, "id")) == sorted(PMIDS)  # every id asked once
        for pmid, out in zip(PMIDS, outs, strict=True):
            assert not out.is_error, out.text
            if pmid == MISSING:
                assert out.data["articles"] == [] and out.data["unavailablePmids"] == [MISSING]
            else:
                assert [a["pmid"] for a in out.data["articles"]] == [pmid]
                assert out.data["articles"][0]["title"] == f"Record {pmid}."
                assert not out.data.get("unavailablePmids")
        assert rt.clients["ncbi"].batching.joined >= 90


async def test_callers_get_their_own_records_in_their_own_order(rt, fake):
    install(fake)
    asks = [PMIDS[0:3], PMIDS[5:1:-1], [PMIDS[9], MISSING, PMIDS[2]], [PMIDS[2]]]
    outs = await asyncio.gather(*(rt.call("pubmed_fetch_articles", {"pmids": a}) for a in asks))
    assert len(fake.of("ncbi", "efetch.fcgi")) <= 2
    for ask, out in zip(asks, outs, strict=True):
        assert [a["pmid"] for a in out.data["articles"]] == [p for p in ask if p != MISSING]
        assert out.data.get("unavailablePmids", []) == ([MISSING] if MISSING in ask else [])


async def test_a_server_error_is_retried_once_for_the_whole_batch(rt, fake):
    install(fake)
    fake.fault("503", "ncbi", "efetch.fcgi", times=1)
    outs = await _fetch_all(rt, PMIDS[:50])
    assert all(not o.is_error for o in outs), [o.text for o in outs if o.is_error][:1]
    sent = fake.of("ncbi", "efetch.fcgi")
    assert len(sent) <= 4
    assert sent[0].ids() == sent[1].ids()  # the failed batch, asked again as it was
    assert sorted(asked(sent[1:], "id")) == sorted(PMIDS[:50])


async def test_a_garbled_shared_answer_is_asked_again_for_everyone(rt, fake):
    install(fake)
    fake.fault("truncated", "ncbi", "efetch.fcgi", times=1, body=b"<PubmedArticleSet><PubmedArticle>")
    outs = await _fetch_all(rt, PMIDS[:20])
    assert all(not o.is_error and len(o.data["articles"]) == 1 for o in outs)


async def test_an_error_of_the_shared_request_reaches_every_caller(rt, fake):
    install(fake)
    fake.fault("503", "ncbi", "efetch.fcgi", times=99)
    outs = await _fetch_all(rt, PMIDS[:10])
    assert all(o.is_error and "server error" in o.text.lower() for o in outs)
    assert len(fake.of("ncbi", "efetch.fcgi")) <= 4  # one batch and its retries, not ten


async def test_a_caller_cancelled_mid_wait_leaves_the_others_their_answers(rt, fake):
    install(fake)
    ncbi = rt.clients["ncbi"]
    fake.fault("slow", "ncbi", "einfo.fcgi", times=3, delay=0.3)
    busy = [asyncio.create_task(ncbi.get("einfo.fcgi", {"db": f"db{n}"})) for n in range(3)]
    await asyncio.sleep(0.05)  # every concurrency slot is taken: the fetches below wait together
    waiting = [
        asyncio.create_task(ncbi.get("efetch.fcgi", {"db": "pubmed", "id": p, "retmode": "xml"}))
        for p in PMIDS[:5]
    ]
    await asyncio.sleep(0.05)
    waiting[0].cancel()
    waiting[2].cancel()
    await asyncio.gather(*busy, return_exceptions=True)  # (unknown databases: answers unread)
    for n, task in enumerate(waiting):
        if n in (0, 2):
            with pytest.raises(asyncio.CancelledError):
                await task
        else:
            body = (await task).body
            assert body.count(b"<PubmedArticle>") == 1 and PMIDS[n].encode() in body
    (sent,) = fake.of("ncbi", "efetch.fcgi")
    assert sorted(sent.ids()) == sorted([PMIDS[1], PMIDS[3], PMIDS[4]])  # the cancelled ones left


async def test_every_caller_cancelled_cancels_the_batch(rt, fake):
    install(fake)
    ncbi = rt.clients["ncbi"]
    fake.fault("slow", "ncbi", "einfo.fcgi", times=3, delay=0.2)
    busy = [asyncio.create_task(ncbi.get("einfo.fcgi", {"db": f"db{n}"})) for n in range(3)]
    await asyncio.sleep(0.05)
    waiting = [
        asyncio.create_task(ncbi.get("efetch.fcgi", {"db": "pubmed", "id": p, "retmode": "xml"}))
        for p in PMIDS[:3]
    ]
    await asyncio.sleep(0.05)
    for task in waiting:
        task.cancel()
    await asyncio.gather(*busy, return_exceptions=True)  # (unknown databases: answers unread)
    await asyncio.sleep(0.1)
    assert fake.of("ncbi", "efetch.fcgi") == [] and not ncbi.batching.pending


async def test_a_caller_whose_deadline_passes_leaves_without_breaking_the_batch(rt, fake):
    install(fake)
    ncbi = rt.clients["ncbi"]
    fake.fault("slow", "ncbi", "efetch.fcgi", times=1, delay=0.4)
    params = {"db": "pubmed", "retmode": "xml"}
    soon = time.monotonic() + 0.15
    short = asyncio.create_task(ncbi.get("efetch.fcgi", {**params, "id": PMIDS[0]}, deadline=soon))
    longer = asyncio.create_task(ncbi.get("efetch.fcgi", {**params, "id": PMIDS[1]}))
    with pytest.raises(MedlitError) as info:
        await short
    assert info.value.reason == "ncbi_deadline_exceeded"
    body = (await longer).body  # the shared request went on under the latest deadline
    assert PMIDS[1].encode() in body and PMIDS[0].encode() not in body
    (sent,) = fake.of("ncbi", "efetch.fcgi")
    assert sorted(sent.ids()) == sorted(PMIDS[:2])


async def test_a_request_refused_as_a_whole_is_asked_again_per_caller(rt, fake):
    install(fake)
    fake.fault("400", "ncbi", "efetch.fcgi", times=1)
    outs = await _fetch_all(rt, PMIDS[:5])
    assert all(not o.is_error for o in outs)
    sent = fake.of("ncbi", "efetch.fcgi")
    assert len(sent[0].ids()) > 1 and all(len(r.ids()) == 1 for r in sent[1:])


async def test_a_hundred_single_conversions_share_a_few_requests(rt, fake):
    install(fake)
    outs = await asyncio.gather(
        *(rt.call("pubmed_convert_ids", {"ids": [p], "idType": "pmid"}) for p in PMIDS)
    )
    sent = fake.of("idconv", "")
    assert 1 <= len(sent) <= 3 and sorted(asked(sent, "ids")) == sorted(PMIDS)
    for pmid, out in zip(PMIDS, outs, strict=True):
        assert not out.is_error, out.text
        (rec,) = out.data["records"]
        assert rec["requestedId"] == pmid
        assert rec["pmcid"] == (None if pmid == MISSING else f"PMC{int(pmid) - 30000000}"), rec


async def test_a_hundred_single_summaries_share_a_few_requests(rt, fake):
    install(fake)
    outs = await asyncio.gather(*(rt.call("eutils_esummary", {"db": "pubmed", "uids": [p]}) for p in PMIDS))
    sent = fake.of("ncbi", "esummary.fcgi")
    assert 1 <= len(sent) <= 3 and sorted(asked(sent, "id")) == sorted(PMIDS)
    for pmid, out in zip(PMIDS, outs, strict=True):
        assert not out.is_error, out.text
        if pmid == MISSING:
            assert out.data.get("records", []) == []
        else:
            assert [r["uid"] for r in out.data["records"]] == [pmid]


async def test_a_hundred_single_metric_lookups_share_a_few_requests(rt, fake):
    install(fake)
    outs = await asyncio.gather(*(rt.call("pubmed_fetch_citation_metrics", {"pmids": [p]}) for p in PMIDS))
    sent = fake.of("icite", "pubs")
    assert 1 <= len(sent) <= 3 and sorted(asked(sent, "pmids")) == sorted(PMIDS)
    assert all(r.method == "GET" for r in sent)  # iCite is GET only: 100 ids stay in the URL
    for pmid, out in zip(PMIDS, outs, strict=True):
        assert not out.is_error, out.text
        if pmid == MISSING:
            assert out.data["records"] == [] and out.data["unavailablePmids"] == [MISSING]
        else:
            assert [r["pmid"] for r in out.data["records"]] == [pmid]
            assert out.data["records"][0]["citationCount"] == int(pmid[-2:])


async def test_an_answer_with_no_records_reaches_every_caller_as_it_came(rt, fake):
    install(fake)
    ncbi = rt.clients["ncbi"]
    fake.fault("slow", "ncbi", "einfo.fcgi", times=3, delay=0.2)
    busy = [asyncio.create_task(ncbi.get("einfo.fcgi", {"db": f"db{n}"})) for n in range(3)]
    await asyncio.sleep(0.05)
    fake.respond("ncbi", "efetch.fcgi", "<?xml version='1.0'?><PubmedArticleSet></PubmedArticleSet>")
    outs = await asyncio.gather(*(rt.call("pubmed_fetch_articles", {"pmids": [p]}) for p in PMIDS[:10]))
    await asyncio.gather(*busy, return_exceptions=True)
    assert len(fake.of("ncbi", "efetch.fcgi")) == 1  # unknown ids: no request per caller
    for pmid, out in zip(PMIDS[:10], outs, strict=True):
        assert not out.is_error and out.data["unavailablePmids"] == [pmid]


async def test_an_error_document_of_a_merged_request_is_asked_again_per_caller(rt, fake):
    install(fake)
    ncbi = rt.clients["ncbi"]
    fake.fault("slow", "ncbi", "einfo.fcgi", times=3, delay=0.2)
    busy = [asyncio.create_task(ncbi.get("einfo.fcgi", {"db": f"db{n}"})) for n in range(3)]
    await asyncio.sleep(0.05)
    fake.fault("json_error_200", "idconv", "", times=1, key="status", message="error")
    outs = await asyncio.gather(
        *(rt.call("pubmed_convert_ids", {"ids": [p], "idType": "pmid"}) for p in PMIDS[:4])
    )
    await asyncio.gather(*busy, return_exceptions=True)
    sent = fake.of("idconv", "")
    assert (
        len(sent[0].params["ids"].split(",")) == 4 and sorted(r.params["ids"] for r in sent[1:]) == PMIDS[:4]
    )
    assert all(not o.is_error and o.data["records"][0]["pmcid"] for o in outs)


async def test_single_pmid_annotation_calls_share_a_pubtator_export(rt, fake):
    from support.pubtator_routes import install as install_pubtator

    install_pubtator(fake, unknown={PMIDS[3]})
    outs = await asyncio.gather(
        *(rt.call("pubtator_annotations", {"pmids": [p], "mentionsPerEntity": 0}) for p in PMIDS[:30])
    )
    sent = fake.of("pubtator", "publications/export/biocjson")
    assert 1 <= len(sent) <= 3 and sorted(asked(sent, "pmids")) == sorted(PMIDS[:30])
    for pmid, out in zip(PMIDS[:30], outs, strict=True):
        assert not out.is_error, out.text
        if pmid == PMIDS[3]:
            assert out.data["notFound"] == [pmid] and out.data["documents"] == []
        else:
            assert [d["pmid"] for d in out.data["documents"]] == [pmid]
