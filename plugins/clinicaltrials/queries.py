"""A search's arguments as ClinicalTrials.gov API v2 parameters (query.*, filter.*, sort)."""

from __future__ import annotations

from urllib.parse import urlencode

from .inputs import SearchInput

_SORT = {
    "relevance": None,  # the API's default, @relevance
    "last_update": "LastUpdatePostDate:desc",
    "newest_start": "StartDate:desc",
    "oldest_start": "StartDate:asc",
}
_QUERIES = (
    ("condition", "query.cond"),
    ("intervention", "query.intr"),
    ("terms", "query.term"),
    ("location", "query.locn"),
)


def advanced_filter(args: SearchInput) -> str | None:
    """Phases, start dates and the caller's own filter as one Essie expression."""
    parts = []
    if args.phase:
        parts.append("AREA[Phase](" + " OR ".join(args.phase) + ")")
    if args.startFrom or args.startTo:
        parts.append(f"AREA[StartDate]RANGE[{args.startFrom or 'MIN'},{args.startTo or 'MAX'}]")
    if args.advanced and args.advanced.strip():
        parts.append(f"({args.advanced.strip()})")
    return " AND ".join(parts) or None


def search_params(args: SearchInput, page_size: int) -> dict[str, str]:
    params: dict[str, str] = {}
    for field, name in _QUERIES:
        value = getattr(args, field)
        if value and value.strip():
            params[name] = value.strip()
    if args.status:
        params["filter.overallStatus"] = ",".join(args.status)
    advanced = advanced_filter(args)
    if advanced:
        params["filter.advanced"] = advanced
    sort = _SORT[args.sort]
    if sort:
        params["sort"] = sort
    params["pageSize"] = str(page_size)
    if args.pageToken:
        params["pageToken"] = args.pageToken
    else:
        params["countTotal"] = "true"  # the total is counted once, on the first page
    return params


def site_url(params: dict[str, str]) -> str:
    """The same search on clinicaltrials.gov's own pages (the parameters its search page reads)."""
    keep = {
        "query.cond": "cond",
        "query.intr": "intr",
        "query.term": "term",
        "query.locn": "locStr",
    }
    shown = {short: params[name] for name, short in keep.items() if name in params}
    return "https://clinicaltrials.gov/search?" + urlencode(shown)
