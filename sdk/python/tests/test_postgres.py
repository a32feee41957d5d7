"""The PostgreSQL store against the local PostgreSQL (skipped without psycopg or the database)."""

import unittest
import uuid

from baton_worker import Command, Success

try:
    import psycopg
    from baton_worker.postgres import PostgresIdempotencyStore
    CONNINFO = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
    with psycopg.connect(CONNINFO, connect_timeout=3):
        pass
    AVAILABLE = True
except Exception:  # psycopg not installed, or no database
    AVAILABLE = False


@unittest.skipUnless(AVAILABLE, "psycopg or PostgreSQL at 127.0.0.1:5432 not available")
class PostgresIdempotencyStoreTest(unittest.TestCase):

    def setUp(self):
        self.table = "baton_processed_message_" + uuid.uuid4().hex[:8]
        self.store = PostgresIdempotencyStore(CONNINFO, table=self.table)
        self.store.create_table()
        self.conn = psycopg.connect(CONNINFO, autocommit=True)
        self.conn.execute(f"CREATE TABLE {self.table}_effect (message_id text)")

    def tearDown(self):
        self.conn.execute(f"DROP TABLE {self.table}")
        self.conn.execute(f"DROP TABLE {self.table}_effect")
        self.conn.close()

    def command(self, mid):
        return Command("pay", mid, "i", {"input": {}}, {}, 0, False)

    def effects(self):
        return self.conn.execute(f"SELECT count(*) FROM {self.table}_effect").fetchone()[0]

    def test_effect_and_outcome_commit_together_and_a_duplicate_gets_the_first_outcome(self):
        calls = []

        @self.store.transactional
        def pay(cmd, connection):
            calls.append(cmd.message_id)
            connection.execute(f"INSERT INTO {self.table}_effect VALUES (%s)", (cmd.message_id,))
            return Success({"n": len(calls)})

        self.assertEqual(pay(self.command("m-1")), Success({"n": 1}))
        self.assertEqual(self.store.find("m-1"), Success({"n": 1}))
        # a duplicate that raced past the lookup: its effect is rolled back, the first outcome returned
        self.assertEqual(pay(self.command("m-1")), Success({"n": 1}))
        self.assertEqual(self.effects(), 1)

    def test_a_raising_handler_leaves_nothing(self):
        @self.store.transactional
        def pay(cmd, connection):
            connection.execute(f"INSERT INTO {self.table}_effect VALUES (%s)", (cmd.message_id,))
            raise RuntimeError("bank down")

        with self.assertRaises(RuntimeError):
            pay(self.command("m-2"))
        self.assertIsNone(self.store.find("m-2"))
        self.assertEqual(self.effects(), 0)


if __name__ == "__main__":
    unittest.main()
