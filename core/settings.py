"""Settings read once from the environment into a frozen object.

Plugins never read ``os.environ``: a plugin declares the variables it needs
(:class:`~medlit.core.types.SettingSpec`) and receives their values through its context.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import urlsplit

BASE_URL_PREFIX = "MEDLIT_BASE_URL_"
TIER_ORDER_PREFIX = "MEDLIT_TIER_ORDER_"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

_FALSE = {"0", "false", "no", "off", "disabled"}
_TRUE = {"1", "true", "yes", "on", "enabled"}


class SettingsError(ValueError):
    """The environment asks for something the server refuses to run with."""


# pyproject's optional extras for configured back-ends, and the top-level modules each installs.
EXTRAS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"postgres": ("asyncpg",), "redis": ("redis",), "oauth": ("jwt", "cryptography")}
)


def require_extra(extra: str, because: str) -> None:
    """Refuse to start (:class:`SettingsError`) when a configuration needs an extra that is not
    installed; ``because`` says which setting asks for it (never its value: a URL may hold a
    password). ``find_spec`` looks for the modules without importing them, so the check costs
    start-up nothing even when they are there."""
    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if missing:
        raise SettingsError(
            f"{because}, which needs the {extra!r} extra, but {', '.join(missing)} is not installed: "
            f"pip install 'medlit-mcp[{extra}]'"
        )


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


def parse_number(env: Mapping[str, str], name: str, default: float, lo: float, hi: float) -> float:
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
    """What the host knows about the environment. It names no upstream and no provider: plugins
    declare their services and settings, and the host reads those from ``env``."""

    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # MEDLIT_BASE_URL_<SERVICE> overrides (loopback only), by the upper-cased service part.
    base_url_overrides: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    load_plugins: frozenset[str] | None = None  # MEDLIT_LOAD_PLUGINS; None loads every plugin
    tool_patterns: tuple[str, ...] = ()  # MEDLIT_TOOLS: "pubmed_*", "-eutils_*", ...
    toolsets: tuple[str, ...] = ("default",)  # MEDLIT_TOOLSETS: families listed up front
    max_body_bytes: int = 5_000_000
    request_timeout: float = 20.0
    call_deadline: float = 50.0  # a whole tool call; hosts commonly give up at 60 s
    max_retries: int = 3
    retry_after_cap: float = 30.0
    backoff_base: float = 0.5
    log_level: str = "INFO"

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that look secret by their variable's name (keys, tokens, passwords: a contact
        email is not a secret); the host adds every setting a plugin declares ``secret``."""
        out = [
            value
            for name, value in self.env.items()
            if value and name.endswith(("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD"))
        ]
        return tuple(sorted(set(out), key=len, reverse=True))

    def enabled_flag(self, plugin: str) -> bool:
        """``<NAME>_ENABLED`` for a plugin registered as ``name`` (default on)."""
        var = enabled_var(plugin)
        return parse_bool(self.env.get(var), True, var)

    def get(self, name: str) -> str | None:
        value = self.env.get(name)
        return value if value not in (None, "") else None

    def base_url_override(self, service: str) -> str | None:
        return self.base_url_overrides.get(env_name(service))


def env_name(name: str) -> str:
    """A plugin or tier name as part of a variable name: entry-point names may hold ``-`` or
    ``.``, which a shell cannot set, so anything but a letter or digit becomes ``_``."""
    return re.sub(r"[^A-Z0-9]", "_", name.upper())


def enabled_var(plugin: str) -> str:
    return f"{env_name(plugin)}_ENABLED"


