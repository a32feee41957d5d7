package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import dev.baton.runtime.it.TestWorker.Reply;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runtime in its own JVM, killed with SIGKILL in the middle of 1,000 instances and started again: every instance
 * completes, and the worker's ledger shows no step applied twice (docs/design.md#runtime-semantics: DB first then ACK, outbox,
 * idempotency by state).
 */
class CrashSafetyIT {

  static final int INSTANCES = 1_000;
  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("crash");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void killedInTheMiddleAndRestartedEveryInstanceCompletesExactlyOnce() throws Exception {
    h.apply("crash", spec("order",
        step("reserve", "cr-inventory", "reserve", "release"),
        step("charge", "cr-payment", "pay", "refund"),
        step("ship", "cr-shipping", "ship", null)));
    Process first = launch(1);
    // 600 instances wait at their first command before any worker runs, so the kill finds many in flight at every
    // stage (queued events, open transactions, unpublished outbox rows); the other 400 are started meanwhile.
    ExecutorService starters = Executors.newFixedThreadPool(4);
    AtomicBoolean posting = new AtomicBoolean(true);
    AtomicInteger posted = new AtomicInteger();
    startAll(starters, 0, 600, posting, posted).forEach(CrashSafetyIT::join);
    TestWorker w = h.worker()
        .serve("q.cr-inventory.reserve", "cr-inventory", "reserve", c -> Reply.success(null))
        .serve("q.cr-payment.pay", "cr-payment", "pay", c -> Reply.success(null))
        .serve("q.cr-shipping.ship", "cr-shipping", "ship", c -> Reply.success(null));
    List<Future<?>> more = startAll(starters, 600, INSTANCES, posting, posted);
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20)).until(() ->
        h.count("SELECT count(*) FROM workflow_instance WHERE status = 'SUCCEEDED'") >= 200);
    first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful close
    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
    posting.set(false);
    more.forEach(CrashSafetyIT::join);
    starters.shutdown();
    long unfinished = h.count("SELECT count(*) FROM workflow_instance WHERE status <> 'SUCCEEDED'");
    System.out.printf("CRASH killed after %d starts; %d instances unfinished at the kill%n", posted.get(), unfinished);
    assertThat(unfinished).as("killed in the middle").isGreaterThan(100);

    Process second = launch(2);
    try {
      long t0 = System.nanoTime();
      for (int i = 0; i < INSTANCES; i++) {
        int status = h.start("crash", "crash-" + i, "{}").status();
        assertThat(status).isIn(200, 201); // 200: started before the crash, same instance
      }
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
          assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE status = 'SUCCEEDED'")).isEqualTo(INSTANCES));
      System.out.printf("CRASH all %d instances SUCCEEDED %.1f s after the restart%n", INSTANCES,
          (System.nanoTime() - t0) / 1e9);

      assertThat(h.count("SELECT count(*) FROM workflow_instance")).isEqualTo(INSTANCES);
      Map<String, Integer> ledger = w.ledger();
      assertThat(ledger).hasSize(3 * INSTANCES);
      assertThat(ledger).allSatisfy((key, count) -> assertThat(count).as("effects of " + key).isEqualTo(1));
      assertThat(h.count("SELECT count(*) FROM instance_step WHERE status <> 'SUCCEEDED'")).isZero();
      assertThat(h.count("SELECT count(*) FROM instance_step")).isEqualTo(3L * INSTANCES);
      try (Channel ch = h.amqp.createChannel()) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
          assertThat(h.count("SELECT count(*) FROM outbox")).isZero();
          assertThat(ch.messageCount("q.orchestrator.crash")).isZero();
          assertThat(ch.messageCount("q.dlx.orchestrator.crash")).isZero();
          for (String q : List.of("q.cr-inventory.reserve", "q.cr-payment.pay", "q.cr-shipping.ship")) {
            assertThat(ch.messageCount(q)).as(q).isZero();
          }
        });
      }
    } finally {
      second.destroy(); // SIGTERM: graceful
      if (!second.waitFor(30, TimeUnit.SECONDS)) {
        second.destroyForcibly();
      }
    }
  }

  /** Posts starts for business keys {@code crash-from .. crash-(to-1)} while {@code posting} holds. */
  static List<Future<?>> startAll(ExecutorService pool, int from, int to, AtomicBoolean posting, AtomicInteger posted) {
    List<Future<?>> futures = new ArrayList<>();
    for (int i = from; i < to; i++) {
      String key = "crash-" + i;
      futures.add(pool.submit(() -> {
        if (!posting.get()) {
          return;
        }
        try {
          if (h.start("crash", key, "{}").status() / 100 == 2) {
            posted.incrementAndGet();
          }
        } catch (RuntimeException refusedWhileDown) {
          // posted again after the restart
        }
      }));
    }
    return futures;
  }

  static void join(Future<?> f) {
    try {
      f.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static Process launch(int n) throws IOException {
    return h.launch("crash-runtime-" + n);
  }
}
