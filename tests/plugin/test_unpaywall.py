"""The Unpaywall tier against the loopback fake: lookups, copies on (loopback) content hosts, the
SSRF guard, budgets. The tier is called directly with the plugin's own context."""

from __future__ import annotations

import asyncio
import json

import pytest
from aiohttp import web

from medlit.core.plugin import ArticleRef, ExtractedTextArticle
from medlit.plugins.unpaywall import tier
from medlit.testing import HostError

from support.corpus import corpus_bytes
from support.unpaywall_fakes import (
    CONTENT,
    EMAIL,
    ENV,
    article_pdf,
    fixture,
    location,
    make_pdf,
    page,
    publish,
    record,
    redirect,
    serve,
)

pytestmark = pytest.mark.anyio

DOI = "10.5555/tpi.2021.7"
OTHER_DOI = "10.9999/terns.2020.17"
TITLE = "Triose phosphate isomerase deficiency is caused by altered dimerization"


async def resolve(rt, *dois: str) -> dict:
    refs = [ArticleRef(key=d, doi=d, requested=(d,)) for d in dois]
    return await tier.resolve_unpaywall(refs, rt.context("unpaywall"), {})


def content_requests(fake) -> list[str]:
    return [r.path for r in fake.requests if r.service == CONTENT]


def other_pdf(fake, name: str) -> str:
    """A PDF of another article (it names DOI 10.9999/terns.2020.17), served at ``name``."""
    return serve(fake, name, article_pdf("Seasonal migration of Arctic terns", OTHER_DOI), "application/pdf")


# -- switching on ----------------------------------------------------------------------------------
async def test_unconfigured_without_email_and_off_by_switch(make_runtime):
    async with make_runtime() as rt:
        rec = rt.host.plugins["unpaywall"]
        assert rec.status == "unconfigured" and rec.waiting_on == "UNPAYWALL_EMAIL"
        assert "unpaywall" in [t.name for t, _ in rt.host.catalog.tiers]
    async with make_runtime(UNPAYWALL_EMAIL=EMAIL, UNPAYWALL_ENABLED="false") as rt:
        assert rt.host.plugins["unpaywall"].status == "disabled"


async def test_malformed_email_stops_start_up(make_runtime):

    with pytest.raises(HostError, match="UNPAYWALL_EMAIL"):
        make_runtime(UNPAYWALL_EMAIL="not-an-address")


# -- lookups ----------------------------------------------------------------------------------------
async def test_closed_404_and_422_are_no_oa_with_the_reason(fake, make_runtime):
    closed = json.loads(fixture("closed.json"))
    publish(fake, closed)
    fake.respond(
        "unpaywall", "v2/10.5555/does-not-exist", json.loads(fixture("not_found_404.json")), status=404
    )
    fake.respond("unpaywall", "v2/10.5555/bad", json.loads(fixture("malformed_422.json")), status=422)
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, closed["doi"], "10.5555/does-not-exist", "10.5555/bad")
    assert {k: v.outcome for k, v in out.items()} == dict.fromkeys(out, "no-oa")
    assert "is_oa=false" in out[closed["doi"]].detail
    assert (
        "HTTP 404" in out["10.5555/does-not-exist"].detail
        and "invalid doi" in out["10.5555/does-not-exist"].detail
    )
    assert "HTTP 422" in out["10.5555/bad"].detail
    assert not content_requests(fake)
    lookup = fake.of("unpaywall")[0]
    assert lookup.params["email"] == EMAIL and EMAIL in lookup.request.headers["User-Agent"]


async def test_unpaywall_failure_is_a_service_error(fake, make_runtime):
    fake.fault("503", "unpaywall", times=10)
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "service-error" and "Unpaywall lookup failed" in out[DOI].detail


async def test_one_lookup_per_doi_and_answers_cached(fake, make_runtime):
    publish(fake, json.loads(fixture("closed.json")) | {"doi": DOI})
    async with make_runtime(**ENV) as rt:
        first = await tier.resolve_unpaywall(
            [ArticleRef(key="a", doi=DOI), ArticleRef(key="b", doi=DOI.upper())], rt.context("unpaywall"), {}
        )
        await resolve(rt, DOI)
    assert set(first) == {"a", "b"} and first["a"].outcome == "no-oa"
    assert len(fake.of("unpaywall")) == 1


