"""A text's lines one at a time, as ``text.split("\\n")`` gives them, without the list.

Why: the tagged formats (RIS, MEDLINE) are read a line at a time, and an export of 500,000 records
has tens of millions of lines: their list held several hundred megabytes beside the text for as
long as the file was read. Split lazily, a reader holds one record's lines at a time, and a caller
that stops early (a record cap reached) has not split the rest.
"""

from __future__ import annotations

from collections.abc import Iterator


def lines(text: str) -> Iterator[str]:
    """The lines of ``text`` split at ``"\\n"`` (a final empty one after a last line break, as
    ``str.split`` gives it)."""
    start = 0
    find = text.find
    while True:
        end = find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1
