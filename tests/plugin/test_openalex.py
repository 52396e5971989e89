"""The OpenAlex plugin against the fake: works by PMID and DOI (answered from the corpus's real
work records when present, else from our fixture), 404s, the polite-pool identification, OR
filters of at most 100 ids, the related provider over a real ``cited_by:`` list, caching, and
OpenAlex's error bodies."""

from __future__ import annotations

import json
from typing import Any

import pytest

import medlit.plugins.openalex as openalex_plugin
from medlit.core.plugin import RelatedQuery
from medlit.plugins.openalex import client
from medlit.plugins.openalex.related import related
from medlit.testing import make_runtime

from support.corpus import corpus_bytes, corpus_root
from support.fake_upstream import FIXTURES, Req, json_response

pytestmark = pytest.mark.anyio

PMID = "29456894"
DOI = "10.7717/peerj.4375"
W = "W2741809807"


def work_body() -> Any:
    """The real record of W2741809807 when the corpus is present, else our trimmed fixture."""
    root = corpus_root()
    path = root / "openalex/works/W2741809807_state_of_oa.json" if root else None
    if path is not None and path.exists():
        return json.loads(path.read_bytes())
    return json.loads((FIXTURES / "openalex" / "work_pmid_29456894.json").read_text())


def rt_for(fake, **env: str):
    return make_runtime(openalex_plugin, env=env, fake=fake)


async def test_work_by_pmid_and_by_doi(fake):
    body = work_body()
    fake.respond("openalex", f"works/pmid:{PMID}", body)
    fake.respond("openalex", f"works/doi:{DOI}", body)
    async with rt_for(fake, OPENALEX_EMAIL="me@example.org") as rt:
        ctx = rt.context("openalex")
        by_pmid = await client.work_by_pmid(ctx, PMID)
        by_doi = await client.work_by_doi(ctx, DOI)
        again = await client.work_by_pmid(ctx, PMID)
    assert by_pmid == by_doi == again
    assert by_pmid.id == W and by_pmid.pmid == PMID and by_pmid.doi == DOI
    assert by_pmid.title and by_pmid.title.startswith("The state of OA")
    assert by_pmid.related_works and all(w.startswith("W") for w in by_pmid.related_works)
    reqs = fake.of("openalex")
    assert len(reqs) == 2  # the repeated lookup came from the cache
    for req in reqs:
        assert req.params["mailto"] == "me@example.org"
        assert (
            "related_works" in req.params["select"] and "abstract_inverted_index" not in req.params["select"]
        )


async def test_unknown_work_is_none_not_an_error(fake):
    fake.respond("openalex", "works/pmid:1", {"error": "Not Found", "message": "not found"}, status=404)
    async with rt_for(fake) as rt:
        assert await client.work_by_pmid(rt.context("openalex"), "1") is None


async def test_doi_with_reserved_characters_is_sent_encoded(fake):
    doi = "10.1002/(sici)1097-4636(199607)31:3<371::aid-jbm11>3.0.co;2-c"
    seen: list[str] = []

    def handler(req: Req):
        seen.append(req.path)
        return json_response(work_body())

    fake.route("openalex", f"works/doi:{doi}", handler)
    async with rt_for(fake) as rt:
        work = await client.work_by_doi(rt.context("openalex"), doi)
    assert work is not None and seen == [f"works/doi:{doi}"]


@pytest.mark.parametrize(
    ("env", "mailto"),
    [
        ({"OPENALEX_EMAIL": "oa@example.org", "NCBI_EMAIL": "ncbi@example.org"}, "oa@example.org"),
        ({"NCBI_EMAIL": "ncbi@example.org"}, "ncbi@example.org"),
        ({}, None),
    ],
)
async def test_mailto_from_openalex_email_else_ncbi_email(fake, env, mailto):
    fake.respond("openalex", f"works/pmid:{PMID}", work_body())
    async with rt_for(fake, **env) as rt:
        await client.work_by_pmid(rt.context("openalex"), PMID)
    (req,) = fake.of("openalex")
    assert req.params.get("mailto") == mailto
    assert "api_key" not in req.params


async def test_api_key_is_sent_and_never_shown(fake):
    fake.respond("openalex", f"works/pmid:{PMID}", {"error": "Invalid or missing API key"}, status=401)
    async with rt_for(fake, OPENALEX_API_KEY="sekrit-key-123") as rt:
        with pytest.raises(Exception) as info:
            await client.work_by_pmid(rt.context("openalex"), PMID)
    (req,) = fake.of("openalex")
    assert req.params["api_key"] == "sekrit-key-123"
    assert "sekrit-key-123" not in str(info.value)
    assert getattr(info.value, "reason", "") == "openalex_bad_request"


