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
 * withdrawn before a worker gets them; steps whose outcome is unknown (error, timed out, cancelled in flight) are
 * compensated, a business refusal is not; a cancel may compensate first.
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

  static long commandsOf(UUID id) throws Exception {
    return h.count("SELECT count(*) FROM outbox WHERE correlation_id = '" + id + "'");
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

  @Test
  void aBusinessRefusalIsNotCompensated() throws Exception {
    applySaga("refused", "rf");
    TestWorker w = sagaWorker("rf", c -> Reply.failed("CARD_DECLINED", "insufficient funds"));
    UUID id = h.startOk("refused", "rf-1");
    h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    assertThat(effects(w, id)).containsExactly("reserve", "pay", "release");
  }

  @Test
  void cancelWithCompensateUndoesTheCompletedAndInFlightStepsAndEndsCancelled() throws Exception {
    applySaga("cancelled", "cc");
    TestWorker w = sagaWorker("cc", c -> Reply.HOLD);
    UUID id = h.startOk("cancelled", "cc-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 1);

    RuntimeHarness.Response bad = h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": \"yes\"}");
    assertThat(bad.status()).isEqualTo(400);
    RuntimeHarness.Response r = h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": true}");
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    JsonNode i = h.awaitStatus(id, "CANCELLED", Duration.ofSeconds(20));
    // pay was in flight: its outcome is unknown, so it is undone first (refund), then reserve (release).
    assertThat(effects(w, id)).containsExactly("reserve", "refund", "release");
    assertThat(history(i)).containsExactly("reserve:SUCCEEDED", "charge:CANCELLED", "charge/compensate:SUCCEEDED",
        "reserve/compensate:SUCCEEDED");

    // The held command's answer arrives after the cancel: recorded on the step, nothing else changes.
    w.release(c -> Reply.success(output("paid")));
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(h.instance(id).get("steps").get(1).path("late").path("result").asText()).isEqualTo("success"));
    assertThat(h.status(id)).isEqualTo("CANCELLED");
  }

  static StepSpec withTimeout(StepSpec s, String timeout) {
    s.setTimeout(timeout);
    return s;
  }
}
