"""The two broker connections: one consuming, one publishing with confirms (a blocked or closed publisher never
stalls the consumers). Both reconnect by themselves, reading the credentials anew each time."""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import pika
import pika.exceptions

from .config import Consumer, Credentials

LOG = logging.getLogger("baton_worker")

MAX_BACKOFF_S = 30.0


class Unroutable(Exception):
    """The broker returned a mandatory publish: no queue is bound for its routing key."""


class NotConfirmed(Exception):
    """The broker nacked a publish, or the publisher connection failed before its confirm."""


def _backoff(previous: float, first: float) -> float:
    return first if previous <= 0 else min(previous * 2, MAX_BACKOFF_S)


class ConfirmedPublisher:
    """Publishes on a connection of its own, one confirm channel, one thread (pika connections are not thread-safe).

    ``publish`` returns a Future that completes when the broker confirmed the message, or fails with
    ``Unroutable`` / ``NotConfirmed``; the caller decides whether to publish again.
    """

    def __init__(self, credentials: Callable[[], Credentials], connection_name: str):
        self._credentials = credentials
        self._name = connection_name
        self._requests: "queue.Queue" = queue.Queue()
        self._closed = threading.Event()
        self._connection: Optional[pika.BlockingConnection] = None
        self._channel = None
        self._thread = threading.Thread(target=self._run, name="baton-publisher", daemon=True)
        self._thread.start()

    def publish(self, exchange: str, routing_key: str, properties, body: bytes) -> Future:
        future: Future = Future()
        if self._closed.is_set():
            future.set_exception(NotConfirmed("the publisher is closed"))
        else:
            self._requests.put((exchange, routing_key, properties, body, future))
        return future

    def close(self) -> None:
        self._closed.set()
        self._requests.put(None)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        try:  # connected from the start, so that a broker out of reach shows before the first result
            self._open_channel()
        except Exception as e:
            LOG.warning("publisher %s could not connect yet: %s: %s", self._name, type(e).__name__, e)
        while not self._closed.is_set():
            try:
                request = self._requests.get(timeout=1)
            except queue.Empty:
                self._keep_alive()
                continue
            if request is None:
                break
            exchange, routing_key, properties, body, future = request
            try:
                channel = self._open_channel()
                channel.basic_publish(exchange, routing_key, body, properties, mandatory=True)
                future.set_result(None)
            except pika.exceptions.UnroutableError:
                future.set_exception(Unroutable(f"no queue bound for {routing_key} on {exchange}"))
            except pika.exceptions.NackError:
                future.set_exception(NotConfirmed(f"the broker nacked the publish to {exchange}"))
            except Exception as e:  # connection or channel lost: next publish opens new ones
                LOG.warning("publisher %s: %s: %s", self._name, type(e).__name__, e)
                self._drop(channel_only=isinstance(e, pika.exceptions.ChannelClosed))
                future.set_exception(NotConfirmed(f"{type(e).__name__}: {e}"))
        while True:  # fail what is left, so nobody waits for it
            try:
                left = self._requests.get_nowait()
            except queue.Empty:
                break
            if left is not None:
                left[4].set_exception(NotConfirmed("the publisher is closed"))
        self._drop(channel_only=False)

    def _open_channel(self):
        if self._connection is None or not self._connection.is_open:
            credentials = self._credentials()
            self._connection = pika.BlockingConnection(credentials.connection_parameters(self._name))
            self._channel = None
            LOG.info("publisher connected to %s as %s", credentials.describe(), self._name)
        if self._channel is None or not self._channel.is_open:
            self._channel = self._connection.channel()
            self._channel.confirm_delivery()
        return self._channel

    def _keep_alive(self) -> None:
        """Heartbeats and blocked notifications are handled only while the client runs: let it, when idle."""
        if self._connection is not None and self._connection.is_open:
            try:
                self._connection.process_data_events(0)
            except Exception as e:
                LOG.warning("publisher %s lost its connection: %s", self._name, type(e).__name__)
                self._drop(channel_only=False)

    def _drop(self, channel_only: bool) -> None:
        self._channel = None
        if channel_only:
            return
        connection, self._connection = self._connection, None
        if connection is not None and connection.is_open:
            try:
                connection.close()
            except Exception:
                pass


