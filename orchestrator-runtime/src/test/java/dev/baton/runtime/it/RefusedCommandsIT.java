package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Refused commands fail fast (docs/design.md#runtime-semantics): with the broker's {@code max_message_size} lowered to
 * 256 KiB for this class, a command over it fails its step at once with the broker's reason (both sizes), not by its
 * timeout; a compensation over it ends the instance FAILED with that reason; and once the runtime has learned the
 * limit from such a refusal, a start whose first command would not fit is refused with 413 naming the limit. Fails on
 * the code before: the refused command was set aside and retried until the step timed out ("Timeout"), its
 * compensation too, and the oversized start was accepted.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RefusedCommandsIT {

  static final long BROKER_MAX = 256 * 1024;
  static RuntimeHarness h;
  static LocalBroker.Change smallMessages;
  /**
   * 150 KiB: an input and an output of this size each fit in a message (the workers' results go through the same
   * broker), both together in one command do not.
   */
  static final String HALF = "x".repeat(150 * 1024);
  static final String INPUT = "{\"order\": \"o-1\", \"note\": \"" + HALF + "\"}";

  @BeforeAll
  static void start() {
    // Before the runtime connects: the broker reads the limit when a channel opens.
    smallMessages = LocalBroker.maxMessageSize(BROKER_MAX);
    h = RuntimeHarness.create("refused");
    h.startRuntime();
    // reserve's command and its compensation carry only the order (an input mapping); describe's carries the input,
    // charge's the input and describe's output: too large.
    h.apply("saga", yaml("""
        {entity: order, steps: [
          {name: reserve, service: rf-inv, command: reserve, compensate: release, timeout: 1m,
           input: {order: "input.order"}},
          {name: describe, service: rf-cat, command: describe, timeout: 1m},
          {name: charge, service: rf-pay, command: charge, compensate: refund, timeout: 1m}]}
        """));
    // hold's compensation carries the instance input and describe's output: too large; check fails, so hold is undone.
    h.apply("undo", yaml("""
        {entity: order, steps: [
          {name: hold, service: rf-inv, command: hold, compensate: unhold, timeout: 1m},
          {name: describe, service: rf-cat, command: describe, timeout: 1m},
          {name: check, service: rf-pay, command: check, timeout: 1m, input: {order: "input.order"}}]}
        """));
    h.worker()
        .serve("q.rf-inv.reserve", "rf-inv", "reserve", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()))
        .serve("q.rf-inv.release", "rf-inv", "release", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()))
        .serve("q.rf-inv.hold", "rf-inv", "hold", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()))
        .serve("q.rf-inv.unhold", "rf-inv", "unhold", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()))
        .serve("q.rf-cat.describe", "rf-cat", "describe", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()
            .put("description", HALF)))
        .serve("q.rf-pay.charge", "rf-pay", "charge", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()))
        .serve("q.rf-pay.refund", "rf-pay", "refund", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()))
        .serve("q.rf-pay.check", "rf-pay", "check", c -> Reply.failed("OutOfStock", "none left"));
  }

  @AfterAll
  static void stop() {
    try {
      h.close();
    } finally {
      smallMessages.close();
    }
  }

  @Test
  @Order(1)
  void a_step_whose_command_the_broker_refuses_fails_at_once_with_both_sizes_and_the_earlier_steps_are_undone()
      throws Exception {
    UUID id = start("saga", "refused-step", INPUT);

    // The steps have a minute each: anything under that is the refusal, not a timeout.
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));

    JsonNode charge = step(i, "charge");
    assertThat(charge.get("status").asText()).isEqualTo("FAILED");
    assertThat(charge.get("error").get("code").asText()).isEqualTo("PayloadTooLarge");
    assertThat(charge.get("error").get("reason").asText()).containsPattern("message size \\d+ is larger than")
        .contains("max size " + BROKER_MAX);
    JsonNode lastError = i.get("lastError");
    assertThat(lastError.get("step").asText()).isEqualTo("charge");
    assertThat(lastError.get("errorCode").asText()).isEqualTo("PayloadTooLarge");
    assertThat(lastError.get("reason").asText()).contains("max size " + BROKER_MAX);
    assertThat(step(i, "reserve/compensate").get("status").asText()).as("reserve undone").isEqualTo("SUCCEEDED");
    assertThat(i.get("steps").findValuesAsText("name")).as("charge never ran: nothing to refund")
        .doesNotContain("charge/compensate");
    assertThat(h.count("SELECT count(*) FROM outbox WHERE instance_id = '" + id + "'")).isZero();
  }

  @Test
  @Order(2)
  void a_compensation_the_broker_refuses_ends_the_instance_failed_with_its_reason() throws Exception {
    restartForgettingTheLimit();
    UUID id = start("undo", "refused-compensation", INPUT);

    JsonNode i = h.awaitStatus(id, "FAILED", Duration.ofSeconds(20));

    JsonNode lastError = i.get("lastError");
    assertThat(lastError.get("step").asText()).isEqualTo("hold/compensate");
    assertThat(lastError.get("errorCode").asText()).isEqualTo("PayloadTooLarge");
    assertThat(lastError.get("reason").asText()).containsPattern("message size \\d+ is larger than")
        .contains("max size " + BROKER_MAX);
    assertThat(step(i, "hold/compensate").get("status").asText()).isEqualTo("FAILED");
  }

  @Test
  @Order(3)
  void once_the_limit_is_learned_a_start_whose_first_command_would_not_fit_is_refused_with_413_naming_it()
      throws Exception {
    long learned = BROKER_MAX - dev.baton.runtime.relay.BrokerMessageLimit.MARGIN;
    String input = "{\"order\": \"o-3\", \"note\": \"" + "y".repeat(400 * 1024) + "\"}";

    // hold, the first step of "undo", carries the instance input.
    RuntimeHarness.Response single = h.start("undo", "too-big-start", input);

    assertThat(single.status()).as(brief(single)).isEqualTo(413);
    assertThat(single.json().get("error").asText()).isEqualTo("PayloadTooLarge");
    assertThat(single.json().get("message").asText()).contains("over the limit of " + learned, "max_message_size");
    assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE business_key = 'too-big-start'")).isZero();

    RuntimeHarness.Response batch = h.post("/api/v1/namespaces/" + RuntimeHarness.NS
        + "/workflows/undo/instances/batch", "{\"instances\": [{\"businessKey\": \"batch-ok\", \"input\": {}},"
        + " {\"businessKey\": \"batch-too-big\", \"input\": " + input + "}]}");

    assertThat(batch.status()).as(brief(batch)).isEqualTo(413);
    assertThat(batch.json().get("message").asText()).contains("instances[1]", "batch-too-big",
        "over the limit of " + learned);
    assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE business_key LIKE 'batch-%'")).isZero();
  }

  /** The limit is learned in memory: a new runtime learns it again from the broker's next refusal. */
  private static void restartForgettingTheLimit() {
    h.stopRuntime();
    h.startRuntime();
  }

  private static UUID start(String workflow, String key, String input) {
    RuntimeHarness.Response r = h.start(workflow, key, input);
    assertThat(r.status()).as(brief(r)).isEqualTo(201);
    return UUID.fromString(r.json().get("id").asText());
  }

  private static JsonNode step(JsonNode instance, String name) {
    for (JsonNode s : instance.get("steps")) {
      if (s.get("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no step " + name + " in " + instance.get("steps").findValuesAsText("name"));
  }

  /** An answer short enough to read in a failure (the inputs here are hundreds of KiB). */
  private static String brief(RuntimeHarness.Response r) {
    return r.text().length() > 400 ? r.text().substring(0, 400) + "…" : r.text();
  }
}
