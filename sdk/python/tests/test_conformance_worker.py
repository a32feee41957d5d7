"""The conformance worker as the suite starts it (a process of its own, configured by the environment): READY,
its log lines, and a graceful stop on SIGTERM that lets a running handler finish and publish."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

from baton_worker import read_settings

from . import broker
from .required import needs
from .waiting import eventually

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # sdk/python


@needs(broker.reachable(), "the RabbitMQ management API is not reachable")
class ConformanceWorkerProcessTest(unittest.TestCase):

    def setUp(self):
        self.vhost = broker.Vhost("py-conformance").__enter__()
        self.addCleanup(self.vhost.__exit__, None, None, None)
        service = "conf-python-" + uuid.uuid4().hex[:4]
        self.log = tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False).name
        self.addCleanup(os.unlink, self.log)
        self.env = dict(os.environ, PYTHONPATH=ROOT, BATON_RABBITMQ_URI=self.vhost.uri, BATON_SERVICE=service,
                        BATON_COMMANDS="act", BATON_CONSUMER_ACT_MAX_ATTEMPTS="3", BATON_CONSUMER_ACT_DELAYS="1s",
                        BATON_SUBSCRIPTIONS="heard", BATON_CONSUMER_HEARD_SOURCE=f"{service}-src",
                        BATON_CONSUMER_HEARD_PATTERN="*.ping.*", BATON_CONSUMER_HEARD_MAX_ATTEMPTS="3",
                        BATON_CONSUMER_HEARD_DELAYS="1s", BATON_CONFORMANCE_LOG=self.log,
                        BATON_CONFORMANCE_HANDLER_TIMEOUT_MS="5000", BATON_CONFORMANCE_CONNECTION_NAME="conf-py",
                        BATON_HANDLER_THREADS="1")
        self.settings = read_settings(self.env)
        connection = self.vhost.connect()
        self.addCleanup(connection.close)
        self.channel = connection.channel()
        broker.declare(self.channel, self.settings,
                       sources=[(f"{service}-src.event.topic.ex", f"q.{service}.heard", "*.ping.*")])
        self.channel.queue_declare("observed", durable=False)
        self.channel.queue_bind("observed", self.settings.event_exchange, "#")
        self.process = subprocess.Popen([sys.executable, os.path.join(ROOT, "conformance", "worker.py")],
                                        env=self.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(self.process.stdout.close)
        self.addCleanup(lambda: self.process.poll() is None and self.process.kill())
        self.assertEqual(self.process.stdout.readline().strip(), "READY")

    def send(self, case_input):
        key, props, body = broker.command(self.settings.service, "act", case_input)
        self.channel.basic_publish(f"{self.settings.service}.command.topic.ex", key, body, props)
        return props

    def observed(self):
        method, _, body = self.channel.basic_get("observed", auto_ack=True)
        return None if method is None else (method.routing_key, json.loads(body))

    def log_lines(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def test_sigterm_lets_the_running_handler_finish_gives_back_the_rest_then_exits_0(self):
        sent = self.send({"case": "sleep", "ms": 1500})
        waiting = self.send({"case": "echo", "value": 1})  # prefetched, waits for the one handler thread
        eventually(self.log_lines, what="handler started")
        self.process.send_signal(signal.SIGTERM)
        self.assertEqual(self.process.wait(timeout=30), 0)
        key, body = eventually(self.observed, what="its event")
        self.assertEqual((key, body["output"]), ("order.act.success", {"slept": 1500}))
        self.assertEqual(self.log_lines(), [{"kind": "command", "messageId": sent.message_id, "case": "sleep",
                                             "retries": 0}])
        method, props, _ = self.channel.basic_get(f"q.{self.settings.service}.act", auto_ack=True)
        self.assertEqual((props.message_id, method.redelivered), (waiting.message_id, True))  # given back
        self.assertIsNone(self.channel.basic_get(f"q.{self.settings.service}.act", auto_ack=True)[0])
        self.assertIsNone(self.observed())


if __name__ == "__main__":
    unittest.main()
