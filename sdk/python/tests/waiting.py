"""Waiting for what a worker does on its own threads, bounded, without fixed sleeps."""

import time


def eventually(check, timeout=20.0, what="condition"):
    """Polls ``check`` until it returns something truthy (Awaitility's way, bounded)."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{what} not met within {timeout} s")
        time.sleep(0.05)
