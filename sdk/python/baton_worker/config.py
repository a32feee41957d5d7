"""The worker's settings, read from the environment the operator gives a worker pod (docs/message-contract.md).

Every problem is collected and reported at once (``InvalidSettings``), as Baton's other processes do. Broker
credentials are not part of the settings: ``Credentials.read`` reads them again on every (re)connect, so a rotated
Secret mounted as a file is picked up without a restart.
"""

from __future__ import annotations

import copy
import os
import re
import ssl
import urllib.parse
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Tuple

DEFAULT_PREFETCH = 10
DEFAULT_HANDLER_TIMEOUT_MS = 10 * 60 * 1000
# RabbitMQ 4's default max_message_size: a larger event would be refused, and every later command of its
# instance would carry the output again.
DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024
DEFAULT_SHUTDOWN_TIMEOUT_MS = 20 * 1000

_DURATION = re.compile(r"^([0-9]{1,9}(ms|s|m|h))+$")
_PART = re.compile(r"([0-9]+)(ms|s|m|h)")
_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
_TOKEN = re.compile(r"^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$")
_OUTCOMES = ("succeeded", "failed", "compensated", "cancelled")


class InvalidSettings(ValueError):
    """Missing or malformed variables, all of them named in one message (values of secrets never appear)."""

    def __init__(self, problems: List[str]):
        super().__init__("invalid worker settings: " + "; ".join(problems))
        self.problems = problems


def parse_duration(text: str) -> int:
    """Milliseconds of a duration as Baton writes them (``500ms``, ``30s``, ``2m``, ``1h``, ``1m30s``)."""
    if text is None or not _DURATION.match(text.strip()):
        raise ValueError(f"'{text}' is not a duration: write a whole number and a unit (ms, s, m or h), e.g. 30s")
    total = sum(int(n) * _UNITS[unit] for n, unit in _PART.findall(text.strip()))
    if total <= 0:
        raise ValueError(f"'{text}' is zero: a duration must be greater than zero")
    return total


def format_duration(millis: int) -> str:
    """The normalised form used in queue names: the largest of h, m, s, ms that divides the value (120s -> 2m)."""
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if millis % size == 0:
            return f"{millis // size}{unit}"
    return f"{millis}ms"


def consumer_prefix(name: str) -> str:
    """The stem of a consumer's variables, e.g. ``BATON_CONSUMER_ORDER_PAY_FAILED_NOTIFY``."""
    return "BATON_CONSUMER_" + name.upper().replace("-", "_")


@dataclass(frozen=True)
class Staircase:
    """How a consumer retries technical failures: ``max_attempts`` deliveries in all, the first included; retry
    ``k`` (1-based) waits ``delays_ms[k-1]``, the last delay repeating; then the message is parked."""

    max_attempts: int = 1
    delays_ms: Tuple[int, ...] = ()

    def __post_init__(self):
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.max_attempts > 1 and not self.delays_ms:
            raise ValueError(f"max_attempts is {self.max_attempts} but no delays are given")

    def may_retry_after(self, retries_so_far: int) -> bool:
        return retries_so_far + 1 < self.max_attempts

    def delay_before_retry(self, retry: int) -> int:
        """The delay before retry ``retry`` (1 for the first), the last one repeating."""
        if retry < 1 or retry > self.max_attempts - 1:
            raise ValueError(f"retry {retry} is outside 1..{self.max_attempts - 1}")
        return self.delays_ms[min(retry, len(self.delays_ms)) - 1]


NO_RETRIES = Staircase()


@dataclass(frozen=True)
class Consumer:
    """One command or subscription of the service and its broker names (the operator declares them)."""

    kind: str  # "command" or "subscription"
    name: str
    queue: str
    staircase: Staircase
    service: str

    def retry_queue(self, delay_ms: int) -> str:
        return f"q.retry.{self.service}.{self.name}.{format_duration(delay_ms)}"

    @property
    def dead_letter_queue(self) -> str:
        return f"q.dlx.{self.service}.{self.name}"


@dataclass(frozen=True)
class Settings:
    """What a worker needs besides its handlers and credentials."""

    service: str
    commands: Tuple[Consumer, ...] = ()
    subscriptions: Tuple[Consumer, ...] = ()
    prefetch: int = DEFAULT_PREFETCH
    handler_timeout_ms: int = DEFAULT_HANDLER_TIMEOUT_MS
    max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    handler_threads: Optional[int] = None  # default: prefetch x queues, a thread for every unacked delivery
    shutdown_timeout_ms: int = DEFAULT_SHUTDOWN_TIMEOUT_MS
    health_port: Optional[int] = None  # None: no health endpoint
    connection_name: Optional[str] = None
    event_exchange: str = ""
    retry_exchange: str = ""

    def __post_init__(self):
        if not self.event_exchange:
            object.__setattr__(self, "event_exchange", f"{self.service}.event.topic.ex")
        if not self.retry_exchange:
            object.__setattr__(self, "retry_exchange", f"{self.service}.retry.direct.ex")

    @property
    def consumers(self) -> Tuple[Consumer, ...]:
        return self.commands + self.subscriptions

    @property
    def threads(self) -> int:
        return self.handler_threads or max(1, self.prefetch * max(1, len(self.consumers)))

    @staticmethod
    def for_service(service: str, commands: Mapping[str, Staircase] = None,
                    subscriptions: Mapping[str, Staircase] = None, **options) -> "Settings":
        """Settings without the environment (tests, other platforms): the planned names derived from the service."""
        return Settings(
            service=service,
            commands=tuple(Consumer("command", n, f"q.{service}.{n}", s, service)
                           for n, s in (commands or {}).items()),
            subscriptions=tuple(Consumer("subscription", n, f"q.{service}.{n}", s, service)
                                for n, s in (subscriptions or {}).items()),
            **options)


