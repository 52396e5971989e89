"""EndNote's tagged "refer" format (``.enw``; also Google Scholar's and many publishers' "EndNote"
links), read once for every plugin: a field is a line opening with ``%`` and one character
(``%0 Journal Article``, ``%A Smith, John``, ``%T ...``), a line without one continues the field
before it, and a record opens with ``%0`` (or, in the older refer files without ``%0``, after a
blank line).

Reading gives each record as its ``(tag, value)`` pairs (tags without the ``%``); what the tags
mean is the caller's.
"""

from __future__ import annotations

from collections.abc import Iterator

Fields = list[tuple[str, str]]


def read_refer(text: str) -> Iterator[Fields]:
    current: Fields = []
    after_blank = False
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            after_blank = True
            continue
        if len(stripped) >= 2 and stripped[0] == "%" and (len(stripped) == 2 or stripped[2] in " \t"):
            tag, value = stripped[1], stripped[2:].strip()
            if current and (tag == "0" or (after_blank and all(t != "0" for t, _ in current))):
                yield current
                current = []
            current.append((tag, value))
        elif current:
            tag, value = current[-1]
            current[-1] = (tag, f"{value}\n{stripped}" if value else stripped)
        after_blank = False
    if current:
        yield current
