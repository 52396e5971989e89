"""``maxResponseCharacters``: keep whole items in order, defer the rest so a follow-up call
continues exactly where this one stopped."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")


class Deferred(BaseModel):
    """Items left out by the response budget, in the caller's own spelling."""

    model_config = ConfigDict(extra="forbid")
    ids: list[str] = Field(description="Identifiers to pass to a follow-up call, in order")
    count: int
    nextItemCharacters: int = Field(description="Size of the first deferred item, to pick the next budget")
    reason: str = "maxResponseCharacters"


@dataclass
class BudgetSplit(Generic[T]):
    kept: list[T]
    deferred: Deferred | None
    used: int  # characters of the kept items, as counted against a budget (0 without one)


def json_size(item: object) -> int:
    if isinstance(item, BaseModel):
        return len(item.model_dump_json(exclude_none=True))
    return len(json.dumps(item, ensure_ascii=False, default=str))


def apply_budget(
    items: Sequence[T],
    max_chars: int | None,
    id_of: Callable[[T], str],
    size_of: Callable[[T], int] = json_size,
    *,
    keep_first: bool = True,
) -> BudgetSplit[T]:
    """Keep items until the next would cross ``max_chars``; defer it and everything after it.

    With ``keep_first`` the first item is always returned (alone, if it is larger than the
    budget), so a call can always make progress. Without a budget nothing is sized (sizing
    serialises each item, a whole full-text article, say).
    """
    if max_chars is None:
        return BudgetSplit(list(items), None, 0)
    kept: list[T] = []
    used = 0
    for index, item in enumerate(items):
        size = size_of(item)
        if used + size > max_chars and not (keep_first and index == 0):
            rest = items[index:]
            return BudgetSplit(
                kept, Deferred(ids=[id_of(i) for i in rest], count=len(rest), nextItemCharacters=size), used
            )
        kept.append(item)
        used += size
    return BudgetSplit(kept, None, used)