# -- copies -----------------------------------------------------------------------------------------
async def test_best_location_pdf_is_read(fake, make_runtime):
    pdf = serve(fake, "tpi.pdf", article_pdf(TITLE, DOI, pages=3), "application/pdf")
    publish(fake, record(DOI, TITLE, [location(pdf=pdf, version="publishedVersion", host_type="publisher")]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    hit = out[DOI]
    assert hit.outcome == "hit" and hit.detail.startswith(
        "PDF from 127.0.0.1 (publisher, publishedVersion, cc-by)"
    )
    art = hit.article
    assert isinstance(art, ExtractedTextArticle)
    assert (art.content_format, art.source_url, art.page_count) == ("pdf-text", pdf, 3)
    assert (art.doi, art.title, art.journal, art.year) == (DOI, TITLE, "Journal of Loopback Studies", 2021)
    assert (art.version, art.host_type, art.license) == ("publishedVersion", "publisher", "cc-by")
    assert "Methods. We expressed" in art.content and art.word_count == len(art.content.split())
    sent = fake.of(CONTENT, "tpi.pdf")[0].request.headers
    assert sent["User-Agent"].startswith("medlit-mcp/") and f"mailto:{EMAIL}" in sent["User-Agent"]


async def test_pdf_url_serving_html_falls_through_to_the_landing_page(fake, make_runtime):
    # The "PDF" is a paywall page for the right article: HTML, no full text, no PDF link.
    pdf = serve(fake, "paper.pdf", page("paywall.html", title=TITLE, doi=DOI), "application/pdf")
    landing = serve(
        fake,
        "landing",
        page("article_page.html", title=TITLE, doi=DOI, base=fake.url(CONTENT) + "/"),
        "text/html; charset=utf-8",
    )
    fake.route(CONTENT, "article.pdf", lambda req: web.Response(status=500))  # never needed
    publish(fake, record(DOI, TITLE, [location(pdf=pdf, landing=landing)]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    hit = out[DOI]
    assert hit.outcome == "hit" and hit.article.content_format == "html-markdown"
    assert hit.article.source_url == landing and "## Results" in hit.article.content
    assert content_requests(fake) == ["paper.pdf", "landing"]  # the full-text page needs no PDF


async def test_landing_page_that_links_its_pdf(fake, make_runtime):
    serve(fake, "files/tpi.pdf", article_pdf(TITLE, DOI), "application/octet-stream")
    landing = serve(
        fake,
        "article/7",
        page("landing_abstract.html", title=TITLE, doi=DOI, pdf="/content/files/tpi.pdf"),
        "text/html",
    )
    publish(fake, record(DOI, TITLE, [location(landing=landing, host_type="publisher")]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    hit = out[DOI]
    assert hit.outcome == "hit" and hit.article.content_format == "pdf-text"
    assert hit.article.source_url.endswith("/content/files/tpi.pdf")
    assert content_requests(fake) == ["article/7", "files/tpi.pdf"]


async def test_page_that_is_another_article_is_refused(fake, make_runtime):
    landing = serve(fake, "wrong", fixture("other_article.html"), "text/html")
    other_pdf(fake, "terns.pdf")
    publish(fake, record(DOI, TITLE, [location(landing=landing)]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "not-the-article"  # its own reason: the copy is another article
    assert "landing page at " in out[DOI].detail
    assert "page is not the article (it names DOI 10.9999/terns.2020.17)" in out[DOI].detail
    assert content_requests(fake) == ["wrong"]  # its PDF link is not followed


async def test_a_pdf_location_serving_another_articles_page_says_it_is_a_page(fake, make_runtime):
    wrong = serve(fake, "wrong.pdf", fixture("other_article.html"), "text/html")
    publish(fake, record(DOI, TITLE, [location(pdf=wrong)]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "not-the-article"
    assert "web page at " in out[DOI].detail and "(listed as a PDF)" in out[DOI].detail
    assert "PDF at" not in out[DOI].detail.replace("listed as a PDF", "")


async def test_pdf_naming_another_doi_is_not_the_article(fake, make_runtime):
    pdf = other_pdf(fake, "x.pdf")
    publish(fake, record(DOI, TITLE, [location(pdf=pdf)]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "not-the-article" and "the PDF is not the article" in out[DOI].detail


async def test_encrypted_pdf_then_next_location(fake, make_runtime):
    locked = serve(fake, "locked.pdf", make_pdf(["secret " * 50], user_password="pw"), "application/pdf")
    good = serve(fake, "good.pdf", article_pdf(TITLE, DOI), "application/pdf")
    publish(
        fake,
        record(
            DOI,
            TITLE,
            [
                location(pdf=locked, version="publishedVersion"),
                location(pdf=good, version="submittedVersion"),
            ],
        ),
    )
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "hit" and out[DOI].article.version == "submittedVersion"
    serve(fake, "good.pdf", b"%PDF-1.4 broken", "application/pdf")
    async with make_runtime(**ENV) as rt:  # a fresh runtime: no cached lookup
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "parse-failed"
    assert "needs a password" in out[DOI].detail and "could not be read" in out[DOI].detail


async def test_refresh_page_is_followed(fake, make_runtime):
    serve(fake, "real.pdf", article_pdf(TITLE, DOI), "application/pdf")
    landing = serve(
        fake, "handle", page("refresh.html", target="/content/real.pdf", title=TITLE, doi=DOI), "text/html"
    )
    publish(fake, record(DOI, TITLE, [location(landing=landing)]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "hit" and out[DOI].article.source_url.endswith("/content/real.pdf")


async def test_no_url_in_an_open_record_is_no_oa(fake, make_runtime):
    publish(fake, record(DOI, TITLE, []) | {"is_oa": True})
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "no-oa" and "lists no URL" in out[DOI].detail


# -- the guard ------------------------------------------------------------------------------------------
async def test_redirect_to_a_private_address_is_refused(fake, make_runtime):
    pdf = redirect(fake, "go.pdf", "http://10.0.0.7/internal.pdf")
    meta = redirect(fake, "meta.pdf", "http://169.254.169.254/latest/meta-data/")
    publish(fake, record(DOI, TITLE, [location(pdf=pdf), location(pdf=meta)]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "fetch-failed"
    assert "refused 10.0.0.7: a private address" in out[DOI].detail
    assert "a cloud metadata address" in out[DOI].detail


async def test_dns_name_resolving_to_loopback_is_refused_without_the_flag(fake, make_runtime):
    serve(fake, "a.pdf", article_pdf(TITLE, DOI), "application/pdf")
    publish(fake, record(DOI, TITLE, [location(pdf=f"http://localhost:{fake.port}/content/a.pdf")]))
    async with make_runtime(UNPAYWALL_EMAIL=EMAIL) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "fetch-failed"
    assert "localhost resolves to" in out[DOI].detail and "loopback" in out[DOI].detail
    assert not content_requests(fake)


async def test_oversized_body_is_refused(fake, make_runtime):
    big = make_pdf([TITLE + ". " + "word " * 400] * 3) + b"%" + b"0" * 1_100_000
    pdf = serve(fake, "big.pdf", big, "application/pdf")
    publish(fake, record(DOI, TITLE, [location(pdf=pdf)]))
    async with make_runtime(**ENV, UNPAYWALL_MAX_BYTES="1000000") as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "fetch-failed" and "1,000,000-byte cap" in out[DOI].detail


async def test_one_slow_host_costs_only_its_own_article(fake, make_runtime, monkeypatch):
    monkeypatch.setattr(tier, "PER_FETCH_SECONDS", 0.5)

    async def slow(req):
        await asyncio.sleep(2)
        return web.Response(body=b"%PDF-late", content_type="application/pdf")

    fake.route(CONTENT, "slow.pdf", slow)
    slow_doi, fast_doi = "10.5555/slow.1", "10.5555/fast.1"
    publish(fake, record(slow_doi, "A slow host", [location(pdf=f"{fake.url(CONTENT)}/slow.pdf")]))
    fast = serve(fake, "fast.pdf", article_pdf(TITLE, fast_doi), "application/pdf")
    publish(fake, record(fast_doi, TITLE, [location(pdf=fast)]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, slow_doi, fast_doi)
    assert out[fast_doi].outcome == "hit"
    assert out[slow_doi].outcome == "fetch-failed" and "did not answer in time" in out[slow_doi].detail


async def test_article_budget_stops_the_attempts(fake, make_runtime, monkeypatch):
    monkeypatch.setattr(tier, "MAX_FETCHES", 2)
    locs = [location(pdf=serve(fake, f"m{i}.pdf", b"<html>gone</html>", "text/html")) for i in range(4)]
    publish(fake, record(DOI, TITLE, locs))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "parse-failed" and "stopped after 2 fetches" in out[DOI].detail
    assert len(content_requests(fake)) == 2


# -- the corpus ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "unpaywall_v2_10_1016_j_envint_2020_105730.json",
        "unpaywall_v2_10_1038_nature12373.json",
        "unpaywall_v2_10_1103_physreve_88_012814.json",
    ],
)
async def test_corpus_records_lead_to_their_best_copy(fake, make_runtime, name):
    """A real record, its URLs moved to the fake: the best location's copy is fetched first."""
    data = json.loads(corpus_bytes(f"unpaywall/v2/{name}"))
    moved: dict[str, str] = {}

    def move(url: str | None) -> str | None:
        if url and url not in moved:
            moved[url] = f"{fake.url(CONTENT)}/moved/{len(moved)}"
        return moved.get(url) if url else None

    for loc in [data["best_oa_location"], *data["oa_locations"]]:
        for key in ("url", "url_for_pdf", "url_for_landing_page"):
            loc[key] = move(loc[key])
    best = data["best_oa_location"]
    first = best["url_for_pdf"] or best["url_for_landing_page"]
    serve(fake, first.split(f"/{CONTENT}/", 1)[1], article_pdf(data["title"], data["doi"]), "application/pdf")
    publish(fake, data)
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, data["doi"])
    hit = out[data["doi"]]
    assert hit.outcome == "hit" and hit.article.source_url == first
    assert (hit.article.version, hit.article.host_type, hit.article.license) == (
        best["version"],
        best["host_type"],
        best["license"],
    )
    assert content_requests(fake) == [first.split(f"/{CONTENT}/", 1)[1]]


async def test_corpus_plos_landing_page_is_the_full_text(fake, make_runtime):
    doi = "10.1371/journal.pone.0000030"
    title = "Triose Phosphate Isomerase Deficiency Is Caused by Altered Dimerization–Not Catalytic Inactivity–of the Mutant Enzymes"
    landing = serve(fake, "plos", corpus_bytes("oa_html/plosone_0000030_landing_2013.html"), "text/html")
    publish(
        fake,
        record(doi, title, [location(landing=landing, host_type="publisher", version="publishedVersion")]),
    )
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, doi)
    art = out[doi].article
    assert out[doi].outcome == "hit" and art.content_format == "html-markdown"
    assert "### Methods" in art.content and art.word_count > 5000


async def test_corpus_pdf_served_as_octet_stream(fake, make_runtime):
    doi = "10.7717/peerj.1120"
    title = "Suffering and mental health among older people living in nursing homes—a mixed-methods study"
    pdf = serve(fake, "peerj", corpus_bytes("oa_pdf/peerj_1120.pdf"), "application/octet-stream")
    publish(fake, record(doi, title, [location(pdf=pdf, host_type="publisher", version="publishedVersion")]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, doi)
    assert out[doi].outcome == "hit" and out[doi].article.page_count == 18


async def test_corpus_password_protected_pdf_is_parse_failed(fake, make_runtime):
    pdf = serve(fake, "pw.pdf", corpus_bytes("oa_pdf/edgecase_password_protected.pdf"), "application/pdf")
    publish(fake, record(DOI, TITLE, [location(pdf=pdf)]))
    async with make_runtime(**ENV) as rt:
        out = await resolve(rt, DOI)
    assert out[DOI].outcome == "parse-failed" and "needs a password" in out[DOI].detail
