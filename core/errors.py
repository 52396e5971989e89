"""One error model for every tool and upstream.

A :class:`MedlitError` is immutable. It carries a ``kind`` (``rate_limited``, ``invalid_date``),
the ``service`` it concerns for upstream faults (``""`` otherwise), a human ``message``, a
``recovery`` hint and whether the same call may succeed later (``retryable``). Its ``reason``,
what a model reads, is derived: ``<service>_<kind>`` for an upstream fault (``ncbi_rate_limited``,
so a model can tell which provider failed), the kind alone otherwise (``invalid_argument``).

Every kind is registered once with its default hint and retryability (:data:`KINDS`); a plugin
registers its own through ``PluginInfo.error_kinds``. A change is a copy: ``err.but(retryable=True)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class ErrorKind:
    """A registered error kind. ``upstream`` kinds are named per service (``<service>_<kind>``)
    and need one; the others stand alone."""

    name: str
    recovery: str
    retryable: bool = False
    upstream: bool = False


# -- core's kinds ----------------------------------------------------------------------------
INVALID_ARGUMENT = "invalid_argument"
QUEUE_FULL = "queue_full"
UNAVAILABLE = "provider_unavailable"
CALL_DEADLINE_EXCEEDED = "call_deadline_exceeded"
PLUGIN_FAULT = "plugin_error"

# Upstream faults, named after the service that failed.
UNREACHABLE = "unreachable"
TIMED_OUT = "timeout"  # connected, but no answer within the request timeout
SERVER_ERROR = "server_error"
RATE_LIMITED = "rate_limited"
DEADLINE_EXCEEDED = "deadline_exceeded"
INVALID_RESPONSE = "invalid_response"
RESOURCE_NOT_FOUND = "resource_not_found"
BAD_REQUEST = "bad_request"
RESPONSE_TOO_LARGE = "response_too_large"
REDIRECT_REFUSED = "redirect_refused"
UPSTREAM_ERROR = "upstream_error"
ADDRESS_REFUSED = "address_refused"  # the open-web client's guard
ACCESS_DENIED = "access_denied"
STORE_UNAVAILABLE = "store_unavailable"  # the host's store (MEDLIT_STORE) could not be opened or used

_FIX = "Fix the named fields (see the tool's input schema and field descriptions) and call again."

_CORE_KINDS = (
    ErrorKind(INVALID_ARGUMENT, _FIX),
    ErrorKind(
        QUEUE_FULL,
        "Too many requests are waiting for this service; retry in a few seconds or make fewer parallel calls.",
        True,
    ),
    ErrorKind(UNAVAILABLE, "Enable the plugin or tool named in the message, then restart the server."),
    ErrorKind(
        CALL_DEADLINE_EXCEEDED,
        "Retry the call; if it keeps running out of time, ask for fewer records per call.",
        True,
    ),
    ErrorKind(
        PLUGIN_FAULT,
        "This is a fault in the plugin named in the message; retrying will probably fail the same way. "
        "Try a different request or tool, and report it to the plugin's author.",
    ),
    # Argument problems shared by many tools (raised through ArgumentError with this reason).
    ErrorKind("malformed_id", "Check the identifier's form against the field's description."),
    ErrorKind("too_many_ids", "Split the identifiers over several calls."),
    ErrorKind("empty_id_list", "Give at least one identifier."),
    ErrorKind("invalid_date", "Give dates as YYYY, YYYY/MM or YYYY/MM/DD."),
    ErrorKind("invalid_date_range", "Give a start date on or before the end date."),
    ErrorKind("blank_query", "Give a non-empty query."),
    ErrorKind("query_too_long", "Shorten the query."),
    # Upstream faults.
    ErrorKind(UNREACHABLE, "The service could not be reached; retry in a minute.", True, True),
    ErrorKind(
        TIMED_OUT,
        "The service did not answer within the request timeout; retry in a minute, or ask for less per call.",
        True,
        True,
    ),
    ErrorKind(SERVER_ERROR, "The service answered with a server error; retry in a minute.", True, True),
    ErrorKind(
        RATE_LIMITED,
        "The service is throttling requests; wait a few seconds and retry, or batch more ids per call.",
        True,
        True,
    ),
    ErrorKind(
        DEADLINE_EXCEEDED, "The call ran out of time; retry, or ask for fewer records per call.", True, True
    ),
    ErrorKind(
        INVALID_RESPONSE,
        "The service sent a malformed answer; retry once, then try a narrower request.",
        True,
        True,
    ),
    ErrorKind(RESOURCE_NOT_FOUND, "Check the identifier or database name.", False, True),
    ErrorKind(
        BAD_REQUEST,
        "The service rejected the request; check the arguments against the tool description.",
        False,
        True,
    ),
    ErrorKind(
        RESPONSE_TOO_LARGE, "Ask for fewer records per call (smaller retmax or fewer ids).", False, True
    ),
    ErrorKind(
        REDIRECT_REFUSED,
        "The service redirected outside its own hosts; this is not retryable from here.",
        False,
        True,
    ),
    ErrorKind(UPSTREAM_ERROR, "The service reported an error; check the arguments, then retry.", False, True),
    ErrorKind(
        ADDRESS_REFUSED, "The copy is on a host this server may not reach; try another source.", False, True
    ),
    ErrorKind(ACCESS_DENIED, "The host refused access to this copy; try another source.", False, True),
    ErrorKind(STORE_UNAVAILABLE, "Check MEDLIT_STORE (sqlite:///path or postgresql://...).", True),
)

_registry: dict[str, ErrorKind] = {k.name: k for k in _CORE_KINDS}
KINDS: Mapping[str, ErrorKind] = MappingProxyType(_registry)
"""Every registered kind by name (core's, then those plugins declare): read-only."""


def register_kinds(kinds: Iterable[ErrorKind], owner: str) -> None:
    """Add a plugin's kinds (``PluginInfo.error_kinds``; the host calls this at load). Declaring a
    kind again with the same meaning is harmless; with another meaning it is refused."""
    for kind in kinds:
        if not isinstance(kind, ErrorKind):
            raise ValueError(f"{owner}: error_kinds holds a {type(kind).__name__}, not an ErrorKind")
        known = _registry.get(kind.name)
        if known is not None and known != kind:
            raise ValueError(f"{owner}: error kind {kind.name!r} is already registered with another meaning")
        _registry[kind.name] = kind


class MedlitError(Exception):
    """An error a tool reports to the model as ``isError`` with a structured payload.

    ``MedlitError(kind, message, service=..., recovery=..., retryable=..., details=...)``: an
    unset ``recovery`` or ``retryable`` takes the kind's registered default. An unregistered kind
    must give both (it is a bug otherwise: the tests list every kind the code raises)."""

    __slots__ = ("details", "kind", "message", "recovery", "retryable", "service")
    kind: str
    message: str
    service: str
    recovery: str
    retryable: bool
    details: Mapping[str, Any]

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        service: str = "",
        recovery: str | None = None,
        retryable: bool | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        spec = _registry.get(kind)
        if spec is None and (recovery is None or retryable is None):
            raise ValueError(f"error kind {kind!r} is not registered (declare it in PluginInfo.error_kinds)")
        if spec is not None and spec.upstream and not service:
            raise ValueError(f"error kind {kind!r} names an upstream fault: give the service")
        super().__init__(message)
        values = {
            "kind": kind,
            "message": message,
            "service": service,
            "recovery": recovery if recovery is not None else spec.recovery if spec else "",
            "retryable": bool(retryable if retryable is not None else spec.retryable if spec else False),
            "details": MappingProxyType(dict(details or {})),
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("__"):  # the interpreter's own bookkeeping (__traceback__, __notes__, ...)
            super().__setattr__(name, value)
            return
        raise AttributeError(f"MedlitError is immutable: use err.but({name}=...)")

    def __reduce__(self) -> Any:
        return (_rebuild, (self._fields(), type(self)))

    def _fields(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "service": self.service,
            "recovery": self.recovery,
            "retryable": self.retryable,
            "details": dict(self.details),
        }

    @property
    def reason(self) -> str:
        """What a model reads: ``<service>_<kind>`` for an upstream fault, else the kind."""
        return f"{self.service}_{self.kind}" if self.service else self.kind

    def but(self, **changes: Any) -> MedlitError:
        """A copy with some fields changed (``kind``, ``message``, ``service``, ``recovery``,
        ``retryable``, ``details``)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"MedlitError has no field {', '.join(sorted(unknown))}")
        fields = {**self._fields(), **changes}
        copy = _rebuild(fields, type(self))  # a subclass (a plugin's marker) stays one
        copy.__cause__, copy.__suppress_context__ = self.__cause__, self.__suppress_context__
        return copy

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"MedlitError({self.reason!r}, {self.message!r})"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "reason": self.reason,
            "message": self.message,
            "recovery": self.recovery,
            "retryable": self.retryable,
        }
        if self.details:
            data["details"] = dict(self.details)
        return data


def _rebuild(fields: Mapping[str, Any], cls: type[MedlitError] = MedlitError) -> MedlitError:
    f = dict(fields)
    err = cls.__new__(cls)
    MedlitError.__init__(
        err,
        f.pop("kind"),
        f.pop("message"),
        service=f["service"],
        recovery=f["recovery"],
        retryable=f["retryable"],
        details=f["details"],
    )
    return err


class ArgumentError(ValueError):
    """Raised from pydantic validators: carries a recovery hint (and optionally a more specific
    registered kind such as ``invalid_date``) through validation into the tool's error."""

    def __init__(self, message: str, recovery: str = "", reason: str = INVALID_ARGUMENT) -> None:
        super().__init__(message)
        self.recovery, self.reason = recovery, reason


def invalid_argument(
    message: str, recovery: str, *, kind: str = INVALID_ARGUMENT, **details: Any
) -> MedlitError:
    """Bad input: raised before any upstream request, never retryable as is."""
    return MedlitError(kind, message, recovery=recovery, retryable=False, details=details)


def upstream_error(
    service: str,
    kind: str,
    message: str,
    *,
    recovery: str | None = None,
    retryable: bool | None = None,
    **details: Any,
) -> MedlitError:
    """An upstream fault of ``service``, reported as ``<service>_<kind>``, with the kind's
    registered hint and retryability unless given."""
    return MedlitError(
        kind, message, service=service, recovery=recovery, retryable=retryable, details=details
    )


def queue_full(service: str, message: str) -> MedlitError:
    return MedlitError(QUEUE_FULL, message, details={"service": service})


def plugin_fault(plugin: str, message: str, **details: Any) -> MedlitError:
    """A failure caused by a plugin's own code, named after the plugin (never "the server")."""
    return MedlitError(
        PLUGIN_FAULT,
        f"plugin {plugin or '?'}: {message}",
        recovery=f"This is a fault in the {plugin or 'unknown'} plugin; retrying will probably fail the same way. "
        "Try a different request or tool, and report it to the plugin's author.",
        details={"plugin": plugin, **details},
    )
