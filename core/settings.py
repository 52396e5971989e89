"""Settings read once from the environment into a frozen object.

Plugins never read ``os.environ``: a plugin declares the variables it needs
(:class:`~medlit.core.types.SettingSpec`) and receives their values through its context.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import urlsplit

# Real upstream base URLs. Tests replace one with MEDLIT_BASE_URL_<SERVICE> (loopback only).
BASE_URLS: Mapping[str, str] = MappingProxyType(
    {
        "ncbi": "https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
        "idconv": "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles",
        "europepmc": "https://www.ebi.ac.uk/europepmc/webservices/rest",
        "icite": "https://icite.od.nih.gov/api",
        "unpaywall": "https://api.unpaywall.org/v2",
        "openalex": "https://api.openalex.org",
    }
)

NCBI_RATE_UNKEYED = 3.0
NCBI_RATE_KEYED = 10.0
_FALSE = {"0", "false", "no", "off", "disabled"}
_TRUE = {"1", "true", "yes", "on", "enabled"}


class SettingsError(ValueError):
    """The environment asks for something the server refuses to run with."""


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_bool(value: str | None, default: bool, name: str) -> bool:
    if value is None or value.strip() == "":
        return default
    v = value.strip().lower()
    if v in _FALSE:
        return False
    if v in _TRUE:
        return True
    raise SettingsError(f"{name}={value!r} is not a boolean; use true or false")


def _float(env: Mapping[str, str], name: str, default: float, lo: float, hi: float) -> float:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a number") from None
    if not lo <= value <= hi:
        raise SettingsError(f"{name}={raw!r} is outside {lo}..{hi}")
    return value


@dataclass(frozen=True)
class Settings:
    """Everything the host and plugins may know about the environment."""

    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    base_urls: Mapping[str, str] = field(default_factory=lambda: BASE_URLS)
    overridden: frozenset[str] = frozenset()
    ncbi_api_key: str | None = None
    ncbi_email: str | None = None
    ncbi_tool: str = "medlit-mcp"
    ncbi_rate: float = NCBI_RATE_UNKEYED
    max_body_bytes: int = 5_000_000
    request_timeout: float = 30.0
    call_deadline: float = 90.0
    max_retries: int = 3
    retry_after_cap: float = 30.0
    backoff_base: float = 0.5
    log_level: str = "INFO"

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never appear in logs, errors or tool output."""
        out = [v for v in (self.ncbi_api_key, self.ncbi_email) if v]
        for name, value in self.env.items():
            if value and (name.endswith(("_API_KEY", "_EMAIL", "_TOKEN", "_SECRET", "_MAILTO"))):
                out.append(value)
        return tuple(sorted(set(out), key=len, reverse=True))

    def enabled_flag(self, plugin: str) -> bool:
        """``<NAME>_ENABLED`` for a plugin registered as ``name`` (default on)."""
        var = enabled_var(plugin)
        return parse_bool(self.env.get(var), True, var)

    def get(self, name: str) -> str | None:
        value = self.env.get(name)
        return value if value not in (None, "") else None


def env_name(name: str) -> str:
    """A plugin or tier name as part of a variable name: entry-point names may hold ``-`` or
    ``.``, which a shell cannot set, so anything but a letter or digit becomes ``_``."""
    return re.sub(r"[^A-Z0-9]", "_", name.upper())


def enabled_var(plugin: str) -> str:
    return f"{env_name(plugin)}_ENABLED"


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read the environment once. Raises :class:`SettingsError` on a refused configuration."""
    env = dict(os.environ if environ is None else environ)
    base_urls = dict(BASE_URLS)
    overridden: set[str] = set()
    for service in BASE_URLS:
        var = f"MEDLIT_BASE_URL_{service.upper()}"
        value = env.get(var)
        if not value:
            continue
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not is_loopback_host(parts.hostname):
            raise SettingsError(
                f"{var} must point at a loopback host (127.0.0.0/8, ::1 or localhost) and is only for "
                f"testing; refusing to start with {parts.scheme}://{parts.hostname or '?'}"
            )
        base_urls[service] = value.rstrip("/")
        overridden.add(service)

    api_key = env.get("NCBI_API_KEY") or None
    limit = NCBI_RATE_KEYED if api_key else NCBI_RATE_UNKEYED
    rate = _float(env, "MEDLIT_NCBI_RATE", limit, 0.1, 1000.0)
    if rate > limit and "ncbi" not in overridden:
        raise SettingsError(
            f"MEDLIT_NCBI_RATE={rate:g} exceeds NCBI's limit of {limit:g} requests/s "
            f"({'with' if api_key else 'without'} an API key); only allowed with MEDLIT_BASE_URL_NCBI"
        )
    return Settings(
        env=MappingProxyType(env),
        base_urls=MappingProxyType(base_urls),
        overridden=frozenset(overridden),
        ncbi_api_key=api_key,
        ncbi_email=env.get("NCBI_EMAIL") or None,
        ncbi_tool=env.get("NCBI_TOOL") or "medlit-mcp",
        ncbi_rate=rate,
        max_body_bytes=int(_float(env, "MEDLIT_MAX_BODY_BYTES", 5_000_000, 10_000, 500_000_000)),
        request_timeout=_float(env, "MEDLIT_REQUEST_TIMEOUT", 30.0, 0.05, 600.0),
        call_deadline=_float(env, "MEDLIT_CALL_DEADLINE", 90.0, 0.1, 3600.0),
        max_retries=int(_float(env, "MEDLIT_MAX_RETRIES", 3, 0, 10)),
        retry_after_cap=_float(env, "MEDLIT_RETRY_AFTER_CAP", 30.0, 0.0, 600.0),
        backoff_base=_float(env, "MEDLIT_BACKOFF_BASE", 0.5, 0.0, 30.0),
        log_level=(env.get("MEDLIT_LOG_LEVEL") or "INFO").upper(),
    )
