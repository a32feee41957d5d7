package dev.baton.runtime.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.runtime.core.InstanceState.ChildState;
import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.Phase;
import dev.baton.runtime.core.RandomIds;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.StepStatus;
import dev.baton.runtime.core.Stimulus;
import dev.baton.runtime.core.Transition;
import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.definitions.Startability;
import dev.baton.runtime.store.Actor;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.InstanceStore.NewInstance;
import dev.baton.runtime.store.LinkStore;
import dev.baton.runtime.store.StepStore;
import dev.baton.workflow.WorkflowDefinition;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Child workflow steps (docs/design.md#workflow-language, child workflow): a parent and the instances its steps start.
 *
 * <p>A child starts inside the transaction of the decision that starts its step, with its first steps, so a parent
 * never waits for a child that was not started (business key {@code <parent id>/<step row>}: a retry of the step
 * finds it, and retries it when it failed). Everything else crosses from one instance to the other after a commit,
 * never inside the other's transaction: a child that ended wakes its parent, a parent whose step ended otherwise
 * (a timeout, a cancel, a failure elsewhere) cancels its child, a parent that undoes the step compensates it. Each of
 * those is a {@link #drive} of the parent, in a transaction of its own that locks the parent first and then its
 * children, the one order in which two instances are ever locked together. A wake-up lost to a crash is found again by
 * {@link #sweep}; a drive is idempotent, so one too many changes nothing.
 */
public final class ChildWorkflows implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChildWorkflows.class);

  /** Where the runtime reads the Workflows (its watch of them). */
  public interface Workflows {
    Optional<Workflow> find(String namespace, String name);

    /** Whether {@link #find} knows every Workflow yet (a missing one is then missing, not unknown). */
    boolean ready();
  }

  private final UnitOfWork unitOfWork;
  private final Engine engine;
  private final InstanceStore instances;
  private final StepStore steps;
  private final LinkStore links;
  private final DefinitionCatalog definitions;
  private final Workflows workflows;
  private final boolean requireReady;
  private final ExecutorService driver = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "baton-children");
    t.setDaemon(true);
    return t;
  });
  /** Parents waiting for a drive: one queued drive per parent, however many wake-ups it gets meanwhile. */
  private final Set<UUID> queued = ConcurrentHashMap.newKeySet();

  public ChildWorkflows(UnitOfWork unitOfWork, Engine engine, InstanceStore instances, StepStore steps,
      LinkStore links, DefinitionCatalog definitions, Workflows workflows, boolean requireReady) {
    this.unitOfWork = unitOfWork;
    this.engine = engine;
    this.instances = instances;
    this.steps = steps;
    this.links = links;
    this.definitions = definitions;
    this.workflows = workflows;
    this.requireReady = requireReady;
  }

  /** Business key of the child of a parent's step row. */
  public static String businessKey(UUID parent, String stepRow) {
    return parent + "/" + stepRow;
  }

  // --- inside the parent's transaction ------------------------------------------------------------------------------

  /**
   * Starts the children of the steps a decision started (the caller holds the parent's lock). A child whose key exists
   * already is the step's earlier child: retried when it failed, else it answers the new attempt as it ended. A
   * Workflow that does not exist (or cannot run) starts nothing: the parent's drive after the commit fails the step.
   */
  void start(UnitOfWork.Transaction tx, InstanceRecord parent, List<Transition.ChildStart> starts)
      throws SQLException {
    Connection c = tx.connection();
    if (!workflows.ready()) {
      // Only while the runtime starts: the decision is taken again (the events stay unacknowledged, a timer sweep
      // runs again) once the runtime knows its Workflows, rather than refusing a child it could start.
      throw new SQLTransientException("the runtime does not know its Workflows yet: the child of "
          + starts.get(0).row().name() + " starts once it does");
    }
    for (Transition.ChildStart start : starts) {
      String row = start.row().name();
      String key = businessKey(parent.id(), row);
      Optional<Workflow> workflow = workflows.find(parent.namespace(), start.workflow())
          .filter(w -> Startability.refusal(w, requireReady).isEmpty());
      if (workflow.isEmpty()) {
        tx.wake(parent.id()); // refused by the drive, with the reason
        continue;
      }
      WorkflowDefinition definition;
      try {
        definition = definitions.current(c, parent.namespace(), start.workflow(), workflow.get().getSpec());
      } catch (IllegalArgumentException e) {
        tx.wake(parent.id());
        continue;
      }
      NewInstance n = new NewInstance(RandomIds.next(), parent.namespace(), start.workflow(), definition.revision(),
          key, Json.write(start.input()), parent.traceparent(), new Actor(startedBy(parent.id()), null),
          "child of " + parent.id() + " step " + row, definition.timeout());
      Map<UUID, InstanceRecord> inserted = instances.insertAllAbsent(c, List.of(n));
      if (!inserted.isEmpty()) {
        links.link(c, n.id(), parent.id(), row, start.row().attempt());
        engine.startAll(tx, List.copyOf(inserted.values()));
        continue;
      }
      InstanceRecord existing = instances.findByBusinessKeys(c, parent.namespace(), start.workflow(), List.of(key))
          .get(key);
      if (existing == null) {
        throw new IllegalStateException("child " + key + " neither inserted nor found");
      }
      InstanceRecord child = instances.lock(c, existing.id()).orElseThrow();
      if (links.parentOf(c, child.id()).isEmpty()) {
        links.link(c, child.id(), parent.id(), row, start.row().attempt());
      } else {
        links.answerAttempt(c, child.id(), start.row().attempt());
      }
      if (child.status() == InstanceStatus.FAILED) {
        engine.apply(tx, child, new Stimulus.Retry());
      }
      tx.wake(parent.id()); // it may have ended already: the drive ends the step
    }
  }

  /** Who started a child instance, as its {@code createdBy} and audit say. */
  public static String startedBy(UUID parent) {
    return "baton:instance:" + parent;
  }

  /**
   * The parent's children as its state machine reads them, by step row: status, the attempt they answer, and the
   * outputs of a succeeded one whose step still waits for it (only those: a map of a thousand children reads the
   * steps of none of those already taken in).
   *
   * @param rows the parent's step rows
   */
  Map<String, ChildState> statesOf(Connection c, UUID parent, List<StepState> rows) throws SQLException {
    Set<String> waiting = new java.util.HashSet<>();
    for (StepState r : rows) {
      if (r.kind().equals("workflow") && !r.isCompensation() && r.isRunning()) {
        waiting.add(r.name());
      }
    }
    Map<String, ChildState> out = new HashMap<>();
    for (LinkStore.Child child : links.childrenOf(c, parent)) {
      JsonNode outputs = child.status() == InstanceStatus.SUCCEEDED && waiting.contains(child.parentStep())
          ? outputsOf(steps.listFor(c, child.id())) : null;
      out.put(child.parentStep(), new ChildState(child.id(), child.status(), child.parentAttempt(), outputs,
          reasonOf(child.lastErrorJson())));
    }
    return out;
  }

  /** The outputs of a succeeded instance, by step name, as the API shows them. */
  static ObjectNode outputsOf(List<StepState> rows) {
    ObjectNode outputs = Json.object();
    for (StepState s : rows) {
      if (!s.isCompensation() && s.iteration() < 0 && s.status() == StepStatus.SUCCEEDED && s.output() != null) {
        outputs.set(s.name(), s.output());
      }
    }
    return outputs;
  }

  private static String reasonOf(String lastErrorJson) {
    JsonNode error = Json.read(lastErrorJson);
    return error == null || error.path("reason").isMissingNode() || error.path("reason").isNull() ? null
        : error.path("reason").asText();
  }

  // --- after a commit -------------------------------------------------------------------------------------------

  /** Parents whose child steps moved: each is driven once its turn comes, off the committing thread. */
  public void wake(Collection<UUID> parents) {
    for (UUID parent : parents) {
      if (queued.add(parent)) {
        submit(() -> {
          queued.remove(parent);
          driveLogged(parent);
        });
      }
    }
  }

  /** Instances that ended: their parents, if any, are woken. */
  public void ended(Collection<UUID> instances) {
    List<UUID> ended = List.copyOf(instances);
    submit(() -> {
      Set<UUID> parents = unitOfWork.run(tx -> links.parentsOf(tx.connection(), ended));
      parents.forEach(this::driveLogged);
    });
  }

  /** Parents a lost wake-up left waiting (a crash between a commit and its drive): driven now. */
  public void sweep(int limit) {
    try {
      for (UUID parent : unitOfWork.run(tx -> links.needingAttention(tx.connection(), limit))) {
        driveLogged(parent);
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn("The sweep of child workflows failed, trying again at the next poll: {}", e.toString());
    }
  }

  private void submit(SqlTask task) {
    try {
      driver.execute(() -> {
        try {
          task.run();
        } catch (SQLException | RuntimeException e) {
          LOG.warn("Child workflow work failed; the sweep takes it up again: {}", e.toString());
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // the runtime is stopping: the sweep of the next start finds what is left
    }
  }

  @FunctionalInterface
  private interface SqlTask {
    void run() throws SQLException;
  }

  private void driveLogged(UUID parent) {
    try {
      drive(parent);
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Driving the child workflows of instance {} failed; the sweep takes it up again: {}", parent,
          e.toString());
    }
  }

  /**
   * Makes a parent's children agree with its steps, then lets the parent go on: a step in flight without a child could
   * not start it (failed with the reason); a child whose step ended otherwise than by it is cancelled (compensated
   * when the parent undoes what it did); a step being undone compensates its SUCCEEDED child; then the parent decides
   * on its children as they now stand.
   */
  public void drive(UUID parentId) throws SQLException {
    unitOfWork.run(tx -> {
      Connection c = tx.connection();
      Optional<InstanceRecord> locked = instances.lock(c, parentId);
      if (locked.isEmpty()) {
        return null;
      }
      InstanceRecord parent = locked.get();
      Map<String, StepState> latest = new LinkedHashMap<>();
      for (StepState s : steps.listFor(c, parentId)) {
        latest.merge(s.name(), s, (a, b) -> b.attempt() >= a.attempt() ? b : a);
      }
      Map<String, LinkStore.Child> children = LinkStore.byStep(links.childrenOf(c, parentId));
      boolean compensates = compensatesChildren(c, parent);
      for (StepState row : latest.values()) {
        if (!row.kind().equals("workflow")) {
          continue;
        }
        LinkStore.Child child = children.get(row.stepName());
        if (!row.isCompensation() && row.isRunning() && child == null && parent.status().isActive()
            && workflows.ready()) {
          engine.apply(tx, parent, new Stimulus.ChildRefused(row.name(), refusal(c, parent, row)));
          parent = instances.lock(c, parentId).orElseThrow();
        } else if (!row.isCompensation() && !row.isRunning() && row.status() != StepStatus.SUCCEEDED
            && child != null && child.status().isActive() && !compensationRunning(latest, row)) {
          InstanceRecord ch = instances.lock(c, child.id()).orElseThrow();
          // A child already undoing goes on undoing (a cancel without compensation would stop it halfway).
          engine.apply(tx, ch, new Stimulus.Cancel(compensates || ch.phase() == Phase.COMPENSATION));
        } else if (row.isCompensation() && row.isRunning() && child != null
            && child.status() == InstanceStatus.SUCCEEDED) {
          engine.apply(tx, instances.lock(c, child.id()).orElseThrow(), new Stimulus.Compensate());
        }
      }
      if (parent.status().isActive()) {
        engine.apply(tx, parent, new Stimulus.ChildrenChanged());
      }
      return null;
    });
  }

  private static boolean compensationRunning(Map<String, StepState> latest, StepState row) {
    StepState c = latest.get(row.name() + StepState.COMPENSATION_SUFFIX);
    return c != null && c.isRunning();
  }

  /**
   * Whether a child cancelled because its step ended is compensated too: unless the parent was cancelled without
   * compensation, when its Workflow compensates on failure.
   */
  private boolean compensatesChildren(Connection c, InstanceRecord parent) throws SQLException {
    if (parent.status() == InstanceStatus.CANCELLED && !parent.cancelRequested()) {
      return false;
    }
    try {
      WorkflowDefinition d = definitions.pinned(c, parent.namespace(), parent.workflow(), parent.revision());
      return d.onFailure() == OnFailure.Compensate;
    } catch (RuntimeException e) {
      return true; // its definition no longer loads: undo what the child did rather than leave it
    }
  }

  private String refusal(Connection c, InstanceRecord parent, StepState row) throws SQLException {
    WorkflowDefinition d;
    try {
      d = definitions.pinned(c, parent.namespace(), parent.workflow(), parent.revision());
    } catch (RuntimeException e) {
      return "its child instance could not be started";
    }
    String workflow = d.step(row.definitionName()).filter(dev.baton.workflow.Step.Child.class::isInstance)
        .map(s -> ((dev.baton.workflow.Step.Child) s).workflow()).orElse("?");
    Optional<Workflow> found = workflows.find(parent.namespace(), workflow);
    String why = found.isEmpty() ? "Workflow " + parent.namespace() + "/" + workflow + " does not exist"
        : Startability.refusal(found.get(), requireReady).orElse("Workflow " + parent.namespace() + "/" + workflow
            + " did not exist or could not run when the step started (retry the instance to start it now)");
    return why + ": no child instance was started";
  }

  @Override
  public void close() throws InterruptedException {
    driver.shutdown();
    driver.awaitTermination(5, TimeUnit.SECONDS);
  }
}
