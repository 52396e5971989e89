"""The providers a call asks (the reference matchers, then the notice providers): what each was
asked and how it went (:class:`Trail`), which becomes the answer's ``providers`` report and the
notes that tell a failed source from one that answered "no"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from medlit.core.plugin import Catalog, Declared, MedlitError, NoticeProvider, ReferenceMatcher
from medlit.core.plugin import errors as E

from .models import ProviderReport

P = TypeVar("P", ReferenceMatcher, NoticeProvider)


@dataclass
class Trail:
    """What one provider was asked and how it went."""

    name: str
    kind: str
    plugin: str
    active: bool
    detail: str = ""
    variable: str | None = None
    stages: list[str] = field(default_factory=list)
    asked_keys: set[str] = field(default_factory=set)
    late_keys: set[str] = field(default_factory=set)  # references the call's deadline kept from it
    error: MedlitError | None = None

    def report(self) -> ProviderReport:
        if not self.active:
            outcome = "not-queried"
        elif self.error is not None:
            outcome = "failed"
        else:
            outcome = "answered" if self.stages else "not-queried"
        detail = self.detail
        if self.active and not self.stages and not detail:
            detail = "nothing to ask it"
        return ProviderReport(
            provider=self.name,
            kind="matcher" if self.kind == "matcher" else "notices",
            outcome=outcome,  # type: ignore[arg-type]
            stages=self.stages,
            detail=detail,
            reason=self.error.reason if self.error else None,
            variable=self.variable if not self.active else None,
        )


def trails(declared: Sequence[Declared[P]], kind: Literal["matcher", "notices"]) -> list[tuple[P, Trail]]:
    """Each declared provider with a fresh trail: an inactive one keeps why it is off and the variable
    that would switch it on."""
    return [
        (
            p,
            Trail(
                p.name, kind, p.plugin, rec.active, "" if rec.active else rec.detail, rec.waiting_on or None
            ),
        )
        for p, rec in declared
    ]


def require_a_matcher(matchers: list[tuple[ReferenceMatcher, Trail]], catalog: Catalog) -> None:
    """Refuse the call when no matcher can be asked: every reference would read as not found."""
    if any(t.active for _, t in matchers):
        return
    raise MedlitError(
        E.UNAVAILABLE,
        "No reference matcher is active: "
        + ("; ".join(f"{t.name} ({t.detail})" for _, t in matchers) or "none is installed")
        + (f" {catalog.switched_off_hint()}" if catalog.switched_off else ""),
        recovery="Enable a plugin that declares one (see medlit plugins), then restart the server.",
    )


def switched_off(catalog: Catalog) -> list[str]:
    """The plugins switched off by their variable, each with the variable that enables it."""
    return [f"{p.name} (switched off: {p.waiting_on}=true enables it)" for p in catalog.switched_off]
