"""Paced clients for the services plugins declare: one client per service, one pacer per group.

Core names no upstream: every service, its base URL, rate, identification and error-in-200
inspection come from a plugin's ``medlit_services`` hook (resolved by the host into
:class:`~medlit.core.host.ServiceRecord`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .http import Pacer, ServiceConfig, UpstreamClient
from .redact import Redactor

if TYPE_CHECKING:
    import aiohttp

    from .host import Host


def build_clients(session: aiohttp.ClientSession, host: Host) -> dict[str, UpstreamClient]:
    """One client per declared service of an active plugin; services of one pacing group share one
    :class:`Pacer` at the lowest rate any of them declares (NCBI counts requests per IP)."""
    settings = host.settings
    redactor = Redactor(host.secrets)
    group_rates: dict[str, float] = {}
    for rec in host.services.values():
        group = rec.spec.group
        group_rates[group] = min(group_rates.get(group, rec.rate), rec.rate)
    pacers = {group: Pacer(rate) for group, rate in group_rates.items()}
    clients: dict[str, UpstreamClient] = {}
    for name, rec in host.services.items():
        spec = rec.spec
        config = ServiceConfig(
            name,
            rec.base_url,
            spec.prefix,
            rec.allowed_hosts,
            identify=rec.identify,
            concurrency=spec.concurrency,
            max_queue=spec.max_queue,
            inspect=spec.inspect,
            title=spec.title,
            headers=rec.headers,
            max_retries=spec.max_retries,
        )
        clients[name] = UpstreamClient(session, config, settings, pacers[spec.group], redactor)
    return clients
