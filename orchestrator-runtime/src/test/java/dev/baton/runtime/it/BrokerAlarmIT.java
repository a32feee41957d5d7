package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A broker alarm never holds the runtime up (docs/design.md#runtime-semantics): with a memory alarm on the broker
 * (every publishing connection blocked), a cancel and a timeout complete within seconds, {@code /healthz} and
 * {@code baton_broker_blocked} show the alarm, and once it clears every command is published once. Fails on the code
 * before: the relay held the rows of the commands it had published into the blocked connection while it waited for
 * their confirms, and the cancel and the timer waited for those rows.
 */
class BrokerAlarmIT {

  static RuntimeHarness h;
  static TestWorker worker;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("alarm");
    h.startRuntime();
    // Everything the broker must declare is declared before the alarm: a blocked connection's RPCs wait too.
    h.apply("steady", yaml("{entity: order, steps: [{name: work, service: al-steady, command: work, timeout: 1m}]}"));
    h.apply("quick", yaml("{entity: order, steps: [{name: work, service: al-quick, command: work, timeout: 2s}]}"));
    worker = h.worker()
        .serve("q.al-steady.work", "al-steady", "work", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()))
        .serve("q.al-quick.work", "al-quick", "work", c -> Reply.success(RuntimeHarness.JSON.createObjectNode()));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void a_memory_alarm_holds_up_neither_a_cancel_nor_a_timeout_and_after_it_every_command_goes_out_once()
      throws Exception {
    // The relay has published (its channel is open) before the alarm, as a runtime in service has.
    h.awaitStatus(h.startOk("steady", "before-the-alarm"), "SUCCEEDED", Duration.ofSeconds(20));
    UUID cancelled;
    UUID timedOut;
    UUID afterwards;
    try (LocalBroker.Change alarm = LocalBroker.memoryAlarm()) {
      assertThat(LocalBroker.memoryAlarmed()).as("the broker raised its memory alarm").isTrue();
      // Its command goes out into the connection, which the broker blocks from then on.
      cancelled = h.startOk("steady", "cancelled-during-the-alarm");
      await("the broker blocks the runtime's publishing connection").atMost(Duration.ofSeconds(10))
          .until(() -> LocalBroker.blocksAConnectionOf(h.vhost.name()));
      timedOut = h.startOk("quick", "timed-out-during-the-alarm");
      afterwards = h.startOk("steady", "sent-after-the-alarm");

      long before = System.nanoTime();
      RuntimeHarness.Response cancel = h.post("/api/v1/instances/" + cancelled + "/cancel", "{}");
      Duration took = Duration.ofNanos(System.nanoTime() - before);
      assertThat(cancel.status()).as(cancel.text()).isEqualTo(200);
      assertThat(cancel.json().get("status").asText()).isEqualTo("CANCELLED");
      assertThat(took).as("the cancel waited for no row the relay holds").isLessThan(Duration.ofSeconds(3));

      JsonNode failed = h.awaitStatus(timedOut, "FAILED", Duration.ofSeconds(6)); // its timeout is 2 s
      assertThat(failed.get("lastError").get("errorCode").asText()).isEqualTo("Timeout");

      JsonNode health = health();
      assertThat(health.path("status").asText()).as("in service: starts, cancels and timers go on").isEqualTo("UP");
      assertThat(health.path("broker").asText()).isEqualTo("BLOCKED");
      assertThat(h.runtime.metrics().registry().find("baton.broker.blocked").gauge().value()).isEqualTo(1.0);
      assertThat(h.status(afterwards)).as("its command waits for the alarm to clear").isEqualTo("RUNNING");
    }

    h.awaitStatus(afterwards, "SUCCEEDED", Duration.ofSeconds(30));
    await().atMost(Duration.ofSeconds(10)).until(() -> "UP".equals(health().path("broker").asText()));
    assertThat(h.runtime.metrics().registry().find("baton.broker.blocked").gauge().value()).isZero();
    await("every command in the outbox settled").atMost(Duration.ofSeconds(30))
        .until(() -> h.count("SELECT count(*) FROM outbox") == 0);
    int arrived = worker.received().size();
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
        .until(() -> worker.received().size() == arrived);

    List<String> commands = worker.received().stream().map(TestWorker.Command::messageId).toList();
    assertThat(commands).as("each command published once").doesNotHaveDuplicates();
    assertThat(commandsOf(afterwards)).hasSize(1);
    assertThat(commandsOf(cancelled)).as("published before the cancel: it reaches the worker, its answer is late")
        .hasSize(1);
    assertThat(commandsOf(timedOut)).as("withdrawn unsent when it timed out").isEmpty();
  }

  private static List<TestWorker.Command> commandsOf(UUID instance) {
    return worker.received().stream().filter(c -> instance.toString().equals(c.body().path("instanceId").asText()))
        .toList();
  }

  private static JsonNode health() {
    return h.get("/healthz").json();
  }
}
