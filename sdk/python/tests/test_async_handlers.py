"""``async def`` handlers against the real local RabbitMQ, in a vhost of their own: answered like plain ones
(success, a raised error retried along the staircase, duplicates from the idempotency store, subscriptions), and
cancelled at their time limit. Skipped when the broker's management API is not reachable."""

import asyncio
import threading
import unittest
import uuid

from baton_worker import Command, Credentials, Event, Failed, Settings, Staircase, Success, Worker

from . import broker
from .required import needs
from .waiting import eventually

SERVICE = "pyasync"


@needs(broker.reachable(), "the RabbitMQ management API is not reachable")
class AsyncHandlerTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.vhost = broker.Vhost("py-async").__enter__()
        cls.settings = Settings.for_service(
            SERVICE, commands={"act": Staircase(2, (100,))}, subscriptions={"heard": Staircase(1, ())},
            prefetch=5, handler_timeout_ms=500, connection_name="pyasync-worker", shutdown_timeout_ms=5000)
        cls.connection = cls.vhost.connect()
        cls.channel = cls.connection.channel()
        broker.declare(cls.channel, cls.settings,
                       sources=[(f"{SERVICE}-src.event.topic.ex", f"q.{SERVICE}.heard", "#")])
        cls.observed = broker.ObservedEvents(cls.channel, cls.settings)
        cls.runs, cls.cancelled, cls.heard = [], set(), []
        cls.lock = threading.Lock()
        cls.worker = Worker(cls.settings, credentials=lambda: Credentials(cls.vhost.uri))

        @cls.worker.command("act")
        async def act(cmd: Command):
            with cls.lock:
                cls.runs.append((cmd.message_id, cmd.retries))
            await asyncio.sleep(0)  # really suspended, as an async handler is at its awaits
            case = cmd.input["case"]
            if case == "echo":
                return Success({"echo": cmd.input["value"]})
            if case == "decline":
                return Failed("DECLINED", "declined by an async handler")
            if case == "crash-once" and cmd.retries == 0:
                raise RuntimeError("boom")
            if case == "crash-once":
                return Success({"recovered": True})
            try:
                await asyncio.sleep(30)  # case "hang": far past the 500 ms limit
            except asyncio.CancelledError:
                with cls.lock:
                    cls.cancelled.add((cmd.message_id, cmd.retries, cmd.stop_requested.is_set()))
                raise
            return Success({})

        @cls.worker.subscription("heard")
        async def heard(event: Event):
            await asyncio.sleep(0)
            with cls.lock:
                cls.heard.append(event.message_id)

        cls.worker.start()

    @classmethod
    def tearDownClass(cls):
        cls.worker.stop()
        cls.connection.close()
        cls.vhost.__exit__(None, None, None)

    def parked(self, queue):
        """The properties of the messages in ``queue``, taken out of it."""
        return [properties for properties, _ in broker.drain(self.channel, queue)]

    def runs_of(self, message_id):
        with self.lock:
            return [r[1] for r in self.runs if r[0] == message_id]

    def test_an_async_handler_s_success_is_published(self):
        mid = self.observed.send({"case": "echo", "value": 7}).message_id
        key, _, body = eventually(lambda: self.observed.events_for(mid), what="success event")[0]
        self.assertEqual((key, body["output"]), ("order.act.success", {"echo": 7}))

    def test_an_async_handler_s_business_failure_is_published(self):
        mid = self.observed.send({"case": "decline"}).message_id
        key, _, body = eventually(lambda: self.observed.events_for(mid), what="failed event")[0]
        self.assertEqual((key, body["errorCode"]), ("order.act.failed", "DECLINED"))

    def test_an_error_an_async_handler_raises_is_retried(self):
        mid = self.observed.send({"case": "crash-once"}).message_id
        key, _, body = eventually(lambda: self.observed.events_for(mid), what="success event")[0]
        self.assertEqual((key, body["output"]), ("order.act.success", {"recovered": True}))
        self.assertEqual(self.runs_of(mid), [0, 1])

    def test_a_duplicate_is_answered_from_the_idempotency_store(self):
        mid = self.observed.send({"case": "echo", "value": 1}).message_id
        eventually(lambda: self.observed.events_for(mid), what="first event")
        self.observed.send({"case": "echo", "value": 1}, mid)
        eventually(lambda: len(self.observed.events_for(mid)) == 2, what="second event")
        self.assertEqual(self.runs_of(mid), [0])

    def test_an_async_handler_is_cancelled_at_its_time_limit_and_fails(self):
        mid = self.observed.send({"case": "hang"}).message_id
        key, _, body = eventually(lambda: self.observed.events_for(mid), timeout=10, what="error event")[0]
        self.assertEqual((key, body["errorCode"]), ("order.act.error", "baton_worker.messages.HandlerTimeout"))
        self.assertEqual(self.runs_of(mid), [0, 1])  # each attempt cancelled, not left running
        with self.lock:
            self.assertEqual({c for c in self.cancelled if c[0] == mid}, {(mid, 0, True), (mid, 1, True)})
        parked = eventually(lambda: [p for p in self.parked(f"q.dlx.{SERVICE}.act") if p.message_id == mid],
                            what="dead letter")
        self.assertIn("cancelled at its time limit of 500 ms", parked[0].headers["x-exception-message"])

    def test_an_async_subscription_handler_hears_its_event(self):
        mid = str(uuid.uuid4())
        self.channel.basic_publish(f"{SERVICE}-src.event.topic.ex", "order.ping.success", b"{}",
                                   broker.pika.BasicProperties(message_id=mid, content_type="application/json"))
        eventually(lambda: mid in self.heard, what="event heard")


if __name__ == "__main__":
    unittest.main()
