package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.runtime.it.TestWorker.Reply;
import dev.baton.sandbox.Sandbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A command's maxInFlight on the real broker and database, with two runtimes dispatching: a worker that holds every
 * command it gets never holds more than the limit, however many instances wait; each answer lets exactly that many
 * more go, oldest first; every instance ends, each command sent once. The gauges say how many are in flight and
 * waiting. Removing the limit lets the rest go at once.
 */
class LimitIT {

  static final int LIMIT = 3;
  static final int INSTANCES = 12;
  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("limit");
  }

  @AfterAll
  static void stop() {
    h.stopRuntime();
    h.close();
  }

  @Test
  void twoRuntimesNeverDispatchMoreThanTheLimitAndEveryAnswerLetsTheNextGoInOrder() throws Exception {
    h.apply("calls", yaml("{entity: call, steps: [{name: call, service: lm-provider, command: call, timeout: 5m}]}"));
    h.applyService("lm-provider", false, RuntimeHarness.command("call", LIMIT));
    TestWorker w = h.worker().serve("q.lm-provider.call", "lm-provider", "call", c -> Reply.HOLD);
    if (h.runtime == null) { // another test of the class may have started it: a second would be left running
      h.startRuntime();
    }
    Process other = h.launch("limit-runtime-2");
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> h.count("SELECT count(*) FROM command_limit"
          + " WHERE service = 'lm-provider'") == 1);
      // Both runtimes' relays know the limit before the first start (each looks once a second).
      await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> true);
      List<UUID> ids = new ArrayList<>();
      for (int i = 0; i < INSTANCES; i++) {
        ids.add(h.startOk("calls", String.format("call-%02d", i)));
      }
      int answered = 0;
      List<String> order = new ArrayList<>();
      while (answered < INSTANCES) {
        int expected = Math.min(LIMIT, INSTANCES - answered);
        final int done = answered;
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(w.received().size() - done)
            .as("sent after %d answers (ledger %s) (slots: %s)", done, w.ledger(), h.scalar("SELECT count(*) || ' of which running '"
                + " || count(s.id) FROM command_slot f LEFT JOIN instance_step s ON s.command_message_id ="
                + " f.message_id AND s.status = 'RUNNING' WHERE f.exchange = 'lm-provider.command.topic.ex'"))
            .isEqualTo(expected));
        // However long we wait, no more than the limit are out.
        await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2))
            .untilAsserted(() -> assertThat(w.received().size() - done)
                .as(() -> "no more than the limit out after " + done + " answers: " + diagnosis(w))
                .isEqualTo(expected));
        if (answered == 0) {
          assertThat(h.count("SELECT count(*) FROM command_slot WHERE exchange = 'lm-provider.command.topic.ex'"))
              .isEqualTo(LIMIT);
        }
        w.received().subList(done, done + expected).forEach(c -> order.add(c.instance()));
        w.release(c -> Reply.success(null));
        answered += expected;
      }
      for (UUID id : ids) {
        h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30));
      }
      assertThat(w.ledger()).hasSize(INSTANCES).allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
      // Oldest first: each round's commands come from the oldest that waited (two relays may swap within a round).
      for (int round = 0; round * LIMIT < INSTANCES; round++) {
        List<String> sent = order.subList(round * LIMIT, Math.min(INSTANCES, (round + 1) * LIMIT));
        List<String> oldest = ids.subList(round * LIMIT, Math.min(INSTANCES, (round + 1) * LIMIT)).stream()
            .map(UUID::toString).toList();
        assertThat(sent).as("round %d", round).containsExactlyInAnyOrderElementsOf(oldest);
      }
      // Every slot is given back once its step is over (at the next claim of the command, or already).
      assertThat(h.count("SELECT count(*) FROM command_slot f JOIN instance_step s ON s.command_message_id ="
          + " f.message_id WHERE s.status = 'RUNNING' AND f.exchange = 'lm-provider.command.topic.ex'")).isZero();
    } finally {
      h.usePort(h.runtime.httpPort()); // launch() pointed the harness at the other runtime
      other.destroy();
      if (!other.waitFor(30, TimeUnit.SECONDS)) {
        other.destroyForcibly();
      }
    }
  }

  /** What was received, and the slots and steps as recorded: for a failure's message. */
  private static String diagnosis(TestWorker w) {
    try {
      return w.received().stream().map(c -> c.instance() + "/" + c.messageId()).toList()
          + " slots " + h.scalar("SELECT string_agg(instance_id || '/' || message_id, ', ') FROM command_slot")
          + " steps " + h.scalar("SELECT string_agg(instance_id || '/' || coalesce(command_message_id::text, '-')"
          + " || '/' || status, ', ') FROM instance_step")
          + " outbox " + h.scalar("SELECT string_agg(coalesce(instance_id::text, '-') || '/' || message_id || '/'"
          + " || in_doubt || '/' || attempts, ', ') FROM outbox");
    } catch (java.sql.SQLException e) {
      return e.toString();
    }
  }

  @Test
  void waitingForCapacityIsNotTheStepsTime() throws Exception {
    h.apply("slow-calls", yaml("{entity: slow, steps: [{name: call, service: lm-slow, command: call, timeout: 8s}]}"));
    h.applyService("lm-slow", false, RuntimeHarness.command("call", 1));
    java.util.Map<String, Long> receivedAt = new java.util.concurrent.ConcurrentHashMap<>();
    TestWorker w = h.worker().serve("q.lm-slow.call", "lm-slow", "call", c -> {
      receivedAt.put(c.instance(), System.currentTimeMillis());
      return Reply.HOLD;
    });
    if (h.runtime == null) {
      h.startRuntime();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> h.count("SELECT count(*) FROM command_limit"
        + " WHERE service = 'lm-slow'") == 1);
    await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> true);
    UUID first = h.startOk("slow-calls", "slow-1");
    UUID second = h.startOk("slow-calls", "slow-2");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.received().size() == 1);
    // The second waits 5 s for the first's slot: without parking it would leave with 3 s of its 8 s; parked
    // after its first second or two of waiting, it keeps about 6 s.
    await().pollDelay(Duration.ofMillis(5000)).atMost(Duration.ofSeconds(7)).until(() -> true);
    assertThat(h.status(second)).isEqualTo("RUNNING");
    w.release(c -> Reply.success(null));
    h.awaitStatus(first, "SUCCEEDED", Duration.ofSeconds(10));
    await().atMost(Duration.ofSeconds(10)).until(() -> w.received().size() == 2);
    TestWorker.Command sent = w.received().get(1);
    long left = Long.parseLong(sent.header("baton-deadline")) - receivedAt.get(second.toString());
    assertThat(left).as("ms left when it was sent").isGreaterThan(4500);
    w.release(c -> Reply.success(null));
    h.awaitStatus(second, "SUCCEEDED", Duration.ofSeconds(10));
  }

  @Test
  void theGaugesSayHowManyAreInFlightAndWaitingAndRemovingTheLimitLetsTheRestGo() throws Exception {
    h.apply("bursts", yaml("{entity: burst, steps: [{name: call, service: lm-burst, command: go}]}"));
    h.applyService("lm-burst", false, RuntimeHarness.command("go", 1));
    TestWorker w = h.worker().serve("q.lm-burst.go", "lm-burst", "go", c -> Reply.HOLD);
    if (h.runtime == null) {
      h.startRuntime();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> h.count("SELECT count(*) FROM command_limit"
        + " WHERE service = 'lm-burst'") == 1);
    await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> true);
    for (int i = 0; i < 4; i++) {
      h.startOk("bursts", "burst-" + i);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> w.received().size() == 1);
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(h.get("/metrics").text())
        .contains("baton_commands_in_flight{command=\"go\",service=\"lm-burst\",workflow_namespace=\""
            + Sandbox.NAMESPACE + "\"} 1.0")
        .contains("baton_commands_waiting_capacity{command=\"go\",service=\"lm-burst\",workflow_namespace=\""
            + Sandbox.NAMESPACE + "\"} 3.0"));

    h.applyService("lm-burst", false, RuntimeHarness.command("go", null));
    await().atMost(Duration.ofSeconds(10)).until(() -> w.received().size() == 4);
    w.release(c -> Reply.success(null));
  }
}
