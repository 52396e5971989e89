"""The matcher's unit tests' two helpers: a record that differs from a base record in the fields
given, and the matcher's verdict on two records as the set's placing would ask it."""

from __future__ import annotations

from collections.abc import Mapping

from medlit.plugins.review.identity.matching import Verdict, compare, normalize
from medlit.plugins.review.record import RecordData


def changed(base: Mapping[str, object], **changes: object) -> RecordData:
    """``base`` with ``changes`` applied (a field set to ``None`` is a field the record lacks)."""
    data = dict(base)
    data.update(changes)
    return data  # type: ignore[return-value]


def verdict(a: RecordData, b: RecordData) -> Verdict:
    return compare(normalize(a), normalize(b))
