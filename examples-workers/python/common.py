"""What the Python example workers share: finding the SDK in a checkout, the order a command is about, and running
a worker as its container would (configured by the environment, exit code 2 on a missing variable)."""

import logging
import os
import sys

try:
    import baton_worker  # noqa: F401 - installed as sdk/python/README.md says
except ImportError:  # run from a checkout: the SDK next door
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sdk", "python"))

from baton_worker import Command, InvalidSettings, Worker  # noqa: E402


def order_of(cmd: Command) -> str:
    """The order: the instance's business key (the order id), else the instance id."""
    return cmd.business_key or cmd.instance_id


def run(service: str, register) -> None:
    """Configured by the BATON_* variables the operator injects; runs until SIGTERM, then stops gracefully."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("pika").setLevel(logging.WARNING)  # its INFO lines narrate every channel
    try:
        worker = Worker.from_environment()
        register(worker)
        worker.run(ready=lambda: logging.getLogger(service).info(
            "%s worker consuming %s", service, ", ".join(c.queue for c in worker.settings.consumers)))
    except (InvalidSettings, ValueError) as e:
        print(f"{service} worker: {e}", file=sys.stderr)
        sys.exit(2)
    except ConnectionError as e:
        print(f"{service} worker: {e}", file=sys.stderr)
        sys.exit(1)
