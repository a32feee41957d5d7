package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What runs on timers, all driven by the database: step timeouts (on time, and across a restart of the runtime) and
 * the retention purge.
 */
class TimeoutAndRetentionIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("timeouts");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static WorkflowSpec silentStep(String service, String timeout) {
    StepSpec s = step("wait", service, "wait", null);
    s.setTimeout(timeout);
    WorkflowSpec spec = spec("order", step("first", service, "first", null), s);
    spec.setOnFailure(OnFailure.Stop);
    return spec;
  }

  @Test
  void aStepWithoutAnswerFailsWithReasonTimeout() throws Exception {
    h.startRuntime();
    try {
      h.apply("silent", silentStep("to-silent", "1s"));
      h.worker()
          .serve("q.to-silent.first", "to-silent", "first", c -> Reply.success(null))
          .serve("q.to-silent.wait", "to-silent", "wait", c -> Reply.SILENT);
      UUID id = h.startOk("silent", "t-1");
      JsonNode i = h.awaitStatus(id, "FAILED", Duration.ofSeconds(10));
      JsonNode wait = i.get("steps").get(1);
      assertThat(wait.get("status").asText()).isEqualTo("TIMED_OUT");
      assertThat(wait.get("error").get("reason").asText()).isEqualTo("Timeout");
      assertThat(i.get("lastError").get("reason").asText()).isEqualTo("Timeout");
      Duration waited = Duration.between(Instant.parse(wait.get("startedAt").asText()),
          Instant.parse(wait.get("finishedAt").asText()));
      assertThat(waited).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(4));
    } finally {
      h.stopRuntime();
    }
  }

  @Test
  void aDeadlineSurvivesARestart() throws Exception {
    h.startRuntime();
    UUID id;
    Instant deadline;
    try {
      h.apply("restarted", silentStep("to-restart", "2s"));
      h.worker()
          .serve("q.to-restart.first", "to-restart", "first", c -> Reply.success(null))
          .serve("q.to-restart.wait", "to-restart", "wait", c -> Reply.SILENT);
      id = h.startOk("restarted", "r-1");
      await().atMost(Duration.ofSeconds(10)).until(() -> h.scalar(
          "SELECT deadline FROM instance_step WHERE instance_id = '" + id + "' AND name = 'wait'") != null);
      deadline = Instant.parse(h.scalar("SELECT to_char(deadline AT TIME ZONE 'UTC',"
          + " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM instance_step WHERE instance_id = '" + id + "'"
          + " AND name = 'wait'"));
    } finally {
      h.stopRuntime(); // before the deadline
    }
    assertThat(Instant.now()).isBefore(deadline);
    assertThat(h.status(id)).isEqualTo("RUNNING");
    await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(deadline.plusMillis(200)));
    assertThat(h.status(id)).isEqualTo("RUNNING"); // nobody ran the timer meanwhile

    h.startRuntime();
    try {
      JsonNode i = h.awaitStatus(id, "FAILED", Duration.ofSeconds(10));
      assertThat(i.get("lastError").get("reason").asText()).isEqualTo("Timeout");
    } finally {
      h.stopRuntime();
    }
  }

  /**
   * Fails on the code before: the sweep handled its batch in one transaction, and the instance whose definition no
   * longer loaded failed every sweep, so the healthy instance never timed out.
   */
  @Test
  void anInstanceWhoseDefinitionNoLongerLoadsFailsAndOthersStillTimeOut() throws Exception {
    h.startRuntime();
    UUID broken;
    UUID healthy;
    try {
      h.apply("broken", silentStep("to-broken", "1s"));
      h.apply("healthy", silentStep("to-healthy", "1s"));
      h.worker()
          .serve("q.to-broken.first", "to-broken", "first", c -> Reply.success(null))
          .serve("q.to-broken.wait", "to-broken", "wait", c -> Reply.SILENT)
          .serve("q.to-healthy.first", "to-healthy", "first", c -> Reply.success(null))
          .serve("q.to-healthy.wait", "to-healthy", "wait", c -> Reply.SILENT);
      broken = h.startOk("broken", "b-1");
      healthy = h.startOk("healthy", "h-1");
      for (UUID id : List.of(broken, healthy)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> "wait".equals(h.scalar(
            "SELECT current_step_name FROM workflow_instance WHERE id = '" + id + "'")));
      }
    } finally {
      h.stopRuntime(); // the next runtime has not read either definition yet
    }
    try (java.sql.Connection c = h.database.connect(); java.sql.Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE workflow_definition SET spec = '{\"entity\": \"order\", \"steps\": []}'"
          + " WHERE name = 'broken'");
    }
    h.startRuntime();
    try {
      JsonNode b = h.awaitStatus(broken, "FAILED", Duration.ofSeconds(15));
      assertThat(b.get("lastError").get("errorCode").asText()).isEqualTo("DefinitionUnavailable");
      assertThat(b.get("lastError").get("reason").asText()).contains("default/broken revision 1")
          .contains("steps is empty");
      JsonNode ok = h.awaitStatus(healthy, "FAILED", Duration.ofSeconds(15));
      assertThat(ok.get("lastError").get("reason").asText()).isEqualTo("Timeout");
    } finally {
      h.stopRuntime();
    }
  }

  @Test
  void redispatchSendsTheCommandAgainWithTheNextAttempt() throws Exception {
    h.startRuntime();
    try {
      StepSpec s = step("flaky", "to-flaky", "flaky", null);
      s.setTimeout("1s");
      s.setOnTimeout(OnTimeout.Redispatch);
      s.setMaxDispatches(3);
      h.apply("redispatched", spec("order", s));
      TestWorker w = h.worker().serve("q.to-flaky.flaky", "to-flaky", "flaky",
          c -> c.attempt() < 3 ? Reply.SILENT : Reply.success(null));
      UUID id = h.startOk("redispatched", "rd-1");
      JsonNode i = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(15));
      List<String> attempts = new ArrayList<>();
      i.get("steps").forEach(e -> attempts.add(e.get("attempt").asInt() + ":" + e.get("status").asText()));
      assertThat(attempts).containsExactly("1:TIMED_OUT", "2:TIMED_OUT", "3:SUCCEEDED");
      List<String> messageIds = w.received().stream().map(TestWorker.Command::messageId).distinct().toList();
      assertThat(messageIds).hasSize(3); // a new message id per dispatch
    } finally {
      h.stopRuntime();
    }
  }

  @Test
  void finishedInstancesArePurgedAfterTheRetentionAndActiveOnesAreKept() throws Exception {
    h.startRuntime(h.settings().toBuilder().retention(Duration.ofMillis(1)).retentionInterval(Duration.ofMillis(200))
        .build());
    try {
      h.apply("purged", spec("order", step("quick", "to-purge", "quick", null), step("slow", "to-purge", "slow", null)));
      h.worker()
          .serve("q.to-purge.quick", "to-purge", "quick", c -> Reply.success(null))
          .serve("q.to-purge.slow", "to-purge", "slow",
              c -> c.body().get("businessKey").asText().equals("keep") ? Reply.SILENT : Reply.success(null));
      UUID kept = h.startOk("purged", "keep");
      UUID purged = h.startOk("purged", "purge");
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(h.count(
          "SELECT count(*) FROM workflow_instance WHERE id = '" + purged + "'")).isZero());
      assertThat(h.count("SELECT count(*) FROM instance_step WHERE instance_id = '" + purged + "'")).isZero();
      assertThat(h.count("SELECT count(*) FROM instance_step WHERE instance_id = '" + kept + "'")).isEqualTo(2);
      assertThat(h.status(kept)).isEqualTo("RUNNING");
      assertThat(h.get("/api/v1/instances/" + purged).status()).isEqualTo(404);
    } finally {
      h.stopRuntime();
    }
  }
}
