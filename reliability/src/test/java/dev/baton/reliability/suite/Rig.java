package dev.baton.reliability.suite;

import com.rabbitmq.client.Connection;
import dev.baton.api.v1alpha1.QueueKind;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.infra.PrivateRabbit;
import dev.baton.reliability.ledger.Ledger;
import dev.baton.sandbox.MockKubernetes;
import dev.baton.sandbox.PostgresDatabase;
import dev.baton.sandbox.Sandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One scenario's world: a vhost on the private RabbitMQ node with the topology the operator would declare (same
 * planner) for a three-step saga, the runtime's database on the private PostgreSQL, and over test-support's
 * {@link Sandbox} the ledger on the shared one (the private one is restarted by some scenarios; the ledger must not
 * be) and the mock API server with the CRDs and the Workflow. The rig owns the pieces a scenario drives, and closes
 * them: the {@link #runtime()} (its own JVM, bearer token on, or in this JVM; replicas), the {@link #workers()}
 * (in-process or their own JVMs), the {@link #api()} its clients call (which keeps which starts it accepted), and the
 * {@link #tally()} the verdict is counted from.
 */
public final class Rig implements AutoCloseable {

  public static final String NS = "default";
  public static final String WORKFLOW = "order";
  /** service → commands; the saga: reserve (compensate: release), charge, ship. */
  static final Map<String, List<String>> SERVICES = Map.of(
      "stock", List.of("reserve", "release"), "pay", List.of("charge"), "ship", List.of("ship"));
  static final List<String> STAIRCASE_DELAYS = List.of("200ms", "500ms", "1s", "2s");
  static final RetryStaircase STAIRCASE = RetryStaircase.of(8, STAIRCASE_DELAYS);

  public final Infra infra;
  public final String name;
  public final String vhost;
  public final String runtimeDb;
  public final PostgresDatabase ledgerDb;
  public final Ledger ledger;
  public final String apiToken = "rt-" + UUID.randomUUID();
  /** The node the suite administers through (management API, its own AMQP connection). */
  public final PrivateRabbit rabbit;
  private final Sandbox stack;
  final KubernetesClient client;
  private final Connection amqp;
  private final QueueType queueType;
  /** service → commands of this rig: {@link #SERVICES}, and more for scenarios that move a step elsewhere. */
  final Map<String, List<String>> services;
  /** name → spec of this rig's Workflows: the saga {@value #WORKFLOW}, or a scenario's own. */
  private final Map<String, WorkflowSpec> workflows;
  private final ChildJvms childJvms;
  private final Runtimes runtime;
  private final RuntimeApi api;
  private final Tally tally;
  private final Workers workers;

  /**
   * What a scenario's world is made of besides the defaults: the broker (one node, or a cluster whose nodes are all
   * given to the runtime and the workers), the queue type, the services, and the Workflows (name → spec; empty: the
   * saga {@value #WORKFLOW}).
   */
  public record Options(PrivateRabbit rabbit, List<Integer> nodePorts, QueueType queueType,
      Map<String, List<String>> services, Map<String, WorkflowSpec> workflows) {

    public Options(PrivateRabbit rabbit, List<Integer> nodePorts, QueueType queueType,
        Map<String, List<String>> services) {
      this(rabbit, nodePorts, queueType, services, Map.of());
    }

    public static Options of(Infra infra) {
      return new Options(infra.rabbit, List.of(), QueueType.CLASSIC, SERVICES);
    }

    public Options withServices(Map<String, List<String>> more) {
      Map<String, List<String>> all = new LinkedHashMap<>(services);
      all.putAll(more);
      return new Options(rabbit, nodePorts, queueType, all, workflows);
    }

    /** These Workflows instead of the saga, and exactly the services (service → commands) their steps send to. */
    public Options withWorkflows(Map<String, WorkflowSpec> specs, Map<String, List<String>> theirServices) {
      return new Options(rabbit, nodePorts, queueType, theirServices, new LinkedHashMap<>(specs));
    }
  }

  private Rig(Infra infra, String name, Options options) {
    this.infra = infra;
    this.name = name;
    this.rabbit = options.rabbit();
    // AMQP addresses of every node of a cluster, handed to the runtime and the workers; empty on a single node
    List<String> addresses = options.nodePorts().stream().map(p -> "127.0.0.1:" + p).toList();
    this.queueType = options.queueType();
    this.services = Map.copyOf(options.services());
    this.workflows = options.workflows().isEmpty() ? Map.of(WORKFLOW, orderSaga(queueType))
        : new LinkedHashMap<>(options.workflows());
    this.vhost = rabbit.createVhost("fi-" + name);
    this.runtimeDb = infra.postgres.createDatabase("fi_" + name.replace('-', '_'));
    // all three kinds in the mock API: some scenarios run the operator too
    this.stack = Sandbox.builder("ledger-" + name).database().kubernetes(MockKubernetes.ALL_CRDS)
        .amqp(() -> rabbit.connectionFactory(vhost).newConnection("suite-admin")).start();
    stack.own(this::dropVhostAndRuntimeDb);
    this.ledgerDb = stack.database();
    this.ledger = stack.own(new Ledger(ledgerDb.jdbcUrl(), ledgerDb.user(), ledgerDb.password(), 12));
    ledger.createSchema();
    client = stack.client();
    amqp = stack.amqp();
    Map<String, ServiceModel> models = new LinkedHashMap<>();
    services.keySet().forEach(service -> models.put(service, serviceModel(service)));
    declareTopologyAndWorkflow(models);
    String runtimeDbUrl = infra.postgres.jdbcUrl(runtimeDb);
    RuntimeHttp http = new RuntimeHttp(apiToken);
    childJvms = new ChildJvms(name);
    runtime = new Runtimes(childJvms, http, client, runtimeDbUrl, rabbit.amqpUri(vhost), addresses, apiToken);
    api = new RuntimeApi(http, runtime);
    tally = new Tally(runtimeDbUrl, ledger, amqp, services, workflows.keySet(), api.accepted());
    workers = new Workers(childJvms, name, rabbit, vhost, addresses, ledgerDb, ledger, models);
  }

  public static Rig create(Infra infra, String name) {
    return new Rig(infra, name, Options.of(infra));
  }

  public static Rig create(Infra infra, String name, Options options) {
    return new Rig(infra, name, options);
  }

  public static ServiceModel model(String service) {
    return new ServiceModel(service, QueueType.CLASSIC,
        SERVICES.get(service).stream().map(c -> new ServiceModel.Command(c, STAIRCASE)).toList(), List.of());
  }

  /** This rig's model of {@code service}: its commands and queue type, the suite's staircase. */
  public ServiceModel serviceModel(String service) {
    return new ServiceModel(service, queueType,
        services.get(service).stream().map(c -> new ServiceModel.Command(c, STAIRCASE)).toList(), List.of());
  }

  public QueueType queueType() {
    return queueType;
  }

  /** The three-step saga {@value #WORKFLOW}: reserve (compensate: release), charge, ship. */
  private static WorkflowSpec orderSaga(QueueType queueType) {
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    spec.setQueueType(queueType == QueueType.QUORUM ? QueueKind.QUORUM : QueueKind.CLASSIC);
    spec.setSteps(new ArrayList<>(List.of(step("reserve", "stock", "reserve", "release"),
        step("charge", "pay", "charge", null), step("ship", "ship", "ship", null))));
    return spec;
  }

  private void declareTopologyAndWorkflow(Map<String, ServiceModel> models) {
    models.values().forEach(stack::declare);
    workflows.forEach((name, spec) -> {
      stack.declareWorkflow(name, spec, queueType);
      stack.applyWorkflow(name, spec);
    });
  }

  /** The mock API server's client, as the operator and the runtime see the custom resources. */
  public KubernetesClient kubernetes() {
    return client;
  }

  /** The names of this rig's services. */
  public java.util.Set<String> services() {
    return services.keySet();
  }

  /** The names of this rig's Workflows. */
  public java.util.Set<String> workflows() {
    return workflows.keySet();
  }

  /**
   * Edits a Workflow as a user would (a new revision for the instances started afterwards): again on the newer
   * version when the operator wrote its status meanwhile.
   */
  public void editWorkflow(String workflow, java.util.function.Consumer<WorkflowSpec> edit) {
    dev.baton.testing.ResourceEdits.edit(client, dev.baton.api.v1alpha1.Workflow.class, NS, workflow, w -> {
      edit.accept(w.getSpec());
      return w;
    });
  }

  static StepSpec step(String name, String service, String command, String compensate) {
    StepSpec s = new StepSpec(name, service, command);
    s.setCompensate(compensate);
    s.setTimeout("10m"); // far beyond any outage here: no timeout re-dispatch muddies the ledger
    return s;
  }

  /** How the rig starts its child JVMs (the soak turns their quick start off). */
  public ChildJvms childJvms() {
    return childJvms;
  }

  /** The runtime processes: the first, its replicas, or the runtime in this JVM. */
  public Runtimes runtime() {
    return runtime;
  }

  /** The runtimes' HTTP API, and the starts it accepted. */
  public RuntimeApi api() {
    return api;
  }

  /** The counts a verdict is made of: the runtime's database, the ledger, the queues. */
  public Tally tally() {
    return tally;
  }

  /** The ledger workers, in-process or in JVMs of their own. */
  public Workers workers() {
    return workers;
  }

  /** The suite's own AMQP connection to the vhost (poison, queue depths). */
  public Connection amqp() {
    return amqp;
  }

  @Override
  public void close() {
    workers.close();
    runtime.close();
    stack.close();
  }

  /** Best effort: the private servers may be down after a scenario. */
  private void dropVhostAndRuntimeDb() {
    try {
      rabbit.management().deleteVhost(vhost);
    } catch (RuntimeException ignored) {
      // best effort
    }
    try {
      infra.postgres.admin("DROP DATABASE IF EXISTS " + runtimeDb + " WITH (FORCE)");
    } catch (RuntimeException ignored) {
      // best effort
    }
  }
}
