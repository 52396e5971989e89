"""RefWorks' tagged format (its "RefWorks Tagged Format" export and import), read once for every
plugin: a field is a line opening with a two-character tag and a space (``RT Journal Article``,
``A1 Smith, John``, ``T1 ...``), a line without one continues the field before it, and each record
opens with ``RT`` (records are also divided by blank lines).

Reading gives each record as its ``(tag, value)`` pairs; what the tags mean is the caller's.
"""

from __future__ import annotations

from collections.abc import Iterator

Fields = list[tuple[str, str]]


def _tag(line: str) -> str | None:
    head = line[:2]
    if len(head) == 2 and head.isalnum() and head.isupper() and line[2:3] in (" ", "\t", ""):
        return head
    return None


def read_refworks(text: str) -> Iterator[Fields]:
    current: Fields = []
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        tag = _tag(line)
        if tag is not None:
            if tag == "RT" and current:
                yield current
                current = []
            current.append((tag, line[3:].strip()))
        elif current:
            tag, value = current[-1]
            current[-1] = (tag, f"{value} {line.strip()}" if value else line.strip())
    if current:
        yield current
