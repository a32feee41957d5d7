package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.Names;
import dev.baton.runtime.it.TestWorker.Command;
import dev.baton.runtime.it.TestWorker.Reply;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The step loop against the real broker and database, with a raw-AMQP worker that follows docs/design.md#message-contract alone. Each
 * test uses its own workflow and services, so they share one runtime.
 */
class StepLoopIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("steploop");
    h.startRuntime(h.asRuntimeUser(h.settings())); // proves the operator's permissions for the runtime suffice
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static JsonNode output(String key) {
    return RuntimeHarness.JSON.createObjectNode().put(key, true);
  }

  @Test
  void happyPathRunsEveryStepOnceForTwoHundredInstances() throws Exception {
    h.apply("happy", spec("order",
        step("reserve", "hp-inventory", "reserve", "release"),
        step("charge", "hp-payment", "pay", "refund"),
        step("ship", "hp-shipping", "ship", null)));
    TestWorker w = h.worker()
        .serve("q.hp-inventory.reserve", "hp-inventory", "reserve", c -> Reply.success(output("reserved")))
        .serve("q.hp-payment.pay", "hp-payment", "pay", c -> Reply.success(output("paid")))
        .serve("q.hp-shipping.ship", "hp-shipping", "ship", c -> Reply.success(output("shipped")));

    int n = 200;
    long t0 = System.nanoTime();
    List<UUID> ids = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<UUID>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String key = "happy-" + i;
        futures.add(pool.submit(() -> h.startOk("happy", key)));
      }
      for (Future<UUID> f : futures) {
        ids.add(f.get());
      }
    } finally {
      pool.shutdown();
    }
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
        assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE workflow = 'happy' AND status = 'SUCCEEDED'"))
            .isEqualTo(n));
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf("MEASURE happy path: %d instances (%d steps) in %.2f s = %.0f instances/s, %.0f steps/s%n",
        n, 3 * n, seconds, n / seconds, 3 * n / seconds);

    Map<String, Integer> ledger = w.ledger();
    assertThat(ledger).hasSize(3 * n);
    assertThat(ledger.values()).allMatch(count -> count == 1);
    assertThat(h.count("SELECT count(*) FROM instance_step e JOIN workflow_instance i ON i.id = e.instance_id"
        + " WHERE i.workflow = 'happy' AND e.status = 'SUCCEEDED'")).isEqualTo(3L * n);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(h.count("SELECT count(*) FROM outbox")).isZero());

    // The command of a later step carries the input merged with earlier outputs, and the outputs by step.
    Command charge = w.received().stream().filter(c -> c.command().equals("pay")).findFirst().orElseThrow();
    assertThat(charge.body().get("input").get("n").asInt()).isEqualTo(1);
    assertThat(charge.body().get("input").get("reserved").asBoolean()).isTrue();
    assertThat(charge.body().has("outputs")).as("object outputs travel once, merged into input").isFalse();
    assertThat(charge.body().get("businessKey").asText()).startsWith("happy-");
    assertThat(charge.headers()).containsEntry("baton-attempt", 1).containsEntry("baton-retries", 0)
        .containsEntry("baton-entity", "order").containsEntry("baton-action", "pay")
        .containsEntry("baton-workflow", "happy").containsEntry("baton-namespace", "default")
        .containsEntry("baton-revision", 1).containsEntry("baton-step", "charge");
    assertThat(charge.correlationId()).isEqualTo(charge.instance());

    JsonNode one = h.instance(ids.get(0));
    assertThat(one.get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(one.get("outputs").get("ship").get("shipped").asBoolean()).isTrue();
    assertThat(one.get("steps")).hasSize(3);
  }

  @Test
  void businessFailureCompensatesCompletedStepsInReverseOrder() throws Exception {
    h.apply("saga", spec("order",
        step("reserve", "bf-inventory", "reserve", "release"),
        step("charge", "bf-payment", "pay", "refund"),
        step("ship", "bf-shipping", "ship", null)));
    TestWorker w = h.worker()
        .serve("q.bf-inventory.reserve", "bf-inventory", "reserve", c -> Reply.success(output("reserved")))
        .serve("q.bf-inventory.release", "bf-inventory", "release", c -> Reply.success(output("released")))
        .serve("q.bf-payment.pay", "bf-payment", "pay", c -> Reply.success(output("paid")))
        .serve("q.bf-payment.refund", "bf-payment", "refund", c -> Reply.success(output("refunded")))
        .serve("q.bf-shipping.ship", "bf-shipping", "ship", c -> Reply.failed("OUT_OF_STOCK", "no parcels left"));

    UUID id = h.startOk("saga", "saga-1");
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));

    assertThat(w.effects().stream().filter(e -> e.startsWith(id + "|")).map(e -> e.substring(e.indexOf('|') + 1)))
        .containsExactly("reserve", "pay", "ship", "refund", "release");
    List<String> history = new ArrayList<>();
    i.get("steps").forEach(s -> history.add(s.get("name").asText() + ":" + s.get("kind").asText() + ":"
        + s.get("action").asText() + ":" + s.get("status").asText()));
    assertThat(history).containsExactly(
        "reserve:task:reserve:SUCCEEDED",
        "charge:task:pay:SUCCEEDED",
        "ship:task:ship:FAILED",
        "charge/compensate:task:refund:SUCCEEDED",
        "reserve/compensate:task:release:SUCCEEDED");
    JsonNode failed = i.get("steps").get(2);
    assertThat(failed.get("error").get("code").asText()).isEqualTo("OUT_OF_STOCK");
    assertThat(failed.get("error").get("reason").asText()).isEqualTo("no parcels left");
    assertThat(i.get("lastError").get("step").asText()).isEqualTo("ship");
    assertThat(i.get("lastError").get("reason").asText()).isEqualTo("no parcels left");
    assertThat(i.get("finishedAt").isNull()).isFalse();
  }

  @Test
  void errorEventFailsTheStepAndCompensates() throws Exception {
    h.apply("errors", spec("parcel",
        step("label", "er-labels", "print", "shred"),
        step("pickup", "er-courier", "book", null)));
    TestWorker w = h.worker()
        .serve("q.er-labels.print", "er-labels", "print", c -> Reply.success(output("printed")))
        .serve("q.er-labels.shred", "er-labels", "shred", c -> Reply.success(output("shredded")))
        .serve("q.er-courier.book", "er-courier", "book",
            c -> Reply.error("java.net.ConnectException", "courier API down after 4 attempts"));

    UUID id = h.startOk("errors", "err-1");
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    JsonNode pickup = i.get("steps").get(1);
    assertThat(pickup.get("status").asText()).isEqualTo("ERROR");
    assertThat(pickup.get("error").get("reason").asText()).contains("courier API down");
    assertThat(i.get("lastError").get("status").asText()).isEqualTo("ERROR");
    assertThat(i.get("steps").get(2).get("action").asText()).isEqualTo("shred");
    assertThat(w.ledger().get(id + "|label|shred")).isEqualTo(1);
  }

  @Test
  void duplicateAndStaleEventsChangeNothing() throws Exception {
    h.apply("dups", spec("order",
        step("first", "dup-a", "first", null),
        step("second", "dup-b", "second", null)));
    TestWorker w = h.worker()
        .serve("q.dup-a.first", "dup-a", "first", c -> Reply.success(output("first")))
        .serve("q.dup-b.second", "dup-b", "second", c -> Reply.HOLD);

    // The same event twice: applied once, the second counted as a duplicate.
    UUID id = h.startOk("dups", "dup-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 1);
    Command second = w.received().stream().filter(c -> c.instance().equals(id.toString())
        && c.command().equals("second")).findFirst().orElseThrow();
    String eventId = UUID.randomUUID().toString();
    w.publishEvent(second, "success", eventId, 1);
    w.publishEvent(second, "success", eventId, 1);
    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
    await().atMost(Duration.ofSeconds(10)).until(() -> h.counter("baton.events.duplicates", "dups") >= 1);

    // A late answer of an execution that is done: stale, ignored.
    w.publishEvent(second, "failed", UUID.randomUUID().toString(), 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.counter("baton.events.stale", "dups") >= 1);
    JsonNode done = h.instance(id);
    assertThat(done.get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(done.get("steps")).hasSize(2);
    assertThat(done.get("lastError").isNull()).isTrue();

    // An answer for another attempt while the step is in flight: stale too; the right one still counts.
    UUID other = h.startOk("dups", "dup-2");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 2);
    Command inFlight = w.received().stream().filter(c -> c.instance().equals(other.toString())
        && c.command().equals("second")).findFirst().orElseThrow();
    w.publishEvent(inFlight, "failed", UUID.randomUUID().toString(), 7);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.counter("baton.events.stale", "dups") >= 2);
    assertThat(h.status(other)).isEqualTo("RUNNING");
    w.release(c -> Reply.success(output("second")));
    h.awaitStatus(other, "SUCCEEDED", Duration.ofSeconds(10));
    assertThat(w.ledger()).allSatisfy((k, v) -> assertThat(v).as(k).isEqualTo(1));

    // The same business key twice: one instance.
    RuntimeHarness.Response first = h.start("dups", "same-key", "{}");
    RuntimeHarness.Response again = h.start("dups", "same-key", "{\"ignored\":true}");
    assertThat(first.status()).isEqualTo(201);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().get("id")).isEqualTo(first.json().get("id"));
    assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE business_key = 'same-key'")).isEqualTo(1);
  }

  @Test
  void badEventsAreParkedWithAReasonAndGoodTrafficStillFlows() throws Exception {
    h.apply("bad", spec("order", step("only", "bad-a", "only", null)));
    h.worker().serve("q.bad-a.only", "bad-a", "only", c -> Reply.success(output("ok")));
    String exchange = Names.eventExchange("bad-a");
    String key = "order.only.success";
    try (Channel ch = h.amqp.createChannel()) {
      ch.basicPublish(exchange, key, props(headers("bad", UUID.randomUUID(), true)),
          "{not json".getBytes(StandardCharsets.UTF_8));
      ch.basicPublish(exchange, key, props(headers("bad", UUID.randomUUID(), true)), "{}".getBytes(StandardCharsets.UTF_8));
      ch.basicPublish(exchange, key, props(headers("bad", UUID.randomUUID(), false)), "{}".getBytes(StandardCharsets.UTF_8));
      ch.basicPublish("", Names.orchestratorQueue("bad"), props(headers("bad", UUID.randomUUID(), true)),
          "{}".getBytes(StandardCharsets.UTF_8));
      ch.basicPublish(exchange, key, props(headers("another-workflow", UUID.randomUUID(), true)),
          "{}".getBytes(StandardCharsets.UTF_8));
    }
    UUID good = h.startOk("bad", "good-1");
    h.awaitStatus(good, "SUCCEEDED", Duration.ofSeconds(10));
    await().atMost(Duration.ofSeconds(10)).until(() -> h.counter("baton.events.foreign", "bad") >= 1);

    List<String> reasons = new ArrayList<>();
    try (Channel ch = h.amqp.createChannel()) {
      await().atMost(Duration.ofSeconds(10)).until(() -> ch.messageCount(Names.orchestratorDeadLetterQueue("bad")) == 4);
      GetResponse r;
      while ((r = ch.basicGet(Names.orchestratorDeadLetterQueue("bad"), true)) != null) {
        Map<String, Object> hs = r.getProps().getHeaders();
        reasons.add(String.valueOf(hs.get("x-exception-message")));
        assertThat(hs).containsKeys("x-exception-type", "x-original-routing-key", "baton-workflow");
      }
    }
    assertThat(reasons).anyMatch(m -> m.contains("body is not JSON"))
        .anyMatch(m -> m.startsWith("unknown instance"))
        .anyMatch(m -> m.contains("baton-step is missing"))
        .anyMatch(m -> m.contains("does not end in success, failed, error, expired"));
    assertThat(h.counter("baton.events.parked", "bad")).isEqualTo(4);
  }

  @Test
  void aChangedWorkflowDoesNotChangeRunningInstances() throws Exception {
    h.apply("versioned", spec("order",
        step("one", "ver-a", "one", null),
        step("two", "ver-a", "two", null)));
    TestWorker w = h.worker()
        .serve("q.ver-a.one", "ver-a", "one", c -> Reply.success(output("one")))
        .serve("q.ver-a.two", "ver-a", "two", c -> c.body().get("businessKey").asText().equals("old")
            ? Reply.HOLD : Reply.success(output("two")));
    UUID old = h.startOk("versioned", "old");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 1);

    h.apply("versioned", spec("order",
        step("one", "ver-a", "one", null),
        step("two", "ver-a", "two", null),
        step("three", "ver-b", "three", null)));
    w.serve("q.ver-b.three", "ver-b", "three", c -> Reply.success(output("three")));
    await().atMost(Duration.ofSeconds(10)).until(() ->
        h.count("SELECT count(*) FROM workflow_definition WHERE name = 'versioned'") == 2);
    UUID fresh = h.startOk("versioned", "new");
    w.release(c -> Reply.success(output("two")));

    JsonNode o = h.awaitStatus(old, "SUCCEEDED", Duration.ofSeconds(10));
    JsonNode n = h.awaitStatus(fresh, "SUCCEEDED", Duration.ofSeconds(10));
    assertThat(o.get("revision").asInt()).isEqualTo(1);
    assertThat(n.get("revision").asInt()).isEqualTo(2);
    assertThat(names(o)).containsExactly("one", "two");
    assertThat(names(n)).containsExactly("one", "two", "three");
  }

  @Test
  void aWorkflowWhoseTopologyIsNotThereYetWaitsAndThenRuns() throws Exception {
    WorkflowSpec spec = spec("order", step("go", "late-svc", "go", null));
    Workflow w = new Workflow();
    w.setMetadata(new ObjectMetaBuilder().withName("late").withNamespace(RuntimeHarness.NS).build());
    w.setSpec(spec);
    h.client.resources(Workflow.class).inNamespace(RuntimeHarness.NS).resource(w).create(); // no topology yet

    UUID id = h.startOk("late", "late-1");
    String command = "SELECT last_error FROM outbox WHERE correlation_id = '" + id + "'";
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(h.scalar(command))
        .isEqualTo("exchange late-svc.command.topic.ex does not exist — is WorkerService late-svc Ready?"));

    try (Channel ch = h.amqp.createChannel()) {
      ch.exchangeDeclare(Names.commandExchange("late-svc"), "topic", true); // an exchange, but no queue bound yet
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(h.scalar(command))
        .isEqualTo("no queue bound to service.late-svc.go on late-svc.command.topic.ex — is WorkerService late-svc Ready?"));
    assertThat(h.status(id)).isEqualTo("RUNNING");

    h.declareTopology("late", spec);
    h.worker().serve("q.late-svc.go", "late-svc", "go", c -> Reply.success(output("went")));
    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
  }

  private static List<String> names(JsonNode instance) {
    List<String> names = new ArrayList<>();
    instance.get("steps").forEach(s -> names.add(s.get("name").asText()));
    return names;
  }

  private static Map<String, Object> headers(String workflow, UUID instance, boolean withStep) {
    Map<String, Object> hs = new HashMap<>();
    hs.put("baton-workflow", workflow);
    hs.put("baton-instance", instance.toString());
    hs.put("baton-attempt", 1);
    hs.put("baton-action", "only");
    hs.put("baton-entity", "order");
    if (withStep) {
      hs.put("baton-step", "only");
    }
    return hs;
  }

  private static AMQP.BasicProperties props(Map<String, Object> headers) {
    return new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString()).deliveryMode(2)
        .contentType("application/json").headers(headers).build();
  }
}
