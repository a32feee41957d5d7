package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.Names;
import dev.baton.runtime.it.TestWorker.Reply;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An instance's outcome as an event (docs/message-contract.md#instance-outcomes), on the real broker and database: one
 * per ending, published to baton.instance.topic.ex keyed default.outcomes.&lt;outcome&gt; after the transaction that
 * ended the instance has committed, never when it rolls back. A queue of the test's own, bound with default.outcomes.#,
 * stands for a subscriber. The runtime runs as its own broker user: its permissions let it write the exchange.
 *
 * <p>The Workflow: reserve (compensate: release), then charge. The worker answers by business key: {@code declined}
 * is refused at charge (compensated), {@code stuck} too, and its release fails the first time (failed), {@code held}
 * and {@code doomed} are never answered at charge (cancelled).
 */
class InstanceOutcomesIT {

  static final String WORKFLOW = "outcomes";
  static final String SUBSCRIBER = "q.test.outcomes";

  static RuntimeHarness h;
  static Channel subscriber;
  static final Map<String, AtomicInteger> releases = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    h = RuntimeHarness.create("outcomes");
    h.apply(WORKFLOW, spec("order",
        step("reserve", "oc-inventory", "reserve", "release"),
        step("charge", "oc-payment", "pay", null)));
    subscriber = h.amqp.createChannel();
    subscriber.queueDeclare(SUBSCRIBER, true, false, false, null);
    subscriber.queueBind(SUBSCRIBER, Names.instanceOutcomeExchange(), "default." + WORKFLOW + ".#");
    h.worker()
        .serve("q.oc-inventory.reserve", "oc-inventory", "reserve", c -> Reply.success(output("reserved")))
        .serve("q.oc-inventory.release", "oc-inventory", "release", c ->
            key(c).equals("stuck") && releases.computeIfAbsent(key(c), k -> new AtomicInteger()).incrementAndGet() == 1
                ? Reply.failed("WAREHOUSE_CLOSED", "no one to put it back")
                : Reply.success(output("released")))
        .serve("q.oc-payment.pay", "oc-payment", "pay", c -> switch (key(c)) {
          case "declined", "stuck" -> Reply.failed("CARD_DECLINED", "the bank said no");
          case "held", "doomed" -> Reply.HOLD;
          default -> Reply.success(output("paid"));
        });
    h.startRuntime(h.asRuntimeUser(h.settings()));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static JsonNode output(String key) {
    return RuntimeHarness.JSON.createObjectNode().put(key, true);
  }

  static String key(TestWorker.Command c) {
    return c.body().get("businessKey").asText();
  }

  /** An outcome event as the subscriber received it. */
  record Outcome(String routingKey, GetResponse message, JsonNode body) {}

  /** The outcome events of {@code id} received so far (the others stay aside for their own test). */
  static final List<Outcome> received = new ArrayList<>();

  static synchronized List<Outcome> outcomesOf(UUID id) throws Exception {
    GetResponse r;
    while ((r = subscriber.basicGet(SUBSCRIBER, true)) != null) {
      received.add(new Outcome(r.getEnvelope().getRoutingKey(), r, RuntimeHarness.JSON.readTree(r.getBody())));
    }
    return received.stream().filter(o -> o.body().get("id").asText().equals(id.toString())).toList();
  }

  /** Waits for the instance's outcome, then long enough to see that no second one follows. */
  static Outcome theOnlyOutcomeOf(UUID id) throws Exception {
    await().atMost(Duration.ofSeconds(20)).until(() -> !outcomesOf(id).isEmpty());
    Thread.sleep(1_000); // the relay polls every 500 ms: a second outcome would be here by now
    assertThat(outcomesOf(id)).as("one outcome per ending").hasSize(1);
    return outcomesOf(id).get(0);
  }

  static UUID start(String businessKey) {
    return h.startOk(WORKFLOW, businessKey);
  }

