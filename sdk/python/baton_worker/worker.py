"""The worker: handlers registered by decorator, deliveries turned into decisions, decisions settled."""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, Optional

from .broker import ConfirmedPublisher, ConsumingConnection, Delivery, NotConfirmed, Unroutable, _backoff
from .config import Consumer, Credentials, Settings, read_settings
from .health import HealthServer
from .idempotency import Claims, IdempotencyStore, InMemoryIdempotencyStore
from .messages import (INSTANCE, STEP, Command, Event, Expired, Failed, HandlerTimeout, Inbound,
                       PayloadTooLarge, Success, Unprocessable, expired_by_ms, limit_for_ms, now_ms, plain)
from .routing import Decision, RetryRouter, addressable, result_event
from . import tracing

LOG = logging.getLogger("baton_worker")

# An unroutable result event (no queue bound for its key yet) is published again this many times, about a
# minute with the backoff, before its command is rejected to its queue's dead-letter path.
UNROUTABLE_EVENT_TRIES = 9


class _InFlight:
    """Deliveries between their arrival and their settlement, so a graceful stop can wait for them."""

    def __init__(self):
        self._count = 0
        self._cond = threading.Condition()

    def begin(self):
        with self._cond:
            self._count += 1

    def end(self):
        with self._cond:
            self._count = max(0, self._count - 1)
            self._cond.notify_all()

    @property
    def count(self) -> int:
        with self._cond:
            return self._count

    def await_idle(self, timeout_s: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._count == 0, timeout=timeout_s)


class _Running:
    """A handler on its thread: its time limit, and the stuck report when it runs on long past it."""

    def __init__(self, what: str, message_id: Optional[str], limit_ms: int, stop_requested: threading.Event):
        self.what, self.message_id, self.limit_ms = what, message_id, limit_ms
        self.stop_requested = stop_requested
        self.started = time.monotonic()
        self.overran = False
        self._lock = threading.Lock()
        self._done = False
        self._at_limit: Optional[Callable[[], None]] = None
        self._timer = threading.Timer(limit_ms / 1000, self._limit_passed)
        self._timer.daemon = True
        self._timer.start()

    def _limit_passed(self):
        with self._lock:
            if self._done:
                return
            self.overran = True
            at_limit = self._at_limit
        # Python cannot stop a thread: the handler is asked to (stop_requested), and until it really returns its
        # delivery stays unacked and its message_id claimed, so the command never runs twice. A coroutine can be
        # stopped: an async handler is cancelled as well (at_limit).
        self.stop_requested.set()
        if at_limit is not None:
            at_limit()
        LOG.warning("%s message_id=%s is past its time limit of %d ms: its delivery stays unacked and its "
                    "message_id claimed until it returns", self.what, self.message_id, self.limit_ms)
        self._schedule_stuck(2 * self.limit_ms)

    def _schedule_stuck(self, at_ms: int):
        delay = max(0.0, at_ms / 1000 - (time.monotonic() - self.started))
        self._timer = threading.Timer(delay, self._stuck, args=(at_ms,))
        self._timer.daemon = True
        self._timer.start()

    def _stuck(self, at_ms: int):
        with self._lock:
            if self._done:
                return
        LOG.warning("%s message_id=%s is stuck: still running after %d ms (limit %d ms)", self.what,
                    self.message_id, int((time.monotonic() - self.started) * 1000), self.limit_ms)
        self._schedule_stuck(2 * at_ms)

    def when_over_limit(self, callback: Optional[Callable[[], None]]) -> None:
        """Calls ``callback`` (from the timer's thread) when the limit passes, at once if it has passed already;
        None forgets it."""
        with self._lock:
            self._at_limit = callback
            passed = self.overran and callback is not None
        if passed:
            callback()

    def finish(self) -> bool:
        """Whether it had overrun its limit."""
        with self._lock:
            self._done = True
            self._timer.cancel()
            return self.overran


