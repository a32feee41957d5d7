"""What handlers see and return, and the AMQP message as the SDK reads it."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

# Header names of the message contract (docs/message-contract.md).
WORKFLOW = "baton-workflow"
NAMESPACE = "baton-namespace"
INSTANCE = "baton-instance"
STEP = "baton-step"
ATTEMPT = "baton-attempt"
ENTITY = "baton-entity"
ACTION = "baton-action"
RETRIES = "baton-retries"
STEP_TIMEOUT = "baton-step-timeout"
DEADLINE = "baton-deadline"
TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"
BAGGAGE = "baggage"
BATON_PREFIX = "baton-"
EXCEPTION_MESSAGE = "x-exception-message"
EXCEPTION_TYPE = "x-exception-type"
ORIGINAL_ROUTING_KEY = "x-original-routing-key"
ORIGINAL_EXCHANGE = "x-original-exchange"
JSON = "application/json"


# ---- outcomes -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Success:
    """The handler did its work; ``output`` (anything JSON can hold, an object usually) goes to later steps."""

    output: Any = field(default_factory=dict)
    result = "success"


@dataclass(frozen=True)
class Failed:
    """A business failure: published as a ``failed`` event and never retried. Raise for a technical failure."""

    code: str
    reason: str = ""
    result = "failed"

    def __post_init__(self):
        if not self.code or not str(self.code).strip():
            raise ValueError("a Failed outcome needs an error code")


@dataclass(frozen=True)
class Error:
    """The technical failure after the staircase is spent; only the SDK produces it."""

    code: str
    reason: str
    result = "error"


@dataclass(frozen=True)
class Expired:
    """Not run: the command came after its deadline; only the SDK produces it, and never remembers it."""

    reason: str
    result = "expired"


Outcome = Any  # Success | Failed | Error | Expired


def outcome_to_json(outcome) -> str:
    """How an ``IdempotencyStore`` keeps an outcome (the same shape as the Java SDK's)."""
    if isinstance(outcome, Success):
        return json.dumps({"result": "success", "output": outcome.output}, separators=(",", ":"))
    node = {"result": outcome.result}
    if getattr(outcome, "code", None) is not None:
        node["errorCode"] = outcome.code
    node["reason"] = outcome.reason
    return json.dumps(node, separators=(",", ":"))


def outcome_from_json(text: str):
    node = json.loads(text)
    result = node.get("result") if isinstance(node, dict) else None
    if result == "success":
        return Success(node.get("output", {}))
    if result == "failed":
        return Failed(node.get("errorCode") or "UNKNOWN", node.get("reason", ""))
    if result == "error":
        return Error(node.get("errorCode") or "UNKNOWN", node.get("reason", ""))
    if result == "expired":
        return Expired(node.get("reason", ""))
    raise ValueError("not a remembered outcome: no result success|failed|error|expired")


# ---- exceptions ------------------------------------------------------------------------------------------------

class Unprocessable(Exception):
    """The message can never be handled (not JSON, headers missing, input that does not fit): parked at once.
    A handler may raise it too."""


class PayloadTooLarge(Exception):
    """The result event would be larger than ``max_result_bytes``: it would be on every retry, so parked at once."""

    CODE = "PayloadTooLarge"


class HandlerTimeout(Exception):
    """A handler raised after it had overrun its time limit (the handler's exception is its ``__cause__``), or an
    ``async def`` handler was cancelled at its limit."""


# ---- header values -------------------------------------------------------------------------------------------

def plain(value):
    """A header value as Python code expects it: bytes (how pika hands over long strings) as str."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def whole_number(value) -> Optional[int]:
    """A whole number from a header another language may have written as an int or its decimal text.

    :raises ValueError: when it is neither
    """
    v = plain(value)
    if v is None:
        return None
    if isinstance(v, bool):
        raise ValueError(v)
    if isinstance(v, int):
        return v
    return int(str(v).strip())


@dataclass
class Inbound:
    """One delivery as the processors see it: no channel and no delivery tag, so deciding cannot ack it."""

    exchange: str
    routing_key: str
    redelivered: bool
    properties: Any  # pika.BasicProperties
    body: bytes

    @property
    def headers(self) -> Dict[str, Any]:
        return self.properties.headers or {}

    @property
    def message_id(self) -> Optional[str]:
        return self.properties.message_id or None

    def header(self, name: str) -> Optional[str]:
        v = plain(self.headers.get(name))
        return None if v is None or str(v).strip() == "" else str(v)

    @property
    def original_exchange(self) -> str:
        return self.header(ORIGINAL_EXCHANGE) or self.exchange

    @property
    def original_routing_key(self) -> str:
        return self.header(ORIGINAL_ROUTING_KEY) or self.routing_key

    def retries_header(self) -> int:
        try:
            n = whole_number(self.headers.get(RETRIES))
        except ValueError:
            raise Unprocessable(f"header {RETRIES} is not a whole number") from None
        return 0 if n is None else max(0, n)

    def json_object(self) -> Dict[str, Any]:
        """The body as a JSON object.

        :raises Unprocessable: for another content type declared (none is accepted), or a body that is not one
        """
        ct = self.properties.content_type
        if ct and ct.split(";")[0].strip().lower() != JSON:
            raise Unprocessable(f"content_type '{ct}' is not {JSON}")
        try:
            body = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            # where it is wrong, never what it contained
            raise Unprocessable(f"body is not JSON ({type(e).__name__})") from None
        if not isinstance(body, dict):
            raise Unprocessable("body is not a JSON object")
        return body


def deadline_ms(message: Inbound) -> Optional[int]:
    """``baton-deadline`` in epoch ms; None when absent or not a whole number (an unreadable deadline is no reason
    to refuse or to expire a command)."""
    try:
        n = whole_number(message.headers.get(DEADLINE))
    except ValueError:
        return None
    return n if n is not None and n > 0 else None


def expired_by_ms(message: Inbound, now_ms: int) -> Optional[int]:
    """By how many ms the deadline had passed at ``now_ms``; None when there is none or it is still ahead."""
    d = deadline_ms(message)
    return None if d is None or now_ms < d else now_ms - d


def limit_for_ms(message: Inbound, handler_timeout_ms: int, now_ms: int) -> int:
    """How long a command's handler may run when it starts at ``now_ms``: the smallest of the worker's limit,
    ``baton-step-timeout`` and the time left until the deadline; at least 1 ms."""
    limit = handler_timeout_ms
    try:
        step = whole_number(message.headers.get(STEP_TIMEOUT))
    except ValueError:
        step = None  # an unreadable hint is no reason to refuse the command
    if step is not None and 0 < step < limit:
        limit = step
    d = deadline_ms(message)
    if d is not None and d - now_ms < limit:
        limit = d - now_ms
    return max(1, limit)


def now_ms() -> int:
    return int(time.time() * 1000)


# ---- what handlers get ----------------------------------------------------------------------------------------

@dataclass
class Command:
    """A command as its handler sees it (docs/message-contract.md#a-command)."""

    name: str
    message_id: Optional[str]
    correlation_id: Optional[str]
    body: Dict[str, Any]
    headers: Dict[str, Any]
    retries: int
    last_attempt: bool
    redelivered: bool = False
    stop_requested: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def input(self) -> Dict[str, Any]:
        """The step's input: the instance input with earlier steps' outputs merged in; {} when absent."""
        v = self.body.get("input")
        return {} if v is None else v

    @property
    def outputs(self) -> Dict[str, Any]:
        """Earlier outputs that are not objects (so could not be merged into ``input``), by step."""
        return self.body.get("outputs") or {}

    def input_as(self, cls):
        """The input as a dataclass (or any class taking keyword arguments); unknown fields are ignored.

        :raises Unprocessable: when it does not fit: the SDK parks the command instead of retrying it
        """
        return _convert(self.input, cls, "input")

    def header(self, name: str) -> Optional[str]:
        v = self.headers.get(name)
        return None if v is None else str(v)

    @property
    def instance_id(self) -> Optional[str]:
        return self.body.get("instanceId") or self.header(INSTANCE)

    @property
    def step(self) -> Optional[str]:
        return self.body.get("step") or self.header(STEP)

    @property
    def attempt(self) -> int:
        a = self.body.get("attempt")
        if isinstance(a, int):
            return a
        try:
            return whole_number(self.headers.get(ATTEMPT)) or 1
        except ValueError:
            return 1

    @property
    def business_key(self) -> Optional[str]:
        return self.body.get("businessKey")

    @property
    def workflow(self) -> Optional[str]:
        return self.header(WORKFLOW)

    @property
    def entity(self) -> Optional[str]:
        return self.header(ENTITY)

    @property
    def action(self) -> Optional[str]:
        return self.header(ACTION)

    @property
    def deadline_ms(self) -> Optional[int]:
        """When the runtime treats this attempt as timed out (epoch ms), or None. A handler whose effect must not
        land after it can fence its commit by it."""
        try:
            n = whole_number(self.headers.get(DEADLINE))
        except ValueError:
            return None
        return n if n is not None and n > 0 else None


@dataclass
class Event:
    """An event delivered to one of the service's subscriptions."""

    subscription: str
    message_id: Optional[str]
    correlation_id: Optional[str]
    routing_key: str  # as first published, e.g. order.pay.failed (kept across retries)
    exchange: str
    body: Dict[str, Any]
    headers: Dict[str, Any]
    retries: int
    redelivered: bool = False
    stop_requested: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def result(self) -> Optional[str]:
        """``success``, ``failed``, ``error`` or ``expired`` when the routing key ends with one."""
        last = self.routing_key.rsplit(".", 1)[-1]
        return last if last in ("success", "failed", "error", "expired") else None

    @property
    def outcome(self) -> Optional[str]:
        """For a subscription to a Workflow's instance outcomes (routing key ``<namespace>.<workflow>.<outcome>``
        on ``baton.instance.topic.ex``): ``succeeded``, ``failed``, ``compensated`` or ``cancelled``; else None."""
        if self.exchange != "baton.instance.topic.ex":
            return None
        last = self.routing_key.rsplit(".", 1)[-1]
        return last if last in ("succeeded", "failed", "compensated", "cancelled") else None

    def body_as(self, cls):
        return _convert(self.body, cls, "body")

    def header(self, name: str) -> Optional[str]:
        v = self.headers.get(name)
        return None if v is None else str(v)


def _convert(data, cls, what: str):
    if not isinstance(data, dict):
        raise Unprocessable(f"{what} is not a JSON object")
    import dataclasses
    if dataclasses.is_dataclass(cls):
        names = {f.name for f in dataclasses.fields(cls)}
        data = {k: v for k, v in data.items() if k in names}
    try:
        return cls(**data)
    except TypeError as e:
        raise Unprocessable(f"{what} does not fit {cls.__name__}: {e}") from None
