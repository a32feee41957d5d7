"""Deadlines, time limits, inbound messages, outcomes and the idempotency stores (no broker)."""

import dataclasses
import threading
import unittest

import pika

from baton_worker import (Command, Event, Failed, InMemoryIdempotencyStore, Success, Unprocessable, outcome_from_json,
                          outcome_to_json)
from baton_worker.idempotency import Claims
from baton_worker.messages import Expired, Inbound, deadline_ms, expired_by_ms, limit_for_ms


def inbound(body=b"{}", content_type="application/json", **headers):
    return Inbound("ex", "rk", False, pika.BasicProperties(content_type=content_type, headers=headers), body)


class DeadlineTest(unittest.TestCase):

    def test_deadline_is_a_whole_number_or_its_text_else_absent(self):
        self.assertEqual(deadline_ms(inbound(**{"baton-deadline": 1000})), 1000)
        self.assertEqual(deadline_ms(inbound(**{"baton-deadline": b" 1000 "})), 1000)
        for unreadable in (b"soon", b"1.5", 0, True):
            self.assertIsNone(deadline_ms(inbound(**{"baton-deadline": unreadable})), unreadable)
        self.assertIsNone(deadline_ms(inbound()))

    def test_expired_from_the_deadline_on(self):
        m = inbound(**{"baton-deadline": 1000})
        self.assertIsNone(expired_by_ms(m, 999))
        self.assertEqual(expired_by_ms(m, 1000), 0)
        self.assertEqual(expired_by_ms(m, 1250), 250)

    def test_limit_is_the_smallest_of_own_step_timeout_and_time_left(self):
        self.assertEqual(limit_for_ms(inbound(), 600_000, 0), 600_000)
        self.assertEqual(limit_for_ms(inbound(**{"baton-step-timeout": 30_000}), 600_000, 0), 30_000)
        self.assertEqual(limit_for_ms(inbound(**{"baton-step-timeout": 30_000, "baton-deadline": 5000}),
                                      600_000, 1000), 4000)
        self.assertEqual(limit_for_ms(inbound(**{"baton-step-timeout": b"junk"}), 600_000, 0), 600_000)
        self.assertEqual(limit_for_ms(inbound(**{"baton-deadline": 5000}), 600_000, 9000), 1)


class InboundTest(unittest.TestCase):

    def test_body_must_be_a_json_object_of_json_content_type(self):
        self.assertEqual(inbound(b'{"a":1}', None).json_object(), {"a": 1})  # no content type is accepted
        for body, ct in ((b"[1]", "application/json"), (b"nope", "application/json"), (b"{}", "text/plain")):
            with self.assertRaises(Unprocessable):
                inbound(body, ct).json_object()

    def test_retries_header(self):
        self.assertEqual(inbound().retries_header(), 0)
        self.assertEqual(inbound(**{"baton-retries": b"2"}).retries_header(), 2)
        with self.assertRaises(Unprocessable):
            inbound(**{"baton-retries": b"two"}).retries_header()


@dataclasses.dataclass
class PayInput:
    amount: float
    card: str = None


class CommandTest(unittest.TestCase):

    def command(self, body):
        return Command("pay", "m", "i", body, {"baton-instance": "hdr", "baton-attempt": 3}, 0, False)

    def test_input_as_a_dataclass_ignores_unknown_fields(self):
        cmd = self.command({"input": {"amount": 5, "extra": 1}})
        self.assertEqual(cmd.input_as(PayInput), PayInput(5))
        with self.assertRaises(Unprocessable):
            self.command({"input": {"card": "x"}}).input_as(PayInput)

    def test_ids_from_the_body_else_the_headers(self):
        cmd = self.command({})
        self.assertEqual((cmd.instance_id, cmd.attempt, cmd.input), ("hdr", 3, {}))
        self.assertEqual(self.command({"instanceId": "b", "attempt": 2}).instance_id, "b")


class EventTest(unittest.TestCase):

    def event(self, exchange, routing_key):
        return Event("s", "m", "c", routing_key, exchange, {}, {}, 0)

    def test_result_of_a_service_event_and_outcome_of_an_instance(self):
        self.assertEqual(self.event("payment.event.topic.ex", "order.pay.failed").result, "failed")
        self.assertIsNone(self.event("payment.event.topic.ex", "order.pay.failed").outcome)
        ended = self.event("baton.instance.topic.ex", "shop.order-fulfilment.compensated")
        self.assertEqual((ended.outcome, ended.result), ("compensated", None))


class OutcomeTest(unittest.TestCase):

    def test_round_trips_through_json(self):
        for outcome in (Success({"a": [1, 2]}), Success(), Failed("X", "why"), Expired("late")):
            self.assertEqual(outcome_from_json(outcome_to_json(outcome)), outcome)
        self.assertEqual(outcome_to_json(Failed("X", "why")), '{"result":"failed","errorCode":"X","reason":"why"}')

    def test_failed_needs_a_code(self):
        with self.assertRaises(ValueError):
            Failed("", "why")


class IdempotencyTest(unittest.TestCase):

    def test_in_memory_store_keeps_the_newest(self):
        store = InMemoryIdempotencyStore(2)
        for k in ("a", "b", "c"):
            store.remember(k, Success({"k": k}))
        self.assertIsNone(store.find("a"))
        self.assertEqual(store.find("c"), Success({"k": "c"}))

    def test_a_held_key_makes_copies_wait_until_released(self):
        claims = Claims()
        self.assertTrue(claims.try_claim("m"))
        self.assertFalse(claims.try_claim("m"))
        woken = threading.Event()
        claims.when_released("m", woken.set)
        self.assertFalse(woken.is_set())
        claims.release("m")
        self.assertTrue(woken.is_set())
        self.assertTrue(claims.try_claim("m"))
        self.assertTrue(claims.try_claim(None))  # no message_id: nothing to claim
        now = threading.Event()
        claims.when_released("free", now.set)
        self.assertTrue(now.is_set())


if __name__ == "__main__":
    unittest.main()