def _completed(result, running: _Running):
    """What a handler returned; for an ``async def`` handler (a coroutine, or any awaitable), what it gives when run to
    completion here, on the handler's thread, in an event loop of its own (so no loop is shared between handlers).
    At the time limit it is cancelled: ``asyncio.CancelledError`` in the handler, then ``HandlerTimeout`` unless it
    still returns an outcome."""
    if not inspect.isawaitable(result):
        return result

    async def until_limit():
        task = asyncio.ensure_future(result)
        loop = asyncio.get_running_loop()

        def cancel():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed meanwhile: the handler is over
                pass
        running.when_over_limit(cancel)
        try:
            return await task
        except asyncio.CancelledError:
            if not running.overran:
                raise  # cancelled by the handler itself: a failure like any other (see _run_handler)
            raise HandlerTimeout(f"the handler was cancelled at its time limit of {running.limit_ms} ms") from None
        finally:
            running.when_over_limit(None)

    return asyncio.run(until_limit())


class _Processor:
    """One queue: turns a delivery into a decision, running the handler on the pool when it has to."""

    def __init__(self, worker: "Worker", consumer: Consumer, handler: Callable):
        self.worker = worker
        self.settings = worker.settings
        self.consumer = consumer
        self.handler = handler
        self.router = RetryRouter(worker.settings, consumer)
        self.claims = Claims()

    def key(self, message: Inbound) -> Optional[str]:
        raise NotImplementedError

    def process(self, message: Inbound, delivery: Delivery) -> None:
        raise NotImplementedError

    def _run_handler(self, message, delivery, key, argument, limit_ms_at, call, before=None, on_end=None):
        """Runs ``call(argument, running)`` (the handler, see ``_completed``) on the pool; ``before()`` may answer
        instead of it when the pool has kept it waiting; ``on_end(result, failure, overran)`` gives the decision."""
        def task():
            if self.worker._stopping.is_set():
                # Prefetched but not started when the stop came: back to the queue, for another worker.
                self.claims.release(key)
                self.worker._settle(delivery, None)
                return
            if before is not None:
                early = before()
                if early is not None:
                    self.claims.release(key)
                    self.worker._settle(delivery, early)
                    return
            running = _Running(f"{self.consumer.kind} {self.consumer.name}", message.message_id,
                               limit_ms_at(), argument.stop_requested)
            result, failure = None, None
            try:
                result = call(argument, running)
            except Exception as e:
                failure = e
            except BaseException as e:  # SystemExit and the like, raised in a handler, fail its message only
                failure = RuntimeError(f"{type(e).__name__}: {e}")
            overran = running.finish()
            try:
                decision = on_end(result, failure, overran)
            except Exception as e:  # a bug of ours: never lose the delivery
                LOG.exception("deciding about %s failed", message.message_id)
                decision = self.router.park(message, e)
            finally:
                # Over (past its limit perhaps): released only now, after the outcome is remembered, so that a copy
                # of the message finds the outcome instead of running the handler a second time.
                self.claims.release(key)
            self.worker._settle(delivery, decision)
        self.worker._handlers.submit(task)

    def _aside(self, key: str, message: Inbound, delivery: Delivery) -> None:
        """A copy of a message whose handler runs: taken up again when that one is over."""
        LOG.info("%s %s message_id=%s is being handled: this copy waits for its outcome", self.consumer.kind,
                 self.consumer.name, message.message_id)
        self.claims.when_released(key, lambda: self.worker._handlers_aside.submit(
            self.worker._process, self.consumer, message, delivery))


