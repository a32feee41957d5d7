package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Work done inside one database transaction; the caller commits or rolls back. */
@FunctionalInterface
public interface TransactionWork<T> {
  T run(Connection connection) throws SQLException;
}
