"""The staircase, dead letters and result events, as publishes (no broker)."""

import json
import unittest

import pika

from baton_worker import Failed, PayloadTooLarge, Settings, Staircase, Success, Unprocessable
from baton_worker.messages import Expired, Inbound
from baton_worker.routing import RetryRouter, event_message_id, result_event

SETTINGS = Settings.for_service("payment", commands={"pay": Staircase(4, (30_000, 120_000))},
                                subscriptions={"notify": Staircase(2, (1000,))})
PAY, NOTIFY = SETTINGS.commands[0], SETTINGS.subscriptions[0]


def message(retries=None, exchange="payment.command.topic.ex", routing_key="service.payment.pay", **headers):
    h = {"baton-entity": b"order", "baton-action": b"pay", "baton-instance": b"i-1", "baton-step": b"charge",
         "baton-attempt": 1, "traceparent": b"00-abc-def-01", "baggage": b"tenant=a", "other": b"x"}
    if retries is not None:
        h["baton-retries"] = retries
    h.update(headers)
    props = pika.BasicProperties(message_id="m-1", correlation_id="i-1", content_type="application/json",
                                 delivery_mode=2, headers=h)
    return Inbound(exchange, routing_key, False, props, b'{"instanceId":"i-1","step":"charge","attempt":1}')


class StaircaseTest(unittest.TestCase):

    def test_retries_climb_the_tiers_and_the_last_delay_repeats(self):
        router = RetryRouter(SETTINGS, PAY)
        keys = []
        for r in range(3):
            decision = router.on_failure(message(r), r, RuntimeError("boom"))
            self.assertEqual(len(decision.publishes), 1)
            retry = decision.publishes[0]
            self.assertEqual(retry.exchange, "payment.retry.direct.ex")
            self.assertEqual(retry.properties.headers["baton-retries"], r + 1)
            self.assertEqual(retry.properties.message_id, "m-1")
            keys.append(retry.routing_key)
        self.assertEqual(keys, ["q.retry.payment.pay.30s", "q.retry.payment.pay.2m", "q.retry.payment.pay.2m"])

    def test_spent_staircase_parks_with_why_and_where_then_an_error_event(self):
        router = RetryRouter(SETTINGS, PAY)
        m = message(3)
        decision = router.on_failure(m, 3, RuntimeError("boom"),
                                     lambda outcome: result_event(SETTINGS, m, None, outcome))
        parked, event = decision.publishes
        self.assertEqual((parked.exchange, parked.routing_key), ("payment.retry.direct.ex", "q.dlx.payment.pay"))
        h = parked.properties.headers
        self.assertEqual((h["x-exception-message"], h["x-exception-type"]), ("boom", "RuntimeError"))
        self.assertEqual((h["x-original-routing-key"], h["x-original-exchange"]),
                         ("service.payment.pay", "payment.command.topic.ex"))
        self.assertEqual((h["baton-retries"], h["baton-instance"]), (3, b"i-1"))
        self.assertEqual(event.routing_key, "order.pay.error")
        self.assertEqual(json.loads(event.body)["errorCode"], "RuntimeError")

    def test_unprocessable_and_too_large_are_parked_at_once(self):
        router = RetryRouter(SETTINGS, PAY)
        for failure in (Unprocessable("not JSON"), PayloadTooLarge("big")):
            decision = router.on_failure(message(0), 0, failure)
            self.assertEqual([p.routing_key for p in decision.publishes], ["q.dlx.payment.pay"])
        self.assertEqual(router.on_failure(message(0), 0, PayloadTooLarge("big")).publishes[0]
                         .properties.headers["x-exception-type"], "PayloadTooLarge")

    def test_a_failure_of_the_sdk_itself_parks_at_once_without_an_event(self):
        for m, retries in ((message(1), 1), (message(b"junk"), 0)):
            publishes = RetryRouter(SETTINGS, PAY).park(m, KeyError("bug")).publishes
            self.assertEqual([p.routing_key for p in publishes], ["q.dlx.payment.pay"])
            self.assertEqual(publishes[0].properties.headers["baton-retries"], retries)

    def test_a_retry_keeps_every_header_but_the_count_deadline_included(self):
        retry = RetryRouter(SETTINGS, PAY).on_failure(message(0, **{"baton-deadline": 123}), 0, RuntimeError()) \
            .publishes[0]
        self.assertEqual(retry.properties.headers["baton-deadline"], 123)
        self.assertEqual(retry.properties.headers["other"], b"x")

    def test_subscription_retry_records_where_the_event_came_from(self):
        m = message(None, exchange="shop.event.topic.ex", routing_key="order.pay.failed")
        retry = RetryRouter(SETTINGS, NOTIFY).on_failure(m, 0, RuntimeError()).publishes[0]
        self.assertEqual(retry.routing_key, "q.retry.payment.notify.1s")
        self.assertEqual((retry.properties.headers["x-original-exchange"],
                          retry.properties.headers["x-original-routing-key"]),
                         ("shop.event.topic.ex", "order.pay.failed"))
        back = message(1, exchange="", routing_key="q.payment.notify", **retry.properties.headers)
        self.assertEqual(back.original_routing_key, "order.pay.failed")
        parked = RetryRouter(SETTINGS, NOTIFY).on_failure(back, 1, RuntimeError()).publishes
        self.assertEqual([p.routing_key for p in parked], ["q.dlx.payment.notify"])


class ResultEventTest(unittest.TestCase):

    def test_copies_baton_headers_trace_and_correlation_only(self):
        event = result_event(SETTINGS, message(2, **{"baton-deadline": 99}), None, Success({"paymentId": "p"}))
        self.assertEqual(event.exchange, "payment.event.topic.ex")
        self.assertEqual(event.routing_key, "order.pay.success")
        h = event.properties.headers
        self.assertEqual(set(h), {"baton-entity", "baton-action", "baton-instance", "baton-step", "baton-attempt",
                                  "baton-retries", "baton-deadline", "traceparent", "baggage"})
        p = event.properties
        self.assertEqual((p.correlation_id, p.content_type, p.delivery_mode), ("i-1", "application/json", 2))
        self.assertEqual(json.loads(event.body),
                         {"instanceId": "i-1", "step": "charge", "attempt": 1, "output": {"paymentId": "p"}})

    def test_the_handler_span_replaces_the_copied_trace(self):
        event = result_event(SETTINGS, message(0), None, Success(), {"traceparent": "00-new-span-01"})
        self.assertEqual(event.properties.headers["traceparent"], "00-new-span-01")

    def test_failed_and_expired_bodies(self):
        failed = json.loads(result_event(SETTINGS, message(0), {"instanceId": "b"}, Failed("LIMIT", "too much")).body)
        self.assertEqual((failed["instanceId"], failed["errorCode"], failed["reason"]), ("b", "LIMIT", "too much"))
        expired = result_event(SETTINGS, message(0), None, Expired("late"))
        self.assertEqual(expired.routing_key, "order.pay.expired")
        self.assertNotIn("errorCode", json.loads(expired.body))

    def test_event_message_id_is_the_java_sdk_name_based_uuid(self):
        # java.util.UUID.nameUUIDFromBytes("baton-event/cmd-1/success".getBytes(UTF_8))
        self.assertEqual(event_message_id("cmd-1", "success"), "e7a1e8cb-071d-3a5b-bce5-7fc180272ed5")
        self.assertNotEqual(event_message_id("cmd-1", "failed"), event_message_id("cmd-1", "success"))
        self.assertNotEqual(event_message_id(None, "success"), event_message_id(None, "success"))


if __name__ == "__main__":
    unittest.main()
