"""Blocking: the keys under which a record is filed, so that only records sharing a key are
compared. Two copies of one work share at least one key: an identifier, the start or the end of a
title form (a typo rarely hits both), or the volume and first page."""

from __future__ import annotations

from .work import Work

SPAN = 20  # characters of a folded title in a key: long enough to keep blocks small


def block_keys(work: Work) -> frozenset[str]:
    """``work``'s blocking keys: short strings, a handful per record."""
    keys: set[str] = set()
    for name in ("pmid", "doi", "pmcid"):
        value = getattr(work, name)
        if value:
            keys.add(f"{name}:{value}")
    for form in (*work.titles, work.head):
        if len(form) >= SPAN:
            keys.add(f"t:{form[:SPAN]}")
            keys.add(f"e:{form[-SPAN:]}")
        elif form:
            # Short titles ("Editorial", "Stroke") would make giant blocks alone; a copy of the
            # work has the same year (compare() asks for it).
            keys.add(f"s:{form}|{work.year}")
    if work.volume and work.page is not None:
        keys.add(f"c:{work.volume}|{work.page}")
    return frozenset(keys)
