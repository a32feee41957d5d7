"""The Python SDK's conformance worker (conformance/README.md): serves command ``act`` and subscription ``heard``
with the SDK's public API only, as a user's worker would.

Run from the repository's root: ``PYTHONPATH=sdk/python python3 sdk/python/conformance/worker.py``.
"""

import json
import logging
import os
import sys
import threading
import time

from baton_worker import Command, Event, Failed, InvalidSettings, Success, Worker

_log_lock = threading.Lock()


def log_start(kind: str, message_id, case, retries: int) -> None:
    """One JSON line per handler start, flushed at once: the suite counts runs by it."""
    path = os.environ.get("BATON_CONFORMANCE_LOG")
    if not path:
        return
    line = json.dumps({"kind": kind, "messageId": message_id, "case": case, "retries": retries})
    with _log_lock, open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()


def overrides() -> dict:
    env = os.environ
    options = {}
    if env.get("BATON_CONFORMANCE_HANDLER_TIMEOUT_MS"):
        options["handler_timeout_ms"] = int(env["BATON_CONFORMANCE_HANDLER_TIMEOUT_MS"])
    if env.get("BATON_CONFORMANCE_MAX_RESULT_BYTES"):
        options["max_result_bytes"] = int(env["BATON_CONFORMANCE_MAX_RESULT_BYTES"])
    if env.get("BATON_CONFORMANCE_CONNECTION_NAME"):
        options["connection_name"] = env["BATON_CONFORMANCE_CONNECTION_NAME"]
    return options


def act(cmd: Command, started=log_start):
    """Command ``act``: what each case of the suite asks of a worker. ``started`` hears of each run as it begins."""
    case = cmd.input.get("case")
    started("command", cmd.message_id, case, cmd.retries)
    if case == "echo":
        return Success({"echo": cmd.input.get("value")})
    if case == "decline":
        return Failed("DECLINED", "declined by the conformance worker")
    if case == "crash":
        raise RuntimeError("boom")
    if case == "crash-once":
        if cmd.retries == 0:
            raise RuntimeError("boom")
        return Success({"recovered": True})
    if case == "sleep":
        time.sleep(int(cmd.input.get("ms", 0)) / 1000)
        return Success({"slept": cmd.input.get("ms")})
    if case == "big":
        return Success({"blob": "x" * int(cmd.input.get("bytes", 0))})
    return Failed("UNKNOWN_CASE", f"no case {case!r}")


def heard(event: Event, started=log_start):
    """Subscription ``heard``: fails on case ``crash``, takes anything else."""
    case = event.body.get("case") or "echo"
    started("event", event.message_id, case, event.retries)
    if case == "crash":
        raise RuntimeError("boom")


def build() -> Worker:
    worker = Worker.from_environment(**overrides())
    worker.command("act")(act)
    worker.subscription("heard")(heard)
    return worker


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(threadName)s %(message)s")
    logging.getLogger("pika").setLevel(logging.WARNING)  # its INFO lines narrate every channel
    try:
        worker = build()
    except InvalidSettings as e:
        print(e, file=sys.stderr)
        return 2
    worker.run(ready=lambda: print("READY", flush=True))  # until SIGTERM, then a graceful stop
    return 0


if __name__ == "__main__":
    sys.exit(main())