@dataclass
class Delivery:
    """A delivery and where to settle it: acks go to the channel (of the connection) it came on."""

    connection: pika.BlockingConnection
    channel: object
    delivery_tag: int


class ConsumingConnection:
    """Consumes every queue of the worker on one connection (a channel per queue, each with the prefetch) on a
    thread of its own; reconnects with a growing pause (1 s to 30 s) and fresh credentials after any loss."""

    def __init__(self, credentials: Callable[[], Credentials], connection_name: str, consumers: List[Consumer],
                 prefetch: int, on_message: Callable):
        self._credentials = credentials
        self._name = connection_name
        self._consumers = consumers
        self._prefetch = prefetch
        self._on_message = on_message
        self._cancel = threading.Event()
        self._close = threading.Event()
        self._cancelled_by_broker = threading.Event()
        self.consuming = threading.Event()
        self.ever_consumed = threading.Event()
        self.last_error: Optional[str] = None
        self._thread = threading.Thread(target=self._run, name="baton-consumer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        """Stops taking deliveries; acks still go out until ``close``."""
        self._cancel.set()

    def close(self) -> None:
        self._cancel.set()
        self._close.set()
        self._thread.join(timeout=10)

    @staticmethod
    def settle(delivery: Delivery, action: Callable[[object, int], None]) -> bool:
        """Runs ``action(channel, tag)`` on the consuming thread; False when its connection is gone (the broker
        then redelivers the message, answered from the idempotency store)."""
        def run():
            if delivery.channel.is_open:
                try:
                    action(delivery.channel, delivery.delivery_tag)
                except Exception as e:
                    LOG.warning("could not settle delivery %d: %s", delivery.delivery_tag, type(e).__name__)
        try:
            delivery.connection.add_callback_threadsafe(run)
            return True
        except Exception:
            return False

    def _run(self) -> None:
        pause = 0.0
        while not self._cancel.is_set():
            try:
                self._consume_until_lost()
                pause = 0.0
            except Exception as e:
                self.last_error = f"{type(e).__name__}: {e}"
                LOG.warning("consuming connection %s lost or refused: %s", self._name, self.last_error)
            finally:
                self.consuming.clear()
            if self._cancel.is_set():
                break
            pause = _backoff(pause, 1.0)
            LOG.info("reconnecting in %.0f s", pause)
            self._cancel.wait(pause)
        # Shutting down after a loss: nothing left to settle on a dead connection.
        self._close.wait()

    def _consume_until_lost(self) -> None:
        credentials = self._credentials()
        connection = pika.BlockingConnection(credentials.connection_parameters(self._name))
        try:
            channels: Dict[str, tuple] = {}
            self._cancelled_by_broker.clear()
            for consumer in self._consumers:
                channel = connection.channel()
                channel.basic_qos(prefetch_count=self._prefetch)
                channel.add_on_cancel_callback(lambda frame, c=consumer: self._broker_cancelled(c))

                def deliver(ch, method, properties, body, c=consumer):
                    self._on_message(c, Delivery(connection, ch, method.delivery_tag), method, properties, body)
                tag = channel.basic_consume(consumer.queue, deliver, auto_ack=False)
                channels[consumer.name] = (channel, tag)
            LOG.info("consuming %s from %s as %s", ", ".join(c.queue for c in self._consumers),
                     credentials.describe(), self._name)
            self.consuming.set()
            self.ever_consumed.set()
            self.last_error = None
            while not self._cancel.is_set():
                connection.process_data_events(time_limit=0.2)
                if self._cancelled_by_broker.is_set():
                    raise ConnectionError("the broker cancelled a consumer (its queue deleted?): resubscribing")
            self.consuming.clear()
            for channel, tag in channels.values():
                try:
                    for method, _, _ in channel.basic_cancel(tag) or []:
                        channel.basic_nack(method.delivery_tag, requeue=True)
                except Exception:
                    pass
            # Handlers still running settle through this connection: keep it served until close.
            while not self._close.is_set() and connection.is_open:
                connection.process_data_events(time_limit=0.2)
        finally:
            self.consuming.clear()
            if connection.is_open:
                try:
                    connection.close()
                except Exception:
                    pass

    def _broker_cancelled(self, consumer: Consumer) -> None:
        LOG.warning("the broker cancelled the consumer of %s", consumer.queue)
        self._cancelled_by_broker.set()
