"""The Unpaywall full-text tier: open-access copies on publisher and repository hosts.

For each article with a DOI: one Unpaywall lookup (``no-oa`` when it knows no open copy), then
the copies in order (:mod:`.locations`) until one yields the article's text, within a time and
byte budget per article:

- a body is a PDF when its bytes say so (``%PDF-``), a web page when it is HTML; what a URL
  or its declared type promises does not count (a PDF link serving a paywall page is a page);
- a PDF is read with pypdf; its metadata must not name another DOI (else ``not-the-article``);
- a page must be the article asked for (DOI or title match): one naming another DOI is
  ``not-the-article``, one naming neither ``parse-failed``; a note labels a copy by what was
  served ("web page at host (listed as a PDF)"); a page that carries the article's body is the hit (Markdown), otherwise
  its ``citation_pdf_url`` (or refresh target) is followed.

Articles run concurrently (a few at a time), each under its own deadline, and the tier stops
before the tool call's deadline with what it has: one slow host costs its own article only.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Sequence
from typing import Literal
from urllib.parse import urlsplit

from medlit.core.plugin import (
    ArticleRef,
    ExtractedTextArticle,
    MedlitError,
    TierOptions,
    TierResult,
    ToolContext,
    WebResponse,
    identifiers,
    wire,
)

from . import TIMEOUT, service
from .extract_html import decode, looks_full_text, looks_html, read_meta, to_markdown
from .extract_pdf import Unextractable, extract_pdf
from .identity import doi_in_text, title_in_text, titles_match
from .locations import Candidate, candidates, url_key
from .lookup import NoRecord, OaRecord, lookup

MARGIN = 1.5  # seconds left to the chain to report when the call's deadline is near
PER_ARTICLE_SECONDS = 25.0
PER_FETCH_SECONDS = 15.0
MAX_FETCHES = 6  # URLs fetched per article (redirect hops not counted)
ARTICLE_CONCURRENCY = 4
HTML_MAX_BYTES = 8_000_000  # larger pages are not handed to the HTML extractor
MIN_FETCH_BYTES = 65_536  # below this much left of the byte budget, stop
DETAIL_CHARS = 700
ACCEPT_PDF = "application/pdf, text/html;q=0.8, application/xhtml+xml;q=0.8, */*;q=0.5"
ACCEPT_PAGE = "text/html, application/xhtml+xml, application/pdf;q=0.9, */*;q=0.5"

BodyKind = Literal["pdf", "html", "other"]


def classify(body: bytes, content_type: str) -> BodyKind:
    """What a body is, by its bytes first: ``%PDF-`` near the start is a PDF whatever the
    headers say; HTML by declared type or markup; anything else (a PDF that is not one) other."""
    if b"%PDF-" in body[:1024]:
        return "pdf"
    if content_type in ("text/html", "application/xhtml+xml") or looks_html(body):
        return "html"
    return "other"


class ArticleFetch:
    """Tries one article's copies in order until one yields its text."""

    def __init__(
        self, ctx: ToolContext, record: OaRecord, queue: list[Candidate], deadline: float, budget: int
    ) -> None:
        self.ctx = ctx
        self.record = record
        self.queue = deque(queue)
        self.deadline = deadline
        self.budget = budget
        self.used = 0
        self.fetches = 0
        self.tried: set[str] = set()
        self.notes: list[str] = []
        self.parse_failed = False
        self.wrong_article = False  # a copy read fine but names another article's DOI

    async def run(self) -> TierResult:
        web = self.ctx.web(service.WEB)
        while self.queue:
            cand = self.queue.popleft()
            if url_key(cand.url) in self.tried:
                continue
            if self.fetches >= MAX_FETCHES:
                self.notes.append(f"stopped after {MAX_FETCHES} fetches")
                break
            left = self.budget - self.used
            if left < MIN_FETCH_BYTES:
                self.notes.append(f"the {self.budget:,}-byte download budget is used up")
                break
            self.tried.add(url_key(cand.url))
            self.fetches += 1
            try:
                resp = await web.fetch(
                    cand.url,
                    deadline=min(self.deadline, time.monotonic() + PER_FETCH_SECONDS),
                    max_bytes=left,
                    accept=ACCEPT_PDF if cand.kind in ("pdf", "linked-pdf") else ACCEPT_PAGE,
                )
            except MedlitError as err:
                self.notes.append(f"{_label(cand)}: {err.message}")
                continue
            self.used += len(resp.body)
            self.tried.update(url_key(u) for u in (resp.url, *resp.redirects))
            kind = classify(resp.body, resp.content_type)
            if kind == "pdf":
                hit = await self._pdf(cand, resp)
            elif kind == "html":
                hit = await self._page(cand, resp)
            else:
                declared = resp.content_type or "no content type"
                self.notes.append(f"{_label(cand)}: served {declared}, which is neither a PDF nor a web page")
                continue
            if hit is not None:
                return hit
        return self.failed()

    def failed(self, why: str = "") -> TierResult:
        notes = [*self.notes, why] if why else self.notes
        detail = "; ".join(notes) or "no copy could be fetched"
        if len(detail) > DETAIL_CHARS:
            detail = detail[: DETAIL_CHARS - 1] + "…"
        if self.wrong_article:
            return TierResult("not-the-article", detail)
        return TierResult("parse-failed" if self.parse_failed else "fetch-failed", detail)

    async def _pdf(self, cand: Candidate, resp: WebResponse) -> TierResult | None:
        try:
            pdf = await asyncio.to_thread(extract_pdf, resp.body, self.deadline)
        except Unextractable as exc:
            self.parse_failed = True
            self.notes.append(f"{_label(cand)}: {exc}")
            return None
        doi = self.record.doi
        confirmed = (
            doi in pdf.dois
            or doi_in_text(doi, pdf.first_pages)
            or title_in_text(self.record.title, pdf.first_pages)
        )
        if pdf.dois and not confirmed:
            self.wrong_article = True
            self.notes.append(
                f"{_label(cand, 'pdf')}: the PDF is not the article (its metadata names DOI {pdf.dois[0]})"
            )
            return None
        return self._hit(cand, resp, pdf.text, "pdf-text", page_count=pdf.page_count, title=pdf.title)

    async def _page(self, cand: Candidate, resp: WebResponse) -> TierResult | None:
        if len(resp.body) > HTML_MAX_BYTES:
            self.notes.append(f"{_label(cand)}: the page is too large to read ({len(resp.body):,} bytes)")
            return None
        html = decode(resp.body, resp.charset)
        meta = await asyncio.to_thread(read_meta, html, resp.url)
        record = self.record
        matches = (
            record.doi in meta.dois
            or any(titles_match(record.title, t) for t in meta.titles)
            or (not meta.dois and doi_in_text(record.doi, html))
        )
        if not matches:
            named = (
                f"it names DOI {meta.dois[0]}"
                if meta.dois
                else f"its title is {meta.title[:120]!r}"
                if meta.title
                else "it names neither the DOI nor the title"
            )
            if meta.dois:  # another article's page: the copy is not the article
                self.wrong_article = True
            else:  # nothing on it says what it is (a paywall, a search page): unreadable as the article
                self.parse_failed = True
            self.notes.append(f"{_label(cand, 'html')}: page is not the article ({named})")
            return None
        markdown, page_title = await asyncio.to_thread(to_markdown, html, resp.url)
        if looks_full_text(markdown):
            return self._hit(cand, resp, markdown, "html-markdown", title=meta.title or page_title)
        follow = [
            Candidate(u, "linked-pdf", cand.location) for u in meta.pdf_urls if url_key(u) not in self.tried
        ]
        if not follow and meta.refresh_url and url_key(meta.refresh_url) not in self.tried:
            follow = [Candidate(meta.refresh_url, "refresh", cand.location)]
        words = len(markdown.split())
        if follow:
            self.notes.append(
                f"{_label(cand)}: the page holds no full text ({words} words); followed its link"
            )
            self.queue.extendleft(reversed(follow))
        else:
            self.parse_failed = True
            self.notes.append(f"{_label(cand)}: the page holds no full text ({words} words) and links no PDF")
        return None

    def _hit(
        self,
        cand: Candidate,
        resp: WebResponse,
        content: str,
        fmt: Literal["pdf-text", "html-markdown"],
        *,
        page_count: int | None = None,
        title: str | None = None,
    ) -> TierResult:
        record, loc = self.record, cand.location
        article = ExtractedTextArticle(
            content=content,
            content_format=fmt,
            source_url=resp.url,
            doi=record.doi,
            title=record.title or title,
            journal=record.journal,
            year=record.year,
            license=loc.license,
            version=loc.version,
            host_type=loc.host_type,
            word_count=len(content.split()),
            page_count=page_count,
        )
        what = "PDF" if fmt == "pdf-text" else "web page"
        about = ", ".join(x for x in (loc.host_type, loc.version, loc.license) if x)
        detail = f"{what} from {_host(resp.url)}" + (f" ({about})" if about else "")
        return TierResult("hit", detail, article)


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or url[:80]
    except ValueError:
        return url[:80]


