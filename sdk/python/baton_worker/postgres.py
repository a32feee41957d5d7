"""An ``IdempotencyStore`` in PostgreSQL, for exactly-once effects across worker crashes (needs ``psycopg`` 3,
which the SDK does not depend on: ``pip install psycopg`` or Debian's ``python3-psycopg``).

Keep the outcome in the same transaction as the effect: a crash before the commit leaves nothing (the handler runs
again), a crash after it, before the ack, finds the outcome (the event is re-published, the effect not repeated)::

    store = PostgresIdempotencyStore("postgresql://app@db/shop")
    worker = Worker.from_environment(idempotency=store)

    @worker.command("pay")
    @store.transactional
    def pay(cmd, connection):                      # one transaction: the effect and its record
        connection.execute("INSERT INTO payment (order_id, amount) VALUES (%s, %s)", (...))
        return Success({"paid": True})
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Callable, Optional

from .idempotency import IdempotencyStore
from .messages import Success, Failed, outcome_from_json, outcome_to_json

_TABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")


def create_table_sql(table: str = "baton_processed_message") -> str:
    """The table's DDL (the same as the Java SDK's ``JdbcIdempotencyStore``)."""
    return (f"CREATE TABLE IF NOT EXISTS {_checked(table)} ("
            "message_id varchar(512) PRIMARY KEY, "
            "outcome text NOT NULL, "
            "recorded_at timestamp with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP)")


def _checked(table: str) -> str:
    if not _TABLE.match(table):
        raise ValueError(f"not a table name: {table!r}")
    return table


class PostgresIdempotencyStore(IdempotencyStore):
    """Outcomes by key in ``table``; ``connect()`` gives a new psycopg connection (default: ``psycopg.connect``
    of ``conninfo``; pass a pool's ``connection`` context manager factory for a pool)."""

    def __init__(self, conninfo: str = None, table: str = "baton_processed_message",
                 connect: Optional[Callable] = None):
        import psycopg  # the optional dependency, named only when this store is used

        self.table = _checked(table)
        self._connect = connect or (lambda: psycopg.connect(conninfo))

    def create_table(self) -> None:
        """Runs the DDL: for tests and quick starts (production schemas belong to your migrations)."""
        with self._connect() as connection:
            connection.execute(create_table_sql(self.table))

    def find(self, key: str):
        with self._connect() as connection:
            row = connection.execute(f"SELECT outcome FROM {self.table} WHERE message_id = %s", (key,)).fetchone()
        return None if row is None else outcome_from_json(row[0])

    def remember(self, key: str, outcome) -> None:
        with self._connect() as connection:
            self.record(connection, key, outcome)

    def record(self, connection, key: str, outcome) -> bool:
        """Inserts the outcome in ``connection``'s transaction; False when a duplicate committed first (then roll
        back your effect and answer with ``find(key)``)."""
        cursor = connection.execute(
            f"INSERT INTO {self.table} (message_id, outcome) VALUES (%s, %s) ON CONFLICT (message_id) DO NOTHING",
            (key, outcome_to_json(outcome)))
        return cursor.rowcount == 1

    def transactional(self, handler: Callable) -> Callable:
        """Wraps ``handler(cmd, connection)``: runs it and records its outcome in one transaction, committed
        together. If the handler raises, both roll back (a technical failure, retried). If a duplicate committed
        first, this effect is rolled back and the first outcome returned. ``handler`` must be a plain function: the
        transaction is psycopg's blocking one, so an ``async def`` handler is refused (TypeError)."""
        if inspect.iscoroutinefunction(handler):
            # It would run after this wrapper returned, its connection closed and nothing recorded.
            raise TypeError(f"{handler.__name__} is an async def: transactional wraps a plain function")

        @functools.wraps(handler)
        def run(cmd):
            with self._connect() as connection:
                outcome = handler(cmd, connection)
                if not isinstance(outcome, (Success, Failed)) or cmd.message_id is None:
                    return outcome
                if self.record(connection, cmd.message_id, outcome):
                    return outcome  # committed on leaving the block
                connection.rollback()
            return self.find(cmd.message_id)
        return run