def _base_url_overrides(env: Mapping[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for var, value in env.items():
        if not var.startswith(BASE_URL_PREFIX) or not value:
            continue
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not is_loopback_host(parts.hostname):
            raise SettingsError(
                f"{var} must point at a loopback host (127.0.0.0/8, ::1 or localhost) and is only for "
                f"testing; refusing to start with {parts.scheme}://{parts.hostname or '?'}"
            )
        out[var.removeprefix(BASE_URL_PREFIX)] = value.rstrip("/")
    return out


def _check_tier_orders(env: Mapping[str, str]) -> None:
    for var, value in env.items():
        if var.startswith(TIER_ORDER_PREFIX) and value.strip():
            try:
                int(value)
            except ValueError:
                raise SettingsError(f"{var}={value!r} is not an integer (a tier's order)") from None


def _load_plugins(env: Mapping[str, str]) -> frozenset[str] | None:
    raw = env.get("MEDLIT_LOAD_PLUGINS")
    if raw is None:
        return None
    names = [n.strip() for n in raw.split(",") if n.strip()]
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", n)]
    if bad:
        raise SettingsError(f"MEDLIT_LOAD_PLUGINS names {bad[0]!r}, which is not a plugin name")
    return frozenset(names)


_TOOL_PATTERN = re.compile(r"^-?[a-z0-9_*?\[\]]{1,64}$")


def _tool_patterns(env: Mapping[str, str]) -> tuple[str, ...]:
    raw = env.get("MEDLIT_TOOLS") or ""
    patterns = tuple(p.strip().lower() for p in raw.split(",") if p.strip())
    bad = [p for p in patterns if not _TOOL_PATTERN.match(p)]
    if bad:
        raise SettingsError(
            f"MEDLIT_TOOLS has {bad[0]!r}, which is not a tool name pattern; use names and wildcards such as "
            "'pubmed_*,-eutils_*'"
        )
    return patterns


_TOOLSET_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


def _toolsets(env: Mapping[str, str]) -> tuple[str, ...]:
    """``MEDLIT_TOOLSETS``: ``default`` (unset), ``all``, or family names, comma-separated; the
    names are checked against the families at start-up (the host knows them)."""
    raw = env.get("MEDLIT_TOOLSETS") or ""
    names = tuple(n.strip().lower() for n in raw.split(",") if n.strip())
    bad = [n for n in names if not _TOOLSET_NAME.match(n)]
    if bad:
        raise SettingsError(
            f"MEDLIT_TOOLSETS has {bad[0]!r}, which is not a toolset name; use default, all, or family "
            "names such as 'default,review'"
        )
    return names or ("default",)


def select_tool(name: str, patterns: tuple[str, ...]) -> tuple[bool, str]:
    """Whether ``MEDLIT_TOOLS`` lets a tool be served, and why. With any plain pattern only
    matching tools are on; ``-pattern`` then switches matching ones off (the last word wins)."""
    import fnmatch

    if not patterns:
        return True, ""
    positive = [p for p in patterns if not p.startswith("-")]
    on, why = (not positive), ("not selected by MEDLIT_TOOLS" if positive else "")
    for p in patterns:
        neg = p.startswith("-")
        if fnmatch.fnmatchcase(name, p.lstrip("-")):
            on, why = (
                (not neg),
                (f"switched off by MEDLIT_TOOLS ({p})" if neg else f"selected by MEDLIT_TOOLS ({p})"),
            )
    return on, why


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read the environment once. Raises :class:`SettingsError` on a refused configuration."""
    env = dict(os.environ if environ is None else environ)
    _check_tier_orders(env)
    level = (env.get("MEDLIT_LOG_LEVEL") or "INFO").strip().upper()
    if level not in LOG_LEVELS:
        raise SettingsError(
            f"MEDLIT_LOG_LEVEL={env['MEDLIT_LOG_LEVEL']!r} is not one of {', '.join(LOG_LEVELS)}"
        )
    return Settings(
        env=MappingProxyType(env),
        base_url_overrides=MappingProxyType(_base_url_overrides(env)),
        load_plugins=_load_plugins(env),
        tool_patterns=_tool_patterns(env),
        toolsets=_toolsets(env),
        max_body_bytes=int(parse_number(env, "MEDLIT_MAX_BODY_BYTES", 5_000_000, 10_000, 500_000_000)),
        request_timeout=parse_number(env, "MEDLIT_REQUEST_TIMEOUT", 20.0, 0.05, 600.0),
        call_deadline=parse_number(env, "MEDLIT_CALL_DEADLINE", 50.0, 0.1, 3600.0),
        max_retries=int(parse_number(env, "MEDLIT_MAX_RETRIES", 3, 0, 10)),
        retry_after_cap=parse_number(env, "MEDLIT_RETRY_AFTER_CAP", 30.0, 0.0, 600.0),
        backoff_base=parse_number(env, "MEDLIT_BACKOFF_BASE", 0.5, 0.0, 30.0),
        log_level=level,
    )
