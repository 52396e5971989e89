"""``MEDLIT_CACHE``, read: which response cache a server opens (off, a SQLite file, Redis).

Apart from :mod:`medlit.core.cache` so that start-up can refuse a malformed setting without
importing the cache itself (its stores and the Redis breaker load with the first call or the
warm-up: issue 50, launch).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .settings import Settings, SettingsError, parse_number, require_extra

DEFAULT_MAX_BYTES = 500_000_000


@dataclass(frozen=True)
class CacheSetting:
    kind: str  # "off" | "sqlite" | "redis"
    target: str = ""  # file path or redis URL
    max_bytes: int = DEFAULT_MAX_BYTES

    def describe(self) -> str:
        return "off" if self.kind == "off" else f"{self.kind} {self.target}"


def cache_setting(settings: Settings) -> CacheSetting:
    """Read ``MEDLIT_CACHE`` (validated at start-up by :func:`check_cache_setting`)."""
    raw = (settings.get("MEDLIT_CACHE") or "").strip()
    max_bytes = int(parse_number(settings.env, "MEDLIT_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES, 1_000_000, 1e12))
    if not raw:
        if settings.base_url_overrides:
            return CacheSetting("off")
        return CacheSetting("sqlite", str(default_path()), max_bytes)
    if raw.lower() == "off":
        return CacheSetting("off")
    parts = urlsplit(raw)
    if parts.scheme == "sqlite":
        path = raw[len("sqlite://") :]
        if path.startswith("/"):
            path = path[1:] if path.startswith("//") else path
        return CacheSetting("sqlite", path or str(default_path()), max_bytes)
    if parts.scheme in ("redis", "rediss", "unix"):
        # the shared pacer draws on the same Redis (net/clients.py), so this one check covers both
        require_extra("redis", "MEDLIT_CACHE names Redis (the shared cache and pacing)")
        return CacheSetting("redis", raw, max_bytes)
    raise SettingsError(
        f"MEDLIT_CACHE={raw!r} is not a cache: use sqlite:///path/to/cache.sqlite3, redis://host:6379/0 or off"
    )


def default_path() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("medlit-mcp")) / "cache.sqlite3"
