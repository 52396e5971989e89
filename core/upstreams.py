"""Paced clients for the services plugins declare: one client per service, one pacer per group.

Core names no upstream: every service, its base URL, rate, identification and error-in-200
inspection come from a plugin's ``medlit_services`` hook (resolved by the host into
:class:`~medlit.core.host.ServiceRecord`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .http import Pacer, Pacing, ServiceConfig, UpstreamClient
from .redact import Redactor
from .shared_pacer import RedisPacer
from .types import PACE_CEILING
from .webfetch import WebClient, WebConfig

if TYPE_CHECKING:
    import aiohttp

    from .cache import Cache
    from .host import Host


def build_clients(
    session: aiohttp.ClientSession, host: Host, cache: Cache | None = None
) -> dict[str, UpstreamClient | WebClient]:
    """One client per declared service of an active plugin; services of one pacing group share one
    :class:`Pacer` at the group's highest rate (NCBI counts requests per IP), and a service whose
    own limit is lower paces as a slower lane of it (see :meth:`Pacer.earliest`)."""
    settings = host.settings
    redactor = Redactor(host.secrets)
    group_rates: dict[str, float] = {}
    for rec in host.services.values():
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
        if spec.open_web:  # fetches any public URL, paced per host (core/webfetch.py)
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
            pace_from=spec.pace_from,
            pace_ceiling=rec.rate * PACE_CEILING if spec.pace_from is not None else 0.0,
        )
        clients[name] = UpstreamClient(session, config, settings, pacers[spec.group], redactor, cache)
    return clients
