"""Requests, for plugin authors: ``from medlit.core.plugin import wire``.

``Repeated`` sends a parameter once per value (``id=1&id=2``) where a list would be comma-joined;
``call_deadline()`` is the ``time.monotonic()`` instant the running call must answer by (or
``None``); ``queue_full`` is the error of a client whose queue is full; ``MINUTE``, ``HOUR`` and
``DAY`` are seconds, for cache rules' time-to-live.
"""

from ..errors import queue_full
from ..net.request import Repeated
from ..net.wire import call_deadline
from ..types import DAY, HOUR, MINUTE

__all__ = ["DAY", "HOUR", "MINUTE", "Repeated", "call_deadline", "queue_full"]
