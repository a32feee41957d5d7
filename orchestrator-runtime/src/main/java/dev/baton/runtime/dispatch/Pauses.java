package dev.baton.runtime.dispatch;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.contract.Names;
import dev.baton.runtime.definitions.ServiceWatcher;
import dev.baton.runtime.definitions.WorkflowWatcher;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.PauseStore;
import dev.baton.runtime.store.PauseStore.Kind;
import dev.baton.runtime.store.PauseStore.Pause;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the recorded pauses ({@code dispatch_pause}) equal to the resources' {@code spec.paused}
 * (docs/design.md#pause-and-resume), on every runtime, about once a second: a new pause is recorded (from then on no
 * relay claims what it holds), the timers of the steps each pause holds are parked (steps that came to wait since
 * the last look too), and a pause no longer asked for is ended by whichever runtime gets there first, which gives the
 * parked steps their time back in the same transaction. A runtime ends only pauses of resources it watches, and
 * none of WorkerServices when it cannot watch them.
 */
public final class Pauses implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(Pauses.class);

  private final Database database;
  private final PauseStore store = new PauseStore();
  private final WorkflowWatcher workflows;
  private final Supplier<Optional<ServiceWatcher>> services;

  public Pauses(Database database, WorkflowWatcher workflows, Supplier<Optional<ServiceWatcher>> services) {
    this.database = database;
    this.workflows = workflows;
    this.services = services;
  }

  /** What one look does: the pauses to record, to end, and those whose held steps to park. */
  public record Plan(List<Pause> record, List<Pause> end, List<Pause> park) {}

  /**
   * The look's plan, pure.
   *
   * @param asked the pauses the resources ask for now
   * @param recorded the pauses in the database
   * @param known whether this runtime sees the resource a pause is of (a pause it cannot see is not ended)
   */
  public static Plan plan(List<Pause> asked, List<Pause> recorded, Predicate<Pause> known) {
    Set<Key> recordedKeys = new HashSet<>();
    recorded.forEach(p -> recordedKeys.add(Key.of(p)));
    Set<Key> askedKeys = new HashSet<>();
    asked.forEach(p -> askedKeys.add(Key.of(p)));
    List<Pause> record = asked.stream().filter(p -> !recordedKeys.contains(Key.of(p))).toList();
    List<Pause> end = recorded.stream().filter(p -> !askedKeys.contains(Key.of(p)) && known.test(p)).toList();
    List<Pause> park = new ArrayList<>(record);
    recorded.stream().filter(p -> !end.contains(p)).forEach(park::add);
    return new Plan(record, end, park);
  }

  private record Key(Kind kind, String namespace, String name) {
    static Key of(Pause p) {
      return new Key(p.kind(), p.namespace(), p.name());
    }
  }

  @Override
  public void run() {
    Optional<ServiceWatcher> serviceWatch = services.get();
    List<Pause> asked = new ArrayList<>();
    for (Workflow w : workflows.all()) {
      if (w.getSpec() != null && w.getSpec().isPausedNow()) {
        asked.add(new Pause(Kind.WORKFLOW, w.getMetadata().getNamespace(), w.getMetadata().getName(), null, null));
      }
    }
    serviceWatch.ifPresent(watch -> {
      for (WorkerService s : watch.all()) {
        if (s.getSpec() != null && Boolean.TRUE.equals(s.getSpec().getPaused())) {
          asked.add(new Pause(Kind.SERVICE, s.getMetadata().getNamespace(), s.serviceName(),
              Names.commandExchange(s.serviceName()), null));
        }
      }
    });
    try {
      List<Pause> recorded = database.inTransaction(store::all);
      Plan plan = plan(asked, recorded, p -> p.kind() == Kind.WORKFLOW ? workflows.watches(p.namespace())
          : serviceWatch.map(watch -> watch.watches(p.namespace())).orElse(false));
      for (Pause p : plan.record()) {
        database.inTransaction(c -> {
          store.pause(c, p.kind(), p.namespace(), p.name(), p.exchange());
          return null;
        });
        LOG.info("Paused {} {}/{}: its commands wait", p.kind().name().toLowerCase(), p.namespace(), p.name());
      }
      for (Pause p : plan.end()) {
        if (database.inTransaction(c -> store.end(c, p))) {
          LOG.info("Resumed {} {}/{}: its waiting commands go, its steps' timers run again",
              p.kind().name().toLowerCase(), p.namespace(), p.name());
        }
      }
      for (Pause p : plan.park()) {
        int parked = database.inTransaction(c -> store.park(c, p));
        if (parked > 0) {
          LOG.debug("Pause of {} {}/{}: {} step timer(s) stopped", p.kind(), p.namespace(), p.name(), parked);
        }
      }
    } catch (SQLException e) {
      LOG.warn("Following the pauses failed, trying again at the next look: {}", e.toString());
    }
  }
}
