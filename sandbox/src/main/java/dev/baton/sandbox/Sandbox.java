package dev.baton.sandbox;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.contract.topology.WorkflowModel;
import dev.baton.workflow.WorkflowSpecs;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * What a test's world stands on, whichever module the test is in: a fresh vhost on the real RabbitMQ (and the broker
 * users made in it), a fresh database on the real PostgreSQL, the mock Kubernetes API with Baton's CRDs, the
 * topology the operator would declare (same planner) and the resources a test applies; then the module's own parts
 * (a runtime, an operator, workers), plugged in as {@link Component}s or {@link #own owned} later. Closing it closes
 * everything in the reverse order it was made, each part even when another failed; a stack that fails to start
 * closes what it had made.
 *
 * <pre>{@code
 * MyRig rig = Sandbox.builder("my-thing").vhost().database().kubernetes(MockKubernetes.WORKFLOW_CRD)
 *     .with(s -> s.declareTopology("order", spec, QueueType.CLASSIC, RetryStaircase.NONE))
 *     .with(s -> s.applyWorkflow("order", spec))
 *     .start(MyRig::new); // MyRig(Sandbox) starts its runtime and workers, each stack.own(…)
 * }</pre>
 */
public final class Sandbox implements AutoCloseable {

  /** The namespace resources are applied in. */
  public static final String NAMESPACE = "default";

  /** A module's part of the stack, started once the shared infrastructure is up, in the order given. */
  @FunctionalInterface
  public interface Component {
    /** Starts the part; what it makes that needs closing it hands to {@link Sandbox#own}. */
    void start(Sandbox stack) throws Exception;
  }

  /**
   * A module's rig over the stack (the runtime's harness, the operator's fixture): made once the stack is up; if it
   * fails, the stack is closed.
   */
  @FunctionalInterface
  public interface Layer<T> {
    T on(Sandbox stack) throws Exception;
  }

  private final String prefix;
  private final Deque<AutoCloseable> owned = new ArrayDeque<>();
  private RabbitVhost vhost;
  private String userPrefix;
  private PostgresDatabase database;
  private MockKubernetes kubernetes;
  private final Callable<Connection> connectAmqp;
  private Connection amqp;

  private Sandbox(String prefix, Callable<Connection> connectAmqp) {
    this.prefix = prefix;
    this.connectAmqp = connectAmqp;
  }

  /** @param prefix the start of the vhost's and the database's names ({@code -} becomes {@code _} in the latter) */
  public static Builder builder(String prefix) {
    return new Builder(prefix);
  }

  /** Which parts the stack has. Nothing is made before {@link #start()}. */
  public static final class Builder {
    private final String prefix;
    private boolean vhost;
    private String userPrefix;
    private boolean database;
    private List<String> crds;
    private Consumer<KubernetesMockServer> expectations;
    private Callable<Connection> amqp;
    private final List<Component> components = new ArrayList<>();

    private Builder(String prefix) {
      this.prefix = prefix;
    }

    /** A fresh vhost {@code <prefix>-<random>} on the shared broker. */
    public Builder vhost() {
      this.vhost = true;
      return this;
    }

    /**
     * Broker users are named {@code <start><random>-…} ({@link Sandbox#userPrefix()}); those left when the stack
     * closes are deleted (they live outside the vhost). Implies {@link #vhost()}.
     */
    public Builder brokerUsers(String start) {
      this.vhost = true;
      this.userPrefix = start + UUID.randomUUID().toString().substring(0, 6) + "-";
      return this;
    }

    /** A fresh database {@code <prefix>_<random>} on the shared PostgreSQL. */
    public Builder database() {
      this.database = true;
      return this;
    }

    /** The mock Kubernetes API in CRUD mode with these CRD files ({@link MockKubernetes#ALL_CRDS} or some). */
    public Builder kubernetes(List<String> crdFiles) {
      return kubernetes(crdFiles, null);
    }

    /** As {@link #kubernetes(List)}, with canned answers the CRUD mock cannot give (null: none). */
    public Builder kubernetes(List<String> crdFiles, Consumer<KubernetesMockServer> expectations) {
      this.crds = List.copyOf(crdFiles);
      this.expectations = expectations;
      return this;
    }

    /**
     * Where {@link Sandbox#amqp()} connects instead of the stack's own vhost: a vhost on another broker (the fault
     * suite's private node), opened on first use as that one is.
     */
    public Builder amqp(Callable<Connection> connect) {
      this.amqp = connect;
      return this;
    }

    /** A module's part, started after the shared ones (and after the components given before it). */
    public Builder with(Component component) {
      components.add(component);
      return this;
    }

    /** Starts the stack and makes {@code layer} on it. */
    public <T> T start(Layer<T> layer) {
      Sandbox stack = start();
      try {
        return layer.on(stack);
      } catch (Exception | Error e) {
        throw stack.closeAfter(e);
      }
    }

    public Sandbox start() {
      Sandbox stack = new Sandbox(prefix, amqp);
      try {
        if (vhost) {
          stack.vhost = stack.own(RabbitVhost.create(prefix));
        }
        if (userPrefix != null) {
          stack.userPrefix = userPrefix;
          RabbitVhost v = stack.vhost;
          stack.own(() -> v.deleteUsers(userPrefix));
        }
        if (database) {
          stack.database = stack.own(PostgresDatabase.create(prefix.replace('-', '_')));
        }
        if (crds != null) {
          stack.kubernetes = stack.own(MockKubernetes.start(crds, expectations));
        }
        for (Component c : components) {
          c.start(stack);
        }
        return stack;
      } catch (Exception | Error e) {
        throw stack.closeAfter(e);
      }
    }
  }

  /** Closes what was made after a failure to start, and returns the failure to throw. */
  private RuntimeException closeAfter(Throwable e) {
    try {
      close();
    } catch (RuntimeException closing) {
      e.addSuppressed(closing);
    }
    if (e instanceof Error err) {
      throw err;
    }
    return e instanceof RuntimeException r ? r
        : new IllegalStateException("the test stack " + prefix + " did not start: " + e.getMessage(), e);
  }

  public String prefix() {
    return prefix;
  }

  public RabbitVhost vhost() {
    return required(vhost, "vhost()");
  }

  /** {@code <start><random>-}: the prefix of this stack's broker users. */
  public String userPrefix() {
    return required(userPrefix, "brokerUsers(…)");
  }

  public PostgresDatabase database() {
    return required(database, "database()");
  }

  public MockKubernetes kubernetes() {
    return required(kubernetes, "kubernetes(…)");
  }

  /** A client of the mock Kubernetes API. */
  public KubernetesClient client() {
    return kubernetes().client();
  }

  /**
   * The test's own AMQP connection to the vhost (or to {@link Builder#amqp where the builder said}), as the
   * administrator, opened on first use (so it closes before the vhost goes and after whatever used it).
   */
  public synchronized Connection amqp() {
    if (amqp == null) {
      Connection c = connectAmqp == null ? vhost().newConnection("test-" + prefix) : connect();
      own(() -> c.abort(5_000)); // the test may have closed it; abort never throws
      amqp = c;
    }
    return amqp;
  }

  private Connection connect() {
    try {
      return connectAmqp.call();
    } catch (Exception e) {
      throw new IllegalStateException("the test stack " + prefix + " cannot connect to its broker", e);
    }
  }

  /** The stack closes {@code part} before everything it owned earlier. */
  public synchronized <T extends AutoCloseable> T own(T part) {
    owned.push(part);
    return part;
  }

  // --- topology and resources ------------------------------------------------------------------------------------

  /** Declares on the vhost what the operator would declare for this service (same planner). */
  public void declare(ServiceModel service) {
    withChannel(ch -> AmqpTopology.declare(ch, TopologyPlanner.plan(service)), service.service());
  }

  /** Declares on the vhost what the operator would declare for this workflow (same planner). */
  public void declare(WorkflowModel workflow) {
    withChannel(ch -> AmqpTopology.declare(ch, TopologyPlanner.plan(workflow)), workflow.workflow());
  }

  /**
   * Declares the topology the operator would for a Workflow and the services its steps name: each service with the
   * commands and compensations its steps send (each with {@code staircase}), then the orchestrator queue with the
   * routes of every step, nested ones included.
   */
  public void declareTopology(String workflow, WorkflowSpec spec, QueueType queueType, RetryStaircase staircase) {
    Map<String, List<ServiceModel.Command>> commands = new LinkedHashMap<>();
    for (StepSpec s : WorkflowSpecs.allSteps(spec)) {
      if (s.getService() == null) {
        continue; // parallel, choice, wait, delay: nothing on the broker
      }
      List<ServiceModel.Command> cs = commands.computeIfAbsent(s.getService(), k -> new ArrayList<>());
      addCommand(cs, s.getCommand(), staircase);
      if (s.getCompensate() != null) {
        addCommand(cs, s.getCompensate(), staircase);
      }
    }
    commands.forEach((service, cs) -> declare(new ServiceModel(service, queueType, cs, List.of())));
    declareWorkflow(workflow, spec, queueType);
  }

  /** The orchestrator side alone: the workflow's queue and the routes of every step of {@code spec}. */
  public void declareWorkflow(String workflow, WorkflowSpec spec, QueueType queueType) {
    declare(new WorkflowModel(workflow, spec.getEntity(), queueType, WorkflowSpecs.resultSources(spec)));
  }

  private static void addCommand(List<ServiceModel.Command> cs, String command, RetryStaircase staircase) {
    if (cs.stream().noneMatch(c -> c.name().equals(command))) {
      cs.add(new ServiceModel.Command(command, staircase));
    }
  }

  private void withChannel(Consumer<Channel> declare, String what) {
    try (Channel ch = amqp().createChannel()) {
      declare.accept(ch);
    } catch (Exception e) {
      throw new IllegalStateException("cannot declare the topology of " + what, e);
    }
  }

  /** Creates, or replaces the spec of, the Workflow {@code name} in {@link #NAMESPACE} of the mock API. */
  public Workflow applyWorkflow(String name, WorkflowSpec spec) {
    Workflow w = new Workflow();
    w.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE).build());
    w.setSpec(spec);
    return client().resources(Workflow.class).inNamespace(NAMESPACE).resource(w).createOr(existing -> existing.update());
  }

  /**
   * Creates, or replaces the spec of, the WorkerService {@code name} in {@link #NAMESPACE} of the mock API with what
   * the runtime reads of one: whether it is paused, and its commands (their maxInFlight).
   */
  public WorkerService applyWorkerService(String name, boolean paused, List<CommandSpec> commands) {
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE).build());
    WorkerServiceSpec spec = new WorkerServiceSpec();
    spec.setPaused(paused);
    spec.setCommands(new ArrayList<>(commands));
    ws.setSpec(spec);
    return client().resources(WorkerService.class).inNamespace(NAMESPACE).resource(ws)
        .createOr(existing -> existing.update());
  }

  /** A command of a WorkerService, at most {@code maxInFlight} at once (null: no limit). */
  public static CommandSpec command(String name, Integer maxInFlight) {
    CommandSpec c = new CommandSpec(name, null);
    c.setMaxInFlight(maxInFlight);
    return c;
  }

  /** Closes every part, the last made first; a part that fails to close does not keep the others open. */
  @Override
  public void close() {
    RuntimeException failed = null;
    while (true) {
      AutoCloseable part;
      synchronized (this) {
        part = owned.poll();
      }
      if (part == null) {
        break;
      }
      try {
        part.close();
      } catch (Exception e) {
        if (failed == null) {
          failed = new IllegalStateException("the test stack " + prefix + " did not close cleanly", e);
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  private static <T> T required(T part, String builderCall) {
    if (part == null) {
      throw new IllegalStateException("this test stack has no such part: build it with " + builderCall);
    }
    return part;
  }
}
