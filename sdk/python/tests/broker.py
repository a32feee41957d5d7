"""A vhost of the test's own on the local RabbitMQ, with a service's topology declared as the operator would, and
the events its worker answers commands with."""

import base64
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pika

from baton_worker import Settings

HOST = os.environ.get("BATON_TEST_RABBITMQ_HOST", "127.0.0.1")
PORT = int(os.environ.get("BATON_TEST_RABBITMQ_PORT", "5672"))
MANAGEMENT = os.environ.get("BATON_TEST_RABBITMQ_MANAGEMENT", "http://127.0.0.1:15672")
USER = os.environ.get("BATON_TEST_RABBITMQ_USER", "guest")
PASSWORD = os.environ.get("BATON_TEST_RABBITMQ_PASSWORD", "guest")


def management(method: str, path: str, body=None):
    request = urllib.request.Request(MANAGEMENT + "/api" + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    request.add_header("Authorization", "Basic " + token)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
        return json.loads(text) if text else None


def reachable() -> bool:
    try:
        management("GET", "/overview")
        return True
    except (OSError, urllib.error.URLError):
        return False


class Vhost:
    """Created on entry, deleted on exit (with everything in it)."""

    def __init__(self, prefix: str = "py-sdk-test"):
        self.name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        self.quoted = urllib.parse.quote(self.name, safe="")

    def __enter__(self):
        management("PUT", f"/vhosts/{self.quoted}", {})
        management("PUT", f"/permissions/{self.quoted}/{urllib.parse.quote(USER)}",
                   {"configure": ".*", "write": ".*", "read": ".*"})
        return self

    def __exit__(self, *exc):
        try:
            management("DELETE", f"/vhosts/{self.quoted}")
        except OSError:
            pass

    @property
    def uri(self) -> str:
        return f"amqp://{USER}:{PASSWORD}@{HOST}:{PORT}/{self.quoted}"

    def connect(self) -> pika.BlockingConnection:
        return pika.BlockingConnection(pika.URLParameters(self.uri))

    def connections(self, name_prefix: str):
        return [c for c in management("GET", f"/vhosts/{self.quoted}/connections") or []
                if (c.get("client_properties") or {}).get("connection_name", "").startswith(name_prefix)]

    def close_connections(self, name_prefix: str) -> int:
        found = self.connections(name_prefix)
        for c in found:
            management("DELETE", "/connections/" + urllib.parse.quote(c["name"], safe=""))
        return len(found)

    def queue(self, name: str):
        return management("GET", f"/queues/{self.quoted}/{urllib.parse.quote(name, safe='')}")


def declare(channel, settings: Settings, sources=()):
    """The exchanges, queues and bindings the operator declares for ``settings``' service (classic queues);
    ``sources``: (exchange, queue, pattern) bindings of its subscriptions."""
    s = settings.service
    command_ex = f"{s}.command.topic.ex"
    channel.exchange_declare(command_ex, "topic", durable=True)
    channel.exchange_declare(settings.event_exchange, "topic", durable=True)
    channel.exchange_declare(settings.retry_exchange, "direct", durable=True)
    for c in settings.consumers:
        channel.queue_declare(c.queue, durable=True, arguments={
            "x-dead-letter-exchange": settings.retry_exchange, "x-dead-letter-routing-key": c.queue})
        if c.kind == "command":
            channel.queue_bind(c.queue, command_ex, f"service.{s}.{c.name}")
            back_ex, back_key = command_ex, f"service.{s}.{c.name}"
        else:
            back_ex, back_key = "", c.queue
        tiers = []
        for k in range(1, c.staircase.max_attempts):
            tier = c.retry_queue(c.staircase.delay_before_retry(k))
            if tier in tiers:
                continue
            tiers.append(tier)
            channel.queue_declare(tier, durable=True, arguments={
                "x-message-ttl": c.staircase.delay_before_retry(k), "x-dead-letter-exchange": back_ex,
                "x-dead-letter-routing-key": back_key})
            channel.queue_bind(tier, settings.retry_exchange, tier)
        channel.queue_declare(c.dead_letter_queue, durable=True)
        channel.queue_bind(c.dead_letter_queue, settings.retry_exchange, c.dead_letter_queue)
        channel.queue_bind(tiers[0] if tiers else c.dead_letter_queue, settings.retry_exchange, c.queue)
    for exchange, queue, pattern in sources:
        channel.exchange_declare(exchange, "topic", durable=True)
        channel.queue_bind(queue, exchange, pattern)


def command(service: str, name: str, case_input: dict, message_id: str = None, headers: dict = None,
            entity: str = "order", action: str = None):
    """(routing key, properties, body) of a command as the runtime sends it."""
    instance = str(uuid.uuid4())
    h = {"baton-workflow": "wf", "baton-namespace": "default", "baton-revision": 1, "baton-instance": instance,
         "baton-step": "s1", "baton-attempt": 1, "baton-entity": entity, "baton-action": action or name,
         "baton-retries": 0,
         "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
    h.update(headers or {})
    properties = pika.BasicProperties(message_id=message_id or str(uuid.uuid4()), correlation_id=instance,
                                      content_type="application/json", timestamp=int(time.time()),
                                      delivery_mode=2, headers=h)
    body = json.dumps({"instanceId": instance, "workflow": "wf", "step": "s1", "attempt": 1,
                       "businessKey": "bk-" + instance[:8], "input": case_input}).encode()
    return f"service.{service}.{name}", properties, body


def drain(channel, queue):
    """The (properties, body) of every message in ``queue``, taken out of it."""
    found = []
    while True:
        method, properties, body = channel.basic_get(queue, auto_ack=True)
        if method is None:
            return found
        found.append((properties, body))


class ObservedEvents:
    """Commands sent to a service's ``act``, each tagged with a header of the test's own, and the events its worker
    answers them with, picked out by that tag: the worker copies a command's ``baton-*`` headers onto its events."""

    QUEUE = "observed-events"
    TAG = "baton-test-id"

    def __init__(self, channel, settings: Settings):
        self.channel = channel
        self.service = settings.service
        # Taken off the queue once, kept: a test asks again for the events of a command it has seen some of.
        self.seen = []
        channel.queue_declare(self.QUEUE, durable=False)
        channel.queue_bind(self.QUEUE, settings.event_exchange, "#")

    def send(self, case_input, message_id=None, headers=None):
        """Sends ``case_input`` to ``act``, tagged with its message id; returns the command's properties."""
        mid = message_id or str(uuid.uuid4())
        tagged = {self.TAG: mid}
        tagged.update(headers or {})
        key, properties, body = command(self.service, "act", case_input, mid, tagged)
        self.channel.basic_publish(f"{self.service}.command.topic.ex", key, body, properties)
        return properties

    def events_for(self, message_id):
        """(routing key, properties, body) of the events answering the command ``message_id`` so far."""
        while True:
            method, properties, body = self.channel.basic_get(self.QUEUE, auto_ack=True)
            if method is None:
                break
            self.seen.append((method.routing_key, properties, json.loads(body)))
        return [e for e in self.seen if e[1].headers.get(self.TAG) == message_id]