class _CommandProcessor(_Processor):

    def key(self, message):
        return message.message_id

    def process(self, message: Inbound, delivery: Delivery) -> None:
        body, retries = None, 0
        can_address = addressable(message)
        try:
            retries = message.retries_header()
            if not can_address:
                raise Unprocessable("header baton-entity or baton-action is missing, so no result event can be "
                                    "addressed")
            body = message.json_object()
        except Unprocessable as poison:
            parsed = body
            self.worker._settle(delivery, self.router.on_failure(
                message, retries, poison,
                (lambda o: result_event(self.settings, message, parsed, o)) if can_address else None))
            return
        key = self.key(message)
        if not self.claims.try_claim(key):
            self._aside(key, message, delivery)
            return
        try:
            remembered = self.worker.store.find(key) if key is not None else None
        except Exception as failure:  # the store could not be asked: retry later rather than run twice
            self.claims.release(key)
            self.worker._settle(delivery, self.router.on_failure(
                message, retries, failure, lambda o: result_event(self.settings, message, body, o)))
            return
        if remembered is not None:
            LOG.info("command %s message_id=%s was handled before: re-publishing its %s event without running "
                     "the handler", self.consumer.name, key, remembered.result)
            self.claims.release(key)
            self.worker._settle(delivery, Decision([result_event(self.settings, message, body, remembered)]))
            return
        # After the store (a command answered before gets that answer even past its deadline: its effect
        # happened); checked again when the handler would start, since the pool may keep it waiting.
        late = expired_by_ms(message, now_ms())
        if late is not None:
            self.claims.release(key)
            self.worker._settle(delivery, self._expired(message, body, late))
            return
        command = Command(
            name=self.consumer.name, message_id=message.message_id,
            correlation_id=message.properties.correlation_id, body=body,
            headers={k: plain(v) for k, v in message.headers.items()}, retries=retries,
            last_attempt=not self.consumer.staircase.may_retry_after(retries), redelivered=message.redelivered)
        handling = tracing.start(self.settings.service, self.consumer.name, message.headers, retries)

        def before():
            late = expired_by_ms(message, now_ms())
            if late is None:
                return None
            handling.end()
            return self._expired(message, body, late, handling)

        def on_end(result, failure, overran):
            try:
                if failure is not None:
                    raise failure
                if not isinstance(result, (Success, Failed)):
                    raise TypeError(f"the handler of command {self.consumer.name} returned "
                                    f"{type(result).__name__}, not Success(...) or Failed(...)")
                event = result_event(self.settings, message, body, result, handling.headers())
                if len(event.body) > self.settings.max_result_bytes:
                    raise PayloadTooLarge(f"the {result.result} event of command {self.consumer.name} is "
                                          f"{len(event.body)} bytes, over the limit of "
                                          f"{self.settings.max_result_bytes}")
                if key is not None:
                    try:
                        self.worker.store.remember(key, result)
                    except Exception:  # the effect happened: publishing its result matters more
                        LOG.warning("the idempotency store could not remember message_id=%s; publishing anyway",
                                    key, exc_info=True)
                return Decision([event])
            except Exception as e:
                if overran and not isinstance(e, (PayloadTooLarge, HandlerTimeout)):
                    timeout = HandlerTimeout(f"the handler ran past its time limit and then failed: "
                                             f"{type(e).__name__}: {e}")
                    timeout.__cause__ = e
                    e = timeout
                handling.failed(e)
                return self.router.on_failure(message, retries, e,
                                              lambda o: result_event(self.settings, message, body, o,
                                                                     handling.headers()))
            finally:
                handling.end()

        def call(cmd, running):
            with handling.active():  # current while an async handler runs, too (its task copies the context)
                return _completed(self.handler(cmd), running)

        self._run_handler(message, delivery, key, command,
                          lambda: limit_for_ms(message, self.settings.handler_timeout_ms, now_ms()), call,
                          before=before, on_end=on_end)

    def _expired(self, message: Inbound, body, late_ms: int, handling=None) -> Decision:
        """Not run, answered ``expired`` (never remembered nor retried): the runtime reads it as not executed."""
        LOG.warning("command %s message_id=%s (instance %s, step %s) came %d ms after its deadline: not run, "
                    "answered expired", self.consumer.name, message.message_id, message.header(INSTANCE),
                    message.header(STEP), late_ms)
        reason = (f"not run: its deadline (baton-deadline) had passed {late_ms} ms before the worker could "
                  f"start it")
        return Decision([result_event(self.settings, message, body, Expired(reason),
                                      handling.headers() if handling else None)])


