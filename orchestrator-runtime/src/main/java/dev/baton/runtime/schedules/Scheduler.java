package dev.baton.runtime.schedules;

import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.validation.Validated;
import dev.baton.runtime.definitions.Startability;
import dev.baton.runtime.engine.InstanceService;
import dev.baton.runtime.engine.UnitOfWork;
import dev.baton.runtime.store.Actor;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.ScheduleStore;
import dev.baton.workflow.schedule.FirePlan;
import dev.baton.workflow.schedule.Schedule;
import dev.baton.workflow.schedule.Schedules;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires the Workflows' schedules (docs/design.md#schedules). Every runtime looks, about once a second; a schedule is
 * looked at in a transaction only when its next fire is due or a buffered fire may be waiting, from what the last
 * look at all rows said. The look holds the schedule's row, starts the due fires' instances and moves the row in the
 * same transaction ({@link FirePlan} decides): with two runtimes, the second waits for the first's commit and finds
 * the fire handled; a runtime killed mid-look leaves the fire to the next one. A Workflow that may not start
 * instances now (not Ready, being deleted) leaves its due fires for later, where the catch-up window decides.
 */
public final class Scheduler implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);
  /** Who the audit says started a schedule's instances. */
  public static final String ACTOR = "schedule";

  private final Database database;
  private final UnitOfWork unitOfWork;
  private final InstanceService instances;
  private final ScheduleStore store = new ScheduleStore();
  private final Supplier<List<Workflow>> workflows;
  private final boolean requireReady;
  private final Clock clock;
  /** Each schedule's row as the last look read it, by namespace/workflow/schedule. */
  private volatile Map<String, ScheduleStore.Row> rows = Map.of();
  private boolean loaded;
  /** The spec each Workflow's schedules were last parsed from (the watch hands out the same object until it changes). */
  private final Map<String, Parsed> parsed = new HashMap<>();

  /** The first waiting fire of each schedule whose wait was logged, so that a wait is logged once, not every second. */
  private final Map<String, Instant> waitLogged = new HashMap<>();

  private record Parsed(Object spec, List<Schedule> schedules) {}

  public Scheduler(Database database, UnitOfWork unitOfWork, InstanceService instances,
      Supplier<List<Workflow>> workflows, boolean requireReady, Clock clock) {
    this.database = database;
    this.unitOfWork = unitOfWork;
    this.instances = instances;
    this.workflows = workflows;
    this.requireReady = requireReady;
    this.clock = clock;
  }

  /** Where every schedule stands, as the last look read it (for the operator's status of each Workflow). */
  public List<ScheduleStore.Row> standings() {
    return List.copyOf(rows.values());
  }

  @Override
  public void run() {
    if (!loaded) {
      readRows(); // the first look knows which rows exist, so a schedule removed while no runtime ran is forgotten
    }
    Instant now = clock.instant();
    Set<String> seen = new HashSet<>();
    for (Workflow workflow : workflows.get()) {
      seen.add(workflow.getMetadata().getNamespace() + "/" + workflow.getMetadata().getName());
      List<Schedule> schedules = schedulesOf(workflow);
      for (Schedule schedule : schedules) {
        ScheduleStore.Row known = rows.get(key(workflow, schedule.name()));
        if (known == null || due(known, now)) {
          try {
            look(workflow, schedule);
          } catch (SQLException | RuntimeException e) {
            LOG.warn("Schedule {} of Workflow {}/{} could not fire now (it is looked at again): {}", schedule.name(),
                workflow.getMetadata().getNamespace(), workflow.getMetadata().getName(), e.toString());
          }
        }
      }
    }
    forgetDeleted(seen);
    readRows();
  }

  /**
   * The rows of Workflows the watch no longer has (deleted): a Workflow created again under the name counts its fires
   * from then. Only Workflows this runtime saw before are concerned, so a watch that is still filling forgets nothing.
   */
  private void forgetDeleted(Set<String> seen) {
    for (String key : List.copyOf(parsed.keySet())) {
      if (seen.contains(key)) {
        continue;
      }
      String[] nsName = key.split("/", 2);
      try {
        database.inTransaction(c -> {
          store.forgetAllBut(c, nsName[0], nsName[1], List.of());
          return null;
        });
        parsed.remove(key);
      } catch (SQLException e) {
        LOG.warn("Forgetting the schedules of deleted Workflow {} failed (tried again at the next look): {}", key,
            e.toString());
      }
    }
  }

  private void readRows() {
    try {
      Map<String, ScheduleStore.Row> read = new HashMap<>();
      for (ScheduleStore.Row row : database.inTransaction(store::all)) {
        read.put(row.namespace() + "/" + row.workflow() + "/" + row.schedule(), row);
      }
      rows = read;
      loaded = true;
    } catch (SQLException e) {
      LOG.warn("Reading the schedules' state failed: {}", e.toString());
    }
  }

  private static boolean due(ScheduleStore.Row row, Instant now) {
    return row.nextFire() == null || !row.nextFire().isAfter(now)
        || (row.bufferedFire() != null && !row.previousRunning());
  }

  /**
   * The Workflow's valid schedules, parsed once per change of its spec; at such a change, the rows of schedules it no
   * longer has are dropped (a schedule added again later counts its fires from then).
   */
  private List<Schedule> schedulesOf(Workflow workflow) {
    String key = workflow.getMetadata().getNamespace() + "/" + workflow.getMetadata().getName();
    Parsed last = parsed.get(key);
    if (last != null && last.spec() == workflow.getSpec()) {
      return last.schedules();
    }
    var specs = workflow.getSpec() == null ? null : workflow.getSpec().getSchedules();
    Validated<List<Schedule>> schedules = Schedules.parse(specs);
    if (!schedules.isValid()) {
      LOG.info("The schedules of Workflow {} do not fire: {}", key, schedules.message());
    }
    List<Schedule> valid = schedules.isValid() ? schedules.value() : List.of();
    boolean hadRows = rows.keySet().stream().anyMatch(k -> k.startsWith(key + "/"));
    if (hadRows) {
      try {
        database.inTransaction(c -> {
          store.forgetAllBut(c, workflow.getMetadata().getNamespace(), workflow.getMetadata().getName(),
              valid.stream().map(Schedule::name).toList());
          return null;
        });
      } catch (SQLException e) {
        LOG.warn("Forgetting the removed schedules of Workflow {} failed (tried again at its next change): {}", key,
            e.toString());
      }
    }
    parsed.put(key, new Parsed(workflow.getSpec(), valid));
    return valid;
  }

  /** One look at one schedule, in one transaction that holds its row. */
  private void look(Workflow workflow, Schedule schedule) throws SQLException {
    String ns = workflow.getMetadata().getNamespace();
    String name = workflow.getMetadata().getName();
    unitOfWork.run(tx -> {
      store.createIfAbsent(tx.connection(), ns, name, schedule.name(), clock.instant());
      ScheduleStore.Row row = store.lock(tx.connection(), ns, name, schedule.name()).orElseThrow();
      // The clock is read after the row is held: a look that waited for another's commit sees that one's fires.
      Instant now = clock.instant();
      FirePlan plan = FirePlan.decide(schedule,
          new FirePlan.Standing(row.lastFire(), row.bufferedFire(), row.previousRunning()), now);
      if (!plan.starts().isEmpty()) {
        var refusal = Startability.refusal(workflow, requireReady);
        if (refusal.isPresent()) {
          // Nothing moves: the fires stay due, and start later if they are still within the catch-up window.
          if (!plan.starts().get(0).equals(waitLogged.put(key(workflow, schedule.name()), plan.starts().get(0)))) {
            LOG.info("Schedule {} of Workflow {}/{} waits to fire: {}", schedule.name(), ns, name, refusal.get());
          }
          return null;
        }
      }
      UUID lastInstance = null;
      String lastKey = null;
      for (Instant fire : plan.starts()) {
        lastKey = schedule.businessKey(fire);
        lastInstance = instances.startWithin(tx, ns, name, workflow.getSpec(), lastKey, schedule.inputJson(),
            new Actor(ACTOR, null), schedule.name()).current().id();
      }
      store.move(tx.connection(), row, plan.lastFire(), plan.bufferedFire(), plan.nextFire(), lastInstance, lastKey,
          plan.skipped(), plan.missed());
      if (!plan.starts().isEmpty() || plan.skipped() > 0 || plan.missed() > 0) {
        LOG.info("Schedule {} of Workflow {}/{}: started {}, skipped {}, missed {}; next fire {}", schedule.name(), ns,
            name, plan.starts().stream().map(schedule::businessKey).toList(), plan.skipped(), plan.missed(),
            plan.nextFire());
      }
      return null;
    });
  }

  private static String key(Workflow workflow, String schedule) {
    return workflow.getMetadata().getNamespace() + "/" + workflow.getMetadata().getName() + "/" + schedule;
  }
}
