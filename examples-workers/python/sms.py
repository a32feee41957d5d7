"""sms: not a step but a subscriber. Its queue ``q.sms.order_pay_failed_notify`` is bound to
``payment.event.topic.ex`` with ``*.pay.failed``, so every refused payment reaches it; it "texts" the customer
(records and logs the text). Run: ``python3 examples-workers/python/sms.py``.
"""

import logging
import threading
import time
from dataclasses import dataclass

from common import run
from baton_worker import Event

LOG = logging.getLogger("sms")


@dataclass
class Text:
    instance_id: str
    routing_key: str
    error_code: str
    text: str
    at: float


class Texts:

    def __init__(self):
        self.sent = []
        self._lock = threading.Lock()

    def payment_failed(self, event: Event) -> Text:
        body = event.body
        code = body.get("errorCode") or "UNKNOWN"
        text = Text(body.get("instanceId") or event.header("baton-instance"), event.routing_key, code,
                    f"We could not take payment for your order: {body.get('reason', '')} [{code}]. Nothing was "
                    "charged; please try another card.", time.time())
        with self._lock:
            self.sent.append(text)
        LOG.info('sms: texted the customer of instance %s: "%s"', text.instance_id, text.text)
        return text


def register(worker, texts: Texts = None):
    texts = texts or Texts()

    @worker.subscription("order_pay_failed_notify")
    def notify(event: Event):
        texts.payment_failed(event)


if __name__ == "__main__":
    run("sms", register)
