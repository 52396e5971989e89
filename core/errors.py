"""One error model for every tool and upstream.

A :class:`MedlitError` carries a machine-readable ``reason``, a human ``message``, a
``recovery`` hint and whether the same call may succeed if ``retryable``. Upstream failures
are named ``<service>_<kind>`` (``ncbi_rate_limited``, ``europepmc_unreachable``) so a model
can tell which provider failed; ``invalid_argument`` and ``queue_full`` are shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

INVALID_ARGUMENT = "invalid_argument"
QUEUE_FULL = "queue_full"
UNAVAILABLE = "provider_unavailable"
CALL_DEADLINE_EXCEEDED = "call_deadline_exceeded"

# Upstream failure kinds, prefixed with the service family at raise time.
UNREACHABLE = "unreachable"
SERVER_ERROR = "server_error"
RATE_LIMITED = "rate_limited"
DEADLINE_EXCEEDED = "deadline_exceeded"
INVALID_RESPONSE = "invalid_response"
RESOURCE_NOT_FOUND = "resource_not_found"
BAD_REQUEST = "bad_request"
RESPONSE_TOO_LARGE = "response_too_large"
REDIRECT_REFUSED = "redirect_refused"
UPSTREAM_ERROR = "upstream_error"

_RECOVERY = {
    UNREACHABLE: "The service could not be reached; retry in a minute.",
    SERVER_ERROR: "The service answered with a server error; retry in a minute.",
    RATE_LIMITED: "The service is throttling requests; wait a few seconds and retry, or batch more ids per call.",
    DEADLINE_EXCEEDED: "The call ran out of time; retry, or ask for fewer records per call.",
    INVALID_RESPONSE: "The service sent a malformed answer; retry once, then try a narrower request.",
    RESOURCE_NOT_FOUND: "Check the identifier or database name.",
    BAD_REQUEST: "The service rejected the request; check the arguments against the tool description.",
    RESPONSE_TOO_LARGE: "Ask for fewer records per call (smaller retmax or fewer ids).",
    REDIRECT_REFUSED: "The service redirected outside its own hosts; this is not retryable from here.",
    UPSTREAM_ERROR: "The service reported an error; check the arguments, then retry.",
}
_RETRYABLE = {UNREACHABLE, SERVER_ERROR, RATE_LIMITED, DEADLINE_EXCEEDED, INVALID_RESPONSE}


@dataclass
class MedlitError(Exception):
    """An error a tool reports to the model as ``isError`` with a structured payload."""

    reason: str
    message: str
    recovery: str = ""
    retryable: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "reason": self.reason,
            "message": self.message,
            "recovery": self.recovery,
            "retryable": self.retryable,
        }
        if self.details:
            data["details"] = self.details
        return data


class ArgumentError(ValueError):
    """Raised from pydantic validators: carries a recovery hint (and optionally a more specific
    reason such as ``invalid_date``) through validation into the tool's error."""

    def __init__(self, message: str, recovery: str = "", reason: str = INVALID_ARGUMENT) -> None:
        super().__init__(message)
        self.recovery, self.reason = recovery, reason


def invalid_argument(message: str, recovery: str, **details: Any) -> MedlitError:
    """Bad input: raised before any upstream request, never retryable as is."""
    return MedlitError(INVALID_ARGUMENT, message, recovery, False, dict(details))


def upstream_error(
    service: str,
    kind: str,
    message: str,
    *,
    recovery: str | None = None,
    retryable: bool | None = None,
    **details: Any,
) -> MedlitError:
    """An upstream fault named ``<service>_<kind>`` with the kind's default hint and retryability."""
    return MedlitError(
        f"{service}_{kind}",
        message,
        recovery if recovery is not None else _RECOVERY.get(kind, ""),
        (kind in _RETRYABLE) if retryable is None else retryable,
        dict(details),
    )


def queue_full(service: str, message: str) -> MedlitError:
    return MedlitError(
        QUEUE_FULL,
        message,
        "Too many requests are waiting for this service; retry in a few seconds or make fewer parallel calls.",
        True,
        {"service": service},
    )


PLUGIN_FAULT = "plugin_error"


def plugin_fault(plugin: str, message: str, **details: Any) -> MedlitError:
    """A failure caused by a plugin's own code, named after the plugin (never "the server")."""
    return MedlitError(
        PLUGIN_FAULT,
        f"plugin {plugin or '?'}: {message}",
        f"This is a fault in the {plugin or 'unknown'} plugin; retrying will probably fail the same way. "
        "Try a different request or tool, and report it to the plugin's author.",
        False,
        {"plugin": plugin, **details},
    )


def error_kind(err: MedlitError) -> str:
    """The kind part of an upstream reason (``ncbi_rate_limited`` -> ``rate_limited``)."""
    for kind in _RECOVERY:
        if err.reason.endswith("_" + kind):
            return kind
    return err.reason
