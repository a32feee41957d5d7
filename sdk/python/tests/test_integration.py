"""The worker against the real local RabbitMQ, in a vhost of its own: success, business failure, the staircase to
the parking lot, retry then success, duplicates, expired, oversized result, the handler time limit, a dropped
connection mid-handler, subscriptions, and a graceful stop. Skipped when the broker's management API is not
reachable."""

import json
import threading
import time
import unittest
import urllib.request
import uuid

from baton_worker import Command, Credentials, Event, Settings, Staircase, Worker
from baton_worker.routing import event_message_id

from . import broker
from .required import needs
from .conformance_worker import conformance_worker
from .waiting import eventually

CASES = {"echo", "decline", "crash", "crash-once", "sleep", "big"}

SERVICE = "pyit"
CONNECTION = "pyit-worker-under-test"


@needs(broker.reachable(), "the RabbitMQ management API is not reachable")
class WorkerIntegrationTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.vhost = broker.Vhost().__enter__()
        cls.settings = Settings.for_service(
            SERVICE,
            commands={"act": Staircase(3, (200, 400))},
            subscriptions={"heard": Staircase(3, (200,))},
            prefetch=5, handler_timeout_ms=1000, max_result_bytes=2000, connection_name=CONNECTION,
            shutdown_timeout_ms=5000, health_port=0)
        cls.connection = cls.vhost.connect()
        cls.channel = cls.connection.channel()
        broker.declare(cls.channel, cls.settings, sources=[(f"{SERVICE}-src.event.topic.ex", f"q.{SERVICE}.heard",
                                                            "*.ping.*")])
        cls.observed = broker.ObservedEvents(cls.channel, cls.settings)
        cls.runs = []
        cls.asked_to_stop = {}
        cls.runs_lock = threading.Lock()
        cls.worker = Worker(cls.settings, credentials=lambda: Credentials(cls.vhost.uri))

        def started(kind, message_id, case, retries):
            with cls.runs_lock:
                cls.runs.append((kind, message_id, case, retries))

        # The conformance worker's handlers (one table of cases), each run recorded here.
        @cls.worker.command("act")
        def act(cmd: Command):
            if cmd.input["case"] not in CASES:
                raise AssertionError(cmd.input["case"])
            result = conformance_worker.act(cmd, started)
            if cmd.input["case"] == "sleep":
                cls.asked_to_stop[cmd.message_id] = cmd.stop_requested.is_set()
            return result

        @cls.worker.subscription("heard")
        def heard(event: Event):
            conformance_worker.heard(event, lambda kind, message_id, case, retries: started_event(
                kind, message_id, case, retries, event.routing_key))

        def started_event(kind, message_id, case, retries, routing_key):
            with cls.runs_lock:
                cls.runs.append((kind, message_id, case, retries, routing_key))

        cls.worker.start()

    @classmethod
    def tearDownClass(cls):
        cls.worker.stop()
        cls.connection.close()
        cls.vhost.__exit__(None, None, None)

    # ---- helpers ----------------------------------------------------------------------------------------------

    def runs_of(self, message_id):
        with self.runs_lock:
            return [r for r in self.runs if r[1] == message_id]

    def parked(self, queue):
        return broker.drain(self.channel, queue)

    # ---- cases ------------------------------------------------------------------------------------------------

    def test_success_copies_headers_and_is_acked_after_its_confirm(self):
        sent = self.observed.send({"case": "echo", "value": 42})
        key, props, body = eventually(lambda: self.observed.events_for(sent.message_id), what="success event")[0]
        self.assertEqual(key, "order.act.success")
        self.assertEqual(body["output"], {"echo": 42})
        self.assertEqual(body["instanceId"], sent.correlation_id)
        self.assertEqual(props.correlation_id, sent.correlation_id)
        self.assertEqual(props.message_id, event_message_id(sent.message_id, "success"))
        self.assertEqual(props.delivery_mode, 2)
        self.assertEqual(props.content_type, "application/json")
        for name, value in sent.headers.items():
            if name.startswith("baton-") or name == "traceparent":
                self.assertEqual(props.headers.get(name), value, name)
        eventually(lambda: self.vhost.queue(f"q.{SERVICE}.act").get("messages_unacknowledged", 1) == 0,
                   what="nothing unacked")

    def test_business_failure_is_not_retried(self):
        sent = self.observed.send({"case": "decline"})
        key, _, body = eventually(lambda: self.observed.events_for(sent.message_id), what="failed event")[0]
        self.assertEqual(key, "order.act.failed")
        self.assertEqual((body["errorCode"], body["reason"]), ("DECLINED", "declined by the conformance worker"))
        self.assertEqual(len(self.runs_of(sent.message_id)), 1)

    def test_staircase_ends_in_the_parking_lot_with_an_error_event(self):
        sent = self.observed.send({"case": "crash"})
        key, _, body = eventually(lambda: self.observed.events_for(sent.message_id), what="error event")[0]
        self.assertEqual(key, "order.act.error")
        self.assertEqual(body["errorCode"], "RuntimeError")
        self.assertEqual([r[3] for r in self.runs_of(sent.message_id)], [0, 1, 2])
        parked = eventually(lambda: [p for p in self.parked(f"q.dlx.{SERVICE}.act")
                                     if p[0].message_id == sent.message_id], what="dead letter")
        headers = parked[0][0].headers
        self.assertEqual(headers["x-exception-message"], "boom")
        self.assertEqual(headers["x-exception-type"], "RuntimeError")
        self.assertEqual(headers["x-original-routing-key"], f"service.{SERVICE}.act")
        self.assertEqual(headers["baton-retries"], 2)

    def test_retry_then_success(self):
        sent = self.observed.send({"case": "crash-once"})
        key, _, body = eventually(lambda: self.observed.events_for(sent.message_id), what="success event")[0]
        self.assertEqual((key, body["output"]), ("order.act.success", {"recovered": True}))
        self.assertEqual([r[3] for r in self.runs_of(sent.message_id)], [0, 1])

    def test_duplicate_runs_the_handler_once(self):
        mid = str(uuid.uuid4())
        self.observed.send({"case": "echo", "value": 1}, mid)
        eventually(lambda: self.observed.events_for(mid), what="first event")
        self.observed.send({"case": "echo", "value": 1}, mid)
        events = eventually(lambda: len(self.observed.events_for(mid)) == 2 and self.observed.events_for(mid),
                            what="second event")
        self.assertEqual({e[1].message_id for e in events}, {event_message_id(mid, "success")})
        self.assertEqual(len(self.runs_of(mid)), 1)

    def test_command_past_its_deadline_is_answered_expired_and_not_run(self):
        sent = self.observed.send({"case": "echo", "value": 1},
                                  headers={"baton-deadline": int(time.time() * 1000) - 1000})
        key, _, body = eventually(lambda: self.observed.events_for(sent.message_id), what="expired event")[0]
        self.assertEqual(key, "order.act.expired")
        self.assertIn("deadline", body["reason"])
        self.assertNotIn("errorCode", body)
        self.assertEqual(self.runs_of(sent.message_id), [])
        self.assertEqual([p for p in self.parked(f"q.dlx.{SERVICE}.act") if p[0].message_id == sent.message_id],
                         [])

    def test_oversized_result_is_parked_at_once(self):
        sent = self.observed.send({"case": "big", "bytes": 5000})
        key, _, body = eventually(lambda: self.observed.events_for(sent.message_id), what="error event")[0]
        self.assertEqual((key, body["errorCode"]), ("order.act.error", "PayloadTooLarge"))
        parked = eventually(lambda: [p for p in self.parked(f"q.dlx.{SERVICE}.act")
                                     if p[0].message_id == sent.message_id], what="dead letter")
        self.assertEqual(parked[0][0].headers["x-exception-type"], "PayloadTooLarge")
        self.assertEqual(len(self.runs_of(sent.message_id)), 1)

    def test_handler_past_its_limit_runs_once_and_its_late_outcome_is_published(self):
        mid = str(uuid.uuid4())
        self.observed.send({"case": "sleep", "ms": 2500}, mid)
        eventually(lambda: self.runs_of(mid), what="handler started")
        self.observed.send({"case": "sleep", "ms": 2500}, mid)  # re-sent while it runs, past the 1 s limit
        events = eventually(lambda: len(self.observed.events_for(mid)) == 2 and self.observed.events_for(mid),
                            what="two answers")
        self.assertEqual({e[0] for e in events}, {"order.act.success"})
        self.assertEqual(events[0][2]["output"], {"slept": 2500})
        self.assertEqual(len(self.runs_of(mid)), 1)
        self.assertTrue(self.asked_to_stop[mid])  # told at its limit, though Python cannot stop it

    def test_connection_dropped_mid_handler_reconnects_and_runs_once(self):
        eventually(lambda: len(self.vhost.connections(CONNECTION)) == 2, what="connections listed")  # stats lag
        sent = self.observed.send({"case": "sleep", "ms": 3000})
        eventually(lambda: self.runs_of(sent.message_id), what="handler started")
        self.assertEqual(self.vhost.close_connections(CONNECTION), 2)  # consuming and publishing
        key, _, _ = eventually(lambda: self.observed.events_for(sent.message_id), timeout=40,
                               what="success event")[0]
        self.assertEqual(key, "order.act.success")
        eventually(lambda: self.worker.healthy, what="consuming again")
        self.assertEqual(len(self.runs_of(sent.message_id)), 1)

    def test_health_endpoint_says_up_while_consuming(self):
        eventually(lambda: self.worker.healthy, what="consuming")
        with urllib.request.urlopen(f"http://127.0.0.1:{self.worker.health_port}/healthz", timeout=5) as r:
            self.assertEqual((r.status, r.read()), (200, b"UP\n"))

    def test_subscription_events_retried_and_parked(self):
        exchange = f"{SERVICE}-src.event.topic.ex"
        ok, bad = str(uuid.uuid4()), str(uuid.uuid4())
        for mid, body in ((ok, {}), (bad, {"case": "crash"})):
            self.channel.basic_publish(exchange, "order.ping.success", json.dumps(body).encode(),
                                       broker.pika.BasicProperties(message_id=mid, content_type="application/json",
                                                                   headers={"baton-retries": 1}))
        eventually(lambda: self.runs_of(ok), what="event heard")
        parked = eventually(lambda: [p for p in self.parked(f"q.dlx.{SERVICE}.heard") if p[0].message_id == bad],
                            what="parked event")
        self.assertEqual(len(self.runs_of(ok)), 1)
        runs = self.runs_of(bad)
        self.assertEqual([r[3] for r in runs], [0, 1, 2])  # its own count, not the producer's baton-retries
        self.assertEqual({r[4] for r in runs}, {"order.ping.success"})  # the routing key kept across retries
        self.assertEqual(parked[0][0].headers["x-original-routing-key"], "order.ping.success")

    def test_unreadable_command_is_parked_at_once(self):
        mid = str(uuid.uuid4())
        self.channel.basic_publish(f"{SERVICE}.command.topic.ex", f"service.{SERVICE}.act", b"not json",
                                   broker.pika.BasicProperties(message_id=mid, headers={"baton-retries": 0}))
        parked = eventually(lambda: [p for p in self.parked(f"q.dlx.{SERVICE}.act") if p[0].message_id == mid],
                            what="dead letter")
        self.assertEqual(parked[0][0].headers["x-exception-type"], "baton_worker.messages.Unprocessable")
        self.assertEqual(self.runs_of(mid), [])


if __name__ == "__main__":
    unittest.main()
