package dev.baton.runtime.dispatch;

import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.Names;
import dev.baton.runtime.definitions.ServiceWatcher;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.LimitStore;
import dev.baton.runtime.store.LimitStore.Limit;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the recorded limits ({@code command_limit}) equal to the WorkerServices' {@code commands[].maxInFlight}
 * (docs/design.md#concurrency-limits), on every runtime, about once a second, and tells this runtime's relay the limits
 * as recorded (a limit recorded by another replica applies here too). Each look also refreshes the gauges of how many
 * of each limited command are in flight and how many wait. A runtime drops only limits of namespaces it watches, and
 * none when it cannot watch WorkerServices.
 */
public final class Limits implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(Limits.class);

  private final Database database;
  private final LimitStore store = new LimitStore();
  private final Supplier<Optional<ServiceWatcher>> services;
  private final Consumer<List<Limit>> relay;
  private final RuntimeMetrics metrics;
  /** Every how many looks the slots of commands that ended without their step's transaction are given back. */
  static final int FREE_EVERY = 30;
  private long looks;

  public Limits(Database database, Supplier<Optional<ServiceWatcher>> services, Consumer<List<Limit>> relay,
      RuntimeMetrics metrics) {
    this.database = database;
    this.services = services;
    this.relay = relay;
    this.metrics = metrics;
  }

  /** The limits the WorkerServices ask for. */
  static List<Limit> asked(List<WorkerService> services) {
    List<Limit> limits = new ArrayList<>();
    for (WorkerService s : services) {
      if (s.getSpec() == null || s.getSpec().getCommands() == null) {
        continue;
      }
      String service = s.serviceName();
      for (CommandSpec command : s.getSpec().getCommands()) {
        if (command != null && command.getName() != null && command.getMaxInFlight() != null
            && command.getMaxInFlight() > 0) {
          limits.add(new Limit(Names.commandExchange(service), Names.commandRoutingKey(service, command.getName()),
              s.getMetadata().getNamespace(), service, command.getName(), command.getMaxInFlight()));
        }
      }
    }
    return limits;
  }

  @Override
  public void run() {
    Optional<ServiceWatcher> watch = services.get();
    try {
      List<Limit> recorded = database.inTransaction(store::all);
      boolean changed = false;
      if (watch.isPresent()) {
        Map<String, Limit> asked = new HashMap<>();
        asked(watch.get().all()).forEach(l -> asked.put(l.exchange() + " " + l.routingKey(), l));
        for (Limit l : asked.values()) {
          if (!recorded.contains(l)) {
            database.inTransaction(c -> {
              store.put(c, l);
              return null;
            });
            changed = true;
            LOG.info("Command {} of service {} ({}): at most {} in flight", l.command(), l.service(), l.namespace(),
                l.maxInFlight());
          }
        }
        for (Limit l : recorded) {
          if (!asked.containsKey(l.exchange() + " " + l.routingKey()) && watch.get().watches(l.namespace())) {
            database.inTransaction(c -> {
              store.drop(c, l);
              return null;
            });
            changed = true;
            LOG.info("Command {} of service {} ({}): no limit any more", l.command(), l.service(), l.namespace());
          }
        }
      }
      if (changed) {
        recorded = database.inTransaction(store::all); // as recorded: another replica may have put a value too
      }
      relay.accept(recorded);
      // Counted once per look: the gauges, and whether any step waits for capacity to be parked.
      List<LimitStore.Waiting> waiting = recorded.isEmpty() ? List.of() : database.inTransaction(store::waiting);
      if (!recorded.isEmpty()) {
        boolean anyWaiting = waiting.stream().anyMatch(w -> w.waiting() > 0);
        database.inTransaction(c -> store.park(c, anyWaiting)); // waiting for capacity is not the steps' time
        if (looks++ % FREE_EVERY == 0) {
          // A step that ends gives its slot back as it ends; this takes the slots of commands that ended otherwise
          // (the claim that finds its capacity used up does too), off the relay's path. It reads every slot.
          for (Limit l : recorded) {
            database.inTransaction(c -> store.free(c, l));
          }
        }
      }
      metrics.commandCapacity(waiting);
    } catch (SQLException e) {
      LOG.warn("Following the commands' limits failed, trying again at the next look: {}", e.toString());
    }
  }
}
