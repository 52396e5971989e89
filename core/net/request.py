"""How to talk to a declared service (:class:`ServiceConfig`) and how a request to it is written:
parameters as the service spells them (lists comma-joined, booleans in its own words,
:class:`Repeated` values once each), identification added, a long GET turned into a POST form,
the service's headers merged. The result, a :class:`Call`, is what the client sends, retries,
shares and caches by."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from .wire import Expect, Response

if TYPE_CHECKING:
    from ..types import CacheRule, RecordRule

# Query strings longer than this go as a POST form body (NCBI answers 414 past ~8 KB; peers
# switch around 2,000 characters).
POST_THRESHOLD = 1800


@dataclass(frozen=True)
class ServiceConfig:
    """How to talk to one upstream service."""

    name: str
    base_url: str
    error_prefix: str
    allowed_hosts: frozenset[str]
    identify: Mapping[str, str] = field(default_factory=dict)  # params added to every request
    concurrency: int = 4
    max_queue: int = 64
    # Classifies errors hidden in a 2xx body; raises MedlitError or returns None.
    inspect: Callable[[Response], None] | None = None
    title: str = ""  # how messages name the service ("NCBI E-utilities")
    headers: Mapping[str, str] = field(default_factory=dict)  # sent with every request
    max_retries: int | None = None  # None: MEDLIT_MAX_RETRIES
    lane: float | None = None  # this service's own limit when below its pacing group's
    cache_rules: tuple[CacheRule, ...] = ()  # what the persistent cache may keep, per endpoint
    record_rules: tuple[RecordRule, ...] = ()
    get_only: bool = False  # a long GET query stays in the URL (the service documents GET only)
    # The service's own vocabulary (see ServiceSpec): parameters that make a request uncacheable
    # (compared case-insensitively), bytes that make an answer uncacheable (in its first 4 KB),
    # how a Python bool is sent, and the JSON keys of an error body worth quoting.
    uncacheable_params: frozenset[str] = frozenset()
    uncacheable_markers: tuple[bytes, ...] = ()
    bool_values: tuple[str, str] = ("true", "false")
    error_keys: tuple[str, ...] = ("error", "message", "detail")
    # Reads the rate (requests/s) a service announces in its answers' headers; None: says nothing.
    pace_from: Callable[[Mapping[str, str]], float | None] | None = None
    pace_ceiling: float = 0.0  # the highest rate pace_from may set (0: no adjusting)

    @property
    def label(self) -> str:
        return self.title or self.name


@dataclass(frozen=True)
class Repeated:
    """A parameter sent once per value (``id=1&id=2``). E-utilities read that differently from
    ``id=1,2``: ELink then answers one link set per id instead of merging them."""

    values: tuple[str, ...]


def pairs(values: Mapping[str, str | Repeated] | None) -> list[tuple[str, str]] | None:
    if values is None:
        return None
    out: list[tuple[str, str]] = []
    for k, v in values.items():
        out.extend((k, x) for x in v.values) if isinstance(v, Repeated) else out.append((k, v))
    return out


def param(value: Any, bools: tuple[str, str]) -> str | Repeated:
    """A parameter value as sent: a list comma-joined, a bool as the service spells it."""
    if isinstance(value, Repeated):
        return value
    if isinstance(value, bool):
        return bools[0] if value else bools[1]
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class Call:
    """One prepared request: what goes on the wire (identification added, a long GET turned into
    a POST, the service's headers merged) and how its answer is judged."""

    method: str
    url: str
    query: dict[str, str | Repeated]
    form: dict[str, str | Repeated] | None
    expect: Expect
    deadline: float
    ok_statuses: frozenset[int]
    headers: Mapping[str, str] | None
    parse: Callable[[Response], Any] | None

    @property
    def sent(self) -> dict[str, str | Repeated]:
        return self.form if self.form is not None else self.query

    def sent_pairs(self) -> list[tuple[str, str]]:
        return pairs(self.sent) or []

    def share_key(self) -> tuple[Any, ...]:
        """Identical requests in flight at once share one upstream call."""
        return (
            self.method,
            self.url,
            tuple(pairs(self.query) or ()),
            tuple(pairs(self.form) or ()) if self.form is not None else None,
            self.expect,
            tuple(sorted(self.ok_statuses)),
            tuple(sorted((self.headers or {}).items())),
            self.parse,
        )


def prepare(
    config: ServiceConfig,
    method: str,
    url: str,
    params: Mapping[str, Any] | None,
    data: Mapping[str, Any] | None,
    expect: Expect,
    deadline: float,
    ok_statuses: frozenset[int] | set[int],
    headers: Mapping[str, str] | None,
    identify: bool,
    parse: Callable[[Response], Any] | None,
) -> Call:
    """The :class:`Call` for one request of ``config``'s service (``None`` values left out)."""
    yes_no = config.bool_values
    query = {k: param(v, yes_no) for k, v in (params or {}).items() if v is not None}
    form = {k: param(v, yes_no) for k, v in data.items() if v is not None} if data is not None else None
    if identify:
        target = form if form is not None else query
        for k, v in config.identify.items():
            target.setdefault(k, v)
    if method == "GET" and not config.get_only and len(urlencode(pairs(query) or [])) > POST_THRESHOLD:
        method, form, query = "POST", query, {}
    if config.headers:
        headers = {**config.headers, **(headers or {})}
    return Call(method, url, query, form, expect, deadline, frozenset(ok_statuses), headers, parse)
