package dev.baton.runtime.store;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/** Tells failures worth retrying (the database is away, a lock conflict) from failures of the work itself. */
public final class SqlErrors {

  private SqlErrors() {}

  /**
   * True when the same work may succeed later: connection problems (class 08), serialization failures and
   * deadlocks (40001, 40P01), the server shutting down (57P0x), insufficient resources (class 53), and a pool that
   * could not hand out a connection in time.
   */
  public static boolean isTransient(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SQLTransientException || c instanceof SQLRecoverableException) {
        return true;
      }
      if (c instanceof SQLException e && e.getSQLState() != null) {
        String state = e.getSQLState();
        if (state.startsWith("08") || state.startsWith("53") || state.startsWith("57P")
            || state.equals("40001") || state.equals("40P01")) {
          return true;
        }
      }
    }
    return false;
  }
}