class _Reader:
    """Reads variables and collects every problem, so that one start-up names all of them."""

    def __init__(self, env: Mapping[str, str]):
        self.env = env
        self.problems: List[str] = []

    def raw(self, name: str) -> Optional[str]:
        v = self.env.get(name)
        return None if v is None or not v.strip() else v.strip()

    def problem(self, name: str, what: str) -> None:
        self.problems.append(f"{name}: {what}")

    def required(self, name: str, what: str) -> Optional[str]:
        v = self.raw(name)
        if v is None:
            self.problem(name, f"required but not set ({what})")
        return v

    def value(self, name: str, fallback, expected: str, parse: Callable[[str], object]):
        v = self.raw(name)
        if v is None:
            return fallback
        try:
            return parse(v)
        except (ValueError, TypeError):
            self.problem(name, f"expected {expected}, got '{v}'")
            return fallback

    def integer(self, name: str, fallback: Optional[int], minimum: int) -> Optional[int]:
        def parse(v: str) -> int:
            n = int(v)
            if n < minimum:
                raise ValueError(v)
            return n
        return self.value(name, fallback, f"a whole number of at least {minimum}", parse)

    def names(self, name: str) -> List[str]:
        v = self.raw(name)
        return [] if v is None else [p.strip() for p in v.split(",") if p.strip()]

    def secret(self, name: str) -> Optional[str]:
        """NAME, or the file named by NAME_FILE (a mounted Secret); the value never appears in a problem."""
        direct, file = self.raw(name), self.raw(name + "_FILE")
        if direct is not None and file is not None:
            self.problem(name, f"set {name} or {name}_FILE, not both")
            return None
        if file is None:
            return direct
        try:
            with open(file, encoding="utf-8") as f:
                v = f.read().strip()
        except OSError as e:
            self.problem(name + "_FILE", f"expected a readable file, got '{file}' ({type(e).__name__})")
            return None
        if not v:
            self.problem(name + "_FILE", f"expected a file holding the secret, got the empty file '{file}'")
            return None
        return v

    def done(self):
        if self.problems:
            raise InvalidSettings(self.problems)


def _staircase(r: _Reader, name: str) -> Staircase:
    p = consumer_prefix(name)
    attempts = r.integer(p + "_MAX_ATTEMPTS", None, 1)
    delays = r.value(p + "_DELAYS", (), "a comma list of durations such as 30s,2m",
                     lambda v: tuple(parse_duration(d.strip()) for d in v.split(",") if d.strip()))
    if attempts is None:
        return NO_RETRIES
    if attempts > 1 and not delays:
        if r.raw(p + "_DELAYS") is None:
            r.problem(p + "_DELAYS", f"required when {p}_MAX_ATTEMPTS is {attempts}, e.g. 30s,2m")
        return NO_RETRIES
    return Staircase(attempts, tuple(delays))


def _token(v: str) -> str:
    if not _TOKEN.match(v):
        raise ValueError(v)
    return v


