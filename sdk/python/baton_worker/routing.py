"""What the SDK publishes: result events, retries up the staircase and dead letters (docs/message-contract.md)."""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import pika

from .config import Consumer, Settings
from .messages import (BATON_PREFIX, EXCEPTION_MESSAGE, EXCEPTION_TYPE, JSON, ORIGINAL_EXCHANGE,
                       ORIGINAL_ROUTING_KEY, RETRIES, BAGGAGE, TRACEPARENT, TRACESTATE, ACTION, ENTITY, INSTANCE, STEP,
                       ATTEMPT, Error, Inbound, PayloadTooLarge, Success, Unprocessable, whole_number)

LOG = logging.getLogger("baton_worker")

# Headers travel in one frame and the parking lot is not a log store: long exception messages are cut.
MAX_EXCEPTION_MESSAGE = 1000


@dataclass
class Outbound:
    """One publish a decision needs, confirmed before the delivery is acked."""

    exchange: str
    routing_key: str
    properties: Any  # pika.BasicProperties
    body: bytes
    what: str
    kind: str = "event"  # "event", "retry" or "dead-letter"


@dataclass
class Decision:
    """What to do with a delivery: publish these (confirmed, in order), then ack."""

    publishes: List[Outbound] = field(default_factory=list)


def event_message_id(command_message_id: Optional[str], result: str) -> str:
    """Stable for a command and a result, so a re-published event is recognisably the same one: the same name-based
    UUID (version 3 of the bare name) the Java SDK computes."""
    if not command_message_id or not command_message_id.strip():
        return str(uuid.uuid4())
    digest = hashlib.md5(f"baton-event/{command_message_id}/{result}".encode("utf-8")).digest()
    return str(uuid.UUID(bytes=digest, version=3))


def addressable(message: Inbound) -> bool:
    """Whether a result event can be addressed at all: its routing key needs the entity and the action."""
    return message.header(ENTITY) is not None and message.header(ACTION) is not None


def copied_headers(message: Inbound) -> Dict[str, Any]:
    """Every ``baton-*`` header, the trace context and the baggage, as the command carried them."""
    return {k: v for k, v in message.headers.items()
            if k.startswith(BATON_PREFIX) or k in (TRACEPARENT, TRACESTATE, BAGGAGE)}


def result_event(settings: Settings, message: Inbound, body: Optional[Dict[str, Any]], outcome,
                 trace_headers: Optional[Dict[str, str]] = None) -> Outbound:
    """The event answering ``message`` with ``outcome`` on the service's event exchange, routing key
    ``<baton-entity>.<baton-action>.<result>``. ``trace_headers`` (the handler's span) replace the copied ones."""
    headers = copied_headers(message)
    if trace_headers:
        headers.update(trace_headers)
    properties = pika.BasicProperties(
        message_id=event_message_id(message.message_id, outcome.result),
        correlation_id=message.properties.correlation_id,
        content_type=JSON,
        timestamp=int(time.time()),
        delivery_mode=2,
        headers=headers)
    body = body or {}
    payload = {
        "instanceId": body.get("instanceId") if body.get("instanceId") is not None else message.header(INSTANCE),
        "step": body.get("step") if body.get("step") is not None else message.header(STEP),
        "attempt": body.get("attempt") if isinstance(body.get("attempt"), int) else _attempt(message),
    }
    if isinstance(outcome, Success):
        payload["output"] = outcome.output
    else:
        if getattr(outcome, "code", None) is not None:  # expired has a reason only
            payload["errorCode"] = outcome.code
        payload["reason"] = outcome.reason
    routing_key = f"{message.header(ENTITY)}.{message.header(ACTION)}.{outcome.result}"
    return Outbound(settings.event_exchange, routing_key, properties,
                    json.dumps(payload, separators=(",", ":")).encode("utf-8"),
                    f"{outcome.result} event {routing_key}")


def _attempt(message: Inbound):
    try:
        return whole_number(message.headers.get(ATTEMPT))
    except ValueError:
        return message.header(ATTEMPT)


def exception_type(failure: BaseException) -> str:
    if isinstance(failure, PayloadTooLarge):
        return PayloadTooLarge.CODE
    cls = type(failure)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def exception_message(failure: BaseException) -> str:
    m = str(failure).strip() or type(failure).__name__
    return m if len(m) <= MAX_EXCEPTION_MESSAGE else m[:MAX_EXCEPTION_MESSAGE] + "…"


