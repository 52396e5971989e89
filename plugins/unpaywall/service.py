"""The plugin's settings and its two services: the Unpaywall API and the open web its copies live on.

Unpaywall wants a contact email with every request (``?email=``); content hosts get a polite
User-Agent naming the project and the same contact. A contact email is not a secret (a start-up
message may quote it to say what is malformed); the ``email=`` parameter of logged URLs is
still masked, like keys.
"""

from __future__ import annotations

from medlit.core.plugin import CacheRule, OpenWebSpec, PluginConfig, Probe, ServiceSpec, SettingSpec, wire

API_URL = "https://api.unpaywall.org"
API = "unpaywall"
WEB = "oa_web"
EMAIL = "UNPAYWALL_EMAIL"
MAX_BYTES = "UNPAYWALL_MAX_BYTES"
DEFAULT_MAX_BYTES = 30_000_000
MIN_MAX_BYTES = 1_000_000
# Requests per second to one content host. Publishers and repositories publish no limit; a
# human clicking through a landing page to its PDF is about this fast.
HOST_RATE = 2.0

SETTINGS = (
    SettingSpec(
        EMAIL,
        "Contact email Unpaywall requires with every request (also named in the User-Agent sent to content hosts)",
        required=True,
        kind="email",
        example="you@example.org",
    ),
    SettingSpec(
        MAX_BYTES,
        "Bytes one article may download from content hosts (PDFs and pages together; default 30000000)",
        default=str(DEFAULT_MAX_BYTES),
        kind="int",
    ),
)


def max_bytes(config: PluginConfig) -> int:
    """The per-article download budget, never below 1 MB."""
    raw = config.get(MAX_BYTES) or ""
    try:
        value = int(raw)
    except ValueError:
        value = DEFAULT_MAX_BYTES
    return max(MIN_MAX_BYTES, value)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("medlit-mcp")
    except PackageNotFoundError:
        return "dev"


def user_agent(config: PluginConfig) -> dict[str, str]:
    contact = config.get(EMAIL) or ""
    return {
        "User-Agent": f"medlit-mcp/{_version()} (MCP server; open-access copies via Unpaywall; mailto:{contact})"
    }


def identify(config: PluginConfig) -> dict[str, str]:
    return {"email": config.get(EMAIL) or ""}


SERVICES = (
    ServiceSpec(
        name=API,
        title="Unpaywall",
        base_url=API_URL,
        rate=10.0,
        identify=identify,
        headers=user_agent,
        probe=Probe("v2/10.1038/nature12373", {}, "json"),
        # A DOI's open-access status changes over weeks; unknown (404) and malformed (422) DOIs
        # are settled answers too.
        cache=(CacheRule("*", wire.DAY, negative=frozenset({404, 422}), negative_ttl=wire.DAY),),
        concurrency=4,
        description="Open-access locations of a DOI (v2 API)",
    ),
    OpenWebSpec(
        name=WEB,
        title="open-access content hosts",
        rate=HOST_RATE,
        headers=user_agent,
        concurrency=4,
        error_prefix="oa_host",
        description="Publisher and repository hosts of open-access copies (any public host, vetted per hop)",
    ),
)
