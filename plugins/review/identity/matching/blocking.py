"""Blocking: the keys under which a record is filed, so that only records sharing a key are
compared. Two copies of one work share at least one key: an identifier, the start or the end of a
title form (a typo rarely hits both) within a year of each other, the first author with the
title's first letters, or the volume and first page."""

from __future__ import annotations

from .work import Work

SPAN = 20  # characters of a folded title in a key: long enough to keep blocks small
# A key more records share than this says little about any two of them ("Smith J" with a common
# title start, volume 12 page 1 in a large set) and would make every new record meet hundreds:
# such a key is not used to find candidates (an identifier key always is). The ASySD sets' largest
# block is 83 records.
MAX_BLOCK = 200
IDENTIFIER_KEYS = ("pmid:", "doi:", "pmcid:")


def usable(key: str, size: int) -> bool:
    """Whether a key shared by ``size`` records is used to find candidates."""
    return size <= MAX_BLOCK or key.startswith(IDENTIFIER_KEYS)


def block_keys(work: Work) -> frozenset[str]:
    """``work``'s blocking keys: short strings, a handful per record."""
    keys: set[str] = set()
    for name in ("pmid", "doi", "pmcid"):
        value = getattr(work, name)
        if value:
            keys.add(f"{name}:{value}")
    # A title's start or end alone makes big blocks ("...traumatic brain injury", "...: a
    # randomised controlled trial"); with the year they stay small. Copies of a work may be a
    # year apart (epub and print), so a record files under its year and the next: two records
    # a year apart share the later one.
    years = ("?",) if work.year is None else (str(work.year), str(work.year + 1))
    for form in (*work.titles, work.head):
        for year in years:
            if len(form) >= SPAN:
                keys.add(f"t:{form[:SPAN]}|{year}")
                keys.add(f"e:{form[-SPAN:]}|{year}")
            elif form:
                keys.add(f"s:{form}|{year}")
    if work.first_author and work.title:
        keys.add(f"a:{work.first_author}|{work.title[:10]}")
    if work.volume and work.page is not None:
        keys.add(f"c:{work.volume}|{work.page}")
    return frozenset(keys)
