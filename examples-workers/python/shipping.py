"""shipping: ``ship`` books the parcel with a carrier that is flaky on demand.

With input ``flakyShipping: n`` the first n deliveries of a command raise ``CarrierUnavailable`` (a technical
failure): the SDK climbs the staircase of RetryPolicy ``quick`` (1s, 2s, 4s). n <= 3 ends in success; n >= 4 spends
the 4 attempts: the command is parked in ``q.dlx.shipping.ship``, an ``error`` event fails the step and the order is
compensated. Deliveries are counted per message_id. Run: ``python3 examples-workers/python/shipping.py``.
"""

import logging
import threading
import time
from dataclasses import dataclass
from typing import Optional

from common import order_of, run
from baton_worker import Command, Success

LOG = logging.getLogger("shipping")


class CarrierUnavailable(Exception):
    """The simulated carrier did not answer: a technical failure, retried along the staircase."""


@dataclass
class ShipInput:
    flakyShipping: Optional[int] = None


@dataclass
class Delivery:
    message_id: str
    order: str
    retries: int
    delivery: int
    failed: bool
    at: float


class Carrier:

    def __init__(self):
        self.by_message = {}
        self.deliveries = []
        self._lock = threading.Lock()

    def ship(self, message_id: str, order: str, retries: int, flaky: int):
        with self._lock:
            n = self.by_message[message_id] = self.by_message.get(message_id, 0) + 1
            fails = n <= flaky
            self.deliveries.append(Delivery(message_id, order, retries, n, fails, time.time()))
        if fails:
            LOG.info("shipping: the carrier does not answer for order %s (simulated: delivery %d of %d fails, "
                     "baton-retries %d)", order, n, flaky, retries)
            raise CarrierUnavailable(f"carrier API timed out (simulated: flakyShipping={flaky}, delivery {n})")
        tracking = "TRK-" + order.upper()
        LOG.info("shipping: parcel for order %s booked, tracking %s (delivery %d, baton-retries %d)", order,
                 tracking, n, retries)
        return Success({"trackingNumber": tracking, "carrier": "ParcelCo"})


def register(worker, carrier: Carrier = None):
    carrier = carrier or Carrier()

    @worker.command("ship")
    def ship(cmd: Command):
        wanted = cmd.input_as(ShipInput)
        return carrier.ship(cmd.message_id, order_of(cmd), cmd.retries, wanted.flakyShipping or 0)


if __name__ == "__main__":
    run("shipping", register)
