package dev.baton.conformance;

import static dev.baton.conformance.ConformanceService.COMMAND;
import static dev.baton.conformance.ConformanceService.ENTITY;
import static dev.baton.conformance.ConformanceService.SUBSCRIPTION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.runtime.it.RuntimeHarness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The worker conformance suite (conformance/README.md): every case of the message contract's table, once per worker
 * implementation, against the real broker and the runtime running in-process. Each implementation's conformance
 * worker runs as a process of its own, started with the environment a pod gets; the suite reads what it does from its
 * handler log, the broker (the event and command exchanges tapped, the dead-letter queues drained, its connections
 * through the management API) and the runtime's API. {@code target/conformance-report.md} has the table.
 */
class WorkerConformanceIT {

  private static final Duration CASE = Duration.ofSeconds(30);
  private static final Path REPORT = Path.of("target", "conformance-report.md");

  private static RuntimeHarness harness;
  private static final Map<Implementation, ConformanceService> services = new LinkedHashMap<>();
  private static final Map<Implementation, AssertionError> unstartable = new LinkedHashMap<>();
  private static final ConformanceReport report = new ConformanceReport();

  @BeforeAll
  static void runtime() {
    harness = RuntimeHarness.create("conformance");
    harness.startRuntime();
  }

  static Stream<Arguments> cases() {
    return Implementation.selected().stream()
        .flatMap(i -> Stream.of(Case.values()).map(c -> Arguments.of(i, c)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("cases")
  void conforms(Implementation implementation, Case c) throws Throwable {
    try {
      ConformanceService s = service(implementation);
      switch (c) {
        case SUCCESS -> success(s);
        case BUSINESS_FAILURE -> businessFailure(s);
        case STAIRCASE -> staircase(s);
        case RETRY_THEN_SUCCESS -> retryThenSuccess(s);
        case DUPLICATES -> duplicates(s);
        case DEADLINE_PASSED -> deadlinePassed(s);
        case OVERSIZED_OUTPUT -> oversizedOutput(s);
        case CONNECTION_DROPPED -> connectionDropped(s);
        case HANDLER_TIME_LIMIT -> handlerTimeLimit(s);
        case SUBSCRIPTION_EVENTS -> subscriptionEvents(s);
      }
      report.record(implementation, c, ConformanceReport.Outcome.pass());
    } catch (Throwable t) {
      report.record(implementation, c, unstartable.containsKey(implementation)
          ? ConformanceReport.Outcome.failed("its worker did not start (see below)")
          : ConformanceReport.Outcome.fail(t));
      throw t;
    }
  }

  @AfterAll
  static void report() {
    try {
      services.forEach((implementation, s) -> {
        s.close();
        report.note(implementation, s.exitCode() == null ? "did not exit within 30 s of SIGTERM"
            : "exited with " + s.exitCode() + " on SIGTERM");
      });
      unstartable.forEach((implementation, e) -> report.note(implementation, e.getMessage()));
      report.write(REPORT);
      System.out.println(report.markdown());
    } finally {
      if (harness != null) {
        harness.close();
      }
    }
  }

  /** The implementation's service and worker, started by its first case; a worker that cannot start fails them all. */
  private static ConformanceService service(Implementation implementation) throws Exception {
    if (unstartable.containsKey(implementation)) {
      throw unstartable.get(implementation);
    }
    ConformanceService s = services.get(implementation);
    if (s != null) {
      assertThat(s.workerAlive()).as("the %s conformance worker is still running; its output:%n%s", implementation,
          s.workerOutput()).isTrue();
      return s;
    }
    Path root = repositoryRoot();
    Optional<String> missing = implementation.missing(root);
    try {
      if (missing.isPresent()) {
        throw new AssertionError(missing.get());
      }
      s = ConformanceService.start(implementation, harness, root);
    } catch (AssertionError e) {
      unstartable.put(implementation, e);
      throw e;
    } catch (Exception e) {
      AssertionError failed = new AssertionError("the conformance worker did not start: " + e.getMessage(), e);
      unstartable.put(implementation, failed);
      throw failed;
    }
    services.put(implementation, s);
    return s;
  }

  private static Path repositoryRoot() {
    String root = System.getProperty("baton.repo.root");
    return (root == null ? Path.of("..") : Path.of(root)).toAbsolutePath().normalize();
  }

  // --- the cases (conformance/README.md, "The cases") ------------------------------------------------------------

  private static void success(ConformanceService s) {
    UUID id = s.startInstance("{\"case\": \"echo\", \"value\": 42}");
    JsonNode instance = s.awaitStatus(id, "SUCCEEDED");
    assertThat(instance.at("/outputs/" + COMMAND)).isEqualTo(RuntimeHarness.json("{\"echo\": 42}"));
    BrokerSpy.Message command = single(s, "the command", () -> s.commands(id));
    BrokerSpy.Message event = single(s, "the success event", () -> s.events(id.toString()).stream()
        .filter(m -> m.routingKey().equals(ENTITY + "." + COMMAND + ".success")).toList());
    command.headers().keySet().stream().filter(h -> h.startsWith("baton-")).forEach(h ->
        assertThat(event.header(h)).as("the event's header %s", h).isEqualTo(command.header(h)));
    assertThat(event.correlationId()).isEqualTo(command.correlationId());
    assertThat(event.properties().getDeliveryMode()).as("delivery_mode (persistent)").isEqualTo(2);
    assertThat(event.properties().getContentType()).isEqualTo("application/json");
    assertThat(event.messageId()).as("the event's message_id").isNotBlank();
    assertThat(event.json().at("/output")).isEqualTo(RuntimeHarness.json("{\"echo\": 42}"));
    assertThat(s.runs.of(command.messageId())).hasSize(1);
    eventually(s, Duration.ofSeconds(20), () -> assertThat(s.unsettledCommands())
        .as("messages ready or unacked in the command queue (management API)").isZero());
  }

  private static void businessFailure(ConformanceService s) {
    UUID id = s.startInstance("{\"case\": \"decline\"}");
    JsonNode instance = s.awaitStatus(id, "FAILED");
    assertThat(instance.at("/lastError/errorCode").asText()).isEqualTo("DECLINED");
    assertThat(instance.at("/lastError/reason").asText()).isEqualTo("declined by the conformance worker");
    String messageId = single(s, "the command", () -> s.commands(id)).messageId();
    assertThat(s.runs.of(messageId)).as("handler runs").hasSize(1);
  }

  private static void staircase(ConformanceService s) {
    UUID id = s.startInstance("{\"case\": \"crash\"}");
    String messageId = single(s, "the command", () -> s.commands(id)).messageId();
    BrokerSpy.Message parked = single(s, "the command parked in q.dlx.S.act", () -> s.parked(COMMAND, messageId));
    assertThat(s.runs.retries(messageId)).as("baton-retries of each handler run").containsExactly(everyRun());
    List<String> tiers = s.tiersOfEachRetry(COMMAND);
    eventually(s, CASE, () -> {
      assertThat(s.retriesSent(COMMAND, messageId)).as("the retries sent to S.retry.direct.ex: tier, baton-retries")
          .extracting(m -> m.routingKey() + ", " + m.header("baton-retries")).containsExactly(numbered(tiers));
      assertThat(s.returnedCommands(id)).as("the queue each retry came back from (x-death), baton-retries")
          .extracting(m -> m.lastDeadLetteredFrom() + ", " + m.header("baton-retries"))
          .containsExactly(numbered(tiers));
    });
    assertThat(parked.header("x-exception-message")).as("x-exception-message").contains("boom");
    assertThat(parked.header("x-exception-type")).as("x-exception-type").isNotBlank();
    assertThat(parked.header("x-original-routing-key")).as("x-original-routing-key").isNotBlank();
    single(s, "the error event", () -> s.events(id.toString()).stream()
        .filter(m -> m.routingKey().equals(ENTITY + "." + COMMAND + ".error")).toList());
    s.awaitStatus(id, "FAILED");
  }

  private static void retryThenSuccess(ConformanceService s) {
    UUID id = s.startInstance("{\"case\": \"crash-once\"}");
    JsonNode instance = s.awaitStatus(id, "SUCCEEDED");
    assertThat(instance.at("/outputs/" + COMMAND)).isEqualTo(RuntimeHarness.json("{\"recovered\": true}"));
    String messageId = single(s, "the command", () -> s.commands(id)).messageId();
    assertThat(s.runs.retries(messageId)).as("baton-retries of each handler run").containsExactly(0, 1);
  }

  private static void duplicates(ConformanceService s) throws Exception {
    String messageId = UUID.randomUUID().toString();
    String correlationId = UUID.randomUUID().toString();
    ObjectNode input = RuntimeHarness.JSON.createObjectNode().put("case", "echo").put("value", 7);
    s.publishCommand(messageId, correlationId, input, Map.of());
    s.publishCommand(messageId, correlationId, input, Map.of());
    eventually(s, CASE, () -> assertThat(s.events(correlationId)).as("events answering the two deliveries")
        .hasSize(2));
    List<BrokerSpy.Message> events = s.events(correlationId);
    assertThat(events).extracting(BrokerSpy.Message::messageId).as("their message_id").containsOnly(
        events.get(0).messageId());
    assertThat(events).extracting(BrokerSpy.Message::routingKey).containsOnly(ENTITY + "." + COMMAND + ".success");
    assertThat(s.runs.of(messageId)).as("handler runs").hasSize(1);
  }

  private static void deadlinePassed(ConformanceService s) throws Exception {
    String messageId = UUID.randomUUID().toString();
    String correlationId = UUID.randomUUID().toString();
    ObjectNode input = RuntimeHarness.JSON.createObjectNode().put("case", "echo").put("value", 1);
    s.publishCommand(messageId, correlationId, input,
        Map.of("baton-deadline", System.currentTimeMillis() - 1_000));
    BrokerSpy.Message expired = single(s, "the expired event", () -> s.events(correlationId));
    assertThat(expired.routingKey()).isEqualTo(ENTITY + "." + COMMAND + ".expired");
    assertThat(s.runs.of(messageId)).as("handler runs").isEmpty();
    assertThat(s.parked(COMMAND, messageId)).as("parked").isEmpty();
  }

  private static void oversizedOutput(ConformanceService s) {
    UUID id = s.startInstance("{\"case\": \"big\", \"bytes\": " + 2 * ConformanceService.MAX_RESULT_BYTES + "}");
    String messageId = single(s, "the command", () -> s.commands(id)).messageId();
    BrokerSpy.Message parked = single(s, "the command parked in q.dlx.S.act", () -> s.parked(COMMAND, messageId));
    assertThat(parked.header("x-exception-type")).isEqualTo("PayloadTooLarge");
    BrokerSpy.Message error = single(s, "the error event", () -> s.events(id.toString()).stream()
        .filter(m -> m.routingKey().equals(ENTITY + "." + COMMAND + ".error")).toList());
    assertThat(error.json().path("errorCode").asText()).as("the error event's errorCode").isEqualTo("PayloadTooLarge");
    assertThat(s.runs.of(messageId)).as("handler runs").hasSize(1);
  }

  private static void connectionDropped(ConformanceService s) {
    UUID id = s.startInstance("{\"case\": \"sleep\", \"ms\": 3000}");
    String messageId = single(s, "the command", () -> s.commands(id)).messageId();
    eventually(s, CASE, () -> assertThat(s.runs.of(messageId)).as("handler runs").isNotEmpty());
    assertThat(s.closeWorkerConnections()).as("connections named %s… closed", s.connectionName).isPositive();
    JsonNode instance = s.awaitStatus(id, "SUCCEEDED");
    assertThat(instance.at("/outputs/" + COMMAND)).isEqualTo(RuntimeHarness.json("{\"slept\": 3000}"));
    assertThat(s.runs.of(messageId)).as("handler runs").hasSize(1);
    eventually(s, CASE, () -> assertThat(s.workerConnections()).as("the worker's connections, recovered")
        .isNotEmpty());
  }

  private static void handlerTimeLimit(ConformanceService s) throws Exception {
    long ms = 3L * ConformanceService.HANDLER_TIMEOUT_MS;
    String messageId = UUID.randomUUID().toString();
    String correlationId = UUID.randomUUID().toString();
    ObjectNode input = RuntimeHarness.JSON.createObjectNode().put("case", "sleep").put("ms", ms);
    s.publishCommand(messageId, correlationId, input, Map.of());
    eventually(s, CASE, () -> assertThat(s.runs.of(messageId)).as("handler runs").isNotEmpty());
    s.publishCommand(messageId, correlationId, input, Map.of()); // while the first run goes on
    eventually(s, CASE, () -> assertThat(s.events(correlationId)).as("events answering the two deliveries")
        .hasSize(2));
    for (BrokerSpy.Message event : s.events(correlationId)) {
      assertThat(event.routingKey()).isEqualTo(ENTITY + "." + COMMAND + ".success");
      assertThat(event.json().at("/output/slept").asLong()).isEqualTo(ms);
    }
    assertThat(s.runs.of(messageId)).as("handler runs").hasSize(1);
  }

  private static void subscriptionEvents(ConformanceService s) throws Exception {
    String heard = UUID.randomUUID().toString();
    String crashing = UUID.randomUUID().toString();
    s.publishSourceEvent(ENTITY + ".ping.success", heard, RuntimeHarness.JSON.createObjectNode());
    s.publishSourceEvent(ENTITY + ".ping.success", crashing,
        RuntimeHarness.JSON.createObjectNode().put("case", "crash"));
    single(s, "the crashing event parked in q.dlx.S.heard", () -> s.parked(SUBSCRIPTION, crashing));
    assertThat(s.runs.retries(crashing)).as("retries of each run of the crashing event").containsExactly(everyRun());
    List<String> tiers = s.tiersOfEachRetry(SUBSCRIPTION);
    eventually(s, CASE, () -> assertThat(s.retriesSent(SUBSCRIPTION, crashing))
        .as("the retries of the crashing event sent to S.retry.direct.ex: tier, baton-retries")
        .extracting(m -> m.routingKey() + ", " + m.header("baton-retries")).containsExactly(numbered(tiers)));
    assertThat(s.runs.of(heard)).as("runs of the first event").hasSize(1)
        .allSatisfy(r -> assertThat(r.kind()).isEqualTo("event"));
    assertThat(s.parked(SUBSCRIPTION, heard)).as("the first event parked").isEmpty();
  }

  // --- the staircase ----------------------------------------------------------------------------------------------

  /** The retries header of every run a message that always fails gets: 0 on its first, up to the last attempt. */
  private static Integer[] everyRun() {
    return IntStream.range(0, ConformanceService.STAIRCASE.maxAttempts()).boxed().toArray(Integer[]::new);
  }

  /** {@code "<tier>, <k>"} for retry k = 1, 2, … going through {@code tiers.get(k - 1)}. */
  private static String[] numbered(List<String> tiers) {
    return IntStream.range(0, tiers.size()).mapToObj(i -> tiers.get(i) + ", " + (i + 1)).toArray(String[]::new);
  }

  // --- waiting ---------------------------------------------------------------------------------------------------

  /** Awaits exactly one message from {@code messages} and returns it. */
  private static BrokerSpy.Message single(ConformanceService s, String what,
      java.util.function.Supplier<List<BrokerSpy.Message>> messages) {
    eventually(s, CASE, () -> assertThat(messages.get()).as(what).isNotEmpty());
    List<BrokerSpy.Message> seen = messages.get();
    assertThat(seen).as(what).hasSize(1);
    return seen.get(0);
  }

  /** Awaits {@code assertion}; while the worker is running (its output is in the failure when not). */
  private static void eventually(ConformanceService s, Duration within, ThrowingRunnable assertion) {
    try {
      await().atMost(within).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
        assertThat(s.workerAlive()).as("the conformance worker is running").isTrue();
        assertion.run();
      });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "\nthe worker's last output:\n" + s.workerOutput(), e);
    }
  }
}
