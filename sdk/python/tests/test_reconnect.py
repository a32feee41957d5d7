"""Reconnection against the real broker: credentials read anew from a mounted Secret file on each reconnect, and a
consumer cancelled by the broker (its queue deleted and declared again) subscribed again."""

import json
import os
import tempfile
import unittest
import uuid

from baton_worker import Command, Success, Worker

from . import broker
from .required import needs
from .waiting import eventually

CONNECTION = "pyit-reconnect"


@needs(broker.reachable(), "the RabbitMQ management API is not reachable")
class ReconnectTest(unittest.TestCase):

    def setUp(self):
        self.vhost = broker.Vhost("py-reconnect").__enter__()
        self.addCleanup(self.vhost.__exit__, None, None, None)
        d = tempfile.mkdtemp()
        self.password = os.path.join(d, "password")
        self.write_password(broker.PASSWORD)
        env = {"BATON_RABBITMQ_URI": f"amqp://{broker.HOST}:{broker.PORT}/{self.vhost.quoted}",
               "BATON_RABBITMQ_USERNAME": broker.USER, "BATON_RABBITMQ_PASSWORD_FILE": self.password,
               "BATON_SERVICE": "pyre", "BATON_COMMANDS": "act"}
        self.worker = Worker.from_environment(env, connection_name=CONNECTION)

        @self.worker.command("act")
        def act(cmd: Command):
            return Success({"echo": cmd.input.get("value")})

        connection = self.vhost.connect()
        self.addCleanup(connection.close)
        self.channel = connection.channel()
        broker.declare(self.channel, self.worker.settings)
        self.channel.queue_declare("observed")
        self.channel.queue_bind("observed", self.worker.settings.event_exchange, "#")
        self.worker.start()
        self.addCleanup(self.worker.stop)

    def write_password(self, text):
        with open(self.password, "w") as f:
            f.write(text + "\n")

    def answers(self, value):
        key, props, body = broker.command("pyre", "act", {"value": value})
        self.channel.basic_publish("pyre.command.topic.ex", key, body, props)

        def answered():
            method, _, body = self.channel.basic_get("observed", auto_ack=True)
            return method is not None and json.loads(body)["output"] == {"echo": value}
        eventually(answered, timeout=30, what=f"answer {value}")

    def test_a_rotated_password_file_is_read_on_reconnect(self):
        self.answers(1)
        self.write_password("wrong")
        eventually(lambda: len(self.vhost.connections(CONNECTION)) == 2, what="connections listed")  # stats lag
        self.vhost.close_connections(CONNECTION)
        refused = eventually(lambda: "Authentication" in (self.worker.connection_problem or "")
                             and self.worker.connection_problem, what="a reconnect refused")
        self.assertNotIn("wrong", refused)  # the password is never shown
        self.assertFalse(self.worker.healthy)
        self.write_password(broker.PASSWORD)
        eventually(lambda: self.worker.healthy, timeout=30, what="reconnected with the new password")
        self.answers(2)

    def test_a_consumer_cancelled_by_the_broker_is_subscribed_again(self):
        self.channel.queue_delete("q.pyre.act")
        broker.declare(self.channel, self.worker.settings)
        eventually(lambda: self.worker.healthy and self.vhost.queue("q.pyre.act").get("consumers") == 1,
                   timeout=30, what="consuming the new queue")
        self.answers(3)


if __name__ == "__main__":
    unittest.main()
