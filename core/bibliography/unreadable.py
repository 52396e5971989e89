"""The one error the readers raise for input that is not a readable file of their format."""

from __future__ import annotations


class Unreadable(ValueError):
    """The text cannot be read at all: ``reason`` is a short code (``refused`` for a document
    refused for safety, ``malformed`` for a broken one, ``unknown_format`` for another format),
    ``message`` says what was found."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message
