"""Paced clients for the services plugins declare: one client per service, one pacer per group.

Core names no upstream: every service, its base URL, rate, identification and error-in-200
inspection come from a plugin's ``medlit_services`` hook (resolved by the host into
:class:`~medlit.core.host.ServiceRecord`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..redact import Redactor
from ..types import OpenWebSpec
from .http import UpstreamClient
from .pacing import Pacer, Pacing
from .request import ServiceConfig
from .shared_pacer import RedisPacer
from .webfetch import WebClient, WebConfig

PACE_CEILING = 10.0  # how far past its declared rate a service's announced rate may take its pacer

if TYPE_CHECKING:
    import aiohttp

    from ..cache import Cache
    from ..host import Host


def build_clients(
    session: aiohttp.ClientSession, host: Host, cache: Cache | None = None
) -> dict[str, UpstreamClient | WebClient]:
    """One client per declared service of an active plugin; services of one pacing group share one
    :class:`Pacer` at the group's highest rate (NCBI counts requests per IP), and a service whose
    own limit is lower paces as a slower lane of it (see :meth:`Pacer.earliest`). ``session``
    comes from :func:`~medlit.core.net.session.new_session`; an :class:`OpenWebSpec` gets a
    :class:`WebClient` with a session of its own."""
    settings = host.settings
    redactor = Redactor(host.secrets)
    group_rates: dict[str, float] = {}
    for rec in host.services.values():
        if isinstance(rec.spec, OpenWebSpec):  # paced per host by its own client
            continue
        group = rec.spec.group
        group_rates[group] = max(group_rates.get(group, rec.rate), rec.rate)
    shared = cache.setting.target if cache is not None and cache.setting.kind == "redis" else None
    pacers: dict[str, Pacing] = {}
    for group, rate in group_rates.items():
        # With Redis configured every replica draws on one budget per group; else this process's own.
        pacers[group] = RedisPacer(shared, group, rate) if shared else Pacer(rate)
    clients: dict[str, UpstreamClient | WebClient] = {}
    for name, rec in host.services.items():
        spec = rec.spec
        if isinstance(spec, OpenWebSpec):  # fetches any public URL, paced per host (webfetch.py)
            web = WebConfig(
                name, spec.title, spec.prefix, rec.rate, rec.concurrency, spec.max_queue, rec.headers
            )
            clients[name] = WebClient(web, settings, redactor)
            continue
        config = ServiceConfig(
            name,
            rec.base_url,
            spec.prefix,
            rec.allowed_hosts,
            identify=rec.identify,
            concurrency=rec.concurrency,
            max_queue=spec.max_queue,
            inspect=spec.inspect,
            title=spec.title,
            headers=rec.headers,
            max_retries=spec.max_retries,
            lane=rec.rate if rec.rate < group_rates[spec.group] else None,
            cache_rules=spec.cache,
            record_rules=spec.records,
            get_only=spec.get_only,
            uncacheable_params=spec.uncacheable_params,
            uncacheable_markers=spec.uncacheable_markers,
            bool_values=spec.bool_values,
            error_keys=spec.error_keys,
            pace_from=spec.pace_from,
            pace_ceiling=rec.rate * PACE_CEILING if spec.pace_from is not None else 0.0,
        )
        clients[name] = UpstreamClient(session, config, settings, pacers[spec.group], redactor, cache)
    return clients
