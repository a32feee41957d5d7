package dev.baton.runtime.retention;

import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.RequestKeyStore;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purges finished instances older than the retention, with their steps and signals (they cascade), in small batches
 * so no transaction holds many locks, and the answers kept for Idempotency-Keys once a day old. Nothing else grows: an
 * event leaves no row of its own behind.
 */
public final class RetentionJob implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(RetentionJob.class);
  private static final int BATCH = 1_000;

  private final Database database;
  private final InstanceStore instances;
  private final Duration retention;
  private final RequestKeyStore keys = new RequestKeyStore();
  /** How long the answer to an Idempotency-Key is kept (docs/design.md#interfaces: within 24 h). */
  public static final Duration IDEMPOTENCY_WINDOW = Duration.ofHours(24);

  public RetentionJob(Database database, InstanceStore instances, Duration retention) {
    this.database = database;
    this.instances = instances;
    this.retention = retention;
  }

  @Override
  public void run() {
    try {
      long total = 0;
      int n;
      do {
        n = database.inTransaction(c -> instances.purgeFinished(c, retention, BATCH));
        total += n;
      } while (n >= BATCH);
      if (total > 0) {
        LOG.info("Retention ({}): purged {} finished instance(s) with their steps", retention, total);
      }
      // The answers kept for Idempotency-Keys are worth a day, whatever the instances' retention.
      database.inTransaction(c -> keys.purge(c, IDEMPOTENCY_WINDOW));
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Retention purge failed, trying again later: {}", e.toString());
    }
  }
}
