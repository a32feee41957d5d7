package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.messaging.tracing.MessagingSpans;
import dev.baton.runtime.app.RuntimeSettings;
import dev.baton.runtime.it.TestWorker.Reply;
import dev.baton.runtime.tracing.RuntimeTracing;
import dev.baton.sandbox.LocalServices;
import dev.baton.worker.BatonWorker;
import dev.baton.worker.CommandResult;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * One trace per instance across the real broker (docs/design.md#observability): the start request, each dispatch
 * ({@code create}), the relay's {@code publish}, the worker's {@code process} and its answer's {@code publish}, each
 * event applied (the runtime's {@code process}) and the next dispatch chain under one another; compensations,
 * workers without the SDK and a runtime restart keep the chain. Spans are named here by what they are about: {@code
 * create <step>}, {@code publish <routing key>} (the worker's with "by worker"), {@code process <routing key>} (the
 * worker's), {@code apply <step> <result> <action>} (the runtime's process span).
 */
class InstanceTraceIT {

  private static final String CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER = "00-" + CALLER_TRACE + "-00f067aa0ba902b7-01";

  @RegisterExtension
  static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  RuntimeHarness h;

  @BeforeEach
  void start() {
    h = RuntimeHarness.create("trace");
    h.startRuntime(h.settings(), RuntimeTracing.of(otel.getOpenTelemetry()));
  }

  @AfterEach
  void stop() {
    h.close();
  }

  @Test
  void a_saga_that_compensates_is_one_trace_from_the_start_request_through_every_worker_to_the_end() throws Exception {
    h.apply("traced", spec("order",
        step("reserve", "tr-inventory", "reserve", "release"),
        step("charge", "tr-payment", "pay", null)));
    try (BatonWorker inventory = sdkWorker("tr-inventory", List.of("reserve", "release"), c -> CommandResult.success(
            Map.of("done", c.name())));
        BatonWorker payment = sdkWorker("tr-payment", List.of("pay"), c -> CommandResult.failed("Declined", "no"))) {
      inventory.start();
      payment.start();

      UUID id = startWithTraceparent("traced", "o-1");
      h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(30));
      List<String> chain = List.of("start default/traced",
          "create reserve", "publish service.tr-inventory.reserve", "process service.tr-inventory.reserve",
          "publish order.reserve.success by worker", "apply reserve success reserve",
          "create charge", "publish service.tr-payment.pay", "process service.tr-payment.pay",
          "publish order.pay.failed by worker", "apply charge failed pay",
          "create reserve/compensate", "publish service.tr-inventory.release", "process service.tr-inventory.release",
          "publish order.release.success by worker", "apply reserve success release");
      Map<String, SpanData> spans = awaitSpans(chain);

      assertThat(spans.values()).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(CALLER_TRACE));
      assertChain(spans, chain.toArray(String[]::new));
      SpanData relayed = spans.get("publish service.tr-inventory.reserve");
      assertThat(relayed.getName()).isEqualTo("publish tr-inventory.command.topic.ex");
      assertThat(relayed.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(relayed.getAttributes().get(MessagingSpans.MESSAGE_ID)).isNotBlank();
      assertThat(relayed.getAttributes().get(MessagingSpans.CONVERSATION_ID)).isEqualTo(id.toString());
      SpanData applied = spans.get("apply reserve success reserve");
      assertThat(applied.getName()).isEqualTo("process tr-inventory.event.topic.ex");
      assertThat(applied.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(spans.get("process service.tr-inventory.reserve").getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(spans.get("start default/traced").getParentSpanId()).isEqualTo("00f067aa0ba902b7");
      assertThat(spans.get("apply reserve success release").getEvents())
          .anySatisfy(e -> assertThat(e.getName()).isEqualTo("finished COMPENSATED"));
      assertThat(h.instance(id).get("traceId").asText()).isEqualTo(CALLER_TRACE);
    }
  }

  @Test
  void a_worker_without_the_sdk_that_copies_traceparent_keeps_the_chain() throws Exception {
    h.apply("raw", spec("order", step("reserve", "raw-inventory", "reserve", null),
        step("ship", "raw-shipping", "ship", null)));
    h.worker()
        .serve("q.raw-inventory.reserve", "raw-inventory", "reserve", c -> done())
        .serve("q.raw-shipping.ship", "raw-shipping", "ship", c -> done());

    UUID id = startWithTraceparent("raw", "o-2");
    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30));
    List<String> chain = List.of("start default/raw", "create reserve", "publish service.raw-inventory.reserve",
        "apply reserve success reserve", "create ship", "publish service.raw-shipping.ship", "apply ship success ship");
    Map<String, SpanData> spans = awaitSpans(chain);

    // The raw worker answers with the command's traceparent: the apply hangs under the publish it answers.
    assertChain(spans, chain.toArray(String[]::new));
    assertThat(spans.values()).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(CALLER_TRACE));
  }

  @Test
  void a_runtime_restarted_mid_instance_continues_the_same_trace() throws Exception {
    // The instance waits for a signal across the restart: what happens after it (the signal, the next dispatch, its
    // result) has no message to carry the trace, only the traceparent the instance stored.
    h.apply("restart", yaml("""
        {entity: order, steps: [
          {name: reserve, service: rs-inventory, command: reserve},
          {name: approval, wait: {signal: approve, timeout: 1m}},
          {name: ship, service: rs-shipping, command: ship}]}
        """));
    TestWorker w = h.worker()
        .serve("q.rs-inventory.reserve", "rs-inventory", "reserve", c -> done())
        .serve("q.rs-shipping.ship", "rs-shipping", "ship", c -> done());
    UUID id = startWithTraceparent("restart", "o-3");
    String startSpan = awaitSpans(List.of("start default/restart", "apply reserve success reserve"))
        .get("start default/restart").getSpanId();
    await().atMost(Duration.ofSeconds(10)).until(() -> "RUNNING".equals(h.scalar(
        "SELECT status FROM instance_step WHERE instance_id = '" + id + "' AND name = 'approval'")));
    assertThat(h.scalar("SELECT trace_parent FROM workflow_instance WHERE id = '" + id + "'"))
        .isEqualTo("00-" + CALLER_TRACE + "-" + startSpan + "-01");

    h.stopRuntime();
    otel.clearSpans(); // from here on, only what the new runtime makes
    h.startRuntime(h.settings(), RuntimeTracing.of(otel.getOpenTelemetry()));
    RuntimeHarness.Response r = h.post("/api/v1/instances/" + id + "/signals/approve", "{}");
    assertThat(r.status()).as(r.text()).isEqualTo(202);

    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30));
    Map<String, SpanData> spans = awaitSpans(List.of("signal approve", "create ship",
        "publish service.rs-shipping.ship", "apply ship success ship"));
    assertThat(spans.values()).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(CALLER_TRACE));
    // The signal hangs under the stored start span; what it dispatches under it.
    assertThat(spans.get("signal approve").getParentSpanId()).isEqualTo(startSpan);
    assertChain(spans, "signal approve", "create ship", "publish service.rs-shipping.ship", "apply ship success ship");
    assertThat(w.received()).filteredOn(c -> c.command().equals("ship")).singleElement()
        .satisfies(c -> assertThat(String.valueOf(c.headers().get("traceparent"))).isEqualTo(
            "00-" + CALLER_TRACE + "-" + spans.get("publish service.rs-shipping.ship").getSpanId() + "-01"));
  }

  @Test
  void a_log_line_about_an_instance_names_it_its_workflow_and_its_trace_and_no_secret() throws Exception {
    // A runtime whose broker password is a real secret (random), to look for it in the lines.
    h.stopRuntime();
    RuntimeSettings settings = h.asRuntimeUser(h.settings());
    String secret = URI.create(settings.amqpUri()).getUserInfo().split(":", 2)[1];
    WorkflowSpec silent = spec("order", step("wait-forever", "lg-nobody", "work", null));
    silent.getSteps().get(0).setTimeout("1s");
    h.apply("logged", silent);
    Logger root = (Logger) LoggerFactory.getLogger("dev.baton");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    root.addAppender(lines);
    try {
      h.startRuntime(settings, RuntimeTracing.of(otel.getOpenTelemetry()));
      // A value of the input that no line may show (payloads are logged at DEBUG only).
      String card = "card-" + UUID.randomUUID();
      UUID id = startWithTraceparent("logged", "o-4", "{\"card\":\"" + card + "\"}");
      h.awaitStatus(id, "FAILED", Duration.ofSeconds(30));

      ILoggingEvent timedOut = await().atMost(Duration.ofSeconds(10)).until(() -> lines.list.stream()
          .filter(e -> e.getFormattedMessage().contains("timer(s) due")).findFirst(), Optional::isPresent).get();
      assertThat(timedOut.getMDCPropertyMap()).containsEntry("instanceId", id.toString())
          .containsEntry("workflow", "logged").containsEntry("step", "wait-forever")
          .containsEntry("traceId", CALLER_TRACE);
      assertThat(secret).hasSizeGreaterThan(8);
      assertThat(lines.list).isNotEmpty().extracting(ILoggingEvent::getFormattedMessage)
          .noneMatch(line -> line.contains(secret));
      assertThat(lines.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
          .extracting(ILoggingEvent::getFormattedMessage).isNotEmpty().noneMatch(line -> line.contains(card));

      // The timeout is a span of the instance's trace, under the start span the instance stored.
      Map<String, SpanData> spans = awaitSpans(List.of("start default/logged", "timers due"));
      assertThat(spans.get("timers due").getTraceId()).isEqualTo(CALLER_TRACE);
      assertThat(spans.get("timers due").getParentSpanId())
          .isEqualTo(spans.get("start default/logged").getSpanId());
      assertThat(spans.get("timers due").getEvents())
          .anySatisfy(e -> assertThat(e.getName()).isEqualTo("finished FAILED"));
    } finally {
      root.detachAppender(lines);
    }
  }

  private static Reply done() {
    return Reply.success(RuntimeHarness.JSON.createObjectNode());
  }

  private BatonWorker sdkWorker(String service, List<String> commands,
      Function<dev.baton.worker.Command, CommandResult> handler) {
    List<ServiceModel.Command> cs = commands.stream().map(c -> new ServiceModel.Command(c, RetryStaircase.NONE))
        .toList();
    BatonWorker.Builder b = BatonWorker.builder()
        .environment(new WorkerEnvironment(new ServiceModel(service, QueueType.CLASSIC, cs, List.of()), 10))
        .uri(h.vhost.amqpUri(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD))
        .openTelemetry(otel.getOpenTelemetry());
    commands.forEach(c -> b.command(c, handler::apply));
    return b.build();
  }

  private UUID startWithTraceparent(String workflow, String businessKey) throws Exception {
    return startWithTraceparent(workflow, businessKey, "{}");
  }

  private UUID startWithTraceparent(String workflow, String businessKey, String input) throws Exception {
    HttpResponse<String> r = h.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + h.runtime.httpPort()
            + "/api/v1/namespaces/default/workflows/" + workflow + "/instances"))
        .header("Content-Type", "application/json").header("traceparent", CALLER)
        .POST(HttpRequest.BodyPublishers.ofString(
            "{\"businessKey\":\"" + businessKey + "\",\"input\":" + input + "}"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return UUID.fromString(RuntimeHarness.JSON.readTree(r.body()).get("id").asText());
  }

  /** The spans named (see the class's comment), once all have ended. */
  private static Map<String, SpanData> awaitSpans(List<String> names) {
    return await().atMost(Duration.ofSeconds(20)).until(
        () -> otel.getSpans().stream().collect(Collectors.toMap(InstanceTraceIT::nameOf, s -> s, (a, b) -> b)),
        byName -> byName.keySet().containsAll(names));
  }

  private static String nameOf(SpanData span) {
    Map<AttributeKey<?>, Object> a = span.getAttributes().asMap();
    Object operation = a.get(MessagingSpans.OPERATION_NAME);
    boolean byWorker = span.getInstrumentationScopeInfo().getName().equals("dev.baton.worker");
    if (operation == null) {
      return span.getName();
    }
    if (operation.equals("create")) {
      return "create " + a.get(AttributeKey.stringKey("baton.step"));
    }
    if (operation.equals("process") && !byWorker) {
      return "apply " + a.get(AttributeKey.stringKey("baton.step")) + " "
          + a.get(AttributeKey.stringKey("baton.result")) + " " + a.get(AttributeKey.stringKey("baton.action"));
    }
    return operation + " " + a.get(MessagingSpans.ROUTING_KEY)
        + (byWorker && operation.equals("publish") ? " by worker" : "");
  }

  /** Each span's parent is the one before it. */
  private static void assertChain(Map<String, SpanData> spans, String... names) {
    for (int i = 1; i < names.length; i++) {
      assertThat(spans.get(names[i]).getParentSpanId()).as("parent of %s", names[i])
          .isEqualTo(spans.get(names[i - 1]).getSpanId());
    }
    assertThat(SpanId.isValid(spans.get(names[0]).getSpanId())).isTrue();
  }
}
