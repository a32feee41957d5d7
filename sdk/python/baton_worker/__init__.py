"""Baton worker SDK for Python: consume a WorkerService's queues and answer as docs/message-contract.md says."""

try:
    import pika  # noqa: F401 - the one dependency
except ImportError as missing:  # say how to get it, rather than fail deep inside
    raise ImportError("baton_worker needs pika 1.2 or later: pip install pika (Debian: apt-get install "
                      "python3-pika, for /usr/bin/python3)") from missing

from .config import (Consumer, Credentials, InvalidSettings, Settings, Staircase, format_duration,
                     parse_duration, read_settings)
from .idempotency import IdempotencyStore, InMemoryIdempotencyStore, NoIdempotencyStore
from .messages import (Command, Event, Failed, HandlerTimeout, PayloadTooLarge, Success, Unprocessable,
                       outcome_from_json, outcome_to_json)
from .worker import Worker

__all__ = [
    "Command", "Consumer", "Credentials", "Event", "Failed", "HandlerTimeout", "IdempotencyStore",
    "InMemoryIdempotencyStore", "InvalidSettings", "NoIdempotencyStore", "PayloadTooLarge", "Settings",
    "Staircase", "Success", "Unprocessable", "Worker", "format_duration", "outcome_from_json", "outcome_to_json",
    "parse_duration", "read_settings",
]
