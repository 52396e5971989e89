"""What the tagged formats' readers share (RIS, MEDLINE, Ovid tagged, refer, RefWorks): a
record's fields gathered by tag, each tag's values in file order with the empty ones left out,
and the first value of the first tag that has one."""

from __future__ import annotations

from collections.abc import Iterable

Fields = list[tuple[str, str]]
Values = dict[str, list[str]]


def by_tag(fields: Iterable[tuple[str, str]], into: Values | None = None) -> Values:
    """``fields`` gathered by tag (into ``into`` when given: a record read in several parts)."""
    values: Values = {} if into is None else into
    for tag, value in fields:
        if value:
            values.setdefault(tag, []).append(value)
    return values


def first_of(values: Values, *tags: str) -> str | None:
    """The first value of the first of ``tags`` the record has."""
    for tag in tags:
        if values.get(tag):
            return values[tag][0]
    return None