  @Test
  void anInstanceThatSucceedsPublishesItsOutcomeWithTheContractsPropertiesAndBody() throws Exception {
    UUID id = start("paid");
    JsonNode instance = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));

    Outcome o = theOnlyOutcomeOf(id);

    assertThat(o.routingKey()).isEqualTo("default.outcomes.succeeded");
    var props = o.message().getProps();
    assertThat(props.getMessageId()).satisfies(m -> UUID.fromString(m));
    assertThat(props.getCorrelationId()).isEqualTo(id.toString());
    assertThat(props.getContentType()).isEqualTo("application/json");
    assertThat(props.getDeliveryMode()).isEqualTo(2);
    assertThat(props.getTimestamp()).isNotNull();
    assertThat(props.getHeaders()).extractingByKeys("baton-workflow", "baton-namespace", "baton-instance")
        .map(String::valueOf).containsExactly(WORKFLOW, "default", id.toString());
    assertThat(props.getHeaders().get("baton-revision")).isEqualTo(1);

    JsonNode body = o.body();
    assertThat(body.fieldNames()).toIterable().containsExactly("id", "businessKey", "workflow", "revision", "status",
        "outputs", "lastError", "createdAt", "finishedAt");
    assertThat(body.get("businessKey").asText()).isEqualTo("paid");
    assertThat(body.get("workflow").asText()).isEqualTo(WORKFLOW);
    assertThat(body.get("revision").asInt()).isEqualTo(1);
    assertThat(body.get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(body.get("outputs")).isEqualTo(instance.get("outputs"));
    assertThat(body.get("outputs").get("charge").get("paid").asBoolean()).isTrue();
    assertThat(body.get("lastError").isNull()).isTrue();
    assertThat(Instant.parse(body.get("createdAt").asText())).isEqualTo(Instant.parse(instance.get("createdAt").asText()));
    assertThat(Instant.parse(body.get("finishedAt").asText()))
        .isAfterOrEqualTo(Instant.parse(body.get("createdAt").asText()));
  }

  @Test
  void anInstanceWhoseStepsAreUndonePublishesCompensatedWithItsLastError() throws Exception {
    UUID id = start("declined");
    h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));

    Outcome o = theOnlyOutcomeOf(id);

    assertThat(o.routingKey()).isEqualTo("default.outcomes.compensated");
    assertThat(o.body().get("status").asText()).isEqualTo("COMPENSATED");
    assertThat(o.body().get("lastError").get("errorCode").asText()).isEqualTo("CARD_DECLINED");
    assertThat(o.body().get("outputs").fieldNames()).toIterable().as("compensations are no outputs")
        .containsExactly("reserve");
  }

  @Test
  void aFailedInstanceThatIsRetriedAndEndsAgainPublishesASecondOutcomeWithANewMessageId() throws Exception {
    UUID id = start("stuck");
    h.awaitStatus(id, "FAILED", Duration.ofSeconds(20));
    Outcome failed = theOnlyOutcomeOf(id);
    assertThat(failed.routingKey()).isEqualTo("default.outcomes.failed");
    assertThat(failed.body().get("lastError").get("step").asText()).isEqualTo("reserve/compensate");

    RuntimeHarness.Response r = h.post("/api/v1/instances/" + id + "/retry", null);
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));

    await().atMost(Duration.ofSeconds(20)).until(() -> outcomesOf(id).size() == 2);
    Outcome compensated = outcomesOf(id).get(1);
    assertThat(compensated.routingKey()).isEqualTo("default.outcomes.compensated");
    assertThat(compensated.message().getProps().getMessageId())
        .isNotEqualTo(failed.message().getProps().getMessageId());
  }

  @Test
  void aCancelledInstancePublishesCancelled() throws Exception {
    UUID id = start("held");
    await().atMost(Duration.ofSeconds(20)).until(() -> "charge".equals(h.instance(id).get("currentStep").asText()));

    RuntimeHarness.Response r = h.post("/api/v1/instances/" + id + "/cancel", null);
    assertThat(r.status()).as(r.text()).isEqualTo(200);

    Outcome o = theOnlyOutcomeOf(id);
    assertThat(o.routingKey()).isEqualTo("default.outcomes.cancelled");
    assertThat(o.body().get("status").asText()).isEqualTo("CANCELLED");
  }

  /**
   * A runtime newer than its user's permissions (the operator grants the outcome exchange at its next pass): the
   * broker refuses the outcome (403), which waits in the outbox instead of being dropped, and goes out once the user
   * may write the exchange.
   */
  @Test
  void anOutcomeTheRuntimesUserMayNotWriteYetWaitsForItsPermission() throws Exception {
    String user = "baton-runtime-" + h.vhost.name();
    permitRuntimeUser(user, "^([^.]+\\.command\\.topic\\.ex|amq\\.default)$"); // as before outcomes existed
    UUID id;
    try {
      id = start("late-grant");
      h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(h.scalar("SELECT last_error FROM outbox"
          + " WHERE correlation_id = '" + id + "' AND exchange = '" + Names.instanceOutcomeExchange() + "'"))
          .contains("may not write baton.instance.topic.ex"));
      assertThat(outcomesOf(id)).isEmpty();
    } finally {
      permitRuntimeUser(user, dev.baton.contract.topology.TopologyPlanner.orchestratorPermissions().write());
    }
    assertThat(theOnlyOutcomeOf(id).routingKey()).isEqualTo("default.outcomes.succeeded");
  }

  static void permitRuntimeUser(String user, String write) {
    var p = new com.rabbitmq.http.client.domain.UserPermissions();
    var planned = dev.baton.contract.topology.TopologyPlanner.orchestratorPermissions();
    p.setConfigure(planned.configure());
    p.setWrite(write);
    p.setRead(planned.read());
    h.vhost.management().updatePermissions(h.vhost.name(), user, p);
  }

  /**
   * The outcome row is written by the transaction that ends the instance: a failure at that transaction's commit (a
   * deferred trigger on the outcome's own outbox row, so after everything else was written) takes the ending and its
   * outcome back together. The next cancel that commits publishes the one outcome.
   */
  @Test
  void anEndingThatRollsBackPublishesNothing() throws Exception {
    UUID id = start("doomed");
    await().atMost(Duration.ofSeconds(20)).until(() -> "charge".equals(h.instance(id).get("currentStep").asText()));
    try (java.sql.Connection c = h.database.connect(); Statement s = c.createStatement()) {
      s.execute("CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
          + " RAISE EXCEPTION 'injected: the commit that ends % fails', NEW.correlation_id; END $$");
      s.execute("CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT ON outbox DEFERRABLE INITIALLY DEFERRED"
          + " FOR EACH ROW WHEN (NEW.exchange = '" + Names.instanceOutcomeExchange() + "' AND NEW.correlation_id = '"
          + id + "') EXECUTE FUNCTION fail_at_commit()");
    }

    RuntimeHarness.Response refused = h.post("/api/v1/instances/" + id + "/cancel", null);
    assertThat(refused.status()).as(refused.text()).isGreaterThanOrEqualTo(500);
    assertThat(h.status(id)).isEqualTo("RUNNING");
    Thread.sleep(1_500); // three relay polls
    assertThat(outcomesOf(id)).isEmpty();
    assertThat(h.count("SELECT count(*) FROM outbox WHERE correlation_id = '" + id + "' AND exchange = '"
        + Names.instanceOutcomeExchange() + "'")).isZero();

    try (java.sql.Connection c = h.database.connect(); Statement s = c.createStatement()) {
      s.execute("DROP TRIGGER fail_at_commit ON outbox");
    }
    RuntimeHarness.Response cancelled = h.post("/api/v1/instances/" + id + "/cancel", null);
    assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
    assertThat(theOnlyOutcomeOf(id).routingKey()).isEqualTo("default.outcomes.cancelled");
  }
}
