package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.it.TestWorker.Command;
import dev.baton.runtime.it.TestWorker.Reply;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What happens off the happy path (docs/design.md#runtime-semantics): commands of an instance that ended are
 * withdrawn before a worker gets them; steps whose outcome is unknown (error, timed out) are compensated, a business
 * refusal is not; a cancel may compensate first, awaiting a step whose command may be at a worker and never undoing
 * one that never ran.
 */
class CancelAndUnknownOutcomesIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("outcomes");
    h.startRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static JsonNode output(String key) {
    return RuntimeHarness.JSON.createObjectNode().put(key, true);
  }

  /** A Workflow whose services have no topology yet: its commands stay in the outbox, unroutable. */
  static void applyWithoutTopology(String name, WorkflowSpec spec) {
    Workflow w = new Workflow();
    w.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(RuntimeHarness.NS).build());
    w.setSpec(spec);
    h.client.resources(Workflow.class).inNamespace(RuntimeHarness.NS).resource(w).create();
  }

  /** The instance's commands still in the outbox (its outcome event, which belongs to no attempt, is not one). */
  static long commandsOf(UUID id) throws Exception {
    return h.count("SELECT count(*) FROM outbox WHERE instance_id = '" + id + "'");
  }

  /** Fails on the code before: the cancelled instance's command stayed in the outbox and was delivered later. */
  @Test
  void cancelWithdrawsTheCommandsNotYetPublished() throws Exception {
    WorkflowSpec spec = spec("order", step("go", "wd-late", "go", null));
    applyWithoutTopology("withdrawn", spec);
    UUID cancelled = h.startOk("withdrawn", "wd-1");
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(h.scalar(
        "SELECT last_error FROM outbox WHERE correlation_id = '" + cancelled + "'")).contains("does not exist"));

    RuntimeHarness.Response r = h.post("/api/v1/instances/" + cancelled + "/cancel", null);
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    assertThat(r.json().get("status").asText()).isEqualTo("CANCELLED");
    assertThat(commandsOf(cancelled)).as("withdrawn in the transaction of the cancel").isZero();

    // Once the service exists, a later instance's command flows, and the cancelled one's never arrives.
    h.declareTopology("withdrawn", spec);
    TestWorker w = h.worker().serve("q.wd-late.go", "wd-late", "go", c -> Reply.success(output("went")));
    UUID later = h.startOk("withdrawn", "wd-2");
    h.awaitStatus(later, "SUCCEEDED", Duration.ofSeconds(20));
    assertThat(w.received()).extracting(Command::instance).containsOnly(later.toString());
    JsonNode go = h.instance(cancelled).get("steps").get(0);
    assertThat(go.get("status").asText()).isEqualTo("CANCELLED");
  }

  /** Fails on the code before: an instance failed by a timeout left its command queued for publishing. */
  @Test
  void anInstanceThatTimesOutWithdrawsItsCommand() throws Exception {
    StepSpec stuck = step("stuck", "wd-stuck", "stuck", null);
    stuck.setTimeout("1s");
    WorkflowSpec spec = spec("order", stuck);
    spec.setOnFailure(OnFailure.Stop);
    applyWithoutTopology("timedout", spec);
    UUID id = h.startOk("timedout", "to-1");
    JsonNode i = h.awaitStatus(id, "FAILED", Duration.ofSeconds(15));
    assertThat(i.get("lastError").get("reason").asText()).isEqualTo("Timeout");
    assertThat(commandsOf(id)).isZero();
  }

  /**
   * Fails on the code before: each timed-out attempt's command stayed in the outbox beside the next one, so a relay or
   * broker stall ended with attempts 1, 2 and 3 all published, and the worker ran the step three times.
   */
  @Test
  void aTimedOutAttemptsUnsentCommandIsWithdrawnBeforeTheStepIsSentAgain() throws Exception {
    StepSpec charge = withTimeout(step("charge", "rd-payment", "pay", null), "3s");
    charge.setOnTimeout(dev.baton.api.v1alpha1.OnTimeout.Redispatch);
    charge.setMaxDispatches(3);
    WorkflowSpec spec = spec("order", charge);
    applyWithoutTopology("redispatched", spec);
    UUID id = h.startOk("redispatched", "rd-1");
    await().atMost(Duration.ofSeconds(15)).until(() -> h.instance(id).get("attempt").asInt() == 2);

    // Only attempt 2's command waits to be published; it carries its attempt's deadline, to the millisecond.
    assertThat(commandsOf(id)).isEqualTo(1);
    String second = h.instance(id).get("steps").get(1).get("commandMessageId").asText();
    assertThat(h.scalar("SELECT message_id FROM outbox WHERE correlation_id = '" + id + "'")).isEqualTo(second);
    assertThat(h.scalar("SELECT (headers->>'baton-deadline') = (extract(epoch FROM s.deadline) * 1000)::bigint::text"
        + " FROM outbox o JOIN instance_step s ON s.command_message_id = o.message_id"
        + " WHERE o.correlation_id = '" + id + "'")).isEqualTo("t");

    h.declareTopology("redispatched", spec);
    TestWorker w = h.worker().serve("q.rd-payment.pay", "rd-payment", "pay", c -> Reply.success(output("paid")));
    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
    assertThat(w.received()).as("one attempt reached the worker, never attempt 1")
        .extracting(Command::attempt).doesNotContain(1).hasSize(1);
  }

  static void applySaga(String name, String prefix) {
    h.apply(name, spec("order",
        step("reserve", prefix + "-inventory", "reserve", "release"),
        step("charge", prefix + "-payment", "pay", "refund")));
  }

  static TestWorker sagaWorker(String prefix, TestWorker.Behaviour charge) {
    return h.worker()
        .serve("q." + prefix + "-inventory.reserve", prefix + "-inventory", "reserve", c -> Reply.success(output("reserved")))
        .serve("q." + prefix + "-inventory.release", prefix + "-inventory", "release", c -> Reply.success(output("released")))
        .serve("q." + prefix + "-payment.pay", prefix + "-payment", "pay", charge)
        .serve("q." + prefix + "-payment.refund", prefix + "-payment", "refund", c -> Reply.success(output("refunded")));
  }

  static List<String> effects(TestWorker w, UUID id) {
    return w.effects().stream().filter(e -> e.startsWith(id + "|")).map(e -> e.substring(e.indexOf('|') + 1)).toList();
  }

  static List<String> history(JsonNode instance) {
    List<String> history = new ArrayList<>();
    instance.get("steps").forEach(s -> history.add(s.get("name").asText() + ":" + s.get("status").asText()));
    return history;
  }

  /** Fails on the code before: compensation started at the step before the errored one. */
  @Test
  void anErroredStepThatDeclaresCompensateIsCompensatedWithTheCompletedOnes() throws Exception {
    applySaga("errored", "eo");
    TestWorker w = sagaWorker("eo", c -> Reply.error("java.net.SocketTimeoutException", "gateway did not answer"));
    UUID id = h.startOk("errored", "eo-1");
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    assertThat(effects(w, id)).containsExactly("reserve", "pay", "refund", "release");
    assertThat(history(i)).containsExactly("reserve:SUCCEEDED", "charge:ERROR", "charge/compensate:SUCCEEDED",
        "reserve/compensate:SUCCEEDED");
  }

  /** Fails on the code before: the timed-out step was not compensated and its late success was dropped as stale. */
  @Test
  void aTimedOutStepIsCompensatedAndItsLateSuccessIsRecordedOnIt() throws Exception {
    h.apply("slowpay", spec("order",
        step("reserve", "sp-inventory", "reserve", "release"),
        withTimeout(step("charge", "sp-payment", "pay", "refund"), "1s")));
    TestWorker w = sagaWorker("sp", c -> Reply.SILENT);
    UUID id = h.startOk("slowpay", "sp-1");
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    assertThat(effects(w, id)).containsExactly("reserve", "refund", "release");
    assertThat(history(i)).containsExactly("reserve:SUCCEEDED", "charge:TIMED_OUT", "charge/compensate:SUCCEEDED",
        "reserve/compensate:SUCCEEDED");

    Command pay = w.received().stream().filter(c -> c.instance().equals(id.toString()) && c.command().equals("pay"))
        .findFirst().orElseThrow();
    double stale = h.counter("baton.events.stale", "slowpay");
    w.publishEvent(pay, "success", UUID.randomUUID().toString(), 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.counter("baton.events.stale", "slowpay") > stale);
    JsonNode after = h.instance(id);
    assertThat(after.get("status").asText()).isEqualTo("COMPENSATED");
    JsonNode charge = after.get("steps").get(1);
    assertThat(charge.get("status").asText()).isEqualTo("TIMED_OUT");
    assertThat(charge.get("late").get("result").asText()).isEqualTo("success");
    assertThat(charge.get("late").get("output").get("manual").asBoolean()).isTrue();
  }

  /**
   * Fails on the code before: PostgreSQL refused the NUL in pay's output, the event was parked, and the instance
   * waited at charge for ever.
   */
  @Test
  void anAnswerThatCannotBeStoredEndsItsStepInErrorAndIsCompensated() throws Exception {
    applySaga("nul", "nl");
    TestWorker w = sagaWorker("nl", c -> Reply.success(RuntimeHarness.JSON.createObjectNode().put("memo", "a\u0000b")));
    UUID id = h.startOk("nul", "nl-1");
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    assertThat(effects(w, id)).containsExactly("reserve", "pay", "refund", "release");
    JsonNode charge = i.get("steps").get(1);
    assertThat(charge.get("status").asText()).isEqualTo("ERROR");
    assertThat(charge.get("error").get("code").asText()).isEqualTo("UnstorableOutput");
  }

  /**
   * Fails on the code before: the runtime's client closed its connection on an event over 64 MiB, the broker delivered
   * it again, and again: never parked, the instance waiting at charge for ever.
   */
  @Test
  void anAnswerTooLargeToKeepEndsItsStepInErrorAndIsCompensated() throws Exception {
    applySaga("huge", "hg");
    TestWorker w = sagaWorker("hg", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()
        .put("receipt", "x".repeat(65 * 1024 * 1024))));
    UUID id = h.startOk("huge", "hg-1");
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(60));
    assertThat(effects(w, id)).containsExactly("reserve", "pay", "refund", "release");
    JsonNode charge = i.get("steps").get(1);
    assertThat(charge.get("error").get("code").asText()).isEqualTo("UnstorableOutput");
    assertThat(charge.get("error").get("reason").asText()).contains("over the limit of");
  }

  @Test
  void aBusinessRefusalIsNotCompensated() throws Exception {
    applySaga("refused", "rf");
    TestWorker w = sagaWorker("rf", c -> Reply.failed("CARD_DECLINED", "insufficient funds"));
    UUID id = h.startOk("refused", "rf-1");
    h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    assertThat(effects(w, id)).containsExactly("reserve", "pay", "release");
  }

  /**
   * Fails on the code before: the cancel undid pay (refund) while the worker still held pay's command, whose success
   * then landed after its compensation and was never undone.
   */
  @Test
  void cancelWithCompensateAwaitsTheStepInFlightThenUndoesEverythingNewestFirst() throws Exception {
    applySaga("cancelled", "cc");
    TestWorker w = sagaWorker("cc", c -> Reply.HOLD);
    UUID id = h.startOk("cancelled", "cc-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 1);

    RuntimeHarness.Response bad = h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": \"yes\"}");
    assertThat(bad.status()).isEqualTo(400);
    RuntimeHarness.Response r = h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": true}");
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    assertThat(r.json().get("status").asText()).isEqualTo("COMPENSATING");
    // pay is at the worker and may still take effect: nothing is undone until it answers (or its deadline passes).
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
        .until(() -> effects(w, id).equals(List.of("reserve")) && h.status(id).equals("COMPENSATING"));

    w.release(c -> Reply.success(output("paid")));
    JsonNode i = h.awaitStatus(id, "CANCELLED", Duration.ofSeconds(20));
    assertThat(effects(w, id)).containsExactly("reserve", "pay", "refund", "release");
    assertThat(history(i)).containsExactly("reserve:SUCCEEDED", "charge:SUCCEEDED", "charge/compensate:SUCCEEDED",
        "reserve/compensate:SUCCEEDED");
  }

  /**
   * Fails on the code before: a second cancel with compensation (a user's second click, or a parent cancelling its
   * child again) withdrew the refund waiting in the outbox, and the instance waited for it forever.
   */
  @Test
  void aSecondCancelWithCompensateWhileTheInstanceUndoesItsStepsTakesNoCommandBack() throws Exception {
    applySaga("twice", "tw");
    TestWorker w = sagaWorker("tw", c -> Reply.HOLD);
    UUID id = h.startOk("twice", "tw-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 1);
    // The payment service is paused: the refund the cancel leads to waits in the outbox, as long as the test needs.
    h.applyService("tw-payment", true);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.count(
        "SELECT count(*) FROM dispatch_pause WHERE name = 'tw-payment'") == 1);

    assertThat(h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": true}").status()).isEqualTo(200);
    w.release(c -> Reply.success(output("paid")));
    await().atMost(Duration.ofSeconds(10)).until(() -> commandsOf(id) == 1); // the refund, held by the pause

    RuntimeHarness.Response again = h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": true}");
    assertThat(again.status()).as(again.text()).isEqualTo(200);
    assertThat(again.json().get("status").asText()).isEqualTo("COMPENSATING");
    assertThat(commandsOf(id)).as("the refund is still to be sent").isEqualTo(1);

    h.applyService("tw-payment", false);
    JsonNode i = h.awaitStatus(id, "CANCELLED", Duration.ofSeconds(20));
    assertThat(effects(w, id)).containsExactly("reserve", "pay", "refund", "release");
    assertThat(history(i)).containsExactly("reserve:SUCCEEDED", "charge:SUCCEEDED", "charge/compensate:SUCCEEDED",
        "reserve/compensate:SUCCEEDED");
  }

  /** Fails on the code before: pay was cancelled in flight although its command never left the outbox. */
  @Test
  void cancelWithCompensateStopsAtOnceAStepWhoseCommandWasNeverSent() throws Exception {
    WorkflowSpec spec = spec("order", step("reserve", "un-inventory", "reserve", "release"),
        step("charge", "un-payment", "pay", "refund"));
    applyWithoutTopology("unsent", spec);
    h.declareTopology("unsent", spec("order", step("reserve", "un-inventory", "reserve", "release")));
    TestWorker w = h.worker()
        .serve("q.un-inventory.reserve", "un-inventory", "reserve", c -> Reply.success(output("reserved")))
        .serve("q.un-inventory.release", "un-inventory", "release", c -> Reply.success(output("released")));
    UUID id = h.startOk("unsent", "un-1");
    // reserve succeeds; pay's service does not exist yet, so its command waits in the outbox, unpublished.
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(h.scalar(
        "SELECT last_error FROM outbox WHERE correlation_id = '" + id + "'")).contains("does not exist"));

    RuntimeHarness.Response r = h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": true}");
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    JsonNode i = h.awaitStatus(id, "CANCELLED", Duration.ofSeconds(20));
    assertThat(commandsOf(id)).isZero();
    assertThat(effects(w, id)).containsExactly("reserve", "release");
    // pay never ran: nothing to undo there (its refund could not even be sent), reserve is undone.
    assertThat(history(i)).containsExactly("reserve:SUCCEEDED", "charge:CANCELLED", "reserve/compensate:SUCCEEDED");
  }

  static StepSpec withTimeout(StepSpec s, String timeout) {
    s.setTimeout(timeout);
    return s;
  }
}
