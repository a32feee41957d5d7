package dev.baton.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.http.client.domain.ConnectionInfo;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.runtime.it.RuntimeHarness;
import dev.baton.sandbox.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The service {@code S} of one implementation's run (conformance/README.md): its topology as the operator declares it
 * (command {@code act} and subscription {@code heard}, {@link #STAIRCASE}), a one-step Workflow that sends
 * {@code act}, a broker user with exactly a worker's permissions, the conformance worker running with the
 * environment a pod gets, and the suite's view of the broker around it.
 */
final class ConformanceService implements AutoCloseable {

  static final String COMMAND = "act";
  static final String SUBSCRIPTION = "heard";
  static final String ENTITY = "order";
  static final String PATTERN = "*.ping.*";
  static final int HANDLER_TIMEOUT_MS = 1_000;
  static final int MAX_RESULT_BYTES = 4_096;
  /**
   * 4 attempts, delays 500ms then 1s: the retries go through two tiers and the last one repeats, as a staircase of any
   * length does; short, so that the cases that climb it stay quick (a delay may be as short as 1ms).
   */
  static final RetryStaircase STAIRCASE = RetryStaircase.of(4, List.of("500ms", "1s"));

  final Implementation implementation;
  final String service;
  final String workflow;
  final HandlerRuns runs;
  final String connectionName;
  private final RuntimeHarness harness;
  private final BrokerSpy spy;
  private final WorkerProcess worker;

  private ConformanceService(Implementation implementation, RuntimeHarness harness, String service, HandlerRuns runs,
      BrokerSpy spy, WorkerProcess worker) {
    this.implementation = implementation;
    this.harness = harness;
    this.service = service;
    this.workflow = service;
    this.runs = runs;
    this.connectionName = service + "-worker";
    this.spy = spy;
    this.worker = worker;
  }

  static ConformanceService start(Implementation implementation, RuntimeHarness harness, Path root) throws IOException {
    String service = "conf-" + implementation.id() + "-" + UUID.randomUUID().toString().substring(0, 4);
    Sandbox sandbox = harness.sandbox();
    ServiceModel model = new ServiceModel(service, QueueType.CLASSIC,
        List.of(new ServiceModel.Command(COMMAND, STAIRCASE)),
        List.of(new ServiceModel.Subscription(SUBSCRIPTION, source(service), PATTERN, STAIRCASE)));
    sandbox.declare(model);
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity(ENTITY);
    spec.setSteps(new ArrayList<>(List.of(new StepSpec(COMMAND, service, COMMAND))));
    sandbox.declareWorkflow(service, spec, QueueType.CLASSIC);
    sandbox.applyWorkflow(service, spec);

    BrokerSpy spy = sandbox.own(new BrokerSpy(harness.amqp))
        .tap(Names.eventExchange(service))
        .tap(Names.commandExchange(service))
        .tap(Names.retryExchange(service), Stream.of(COMMAND, SUBSCRIPTION)
            .flatMap(consumer -> STAIRCASE.tiers().stream().map(d -> Names.retryQueue(service, consumer, d)))
            .toList()) // a direct exchange: one binding per tier queue
        .drain(Names.deadLetterQueue(service, COMMAND))
        .drain(Names.deadLetterQueue(service, SUBSCRIPTION));

    String user = "conf-" + service;
    String password = UUID.randomUUID().toString();
    harness.vhost.createUser(user, password, TopologyPlanner.plan(model).workerPermissions());
    sandbox.own(() -> harness.vhost.management().deleteUser(user));

    Path target = Path.of("target", "conformance", implementation.id());
    Files.createDirectories(target);
    HandlerRuns runs = new HandlerRuns(target.resolve("handler-runs.jsonl").toAbsolutePath());
    Files.deleteIfExists(runs.file());
    Map<String, String> env = new LinkedHashMap<>(new WorkerEnvironment(model, 10).variables());
    env.put(WorkerEnvironment.RABBITMQ_URI, harness.vhost.amqpUri(user, password));
    env.put(WorkerEnvironment.RABBITMQ_USERNAME, user);
    env.put(WorkerEnvironment.RABBITMQ_PASSWORD, password);
    env.put("BATON_CONFORMANCE_LOG", runs.file().toString());
    env.put("BATON_CONFORMANCE_HANDLER_TIMEOUT_MS", String.valueOf(HANDLER_TIMEOUT_MS));
    env.put("BATON_CONFORMANCE_MAX_RESULT_BYTES", String.valueOf(MAX_RESULT_BYTES));
    env.put("BATON_CONFORMANCE_CONNECTION_NAME", service + "-worker");
    env.putAll(implementation.environment(root));
    WorkerProcess worker = sandbox.own(WorkerProcess.start(implementation.command(root), root, env,
        target.resolve("worker-output.log").toAbsolutePath()));
    return new ConformanceService(implementation, harness, service, runs, spy, worker);
  }

  static String source(String service) {
    return service + "-src";
  }

  // --- through the runtime ---------------------------------------------------------------------------------------

  /** Starts an instance of the one-step Workflow with this input. */
  UUID startInstance(String inputJson) {
    RuntimeHarness.Response r = harness.start(workflow, "bk-" + UUID.randomUUID(), inputJson);
    assertThat(r.status()).as(r.text()).isEqualTo(201);
    return UUID.fromString(r.json().get("id").asText());
  }

  JsonNode awaitStatus(UUID instance, String status) {
    return harness.awaitStatus(instance, status, java.time.Duration.ofSeconds(30));
  }

  /**
   * The commands the runtime sent for {@code instance}; not their retries, which come back through the command exchange
   * from a retry tier (with {@code x-death}).
   */
  List<BrokerSpy.Message> commands(UUID instance) {
    return spy.from(Names.commandExchange(service),
        m -> instance.toString().equals(m.correlationId()) && !m.headers().containsKey("x-death"));
  }

  /**
   * The commands of {@code instance} that came back to the command exchange from a retry tier, in the order they came
   * back.
   */
  List<BrokerSpy.Message> returnedCommands(UUID instance) {
    return spy.from(Names.commandExchange(service),
        m -> instance.toString().equals(m.correlationId()) && m.headers().containsKey("x-death"));
  }

  /** The retries of the message {@code messageId} the worker sent to the retry tiers of {@code consumer}, in order. */
  List<BrokerSpy.Message> retriesSent(String consumer, String messageId) {
    List<String> tiers = tiersOfEachRetry(consumer);
    return spy.from(Names.retryExchange(service),
        m -> messageId.equals(m.messageId()) && tiers.contains(m.routingKey()));
  }

  /** The retry tier queue each retry of {@code consumer} goes through, retry 1 first: the staircase's delays. */
  List<String> tiersOfEachRetry(String consumer) {
    return IntStream.rangeClosed(1, STAIRCASE.retries())
        .mapToObj(k -> Names.retryQueue(service, consumer, STAIRCASE.delayBeforeRetry(k))).toList();
  }

  // --- around the runtime ----------------------------------------------------------------------------------------

  /**
   * Publishes a command as the runtime would (properties, every {@code baton-*} header, the body), for an instance the
   * runtime does not know: the suite alone reads the answer.
   *
   * @param extraHeaders added to the usual ones, e.g. {@code baton-deadline}
   */
  void publishCommand(String messageId, String correlationId, ObjectNode input, Map<String, Object> extraHeaders)
      throws IOException {
    Map<String, Object> headers = new HashMap<>();
    headers.put("baton-workflow", workflow);
    headers.put("baton-namespace", RuntimeHarness.NS);
    headers.put("baton-revision", 1);
    headers.put("baton-instance", correlationId);
    headers.put("baton-step", COMMAND);
    headers.put("baton-attempt", 1);
    headers.put("baton-entity", ENTITY);
    headers.put("baton-action", COMMAND);
    headers.put("baton-retries", 0);
    headers.putAll(extraHeaders);
    ObjectNode body = RuntimeHarness.JSON.createObjectNode()
        .put("instanceId", correlationId).put("workflow", workflow).put("step", COMMAND).put("attempt", 1)
        .put("businessKey", "bk-" + correlationId);
    body.set("input", input);
    publish(Names.commandExchange(service), Names.commandRoutingKey(service, COMMAND), messageId, correlationId,
        headers, body);
  }

  /** Publishes an event of the source service {@code S-src}, as it would. */
  void publishSourceEvent(String routingKey, String messageId, ObjectNode body) throws IOException {
    publish(Names.eventExchange(source(service)), routingKey, messageId, UUID.randomUUID().toString(), Map.of(), body);
  }

  private void publish(String exchange, String routingKey, String messageId, String correlationId,
      Map<String, Object> headers, JsonNode body) throws IOException {
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
        .messageId(messageId).correlationId(correlationId).contentType("application/json").deliveryMode(2)
        .timestamp(new Date()).headers(headers).build();
    try (Channel ch = harness.amqp.createChannel()) {
      ch.confirmSelect();
      ch.basicPublish(exchange, routingKey, true, props, RuntimeHarness.JSON.writeValueAsBytes(body));
      ch.waitForConfirmsOrDie(10_000);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("cannot publish to " + exchange, e);
    }
  }

  /** The events the worker published that carry {@code correlationId}. */
  List<BrokerSpy.Message> events(String correlationId) {
    return spy.from(Names.eventExchange(service), m -> correlationId.equals(m.correlationId()));
  }

  /** The messages parked in {@code q.dlx.S.<consumer>} with this {@code message_id}. */
  List<BrokerSpy.Message> parked(String consumer, String messageId) {
    return spy.from(Names.deadLetterQueue(service, consumer), m -> messageId.equals(m.messageId()));
  }

  /** The worker's connections on the broker, by the name it was told to give them (and its own suffixes). */
  List<ConnectionInfo> workerConnections() {
    return harness.vhost.management().getConnections().stream()
        .filter(c -> harness.vhost.name().equals(c.getVhost()))
        .filter(c -> c.getClientProperties() != null && c.getClientProperties().getConnectionName() != null
            && c.getClientProperties().getConnectionName().startsWith(connectionName))
        .toList();
  }

  /** Closes every connection of the worker's from the broker's side (management API), as a network fault would. */
  int closeWorkerConnections() {
    List<ConnectionInfo> connections = workerConnections();
    connections.forEach(c -> harness.vhost.management().closeConnection(c.getName(), "conformance: dropped"));
    return connections.size();
  }

  /** The command queue's unacked and ready messages (management API; its figures lag by a few seconds). */
  long unsettledCommands() {
    var q = harness.vhost.management().getQueue(harness.vhost.name(), Names.consumerQueue(service, COMMAND));
    return q.getMessagesUnacknowledged() + q.getMessagesReady();
  }

  String workerOutput() {
    return worker.tail();
  }

  boolean workerAlive() {
    return worker.isAlive();
  }

  Integer exitCode() {
    return worker.exitCode();
  }

  /** Stops the worker (SIGTERM) now, so that its exit code is known before the stack goes. */
  @Override
  public void close() {
    worker.close();
  }
}
