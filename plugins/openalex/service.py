"""OpenAlex's service: the works API, identified for the polite pool.

OpenAlex asks clients to send a contact email (``mailto``) and, since February 2026, a free API
key (``api_key``) for more than a trial allowance a day. Single works cost nothing; list and filter
requests draw on the daily allowance, which is why the plugin reads works one at a time only where
that saves a list request, and batches ids into OR filters otherwise.
"""

from __future__ import annotations

from medlit.core.plugin import CacheRule, PluginConfig, Probe, ServiceSpec, wire

BASE_URL = "https://api.openalex.org"
RATE = 10.0  # OpenAlex allows 100 requests/s; a tenth of it is plenty and polite


def identify(config: PluginConfig) -> dict[str, str]:
    """``mailto`` from OPENALEX_EMAIL, else NCBI_EMAIL; ``api_key`` when OPENALEX_API_KEY is set."""
    out: dict[str, str] = {}
    email = config.get("OPENALEX_EMAIL") or config.get("NCBI_EMAIL")
    if email:
        out["mailto"] = email
    if config.get("OPENALEX_API_KEY"):
        out["api_key"] = config["OPENALEX_API_KEY"] or ""
    return out


SERVICE = ServiceSpec(
    name="openalex",
    title="OpenAlex",
    base_url=BASE_URL,
    rate=RATE,
    identify=identify,
    probe=Probe("works/W2741809807", {"select": "id"}, "json"),
    concurrency=4,
    cache=(CacheRule("works/*", wire.DAY), CacheRule("works", wire.HOUR)),  # a work; a filtered list of works
    description="OpenAlex works: identifiers, citations, references and related works",
)