def _label(cand: Candidate, served: str = "") -> str:
    """'PDF at host', 'landing page at host', ...; with ``served`` (what the answer was, 'pdf' or
    'html') when it is not what the location promised: 'web page at host (listed as a PDF)'."""
    what = {"pdf": "PDF", "landing": "landing page", "linked-pdf": "linked PDF", "refresh": "refresh target"}
    listed = what[cand.kind]
    if served == "html" and cand.kind in ("pdf", "linked-pdf"):
        return f"web page at {_host(cand.url)} (listed as a {listed})"
    if served == "pdf" and cand.kind in ("landing", "refresh"):
        return f"PDF at {_host(cand.url)} (listed as a {listed})"
    return f"{listed} at {_host(cand.url)}"


async def _article(
    ctx: ToolContext, doi: str, deadline: float, slots: asyncio.Semaphore, budget: int
) -> TierResult:
    try:
        record = await lookup(ctx, doi, deadline)
    except MedlitError as err:
        return TierResult("service-error", f"Unpaywall lookup failed: {err.message}")
    if isinstance(record, NoRecord):
        return TierResult("no-oa", record.reason)
    queue = candidates(record)
    if not queue:
        return TierResult("no-oa", "Unpaywall marks it open access but lists no URL for any copy")
    async with slots:
        started = time.monotonic()
        if deadline - started < 1.0:
            return TierResult("fetch-failed", "not tried: the call's time ran out before this article's turn")
        job = ArticleFetch(ctx, record, queue, min(deadline, started + PER_ARTICLE_SECONDS), budget)
        try:
            async with asyncio.timeout(job.deadline - started):
                return await job.run()
        except TimeoutError:
            return job.failed(f"gave up after {time.monotonic() - started:.0f} s (the article's time budget)")


def _doi(ref: ArticleRef) -> str | None:
    return identifiers.canonical("doi", ref.doi)


async def resolve_unpaywall(
    refs: Sequence[ArticleRef], ctx: ToolContext, options: TierOptions
) -> dict[str, TierResult]:
    """One result per ref with a DOI (refs sharing a DOI share one lookup and one fetch)."""
    deadline = wire.call_deadline(TIMEOUT) - MARGIN
    by_doi: dict[str, list[ArticleRef]] = {}
    out: dict[str, TierResult] = {}
    for ref in refs:
        doi = _doi(ref)
        if doi is None:
            out[ref.key] = TierResult("no-doi", "no usable DOI to look up")
        else:
            by_doi.setdefault(doi, []).append(ref)
    slots = asyncio.Semaphore(ARTICLE_CONCURRENCY)
    budget = service.max_bytes(ctx.settings)
    answers = await asyncio.gather(*(_article(ctx, doi, deadline, slots, budget) for doi in by_doi))
    for doi, answer in zip(by_doi, answers, strict=True):
        for ref in by_doi[doi]:
            out[ref.key] = answer
    return out
