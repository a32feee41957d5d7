package dev.baton.runtime.retention;

import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.ProcessedEventStore;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purges finished instances (with their step history) older than the retention, and the processed-event ids of the
 * same age, in small batches so no transaction holds many locks. Processed-event ids are kept as long as instances:
 * an event redelivered later than that would find its instance gone anyway and be parked as unknown.
 */
public final class RetentionJob implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(RetentionJob.class);
  private static final int BATCH = 1_000;

  private final Database database;
  private final InstanceStore instances;
  private final ProcessedEventStore processed;
  private final Duration retention;

  public RetentionJob(Database database, InstanceStore instances, ProcessedEventStore processed, Duration retention) {
    this.database = database;
    this.instances = instances;
    this.processed = processed;
    this.retention = retention;
  }

  @Override
  public void run() {
    try {
      long purgedInstances = purge(true);
      long purgedEvents = purge(false);
      if (purgedInstances + purgedEvents > 0) {
        LOG.info("Retention ({}): purged {} finished instance(s) and {} processed-event id(s)", retention,
            purgedInstances, purgedEvents);
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Retention purge failed, trying again later: {}", e.toString());
    }
  }

  private long purge(boolean instancesNotEvents) throws SQLException {
    long total = 0;
    int n;
    do {
      n = database.inTransaction(c -> instancesNotEvents
          ? instances.purgeFinished(c, retention, BATCH)
          : processed.purgeOlderThan(c, retention, BATCH));
      total += n;
    } while (n >= BATCH);
    return total;
  }
}
