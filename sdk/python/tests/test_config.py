import os
import tempfile
import unittest

from baton_worker import Credentials, InvalidSettings, Staircase, format_duration, parse_duration, read_settings

BASE = {
    "BATON_RABBITMQ_URI": "amqp://rabbit:5672/%2F",
    "BATON_SERVICE": "payment",
    "BATON_COMMANDS": "pay,refund-all",
    "BATON_CONSUMER_PAY_QUEUE": "q.payment.pay",
    "BATON_CONSUMER_PAY_MAX_ATTEMPTS": "4",
    "BATON_CONSUMER_PAY_DELAYS": "30s,2m,10m",
}


class DurationTest(unittest.TestCase):

    def test_parses_and_normalises_as_queue_names_do(self):
        self.assertEqual(parse_duration("1m30s"), 90_000)
        self.assertEqual(format_duration(parse_duration("120s")), "2m")
        self.assertEqual(format_duration(1500), "1500ms")
        self.assertEqual(format_duration(3_600_000), "1h")

    def test_refuses_what_is_not_a_duration(self):
        for text in ("", "30", "0s", "1d", "-1s", "1.5s"):
            with self.assertRaises(ValueError, msg=text):
                parse_duration(text)


class ReadSettingsTest(unittest.TestCase):

    def test_reads_commands_and_their_staircases(self):
        s = read_settings(BASE)
        self.assertEqual(s.service, "payment")
        self.assertEqual([c.name for c in s.commands], ["pay", "refund-all"])
        pay, refund = s.commands
        self.assertEqual(pay.staircase, Staircase(4, (30_000, 120_000, 600_000)))
        self.assertEqual(refund.staircase, Staircase(1, ()))
        self.assertEqual(refund.queue, "q.payment.refund-all")  # derived when the variable is absent
        self.assertEqual((s.event_exchange, s.retry_exchange), ("payment.event.topic.ex", "payment.retry.direct.ex"))
        self.assertEqual(s.prefetch, 10)
        self.assertEqual(s.threads, 20)  # prefetch x queues

    def test_reads_the_sdk_own_variables(self):
        s = read_settings(dict(BASE, BATON_HANDLER_TIMEOUT="90s", BATON_MAX_RESULT_BYTES="1000",
                               BATON_HANDLER_THREADS="3", BATON_PREFETCH="5", BATON_HEALTH_PORT="8081"))
        self.assertEqual((s.handler_timeout_ms, s.max_result_bytes, s.threads, s.prefetch, s.health_port),
                         (90_000, 1000, 3, 5, 8081))

    def test_subscriptions_need_a_source_or_a_workflow(self):
        env = dict(BASE, BATON_SUBSCRIPTIONS="notify,done", BATON_CONSUMER_NOTIFY_SOURCE="payment",
                   BATON_CONSUMER_NOTIFY_PATTERN="*.pay.failed", BATON_CONSUMER_DONE_WORKFLOW="shop/orders",
                   BATON_CONSUMER_DONE_OUTCOMES="failed,compensated")
        self.assertEqual([c.kind for c in read_settings(env).subscriptions], ["subscription", "subscription"])
        del env["BATON_CONSUMER_NOTIFY_PATTERN"]
        env["BATON_CONSUMER_DONE_OUTCOMES"] = "failed,lost"
        with self.assertRaises(InvalidSettings) as raised:
            read_settings(env)
        text = str(raised.exception)
        self.assertIn("BATON_CONSUMER_NOTIFY_PATTERN", text)
        self.assertIn("'lost'", text)

    def test_names_every_problem_at_once(self):
        env = {"BATON_PREFETCH": "0", "BATON_COMMANDS": "pay", "BATON_CONSUMER_PAY_MAX_ATTEMPTS": "3",
               "BATON_HANDLER_TIMEOUT": "soon"}
        with self.assertRaises(InvalidSettings) as raised:
            read_settings(env)
        names = " ".join(raised.exception.problems)
        for variable in ("BATON_SERVICE", "BATON_RABBITMQ_URI", "BATON_PREFETCH", "BATON_CONSUMER_PAY_DELAYS",
                         "BATON_HANDLER_TIMEOUT"):
            self.assertIn(variable, names)


class CredentialsTest(unittest.TestCase):

    def test_username_and_password_take_precedence_and_the_password_is_never_shown(self):
        c = Credentials.read({"BATON_RABBITMQ_URI": "amqp://u:p@rabbit:5672/shop", "BATON_RABBITMQ_USERNAME": "w",
                              "BATON_RABBITMQ_PASSWORD": "s3cret"})
        params = c.connection_parameters("name")[0]
        self.assertEqual((params.credentials.username, params.credentials.password), ("w", "s3cret"))
        self.assertEqual(params.virtual_host, "shop")
        self.assertEqual(params.client_properties["connection_name"], "name")
        self.assertEqual(c.describe(), "rabbit:5672 vhost shop user w")
        self.assertNotIn("s3cret", repr(c))

    def test_password_from_a_mounted_file_is_read_again_each_time(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "password")
            env = {"BATON_RABBITMQ_URI": "amqp://rabbit/%2F", "BATON_RABBITMQ_USERNAME": "w",
                   "BATON_RABBITMQ_PASSWORD_FILE": path}
            with open(path, "w") as f:
                f.write("first\n")
            self.assertEqual(Credentials.read(env).password, "first")
            with open(path, "w") as f:
                f.write("rotated\n")
            self.assertEqual(Credentials.read(env).password, "rotated")

    def test_addresses_replace_the_host(self):
        c = Credentials.read({"BATON_RABBITMQ_URI": "amqp://rabbit/%2F", "BATON_RABBITMQ_ADDRESSES": "a:1,b"})
        self.assertEqual([(p.host, p.port) for p in c.connection_parameters("n")], [("a", 1), ("b", 5672)])

    def test_amqps_verifies_the_certificate_and_the_host_name(self):
        import ssl
        params = Credentials.read({"BATON_RABBITMQ_URI": "amqps://rabbit.example/%2F"}).connection_parameters("n")[0]
        context = params.ssl_options.context
        self.assertEqual((context.verify_mode, context.check_hostname), (ssl.CERT_REQUIRED, True))
        self.assertEqual((params.ssl_options.server_hostname, params.port), ("rabbit.example", 5671))

    def test_a_username_needs_its_password(self):
        with self.assertRaises(InvalidSettings):
            Credentials.read({"BATON_RABBITMQ_URI": "amqp://rabbit/", "BATON_RABBITMQ_USERNAME": "w"})


if __name__ == "__main__":
    unittest.main()