def _copy(properties, headers: Dict[str, Any]):
    return pika.BasicProperties(
        content_type=properties.content_type, content_encoding=properties.content_encoding, headers=headers,
        delivery_mode=properties.delivery_mode or 2, priority=properties.priority,
        correlation_id=properties.correlation_id, reply_to=properties.reply_to, expiration=None,
        message_id=properties.message_id, timestamp=properties.timestamp, type=properties.type,
        user_id=None, app_id=properties.app_id)


class RetryRouter:
    """The staircase: a failed delivery climbs to the tier of its next delay through the service's retry exchange,
    or, when the staircase is spent (or the message can never be handled), is parked with an ``error`` event."""

    def __init__(self, settings: Settings, consumer: Consumer):
        self.settings = settings
        self.consumer = consumer

    def on_failure(self, message: Inbound, retries_so_far: int, failure: BaseException,
                   error_event=None) -> Decision:
        """``error_event(outcome)`` builds the ``error`` event published after a dead letter (None: none)."""
        hopeless = isinstance(failure, (Unprocessable, PayloadTooLarge))
        if not hopeless and self.consumer.staircase.may_retry_after(retries_so_far):
            return Decision([self.retry(message, retries_so_far + 1, failure)])
        publishes = [self.dead_letter(message, retries_so_far, failure)]
        if error_event is not None:
            event = error_event(Error(exception_type(failure), exception_message(failure)))
            if event is not None:
                publishes.append(event)
        return Decision(publishes)

    def park(self, message: Inbound, failure: BaseException) -> Decision:
        """Parks at once, with no event: for a failure of the SDK itself, which a retry would meet again."""
        try:
            retries = message.retries_header()
        except Unprocessable:
            retries = 0
        return Decision([self.dead_letter(message, retries, failure)])

    def retry(self, message: Inbound, retry: int, failure: BaseException) -> Outbound:
        """The message unchanged but ``baton-retries``, to the tier of the delay before ``retry``."""
        delay = self.consumer.staircase.delay_before_retry(retry)
        tier = self.consumer.retry_queue(delay)
        headers = dict(message.headers)
        headers[RETRIES] = retry
        if self.consumer.kind == "subscription":
            # The tier returns it through the default exchange, which replaces the event's routing key with the
            # queue's name: keep the original for the handler (and a later replay).
            headers.setdefault(ORIGINAL_EXCHANGE, message.original_exchange)
            headers.setdefault(ORIGINAL_ROUTING_KEY, message.original_routing_key)
        LOG.warning("%s %s of service %s failed (message_id=%s, instance=%s): %s: %s; retry %d of %d in %s",
                    self.consumer.kind, self.consumer.name, self.settings.service, message.message_id,
                    message.header(INSTANCE), exception_type(failure), exception_message(failure), retry,
                    self.consumer.staircase.max_attempts - 1, tier.rsplit(".", 1)[-1])
        return Outbound(self.settings.retry_exchange, tier, _copy(message.properties, headers), message.body,
                        f"retry {retry} to {tier}", "retry")

    def dead_letter(self, message: Inbound, retries_so_far: int, failure: BaseException) -> Outbound:
        """The message to the parking lot ``q.dlx.S.<consumer>``, with why it died and where it came from."""
        parking = self.consumer.dead_letter_queue
        headers = dict(message.headers)
        headers[RETRIES] = retries_so_far
        headers[EXCEPTION_MESSAGE] = exception_message(failure)
        headers[EXCEPTION_TYPE] = exception_type(failure)
        headers[ORIGINAL_ROUTING_KEY] = message.original_routing_key
        headers[ORIGINAL_EXCHANGE] = message.original_exchange
        what = (f"{self.consumer.kind} {self.consumer.name} of service {self.settings.service} "
                f"(message_id={message.message_id}, instance={message.header(INSTANCE)}, "
                f"step={message.header(STEP)})")
        if isinstance(failure, (Unprocessable, PayloadTooLarge)):
            LOG.error("dead letter: %s is unprocessable, parked in %s: %s", what, parking,
                      exception_message(failure))
        else:
            LOG.error("dead letter: %s failed after %d attempt(s), parked in %s: %s: %s", what,
                      retries_so_far + 1, parking, exception_type(failure), exception_message(failure))
        return Outbound(self.settings.retry_exchange, parking, _copy(message.properties, headers), message.body,
                        f"dead letter to {parking}", "dead-letter")
