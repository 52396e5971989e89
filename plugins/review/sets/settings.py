"""A set's settings, shared by everyone who screens it (``review_sets action=settings``): the
eligibility criteria (shown beside each record and used by priority ranking when a call names
none), the inclusion and exclusion terms the desk highlights, and blind screening.

Blind screening is the server's, not the page's: while a set is blind, ``review_records`` shows a
reviewer only their own decisions and refuses the conflict view, and ``review_screen`` reports no
disagreement, so no reviewer learns another's decisions until the set's principal turns it off.
"""

from __future__ import annotations

from typing import Any

from medlit.core.plugin import MedlitError

from ..models import RecordsInput, SetSettings, SetsInput
from ..store import FINAL, Decision, Store

BLINDED = "blinded"  # the reason of a call refused because the set is being screened blind


def blinded(set_name: str, what: str) -> MedlitError:
    return MedlitError(
        BLINDED,
        f"{set_name!r} is screened blind: {what} would show reviewers each other's decisions.",
        recovery="When every reviewer has screened, turn blind screening off with review_sets "
        "action=settings blind=false, then ask again.",
        details={"set": set_name},
    )


async def settings_of(store: Store, set_id: int) -> SetSettings:
    stored = await store.settings(set_id)
    return SetSettings(
        criteria=str(stored.get("criteria", "")),
        includeTerms=list(stored.get("includeTerms", [])),
        excludeTerms=list(stored.get("excludeTerms", [])),
        blind=bool(stored.get("blind", False)),
    )


async def is_blind(store: Store, set_id: int) -> bool:
    return bool((await store.settings(set_id)).get("blind", False))


async def change_settings(store: Store, set_id: int, args: SetsInput) -> SetSettings:
    """Write the settings the call names (the others stay as they are); the settings after."""
    given: dict[str, Any] = {
        name: value
        for name, value in (
            ("criteria", args.criteria),
            ("includeTerms", _terms(args.includeTerms)),
            ("excludeTerms", _terms(args.excludeTerms)),
            ("blind", args.blind),
        )
        if value is not None
    }
    if given:
        await store.save_settings(set_id, given)
    return await settings_of(store, set_id)


def as_the_set_says(args: RecordsInput, settings: SetSettings, set_name: str) -> RecordsInput:
    """A ``review_records`` call as the set's settings allow and complete it: refused when blind
    screening forbids what it asks; ranked by the stored criteria when it names none."""
    if settings.blind and args.conflicts:
        raise blinded(set_name, "the conflict view")
    if settings.blind and args.decision and not args.reviewer:
        raise blinded(set_name, "records by decision without a reviewer (give reviewer for yours)")
    if args.order == "priority" and not args.criteria and settings.criteria:
        return args.model_copy(update={"criteria": settings.criteria})
    return args


def own_decisions(decisions: list[Decision], reviewer: str | None) -> list[Decision]:
    """What a reviewer of a blind set may see: their own decisions and the reconciled ones."""
    return [d for d in decisions if d.reviewer in (reviewer, FINAL)]


def _terms(terms: list[str] | None) -> list[str] | None:
    """Terms as a person means them: trimmed, without repeats, in the order given."""
    if terms is None:
        return None
    return list(dict.fromkeys(t.strip() for t in terms if t.strip()))
