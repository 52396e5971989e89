"""OpenAlex requests: a work by PMID, DOI or id; works by id (OR filters of at most 100 values);
windows of a filtered list (``cites:`` / ``cited_by:``) by basic paging or, past OpenAlex's
10,000-row paging limit, by cursor.

Fewest requests: single works are cached for ten minutes (a second page of the same source costs
no lookup); a window is read with one page whose size is chosen so that the window fits in it
whenever possible; cursors are remembered by position, so paging on past 10,000 rows costs one
request a page.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from medlit.core.plugin import ToolContext, errors, identifiers

from .parse import Work, WorkList, parse_list, parse_work

SERVICE = "openalex"
PER_PAGE_MAX = 200  # OpenAlex's largest page
OR_LIMIT = 100  # values in one OR filter (a|b|c)
PAGING_LIMIT = 10_000  # basic paging reaches only the first 10,000 rows; cursors go further
CURSOR_STEPS = 25  # cursor pages one call may walk to reach an offset it has no cursor for
WORK_FIELDS = (
    "id,ids,doi,title,display_name,publication_year,cited_by_count,referenced_works_count,related_works"
)
LIST_FIELDS = "id,ids"
_TTL = 600.0
_CACHE_MAX = 512


@dataclass(frozen=True)
class Window:
    """Rows ``offset`` .. ``offset + limit`` of a filtered list and the list's total."""

    count: int | None
    works: tuple[Work, ...]
    requests: int


def _cache(ctx: ToolContext, name: str) -> dict[Any, Any]:
    return ctx.keep(f"openalex:{name}", dict)


def _remember(store: dict[Any, Any], key: object, value: object) -> None:
    if len(store) >= _CACHE_MAX:
        for old in list(store)[: _CACHE_MAX // 4]:  # oldest first (insertion order)
            store.pop(old, None)
    store[key] = (time.monotonic(), value)


def _recall(store: dict[Any, Any], key: object) -> tuple[bool, Any]:
    """(found, the value remembered under ``key``): each store keeps one kind of value."""
    hit = store.get(key)
    if hit is None or time.monotonic() - hit[0] > _TTL:
        return False, None
    return True, hit[1]


async def get_work(ctx: ToolContext, key: str) -> Work | None:
    """One work by ``W…``, ``pmid:<digits>`` or ``doi:<doi>``; ``None`` when OpenAlex has none (404).
    A merged work redirects to its new id, which the client follows."""
    store = _cache(ctx, "works")
    hit, value = _recall(store, key)
    if hit:
        return value
    resp = await ctx.client(SERVICE).get(
        f"works/{quote(key, safe=':/')}", {"select": WORK_FIELDS}, expect="json", ok_statuses={404}
    )
    work = None if resp.status == 404 else parse_work(resp.json())
    _remember(store, key, work)
    return work


async def work_by_pmid(ctx: ToolContext, pmid: str) -> Work | None:
    return await get_work(ctx, f"pmid:{pmid}")


async def work_by_doi(ctx: ToolContext, doi: str) -> Work | None:
    return await get_work(ctx, f"doi:{doi}")


async def works_by_ids(ctx: ToolContext, ids: Sequence[str]) -> dict[str, Work]:
    """Works by OpenAlex id, ``OR_LIMIT`` ids per request; ids OpenAlex does not return are absent."""
    wanted = list(dict.fromkeys(ids))
    found: dict[str, Work] = {}
    for chunk in identifiers.batches(wanted, OR_LIMIT):
        page = await _list(ctx, {"filter": "openalex:" + "|".join(chunk), "per_page": str(len(chunk))})
        for work in page.works:
            if work.id:
                found[work.id] = work
    return found


async def _list(ctx: ToolContext, params: dict[str, str]) -> WorkList:
    resp = await ctx.client(SERVICE).get("works", {**params, "select": LIST_FIELDS}, expect="json")
    return parse_list(resp.json())


def page_plan(offset: int, limit: int) -> tuple[int, list[int]] | None:
    """``(per_page, pages)`` reading rows ``offset`` .. ``offset + limit`` by basic paging in as few
    requests as possible (one, when some page size lets the window fit in one page), or ``None``
    when the window reaches past the paging limit (cursor paging is needed)."""
    end = offset + limit
    if end > PAGING_LIMIT:
        return None
    # OpenAlex refuses a page reaching past the limit (page * per_page > 10,000) as well.
    for size in range(min(limit, PER_PAGE_MAX), PER_PAGE_MAX + 1):
        page = offset // size + 1
        if page == (end - 1) // size + 1 and page * size <= PAGING_LIMIT:
            return size, [page]
    for size in range(PER_PAGE_MAX, 0, -1):
        first, last = offset // size + 1, (end - 1) // size + 1
        if last * size <= PAGING_LIMIT:
            return size, list(range(first, last + 1))
    return None


async def window(ctx: ToolContext, filter_: str, offset: int, limit: int) -> Window:
    """Rows ``offset`` .. ``offset + limit`` of ``/works?filter=filter_`` (OpenAlex's default order)."""
    plan = page_plan(offset, limit)
    if plan is None:
        return await _cursor_window(ctx, filter_, offset, limit)
    size, pages = plan
    rows: list[Work] = []
    count: int | None = None
    for page in pages:
        got = await _list(ctx, {"filter": filter_, "per_page": str(size), "page": str(page)})
        count = got.count if got.count is not None else count
        rows.extend(got.works)
        if len(got.works) < size:
            break  # the last page
    skip = offset - (pages[0] - 1) * size
    return Window(count, tuple(rows[skip : skip + limit]), len(pages))


async def _cursor_window(ctx: ToolContext, filter_: str, offset: int, limit: int) -> Window:
    """Cursor paging in pages of ``PER_PAGE_MAX`` from the nearest remembered cursor at or before
    ``offset`` (``*`` at row 0); each cursor met is remembered by the row it starts at."""
    store = _cache(ctx, "cursors")
    position = 0
    cursor: str | None = "*"  # the next page's cursor; None after the last page
    for (f, pos), (at, value) in list(store.items()):
        if f == filter_ and position < pos <= offset and time.monotonic() - at <= _TTL:
            position, cursor = pos, value
    steps = (offset + limit - 1 - position) // PER_PAGE_MAX + 1
    if steps > CURSOR_STEPS:
        raise errors.upstream_error(
            SERVICE,
            errors.BAD_REQUEST,
            f"OpenAlex serves rows past {PAGING_LIMIT:,} only by cursor, page after page: reaching offset "
            f"{offset:,} would take {steps} requests",
            recovery="Page forward from the last offset you read (each further page then costs one request).",
        )
    rows: list[Work] = []
    count: int | None = None
    requests = 0
    while cursor is not None and position < offset + limit:
        got = await _list(ctx, {"filter": filter_, "per_page": str(PER_PAGE_MAX), "cursor": cursor})
        requests += 1
        count = got.count if got.count is not None else count
        if position + len(got.works) > offset:
            rows.extend(got.works[max(0, offset - position) :])
        position += len(got.works)
        cursor = got.next_cursor
        if cursor is not None:
            _remember(store, (filter_, position), cursor)
        if not got.works:
            break
    return Window(count, tuple(rows[:limit]), requests)