async def test_or_filters_hold_at_most_100_ids(fake):
    ids = [f"W1{n:09d}" for n in range(250)]

    def handler(req: Req):
        asked = req.params["filter"].removeprefix("openalex:").split("|")
        rows = [
            {"id": f"https://openalex.org/{w}", "ids": {"pmid": f"https://pubmed.ncbi.nlm.nih.gov/{n + 1}"}}
            for n, w in enumerate(asked)
            if w != "W1000000007"  # merged away: OpenAlex no longer returns it
        ]
        return json_response({"meta": {"count": len(rows)}, "results": rows})

    fake.route("openalex", "works", handler)
    async with rt_for(fake) as rt:
        found = await client.works_by_ids(rt.context("openalex"), [*ids, ids[0]])
    reqs = fake.of("openalex", "works")
    assert [len(r.params["filter"].removeprefix("openalex:").split("|")) for r in reqs] == [100, 100, 50]
    assert all(int(r.params["per_page"]) >= 50 for r in reqs)
    assert len(found) == 249 and "W1000000007" not in found


async def test_references_from_a_real_cited_by_list(fake):
    """The corpus's real ``filter=cited_by:`` answer (38 works, most outside PubMed)."""
    page = json.loads(corpus_bytes("openalex/works_list/works_filter_cited_by_large.json"))
    with_pmid = [w for w in page["results"] if (w.get("ids") or {}).get("pmid")]
    source = {**work_body(), "referenced_works_count": page["meta"]["count"]}
    fake.respond("openalex", f"works/pmid:{PMID}", source)
    fake.respond("openalex", "works", page)
    async with rt_for(fake) as rt:
        result = await related(RelatedQuery(PMID, "references", 0, 100), rt.context("openalex"))
    assert result.total == 38
    assert len(result.pmids) == len(with_pmid) and result.dropped == 38 - len(with_pmid)
    assert all(p.isdigit() and not p.startswith("0") for p in result.pmids)
    (req,) = fake.of("openalex", "works")
    assert req.params["filter"] == f"cited_by:{W}"


async def test_a_source_without_citations_costs_no_list_request(fake):
    fake.respond("openalex", f"works/pmid:{PMID}", {**work_body(), "cited_by_count": 0})
    async with rt_for(fake) as rt:
        result = await related(RelatedQuery(PMID, "cited_by", 0, 20), rt.context("openalex"))
    assert result.total == 0 and result.pmids == []
    assert fake.of("openalex", "works") == []


async def test_openalex_400_error_body_is_named(fake):
    fake.respond("openalex", f"works/pmid:{PMID}", work_body())
    fake.respond(
        "openalex",
        "works",
        json.loads(corpus_bytes("openalex/errors/works_400_invalid_filter_field.json")),
        400,
    )
    async with rt_for(fake) as rt:
        with pytest.raises(Exception) as info:
            await related(RelatedQuery(PMID, "cited_by", 0, 20), rt.context("openalex"))
    err = info.value
    assert err.reason == "openalex_bad_request" and err.retryable is False
    assert "Invalid query parameters" in err.message


async def test_malformed_json_is_an_invalid_response(fake):
    fake.respond("openalex", f"works/pmid:{PMID}", b"{not json", content_type="application/json")
    async with rt_for(fake) as rt:
        with pytest.raises(Exception) as info:
            await client.work_by_pmid(rt.context("openalex"), PMID)
    assert info.value.reason == "openalex_invalid_response"


async def test_plugin_is_listed_with_its_service_and_switch(fake):
    from medlit.testing import make_host

    off = make_host(openalex_plugin, env={"OPENALEX_ENABLED": "false"}, fake=fake).plugins["openalex"]
    assert off.status == "disabled" and off.waiting_on == "OPENALEX_ENABLED" and off.contributions() == {}
    rec = make_host(openalex_plugin, fake=fake).plugins["openalex"]
    assert [s.name for s in rec.services] == ["openalex"]
    assert [(p.name, p.order, sorted(p.kinds)) for p in rec.related] == [
        ("openalex", 30, ["cited_by", "references", "similar"])
    ]


async def test_is_retracted_as_notices_in_or_filters_of_100(fake):
    from medlit.plugins.openalex.notices import notices

    dois = [f"10.5555/oa.{n}" for n in range(150)]

    def handler(req: Req):
        asked = req.params["filter"].removeprefix("doi:").split("|")
        rows = [
            {"doi": f"https://doi.org/{d}", "is_retracted": d.endswith(".7")}
            for d in asked
            if d != "10.5555/oa.9"
        ]
        return json_response({"meta": {"count": len(rows)}, "results": rows})

    fake.route("openalex", "works", handler)
    async with rt_for(fake) as rt:
        got = await notices("doi", dois, rt.context("openalex"))
        assert await notices("pmid", ["1"], rt.context("openalex")) == {}
    assert [(n.type, n.label) for n in got["10.5555/oa.7"]] == [("retraction", "is_retracted")]
    assert got["10.5555/oa.8"] == [] and "10.5555/oa.9" not in got and len(got) == 149
    reqs = fake.of("openalex", "works")
    assert sorted(len(r.params["filter"].split("|")) for r in reqs) == [50, 100]
    assert all(r.params["select"] == "doi,is_retracted" for r in reqs)
