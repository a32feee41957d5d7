"""payment: ``pay`` charges the order, ``refund`` pays it back when the order is compensated; ``authorize`` and
``void`` are order-approval's hold and its release.

The ledger lives in memory. Input ``amount`` (default 25.00) and ``card``. A card "declined" (CARD_DECLINED) and a
charge over 1000 (INSUFFICIENT_FUNDS) are business failures, never retried; the ``failed`` event also reaches the
sms service. Run: ``python3 examples-workers/python/payment.py``.
"""

import logging
import threading
import time
from dataclasses import dataclass
from typing import Optional

from common import order_of, run
from baton_worker import Command, Failed, Success

LOG = logging.getLogger("payment")

LIMIT = 1000
DEFAULT_AMOUNT = 25.00


@dataclass
class PayInput:
    amount: Optional[float] = None
    card: Optional[str] = None


@dataclass
class Entry:
    id: str
    order: str
    type: str
    amount: float
    at: float


class Ledger:

    def __init__(self):
        self.entries = []
        self._lock = threading.Lock()

    def pay(self, order: str, wanted: PayInput):
        return self._book(order, wanted, "CHARGE", "pay", "paymentId", "charged")

    def authorize(self, order: str, wanted: PayInput):
        """Holds any amount (a person approves large ones); refuses a declined card."""
        return self._book(order, wanted, "HOLD", "auth", "authorizationId", "held")

    def refund(self, order: str):
        return self._undo(order, "CHARGE", "REFUND", "refund", "refundId", "refunded")

    def void(self, order: str):
        return self._undo(order, "HOLD", "VOID", "void", "voidId", "released")

    def _book(self, order, wanted, kind, prefix, id_field, verb):
        with self._lock:
            booked = self._find(order, kind)
            if booked:
                return Success({id_field: booked.id, "amount": booked.amount})
            amount = DEFAULT_AMOUNT if wanted.amount is None else wanted.amount
            if (wanted.card or "").lower() == "declined":
                LOG.info("payment: card declined for order %s", order)
                return Failed("CARD_DECLINED", f"the card was declined by the issuer (order {order})")
            if amount > LIMIT and kind == "CHARGE":
                LOG.info("payment: %s over the limit for order %s", amount, order)
                return Failed("INSUFFICIENT_FUNDS",
                              f"amount {amount} exceeds the available funds of {LIMIT} (order {order})")
            e = Entry(f"{prefix}-{order}", order, kind, amount, time.time())
            self.entries.append(e)
            LOG.info("payment: %s %s for order %s", verb, amount, order)
            return Success({id_field: e.id, "amount": amount})

    def _undo(self, order, done_kind, undo_kind, prefix, id_field, amount_field):
        """Undoes the order's entry once (a compensation); an order with none has nothing to undo."""
        with self._lock:
            undone = self._find(order, undo_kind)
            if undone:
                return Success({id_field: undone.id, amount_field: undone.amount})
            done = self._find(order, done_kind)
            if done is None:
                LOG.info("payment: order %s has no %s, nothing to undo", order, done_kind.lower())
                return Success({amount_field: 0})
            e = Entry(f"{prefix}-{order}", order, undo_kind, done.amount, time.time())
            self.entries.append(e)
            LOG.info("payment: %s %s of order %s (compensation)", amount_field, e.amount, order)
            return Success({id_field: e.id, amount_field: e.amount})

    def _find(self, order, kind):
        return next((e for e in self.entries if e.order == order and e.type == kind), None)


def register(worker, ledger: Ledger = None):
    ledger = ledger or Ledger()

    @worker.command("pay")
    def pay(cmd: Command):
        return ledger.pay(order_of(cmd), cmd.input_as(PayInput))

    @worker.command("refund")
    def refund(cmd: Command):
        return ledger.refund(order_of(cmd))

    @worker.command("authorize")
    def authorize(cmd: Command):
        return ledger.authorize(order_of(cmd), cmd.input_as(PayInput))

    @worker.command("void")
    def void(cmd: Command):
        return ledger.void(order_of(cmd))


if __name__ == "__main__":
    run("payment", register)
