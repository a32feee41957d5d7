package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pause and resume on the real broker and database: a paused Workflow's commands wait in the outbox and its steps'
 * timers (a task's timeout, a delay) stop, while other Workflows on the same service go on; a paused WorkerService
 * gets no command while other services do; resuming sends each waiting command once, with the time its step had
 * left, and the instances end as if nothing had happened.
 */
class PauseIT {

  static final String STEPS = "steps: [{name: work, service: pz-work, command: run, timeout: 2s}]";
  static RuntimeHarness h;
  static TestWorker worker;
  static final Map<String, Instant> received = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("pause");
    h.apply("held", yaml("{entity: job, " + STEPS + "}"));
    h.apply("free", yaml("{entity: job, " + STEPS + "}"));
    h.apply("napping", yaml("{entity: nap, steps: [{name: nap, delay: 2s}]}"));
    h.apply("billing", yaml("{entity: bill, steps: [{name: charge, service: pz-pay, command: charge, timeout: 2s}]}"));
    worker = h.worker()
        .serve("q.pz-work.run", "pz-work", "run", c -> {
          received.put(c.instance(), Instant.ofEpochMilli(Long.parseLong(c.header("baton-deadline"))));
          return Reply.success(null);
        })
        .serve("q.pz-pay.charge", "pz-pay", "charge", c -> {
          received.put(c.instance(), Instant.ofEpochMilli(Long.parseLong(c.header("baton-deadline"))));
          return Reply.success(null);
        });
    h.startRuntime();
  }

  @AfterEach
  void resumeAll() {
    h.apply("held", yaml("{entity: job, " + STEPS + "}"));
    h.apply("napping", yaml("{entity: nap, steps: [{name: nap, delay: 2s}]}"));
    h.applyService("pz-pay", false);
  }

  @AfterAll
  static void stop() {
    h.stopRuntime();
    h.close();
  }

  static long pauses(String name) throws Exception {
    return h.count("SELECT count(*) FROM dispatch_pause WHERE name = '" + name + "'");
  }

  static String stepStatus(UUID id) throws Exception {
    return h.scalar("SELECT status FROM instance_step WHERE instance_id = '" + id + "' ORDER BY id DESC LIMIT 1");
  }

  @Test
  void aPausedWorkflowHoldsItsCommandsAndTimersWhileAnotherOnTheSameServiceGoesOnAndResumeSendsEachOnce()
      throws Exception {
    h.apply("held", yaml("{entity: job, paused: true, " + STEPS + "}"));
    await().atMost(Duration.ofSeconds(10)).until(() -> pauses("held") == 1);

    UUID held = h.startOk("held", "h-1");
    UUID free = h.startOk("free", "f-1");
    h.awaitStatus(free, "SUCCEEDED", Duration.ofSeconds(30));
    // Past the step's 2s timeout, twice over: the command waits, unsent, and its step neither runs nor times out.
    await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).until(() ->
        "RUNNING".equals(h.status(held)) && "RUNNING".equals(stepStatus(held)) && !received.containsKey(held.toString()));
    assertThat(h.count("SELECT count(*) FROM outbox WHERE instance_id = '" + held + "'")).isEqualTo(1);
    assertThat(h.scalar("SELECT held_remaining IS NOT NULL AND deadline IS NULL FROM instance_step"
        + " WHERE instance_id = '" + held + "'")).isEqualTo("t");

    Instant resumed = Instant.now();
    h.apply("held", yaml("{entity: job, paused: false, " + STEPS + "}"));
    h.awaitStatus(held, "SUCCEEDED", Duration.ofSeconds(30));
    assertThat(pauses("held")).isZero();
    // Sent once, with the time its step had left from the resume, not from its start.
    assertThat(worker.ledger()).containsEntry(held + "|work|run", 1);
    assertThat(received.get(held.toString())).isAfter(resumed.plusMillis(500));
  }

  @Test
  void aPausedWorkflowsDelayStopsAndRunsItsRemainingTimeAfterTheResume() throws Exception {
    h.apply("napping", yaml("{entity: nap, paused: true, steps: [{name: nap, delay: 2s}]}"));
    await().atMost(Duration.ofSeconds(10)).until(() -> pauses("napping") == 1);
    UUID napper = h.startOk("napping", "n-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> "t".equals(h.scalar(
        "SELECT held_remaining IS NOT NULL FROM instance_step WHERE instance_id = '" + napper + "'")));
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> "RUNNING".equals(h.status(napper)));

    h.apply("napping", yaml("{entity: nap, steps: [{name: nap, delay: 2s}]}"));
    h.awaitStatus(napper, "SUCCEEDED", Duration.ofSeconds(30));
  }

  @Test
  void aPausedServiceGetsNoCommandWhileOtherServicesDoAndResumeSendsEachOnce() throws Exception {
    h.applyService("pz-pay", true);
    await().atMost(Duration.ofSeconds(10)).until(() -> pauses("pz-pay") == 1);
    assertThat(h.scalar("SELECT exchange FROM dispatch_pause WHERE name = 'pz-pay'")).isEqualTo("pz-pay.command.topic.ex");

    List<UUID> bills = List.of(h.startOk("billing", "b-1"), h.startOk("billing", "b-2"));
    UUID other = h.startOk("free", "f-2");
    h.awaitStatus(other, "SUCCEEDED", Duration.ofSeconds(30));
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() ->
        bills.stream().noneMatch(b -> received.containsKey(b.toString())));
    for (UUID b : bills) {
      assertThat(stepStatus(b)).isEqualTo("RUNNING");
    }

    h.applyService("pz-pay", false);
    for (UUID b : bills) {
      h.awaitStatus(b, "SUCCEEDED", Duration.ofSeconds(30));
      assertThat(worker.ledger()).containsEntry(b + "|charge|charge", 1);
    }
  }
}
