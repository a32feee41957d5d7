package dev.baton.runtime.metrics;

import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.FreshStatistics;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.RunningSteps;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refreshes what the metrics read from the database (instances by status, the outbox backlog) and tells the
 * consumer registry which workflows still have unfinished instances. Periodic, so scrapes never hit the database.
 * Also keeps the statistics of young tables fresh ({@link FreshStatistics}).
 */
public final class DatabaseGauges implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(DatabaseGauges.class);

  private final Database database;
  private final InstanceStore instances;
  private final OutboxStore outbox;
  private final RuntimeMetrics metrics;
  private final Consumer<Set<String>> activeWorkflows;
  private final FreshStatistics statistics = new FreshStatistics();
  private final RunningSteps runningSteps = new RunningSteps();
  private final GaugeExporter exporter;

  public DatabaseGauges(Database database, InstanceStore instances, OutboxStore outbox, RuntimeMetrics metrics,
      Consumer<Set<String>> activeWorkflows, GaugeExporter exporter) {
    this.database = database;
    this.exporter = exporter;
    this.instances = instances;
    this.outbox = outbox;
    this.metrics = metrics;
    this.activeWorkflows = activeWorkflows;
  }

  @Override
  public void run() {
    metrics.exportDatabaseGauges(exporter.elected());
    try {
      database.inTransaction(c -> {
        metrics.instanceCounts(instances.countByStatus(c));
        OutboxStore.Backlog backlog = outbox.backlog(c);
        metrics.outboxBacklog(backlog.pending(), backlog.oldestAgeSeconds());
        activeWorkflows.accept(new HashSet<>(instances.workflowsWithActiveInstances(c)));
        // The exporter alone: the others would export nothing of it.
        metrics.runningSteps(exporter.elected() ? runningSteps.groups(c) : List.of());
        return null;
      });
    } catch (SQLException | RuntimeException e) {
      LOG.debug("Refreshing database gauges failed: {}", e.toString());
    }
    try {
      List<String> analysed = database.inTransaction(statistics::refresh);
      if (!analysed.isEmpty()) {
        LOG.debug("Statistics refreshed for {}", analysed);
      }
    } catch (SQLException | RuntimeException e) {
      LOG.debug("Refreshing table statistics failed: {}", e.toString());
    }
  }
}