class _SubscriptionProcessor(_Processor):

    def key(self, message):
        return None if message.message_id is None else f"{self.consumer.name}:{message.message_id}"

    def process(self, message: Inbound, delivery: Delivery) -> None:
        retries = 0
        try:
            # An event arrives with its producer's baton-retries; only one back from this subscription's own tier
            # (through the default exchange) carries a count of ours.
            retries = message.retries_header() if message.exchange == "" else 0
            body = message.json_object()
        except Unprocessable as poison:
            self.worker._settle(delivery, self.router.on_failure(message, retries, poison))
            return
        key = self.key(message)
        if not self.claims.try_claim(key):
            self._aside(key, message, delivery)
            return
        try:
            if key is not None and self.worker.store.find(key) is not None:
                LOG.info("subscription %s message_id=%s was handled before: acked without running the handler",
                         self.consumer.name, message.message_id)
                self.claims.release(key)
                self.worker._settle(delivery, Decision())
                return
        except Exception as failure:
            self.claims.release(key)
            self.worker._settle(delivery, self.router.on_failure(message, retries, failure))
            return
        event = Event(
            subscription=self.consumer.name, message_id=message.message_id,
            correlation_id=message.properties.correlation_id, routing_key=message.original_routing_key,
            exchange=message.original_exchange, body=body,
            headers={k: plain(v) for k, v in message.headers.items()}, retries=retries,
            redelivered=message.redelivered)

        def on_end(result, failure, overran):
            if failure is None:
                if key is not None:
                    try:
                        self.worker.store.remember(key, Success({}))
                    except Exception:
                        LOG.warning("the idempotency store could not remember %s; acking anyway", key,
                                    exc_info=True)
                return Decision()
            if overran and not isinstance(failure, HandlerTimeout):
                timeout = HandlerTimeout(f"the handler ran past its time limit and then failed: "
                                         f"{type(failure).__name__}: {failure}")
                timeout.__cause__ = failure
                failure = timeout
            return self.router.on_failure(message, retries, failure)

        # Not the step timeout nor the deadline an event may carry (copied from its command): those bound the
        # producer's handler, not what others do with its event.
        self._run_handler(message, delivery, key, event, lambda: self.settings.handler_timeout_ms,
                          lambda e, running: _completed(self.handler(e), running), on_end=on_end)


