package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole instance's deadline ({@code spec.timeout}) on the real broker and database, and waiting for an
 * instance's end ({@code GET /api/v1/instances/{id}?wait=}).
 */
class InstanceDeadlineIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("deadline");
    h.startRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static List<String> history(JsonNode instance) {
    List<String> steps = new ArrayList<>();
    instance.get("steps").forEach(s -> steps.add(s.get("name").asText() + ":" + s.get("status").asText()));
    return steps;
  }

  @Test
  void anInstancePastItsTimeoutFailsWithTimeoutAndItsCompletedStepIsUndone() {
    h.apply("deadline-saga", yaml("""
        {entity: order, timeout: 2s, steps: [
          {name: reserve, service: dl-stock, command: reserve, compensate: release},
          {name: charge, service: dl-pay, command: charge, timeout: 1m}]}
        """));
    TestWorker w = h.worker()
        .serve("q.dl-stock.reserve", "dl-stock", "reserve", c -> Reply.success(null))
        .serve("q.dl-stock.release", "dl-stock", "release", c -> Reply.success(null))
        .serve("q.dl-pay.charge", "dl-pay", "charge", c -> Reply.SILENT);

    UUID id = h.startOk("deadline-saga", "late-1");
    JsonNode started = h.instance(id);
    Instant deadline = Instant.parse(started.get("instanceDeadline").asText());
    assertThat(Duration.between(Instant.parse(started.get("createdAt").asText()), deadline))
        .isBetween(Duration.ofMillis(1999), Duration.ofMillis(2001));

    JsonNode ended = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(15));

    assertThat(history(ended)).containsExactly("reserve:SUCCEEDED", "charge:TIMED_OUT",
        "reserve/compensate:SUCCEEDED");
    assertThat(ended.at("/lastError/errorCode").asText()).isEqualTo("InstanceTimeout");
    assertThat(ended.at("/lastError/reason").asText()).startsWith("Timeout: the instance ran past its deadline");
    assertThat(ended.at("/lastError/step").asText()).isEqualTo("charge");
    // the step's own timeout (1m) goes past the instance's: its command carries the instance's deadline
    TestWorker.Command charge = w.received().stream().filter(c -> c.step().equals("charge")).findFirst()
        .orElseThrow();
    assertThat(Long.parseLong(charge.header("baton-deadline"))).isEqualTo(deadline.toEpochMilli());
    Instant timedOut = Instant.parse(ended.at("/steps/1/finishedAt").asText());
    assertThat(timedOut).isBetween(deadline, deadline.plusSeconds(3));
  }

  @Test
  void aRetryOfAnInstanceThatTimedOutCountsItsTimeoutAgainFromTheRetry() {
    h.apply("deadline-stop", yaml("""
        {entity: order, onFailure: Stop, timeout: 1s, steps: [
          {name: hang, service: dl-hang, command: hang}]}
        """));
    h.worker().serve("q.dl-hang.hang", "dl-hang", "hang", c -> Reply.SILENT);
    UUID id = h.startOk("deadline-stop", "late-2");
    JsonNode failed = h.awaitStatus(id, "FAILED", Duration.ofSeconds(10));
    assertThat(failed.at("/lastError/errorCode").asText()).isEqualTo("InstanceTimeout");
    Instant first = Instant.parse(failed.get("instanceDeadline").asText());

    RuntimeHarness.Response retried = h.post("/api/v1/instances/" + id + "/retry", null);

    assertThat(retried.status()).as(retried.text()).isEqualTo(200);
    assertThat(retried.json().get("status").asText()).isEqualTo("RUNNING");
    Instant renewed = Instant.parse(retried.json().get("instanceDeadline").asText());
    assertThat(renewed).isAfter(first.plusMillis(500));
    JsonNode again = h.awaitStatus(id, "FAILED", Duration.ofSeconds(10));
    assertThat(history(again)).containsExactly("hang:TIMED_OUT", "hang:TIMED_OUT");
    assertThat(Instant.parse(again.at("/steps/1/finishedAt").asText())).isAfterOrEqualTo(renewed);
  }

  /** A new instance of a Workflow that waits for the signal go. */
  static UUID waitingForASignal(String key) {
    h.apply("waits-for-go", yaml("{entity: order, steps: [{name: go, wait: {signal: go}}]}"));
    return h.startOk("waits-for-go", key);
  }

  @Test
  void aWaitAnswersAsSoonAsTheInstanceEnds() throws Exception {
    UUID id = waitingForASignal("wait-1");
    CompletableFuture<RuntimeHarness.Response> waiting = CompletableFuture.supplyAsync(
        () -> h.get("/api/v1/instances/" + id + "?wait=30s"));
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());

    Instant signalled = Instant.now();
    assertThat(h.post("/api/v1/instances/" + id + "/signals/go", "{}").status()).isEqualTo(202);
    RuntimeHarness.Response r = waiting.get(10, TimeUnit.SECONDS);

    assertThat(Duration.between(signalled, Instant.now())).isLessThan(Duration.ofSeconds(3));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(r.json().get("steps")).hasSize(1);
  }

  @Test
  void aWaitOnARunningInstanceAnswersAfterTheWaitWithItsCurrentState() {
    UUID id = waitingForASignal("wait-2");
    Instant asked = Instant.now();

    RuntimeHarness.Response r = h.get("/api/v1/instances/" + id + "?wait=1500ms");

    assertThat(Duration.between(asked, Instant.now())).isBetween(Duration.ofMillis(1400), Duration.ofSeconds(5));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().get("status").asText()).isEqualTo("RUNNING");
    assertThat(r.json().get("currentStep").asText()).isEqualTo("go");
  }

  @Test
  void aWaitOnAnEndedInstanceAnswersAtOnce() {
    UUID id = waitingForASignal("wait-3");
    assertThat(h.post("/api/v1/instances/" + id + "/cancel", "{}").status()).isEqualTo(200);
    Instant asked = Instant.now();

    RuntimeHarness.Response r = h.get("/api/v1/instances/" + id + "?wait=60s");

    assertThat(Duration.between(asked, Instant.now())).isLessThan(Duration.ofSeconds(2));
    assertThat(r.json().get("status").asText()).isEqualTo("CANCELLED");
  }

  /** An instance another replica ends is not told in this process: the waiters' re-read finds it. */
  @Test
  void aWaitSeesAnEndWrittenByAnotherReplica() throws Exception {
    UUID id = waitingForASignal("wait-4");
    CompletableFuture<RuntimeHarness.Response> waiting = CompletableFuture.supplyAsync(
        () -> h.get("/api/v1/instances/" + id + "?wait=30s"));

    Instant ended = Instant.now();
    try (java.sql.Connection c = h.database.connect(); java.sql.Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE workflow_instance SET status = 'CANCELLED', finished_at = now() WHERE id = '" + id
          + "'");
    }
    RuntimeHarness.Response r = waiting.get(10, TimeUnit.SECONDS);

    assertThat(Duration.between(ended, Instant.now())).isLessThan(Duration.ofSeconds(3));
    assertThat(r.json().get("status").asText()).isEqualTo("CANCELLED");
  }

  @Test
  void aWaitThatIsNoDurationOrLongerThanAMinuteIsABadRequest() {
    UUID id = waitingForASignal("wait-5");
    for (String bad : List.of("forever", "61s", "2m", "0s", "")) {
      RuntimeHarness.Response r = h.get("/api/v1/instances/" + id + "?wait=" + bad);
      assertThat(r.status()).as(bad).isEqualTo(400);
      assertThat(r.json().get("message").asText()).as(bad).contains("wait must be a duration");
    }
    assertThat(h.get("/api/v1/instances/" + UUID.randomUUID() + "?wait=1s").status()).isEqualTo(404);
  }
}
