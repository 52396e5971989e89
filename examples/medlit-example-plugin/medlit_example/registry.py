"""The plugin's upstream: the Example Works registry, a fictional DOI registry with a JSON API.

- ``GET /works?doi=<doi>&doi=<doi>...`` (up to 50 DOIs) -> ``{"status": "ok", "works": [...]}``;
  DOIs it does not know are simply absent.
- ``GET /text?doi=<doi>`` -> the article's open full text as Markdown rendered from its HTML
  page (``{"status": "ok", "markdown": ..., "source_url": ...}``), ``"access": "restricted"``
  without text, or HTTP 404 for a DOI it does not hold.
- ``GET /search?q=<words>&offset=<n>&rows=<n>`` (rows up to 100) -> ``{"status": "ok", "total": N,
  "works": [...]}``: every work whose title holds the words, by DOI.
- ``GET /heartbeat`` -> ``{"status": "ok"}`` (the doctor's probe).
- Errors may come inside an HTTP 200: ``{"status": "error", "message": "..."}``.
- 5 requests a second per client; a ``mailto`` parameter identifies the caller.

The host builds the paced client from :data:`SERVICE`; this module only says what to send and
how to read the answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from medlit.core.plugin import PluginConfig, Probe, Response, ServiceSpec, ToolContext, errors, wire

NAME = "example_works"
BATCH = 50  # DOIs per /works request: the registry's documented maximum


def identify(config: PluginConfig) -> dict[str, str]:
    """Parameters sent with every request: the contact address, when the user configured one."""
    mailto = config.get("EXAMPLE_EMAIL")
    return {"mailto": mailto} if mailto else {}


def inspect(resp: Response) -> None:
    """Raise for an error the registry reports inside an HTTP 200 (retried when it says busy)."""
    if not resp.body.lstrip().startswith(b"{"):
        return
    data = resp.json()
    if isinstance(data, dict) and data.get("status") == "error":
        message = str(data.get("message") or "unspecified error")[:200]
        kind = errors.UNREACHABLE if "busy" in message.lower() else errors.UPSTREAM_ERROR
        raise errors.upstream_error(NAME, kind, f"the Example Works registry: {message}")


SERVICE = ServiceSpec(
    name=NAME,
    title="the Example Works registry",
    base_url="https://api.works.example.org/v1",
    rate=5.0,
    identify=identify,
    headers={"Accept": "application/json"},
    inspect=inspect,
    probe=Probe("heartbeat", {}, "json"),
    description="A fictional DOI registry: brief metadata and open full text by DOI",
)


@dataclass(frozen=True)
class Work:
    """One registry record, as this plugin uses it."""

    doi: str
    title: str | None = None
    journal: str | None = None
    issn: str | None = None
    published: str | None = None  # YYYY, YYYY-MM or YYYY-MM-DD
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    authors: tuple[str, ...] = ()  # "Family G"
    publisher: str | None = None
    has_text: bool = False

    @property
    def year(self) -> int | None:
        head = (self.published or "")[:4]
        return int(head) if head.isdigit() else None


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _author(item: Any) -> str | None:
    if not isinstance(item, Mapping) or not _text(item.get("family")):
        return None
    initials = "".join(part[0] for part in str(item.get("given") or "").replace("-", " ").split() if part)
    return f"{item['family'].strip()} {initials}".strip()


def parse_work(item: Any) -> Work | None:
    """A registry record, or None when it carries no DOI (nothing to key it by)."""
    if not isinstance(item, Mapping) or not _text(item.get("doi")):
        return None
    return Work(
        doi=str(item["doi"]).strip().lower(),
        title=_text(item.get("title")),
        journal=_text(item.get("journal")),
        issn=_text(item.get("issn")),
        published=_text(item.get("published")),
        volume=_text(item.get("volume")),
        issue=_text(item.get("issue")),
        pages=_text(item.get("pages")),
        authors=tuple(a for a in map(_author, item.get("authors") or ()) if a),
        publisher=_text(item.get("publisher")),
        has_text=bool(item.get("has_text")),
    )


async def fetch_works(ctx: ToolContext, dois: Sequence[str]) -> dict[str, Work]:
    """Records for canonical DOIs, one request per :data:`BATCH`; unknown DOIs are absent."""
    found: dict[str, Work] = {}
    client = ctx.client(NAME)
    for start in range(0, len(dois), BATCH):
        chunk = list(dois[start : start + BATCH])
        # DOIs may hold commas, so each goes as its own parameter (doi=a&doi=b), never joined.
        resp = await client.get("works", {"doi": wire.Repeated(tuple(chunk))}, expect="json")
        data = resp.json()
        items = data.get("works") if isinstance(data, dict) else None
        for item in items if isinstance(items, list) else []:
            work = parse_work(item)
            if work is not None and work.doi in chunk:
                found[work.doi] = work
    return found


@dataclass(frozen=True)
class Text:
    """The registry's answer about one article's full text."""

    doi: str
    markdown: str | None
    source_url: str
    title: str | None = None
    license: str | None = None
    restricted: bool = False


async def fetch_text(ctx: ToolContext, doi: str) -> Text | None:
    """The article's full text, ``restricted`` when the registry holds it closed, None when the
    registry does not know the DOI."""
    resp = await ctx.client(NAME).get("text", {"doi": doi}, expect="json", ok_statuses={404})
    if resp.status == 404:
        return None
    data = resp.json()
    if not isinstance(data, dict):
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, "the Example Works registry sent no text record"
        )
    return Text(
        doi=doi,
        markdown=_text(data.get("markdown")),
        source_url=str(data.get("source_url") or f"https://works.example.org/{doi}"),
        title=_text(data.get("title")),
        license=_text(data.get("license")),
        restricted=data.get("access") == "restricted",
    )


SEARCH_ROWS = 100  # works per /search request: the registry's documented maximum


async def search_works(ctx: ToolContext, query: str, offset: int, rows: int) -> tuple[int, list[Work]]:
    """One page of a title search: (total, works)."""
    resp = await ctx.client(NAME).get(
        "search", {"q": query, "offset": offset, "rows": min(rows, SEARCH_ROWS)}, expect="json"
    )
    data = resp.json()
    if not isinstance(data, dict):
        raise errors.upstream_error(
            NAME, errors.INVALID_RESPONSE, "the Example Works registry sent no search object"
        )
    items = data.get("works")
    works = [w for w in (parse_work(i) for i in (items if isinstance(items, list) else [])) if w is not None]
    total = data.get("total")
    return (int(total) if isinstance(total, int) else len(works)), works