class Worker:
    """A Baton worker for one service.

    >>> worker = Worker.from_environment()
    >>> @worker.command("pay")
    ... def pay(cmd: Command):
    ...     return Success({"paymentId": "p-1"})
    >>> worker.run()   # until SIGTERM
    """

    def __init__(self, settings: Settings, credentials: Callable[[], Credentials] = None,
                 idempotency: IdempotencyStore = None):
        self.settings = settings
        self._credentials = credentials or (lambda: Credentials.read())
        self.store = idempotency if idempotency is not None else InMemoryIdempotencyStore(10_000)
        self._commands: Dict[str, Callable] = {}
        self._subscriptions: Dict[str, Callable] = {}
        self._processors: Dict[str, _Processor] = {}
        self._in_flight = _InFlight()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._stop_lock = threading.Lock()
        self._started = False
        self._consumer: Optional[ConsumingConnection] = None
        self._publisher: Optional[ConfirmedPublisher] = None
        self._health: Optional[HealthServer] = None

    @staticmethod
    def from_environment(env=None, idempotency: IdempotencyStore = None, **overrides) -> "Worker":
        """Configured by the ``BATON_*`` variables (``os.environ`` by default); ``overrides`` replace settings,
        e.g. ``handler_timeout_ms=90_000``. Credentials are read from the same place on every connect.

        :raises InvalidSettings: naming every missing or malformed variable
        """
        settings = read_settings(env)
        if overrides:
            import dataclasses
            settings = dataclasses.replace(settings, **overrides)
        source = dict(env) if env is not None else None
        return Worker(settings, credentials=lambda: Credentials.read(source), idempotency=idempotency)

    # ---- handlers -------------------------------------------------------------------------------------------

    def command(self, name: str):
        """Decorates the handler of command ``name``: ``fn(cmd: Command) -> Success | Failed``; raise for a
        technical failure (retried along the staircase). ``fn`` may be an ``async def``: it is run to completion on
        the handler's thread, in an event loop of its own, and cancelled at its time limit."""
        def register(fn):
            if name in self._commands:
                raise ValueError(f"command {name} has a handler already")
            self._commands[name] = fn
            return fn
        return register

    def subscription(self, name: str):
        """Decorates the handler of subscription ``name``: ``fn(event: Event)``; raise for a technical failure.
        ``fn`` may be an ``async def``, run as a command's is."""
        def register(fn):
            if name in self._subscriptions:
                raise ValueError(f"subscription {name} has a handler already")
            self._subscriptions[name] = fn
            return fn
        return register

    # ---- life cycle -----------------------------------------------------------------------------------------

    @property
    def connection_name(self) -> str:
        return self.settings.connection_name or \
            f"baton-worker-{self.settings.service}-{os.environ.get('HOSTNAME') or socket.gethostname()}"

    @property
    def healthy(self) -> bool:
        """Connected and consuming every queue."""
        return self._consumer is not None and self._consumer.consuming.is_set() and not self._stopping.is_set()

    @property
    def connection_problem(self) -> Optional[str]:
        """Why the consuming connection is down (the last error while connecting or consuming), None while up."""
        return None if self._consumer is None else self._consumer.last_error

    @property
    def health_port(self) -> Optional[int]:
        """The port the health endpoint listens on (useful with ``health_port=0``), or None without one."""
        return self._health.port if self._health else None

    @property
    def in_flight(self) -> int:
        return self._in_flight.count

    def start(self, timeout_s: float = 30.0) -> None:
        """Connects and consumes; returns once every queue is consumed.

        :raises ValueError: when handlers and the service's commands and subscriptions do not match one to one
        :raises ConnectionError: when the broker could not be reached within ``timeout_s`` (the worker keeps
            trying until ``stop``)
        """
        if self._started:
            raise RuntimeError("the worker was started already")
        self._check_handlers()
        self._started = True
        for c in self.settings.commands:
            self._processors[c.name] = _CommandProcessor(self, c, self._commands[c.name])
        for s in self.settings.subscriptions:
            self._processors[s.name] = _SubscriptionProcessor(self, s, self._subscriptions[s.name])
        self._handlers = ThreadPoolExecutor(self.settings.threads, thread_name_prefix="baton-handler")
        # Waiting copies and settlements run no user code; they wait for claims and confirms.
        self._handlers_aside = ThreadPoolExecutor(4, thread_name_prefix="baton-aside")
        self._settlements = ThreadPoolExecutor(self.settings.threads + 4, thread_name_prefix="baton-settle")
        self._publisher = ConfirmedPublisher(self._credentials, self.connection_name + "-publisher")
        self._consumer = ConsumingConnection(self._credentials, self.connection_name,
                                             list(self.settings.consumers), self.settings.prefetch,
                                             self._on_message)
        if self.settings.health_port is not None:
            self._health = HealthServer(self.settings.health_port, lambda: self.healthy)
        self._consumer.start()
        if not self._consumer.ever_consumed.wait(timeout_s):
            raise ConnectionError(f"not consuming after {timeout_s:.0f} s: {self._consumer.last_error}")

    def _check_handlers(self) -> None:
        problems = []
        for kind, planned, handlers in (("command", self.settings.commands, self._commands),
                                        ("subscription", self.settings.subscriptions, self._subscriptions)):
            names = {c.name for c in planned}
            problems += [f"{kind} {n} has no handler" for n in sorted(names - handlers.keys())]
            problems += [f"{kind} {n} has a handler but is not one of the service's" for n in
                         sorted(handlers.keys() - names)]
        if not self.settings.consumers:
            problems.append(f"service {self.settings.service} has no commands and no subscriptions to consume")
        if problems:
            raise ValueError("; ".join(problems))

    def stop(self) -> None:
        """Graceful: stops consuming, gives back deliveries not started, waits (``shutdown_timeout_ms``) for
        running handlers and the confirms of what they publish, then closes. Idempotent."""
        with self._stop_lock:
            first = not self._stopping.is_set()
            self._stopping.set()
        if not self._started:
            return
        if not first:
            self._stopped.wait(self.settings.shutdown_timeout_ms / 1000 + 30)
            return
        LOG.info("stopping: %d deliveries in flight", self._in_flight.count)
        self._consumer.cancel()
        if not self._in_flight.await_idle(self.settings.shutdown_timeout_ms / 1000):
            LOG.warning("%d deliveries still unsettled after %d ms: the broker redelivers them",
                        self._in_flight.count, self.settings.shutdown_timeout_ms)
        self._consumer.close()
        self._publisher.close()
        if self._health:
            self._health.close()
        for pool in (self._handlers, self._handlers_aside, self._settlements):
            pool.shutdown(wait=False)
        LOG.info("stopped")
        self._stopped.set()

    def run(self, ready: Callable[[], None] = None) -> None:
        """Starts, calls ``ready()`` once consuming, then stops gracefully on SIGTERM or SIGINT (call from the main
        thread)."""
        requested = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: requested.set())
        self.start()
        if ready is not None:
            ready()
        while not requested.wait(1):
            pass
        self.stop()

    # ---- deliveries -----------------------------------------------------------------------------------------

    def _on_message(self, consumer: Consumer, delivery: Delivery, method, properties, body: bytes) -> None:
        """On the consuming thread: decides quickly what needs no handler, else hands the delivery to the pool."""
        self._in_flight.begin()
        message = Inbound(method.exchange or "", method.routing_key or "", bool(method.redelivered), properties,
                          body or b"")
        self._process(consumer, message, delivery)

    def _process(self, consumer: Consumer, message: Inbound, delivery: Delivery) -> None:
        try:
            self._processors[consumer.name].process(message, delivery)
        except Exception as e:  # a bug of ours: never lose the delivery, never loop on it (parked at once)
            LOG.exception("processing a delivery of %s failed", consumer.queue)
            self._settle(delivery, self._processors[consumer.name].router.park(message, e))

    def _settle(self, delivery: Delivery, decision: Optional[Decision]) -> None:
        """Publishes what the decision needs, each confirmed, then acks; None gives the delivery back."""
        try:
            self._settlements.submit(self._settle_now, delivery, decision)
        except RuntimeError:  # stopped past its shutdown timeout: the broker redelivers it
            self._in_flight.end()

    def _settle_now(self, delivery: Delivery, decision: Optional[Decision]) -> None:
        try:
            if decision is None:
                ConsumingConnection.settle(delivery, lambda ch, tag: ch.basic_nack(tag, requeue=True))
                return
            for outbound in decision.publishes:
                if not self._publish_confirmed(outbound):
                    # Unroutable: to the queue's own dead-letter path (first tier or parking lot), not lost.
                    ConsumingConnection.settle(delivery, lambda ch, tag: ch.basic_nack(tag, requeue=False))
                    return
            ConsumingConnection.settle(delivery, lambda ch, tag: ch.basic_ack(tag))
        finally:
            self._in_flight.end()

    def _publish_confirmed(self, outbound) -> bool:
        """Publishes until confirmed, the backoff growing from 200 ms to 30 s; False when it stays unroutable."""
        pause, unroutable = 0.0, 0
        while True:
            try:
                self._publisher.publish(outbound.exchange, outbound.routing_key, outbound.properties,
                                        outbound.body).result(timeout=30)
                return True
            except Unroutable:
                unroutable += 1
                if outbound.kind != "event" or unroutable >= UNROUTABLE_EVENT_TRIES:
                    LOG.error("%s: no queue bound for it; the delivery goes to its queue's dead-letter path",
                              outbound.what)
                    return False
                LOG.warning("%s: no queue bound for it yet; publishing it again", outbound.what)
            except Exception as e:
                if self._publisher._closed.is_set():
                    raise NotConfirmed("the worker stopped before the publish was confirmed") from e
                LOG.warning("%s not confirmed (%s); publishing it again", outbound.what, e)
            pause = _backoff(pause, 0.2)
            time.sleep(pause)
