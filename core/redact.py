"""Keeping secrets (API keys, contact emails) out of logs, errors and tool output."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

_SECRET_PARAMS = re.compile(r"(?i)\b(api_key|email|mailto|token|key)=([^&\s\"']+)")


class Redactor:
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = tuple(s for s in secrets if s and len(s) >= 3)

    def __call__(self, text: str) -> str:
        for s in self.secrets:
            text = text.replace(s, "***")
        return _SECRET_PARAMS.sub(lambda m: f"{m.group(1)}=***", text)


class RedactingFilter(logging.Filter):
    """Applied to our stderr handler so no record can leak a secret, whatever logged it."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        record.msg, record.args = self.redactor(msg), None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = self.redactor(logging.Formatter().formatException(record.exc_info))
        return True
