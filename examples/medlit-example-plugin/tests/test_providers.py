"""The tier and the metadata provider, called as the chain and ctx.lookup_metadata call them."""

from __future__ import annotations

import medlit_example
import pytest
from medlit_example.providers import METADATA, TIER
from registry_fake import SERVICE, serve_registry

from medlit.core.plugin import ArticleRef, ExtractedTextArticle

pytestmark = pytest.mark.anyio


async def test_tier_reports_every_article(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    refs = [
        ArticleRef("10.5555/alpha.1", doi="10.5555/alpha.1"),
        ArticleRef("10.5555/closed.3", doi="10.5555/closed.3"),
        ArticleRef("10.5555/nobody", doi="10.5555/nobody"),
    ]
    async with medlit_runtime(medlit_example) as rt:
        results = await TIER.resolve(refs, rt.context("example"), {})
    hit = results["10.5555/alpha.1"]
    assert hit.outcome == "hit" and isinstance(hit.article, ExtractedTextArticle)
    assert hit.article.content_format == "html-markdown" and "Alpha rhythms" in hit.article.content
    assert hit.article.source_url == "https://works.example.org/10.5555/alpha.1/full"
    assert hit.article.license == "cc-by" and hit.article.word_count == 8
    assert results["10.5555/closed.3"].outcome == "no-oa"
    assert results["10.5555/nobody"].outcome == "miss"
    assert len(fake_upstream.of(SERVICE, "text")) == 3


async def test_a_failing_article_is_that_articles_outcome_only(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    fake_upstream.fault("400", SERVICE, "text", times=1)
    refs = [ArticleRef("10.5555/alpha.1", doi="10.5555/alpha.1")]
    async with medlit_runtime(medlit_example) as rt:
        first = await TIER.resolve(refs, rt.context("example"), {})
        second = await TIER.resolve(refs, rt.context("example"), {})
    assert first["10.5555/alpha.1"].outcome == "service-error"
    assert "Example Works registry" in first["10.5555/alpha.1"].detail
    assert second["10.5555/alpha.1"].outcome == "hit"


async def test_metadata_provider_answers_in_one_request(fake_upstream, medlit_runtime):
    serve_registry(fake_upstream)
    async with medlit_runtime(medlit_example) as rt:
        ctx = rt.context("example")
        records = await METADATA.lookup("doi", ["10.5555/alpha.1", "10.5555/nobody"], ctx)
        via_context = await ctx.lookup_metadata("doi", ["10.5555/alpha.1"])
        pmids = await METADATA.lookup("pmid", ["123"], ctx)
    alpha = records["10.5555/alpha.1"]
    assert list(records) == ["10.5555/alpha.1"] and pmids == {}
    assert (alpha.container_title, alpha.year, alpha.first_page, alpha.last_page) == (
        "Journal of Examples",
        2013,
        "10",
        "20",
    )
    assert (alpha.first_author_family, alpha.first_author_given) == ("Smith", "JA")
    assert via_context["10.5555/alpha.1"].source == "example_works"  # stamped by the host
    assert len(fake_upstream.of(SERVICE, "works")) == 2
