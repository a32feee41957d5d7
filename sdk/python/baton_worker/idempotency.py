"""Idempotency by ``message_id``: outcomes remembered per key, and keys claimed while their handler runs."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Callable, Dict, List, Optional


class IdempotencyStore:
    """Remembers outcomes by key: a command's ``message_id``, or ``<subscription>:<message_id>``.

    Implement ``find`` and ``remember`` over your database to keep outcomes across restarts; for exactly-once
    effects, write the outcome in the same transaction as the effect (see ``baton_worker.postgres``). A store that
    raises on ``find`` makes the delivery a technical failure (retried), never a second run.
    """

    def find(self, key: str):
        """The outcome remembered for ``key`` (``Success``/``Failed``), or None."""
        raise NotImplementedError

    def remember(self, key: str, outcome) -> None:
        raise NotImplementedError


class InMemoryIdempotencyStore(IdempotencyStore):
    """The newest ``capacity`` outcomes of this process: covers redeliveries while it lives."""

    def __init__(self, capacity: int = 10_000):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._outcomes: "OrderedDict[str, object]" = OrderedDict()
        self._lock = threading.Lock()

    def find(self, key: str):
        with self._lock:
            return self._outcomes.get(key)

    def remember(self, key: str, outcome) -> None:
        with self._lock:
            self._outcomes[key] = outcome
            self._outcomes.move_to_end(key)
            while len(self._outcomes) > self._capacity:
                self._outcomes.popitem(last=False)


class NoIdempotencyStore(IdempotencyStore):
    """Remembers nothing: every delivery runs its handler."""

    def find(self, key: str):
        return None

    def remember(self, key: str, outcome) -> None:
        pass


class Claims:
    """Keys being handled right now in this process.

    A duplicate can arrive while its first delivery is still in the handler (after a connection drop the broker
    redelivers at once; a re-sent command lands beside it). It must not run the handler a second time: it waits
    aside until the first is over, then finds its outcome in the store. Over means the handler really returned:
    one past its time limit keeps its claim until then, since it may still be applying its effect.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._waiting: Dict[str, List[Callable[[], None]]] = {}

    def try_claim(self, key: Optional[str]) -> bool:
        """Claims ``key`` if no one holds it (a None key claims nothing and always succeeds)."""
        if key is None:
            return True
        with self._lock:
            if key in self._waiting:
                return False
            self._waiting[key] = []
            return True

    def when_released(self, key: str, callback: Callable[[], None]) -> None:
        """Calls ``callback`` once whoever holds ``key`` lets it go (at once when no one does)."""
        with self._lock:
            if key in self._waiting:
                self._waiting[key].append(callback)
                return
        callback()

    def release(self, key: Optional[str]) -> None:
        if key is None:
            return
        with self._lock:
            callbacks = self._waiting.pop(key, [])
        for callback in callbacks:
            try:
                callback()
            except Exception:  # one waiting copy must not keep the holder from settling its own delivery
                logging.getLogger("baton_worker").exception("taking up a waiting copy of %s failed", key)

    def held(self, key: str) -> bool:
        with self._lock:
            return key in self._waiting