def read_settings(env: Mapping[str, str] = None) -> Settings:
    """The settings from ``BATON_*`` variables (``os.environ`` by default).

    :raises InvalidSettings: naming every variable that is missing or malformed
    """
    env = os.environ if env is None else env
    r = _Reader(env)
    service = r.value("BATON_SERVICE", None, "a service name (lower-case letters, digits and '-')", _token)
    if service is None and r.raw("BATON_SERVICE") is None:
        r.problem("BATON_SERVICE", "required but not set")
    service = service or "invalid"
    prefetch = r.integer("BATON_PREFETCH", DEFAULT_PREFETCH, 1)

    def consumer(kind: str, name: str) -> Consumer:
        p = consumer_prefix(name)
        queue = r.raw(p + "_QUEUE") or f"q.{service}.{name}"
        return Consumer(kind, name, queue, _staircase(r, name), service)

    commands = tuple(consumer("command", n) for n in r.names("BATON_COMMANDS"))
    subscriptions = []
    for n in r.names("BATON_SUBSCRIPTIONS"):
        p = consumer_prefix(n)
        if r.raw(p + "_WORKFLOW") is not None:
            wf = r.raw(p + "_WORKFLOW")
            if len([x for x in wf.split("/", 1) if x]) != 2:
                r.problem(p + "_WORKFLOW", f"expected <namespace>/<workflow>, got '{wf}'")
            outcomes = r.names(p + "_OUTCOMES")
            if not outcomes:
                r.problem(p + "_OUTCOMES", "required but not set")
            for o in outcomes:
                if o not in _OUTCOMES:
                    r.problem(p + "_OUTCOMES", f"expected outcomes among {', '.join(_OUTCOMES)}, got '{o}'")
        else:
            r.required(p + "_SOURCE", "the service whose events it receives")
            r.required(p + "_PATTERN", "a binding pattern such as *.pay.failed")
        subscriptions.append(consumer("subscription", n))
    settings = Settings(
        service=service,
        commands=commands,
        subscriptions=tuple(subscriptions),
        prefetch=prefetch,
        handler_timeout_ms=r.value("BATON_HANDLER_TIMEOUT", DEFAULT_HANDLER_TIMEOUT_MS,
                                   "a duration such as 90s", parse_duration),
        max_result_bytes=r.integer("BATON_MAX_RESULT_BYTES", DEFAULT_MAX_RESULT_BYTES, 1),
        handler_threads=r.integer("BATON_HANDLER_THREADS", None, 1),
        health_port=r.integer("BATON_HEALTH_PORT", None, 0),
        event_exchange=r.raw("BATON_EVENT_EXCHANGE") or "",
        retry_exchange=r.raw("BATON_RETRY_EXCHANGE") or "",
    )
    Credentials.read(env, r)  # credentials are read again on each connect; a start-up fails early when wrong
    r.done()
    return settings


@dataclass(frozen=True)
class Credentials:
    """Where and as whom to connect; read anew for every connection, never logged but for host, vhost and user."""

    uri: str
    username: Optional[str] = None
    password: Optional[str] = field(default=None, repr=False)
    addresses: Tuple[Tuple[str, int], ...] = ()
    ca_file: Optional[str] = None

    @staticmethod
    def read(env: Mapping[str, str] = None, reader: _Reader = None) -> "Credentials":
        """From ``BATON_RABBITMQ_URI`` (or ``_URI_FILE``), ``_USERNAME``/``_PASSWORD`` (or ``_FILE``) taking
        precedence over the URI's, ``BATON_RABBITMQ_ADDRESSES`` and ``BATON_RABBITMQ_CA_FILE``."""
        env = os.environ if env is None else env
        r = reader or _Reader(env)
        uri = r.secret("BATON_RABBITMQ_URI")
        if uri is None and r.raw("BATON_RABBITMQ_URI_FILE") is None and r.raw("BATON_RABBITMQ_URI") is None:
            r.problem("BATON_RABBITMQ_URI", "required but not set (amqp://host:5672/vhost)")
        elif uri is not None and not uri.startswith(("amqp://", "amqps://")):
            r.problem("BATON_RABBITMQ_URI", "expected an amqp:// or amqps:// URI")
        username = r.secret("BATON_RABBITMQ_USERNAME")
        password = r.secret("BATON_RABBITMQ_PASSWORD")
        if username is not None and password is None:
            r.problem("BATON_RABBITMQ_PASSWORD", "required when BATON_RABBITMQ_USERNAME is set")

        def addresses(v: str):
            out = []
            for part in v.split(","):
                host, _, port = part.strip().rpartition(":")
                if not host:
                    host, port = port, "5672"
                out.append((host, int(port)))
            return tuple(out)
        addrs = r.value("BATON_RABBITMQ_ADDRESSES", (), "host:port,host:port", addresses)
        ca = r.raw("BATON_RABBITMQ_CA_FILE")
        if reader is None:
            r.done()
        return Credentials(uri or "amqp://localhost", username, password, addrs, ca)

    def connection_parameters(self, connection_name: str, heartbeat: int = 30):
        """pika parameters, one set per address (a cluster's nodes tried in turn)."""
        import pika  # imported here: the settings are readable (and testable) without the client

        base = pika.URLParameters(self.uri)
        if self.username is not None:
            base.credentials = pika.PlainCredentials(self.username, self.password)
        base.heartbeat = heartbeat
        base.blocked_connection_timeout = 60
        base.client_properties = {"connection_name": connection_name}
        if self.uri.startswith("amqps://"):
            # The broker's certificate is checked (against the CA file, else the system's) and its host name verified.
            context = ssl.create_default_context(cafile=self.ca_file)
            host = urllib.parse.urlparse(self.uri).hostname
            base.ssl_options = pika.SSLOptions(context, host)
        result = []
        for host, port in self.addresses or ((base.host, base.port),):
            p = copy.copy(base)
            p.host, p.port = host, port
            result.append(p)
        return result

    def describe(self) -> str:
        """Host, port, vhost and user for logs; never the password."""
        u = urllib.parse.urlparse(self.uri)
        vhost = urllib.parse.unquote(u.path[1:]) if len(u.path) > 1 else "/"
        user = self.username or u.username or "guest"
        hosts = ",".join(f"{h}:{p}" for h, p in self.addresses) or f"{u.hostname}:{u.port or 5672}"
        return f"{hosts} vhost {vhost} user {user}"
