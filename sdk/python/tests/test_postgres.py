"""The PostgreSQL store against the local PostgreSQL (127.0.0.1:5432, user postgres), in a database of the test's
own, created for it and dropped after it. Skipped without psycopg or the database, unless BATON_TEST_STRICT=1."""

import unittest
import uuid

from baton_worker import Command, Success

from .required import unavailable

try:
    import psycopg
    from psycopg import sql
    from baton_worker.postgres import PostgresIdempotencyStore
except ImportError:  # an optional dependency of the SDK: the rest of its tests run without it
    psycopg = None

SERVER = "host=127.0.0.1 port=5432 user=postgres connect_timeout=5"


class PostgresIdempotencyStoreTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if psycopg is None:
            unavailable("psycopg is not installed (pip install psycopg; Debian: python3-psycopg)")
        try:
            cls.admin = psycopg.connect(SERVER + " dbname=postgres", autocommit=True)
        except psycopg.OperationalError as e:
            unavailable(f"PostgreSQL at 127.0.0.1:5432 is not reachable: {e}")
        cls.database = "baton_py_sdk_test_" + uuid.uuid4().hex[:8]
        cls.admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(cls.database)))
        cls.conninfo = f"{SERVER} dbname={cls.database}"

    @classmethod
    def tearDownClass(cls):
        cls.admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(cls.database)))
        cls.admin.close()

    def setUp(self):
        self.store = PostgresIdempotencyStore(self.conninfo)
        self.store.create_table()
        self.conn = psycopg.connect(self.conninfo, autocommit=True)
        self.conn.execute("CREATE TABLE payment (message_id text)")

    def tearDown(self):
        self.conn.execute("DROP TABLE payment")
        self.conn.execute(f"DROP TABLE {self.store.table}")
        self.conn.close()

    def command(self, mid):
        return Command("pay", mid, "i", {"input": {}}, {}, 0, False)

    def payments(self):
        return self.conn.execute("SELECT count(*) FROM payment").fetchone()[0]

    def test_the_store_keeps_its_outcomes_in_the_database(self):
        self.assertIsNone(self.store.find("m-0"))
        self.store.remember("m-0", Success({"paid": True}))
        self.assertEqual(PostgresIdempotencyStore(self.conninfo).find("m-0"), Success({"paid": True}))

    def test_effect_and_outcome_commit_together_and_a_duplicate_gets_the_first_outcome(self):
        calls = []

        @self.store.transactional
        def pay(cmd, connection):
            calls.append(cmd.message_id)
            connection.execute("INSERT INTO payment VALUES (%s)", (cmd.message_id,))
            return Success({"n": len(calls)})

        self.assertEqual(pay(self.command("m-1")), Success({"n": 1}))
        self.assertEqual(self.store.find("m-1"), Success({"n": 1}))
        # a duplicate that raced past the lookup: its effect is rolled back, the first outcome returned
        self.assertEqual(pay(self.command("m-1")), Success({"n": 1}))
        self.assertEqual(self.payments(), 1)

    def test_a_raising_handler_leaves_nothing(self):
        @self.store.transactional
        def pay(cmd, connection):
            connection.execute("INSERT INTO payment VALUES (%s)", (cmd.message_id,))
            raise RuntimeError("bank down")

        with self.assertRaises(RuntimeError):
            pay(self.command("m-2"))
        self.assertIsNone(self.store.find("m-2"))
        self.assertEqual(self.payments(), 0)

    def test_an_async_handler_is_refused_since_its_transaction_would_end_before_it_ran(self):
        with self.assertRaises(TypeError):
            @self.store.transactional
            async def pay(cmd, connection):
                return Success({})


if __name__ == "__main__":
    unittest.main()
