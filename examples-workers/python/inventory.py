"""inventory: ``reserve`` takes stock for an order, ``release`` gives it back when the order is compensated.

Stock lives in memory (book 100, mug 50, poster 5). Input ``sku`` (default book) and ``quantity`` (default 1).
More than in stock, or an unknown item, is a business failure (OUT_OF_STOCK, UNKNOWN_ITEM). Both commands are
idempotent per order, beyond the SDK's message_id check. Run: ``python3 examples-workers/python/inventory.py``.
"""

import logging
import threading
from dataclasses import asdict, dataclass
from typing import Optional

from common import order_of, run
from baton_worker import Command, Failed, Success

LOG = logging.getLogger("inventory")


@dataclass
class ReserveInput:
    sku: Optional[str] = None
    quantity: Optional[int] = None


@dataclass
class Reservation:
    reservationId: str
    order: str
    sku: str
    quantity: int


class Inventory:

    def __init__(self, stock=None):
        self.stock = dict(stock or {"book": 100, "mug": 50, "poster": 5})
        self.reservations = {}
        self._lock = threading.Lock()

    def reserve(self, order: str, wanted: ReserveInput):
        with self._lock:
            existing = self.reservations.get(order)
            if existing:
                return Success(asdict(existing))
            sku = wanted.sku or "book"
            quantity = 1 if wanted.quantity is None else wanted.quantity
            if quantity < 1:
                return Failed("INVALID_QUANTITY", f"order {order} asks for {quantity} x {sku}")
            available = self.stock.get(sku)
            if available is None:
                return Failed("UNKNOWN_ITEM", f"no item '{sku}' in the catalogue (order {order})")
            if available < quantity:
                return Failed("OUT_OF_STOCK",
                              f"order {order} asks for {quantity} x {sku}, only {available} in stock")
            self.stock[sku] = available - quantity
            r = Reservation("res-" + order, order, sku, quantity)
            self.reservations[order] = r
            LOG.info("inventory: reserved %d x %s for order %s (%d left)", quantity, sku, order, available - quantity)
            return Success(asdict(r))

    def release(self, order: str):
        with self._lock:
            r = self.reservations.pop(order, None)
            if r is None:
                LOG.info("inventory: nothing reserved for order %s, nothing to release", order)
                return Success({"released": False})
            self.stock[r.sku] += r.quantity
            LOG.info("inventory: released %d x %s of order %s (compensation)", r.quantity, r.sku, order)
            return Success({"released": True, "reservationId": r.reservationId})


def register(worker, inventory: Inventory = None):
    inventory = inventory or Inventory()

    @worker.command("reserve")
    def reserve(cmd: Command):
        return inventory.reserve(order_of(cmd), cmd.input_as(ReserveInput))

    @worker.command("release")
    def release(cmd: Command):
        return inventory.release(order_of(cmd))


if __name__ == "__main__":
    run("inventory", register)
