package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runtime in its own JVM, killed with SIGKILL while 200 parents start, wait for and go on from their child
 * workflows, and started again: every parent and every child ends SUCCEEDED, each child exactly once (its business
 * key), and no step has an effect twice. A wake-up lost with the process (a child that ended, its parent not yet told)
 * is found again by the sweep.
 */
class ChildCrashIT {

  static final int PARENTS = 200;
  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("childcrash");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void killedWhileParentsWaitForTheirChildrenEveryOneEndsOnceAfterTheRestart() throws Exception {
    h.apply("billing", yaml("""
        {entity: invoice, steps: [{name: issue, service: cc-bill, command: issue}]}
        """));
    h.apply("checkout", yaml("""
        {entity: order, steps: [
          {name: reserve, service: cc-stock, command: reserve},
          {name: invoice, workflow: billing, input: {order: "input.n"}},
          {name: ship, service: cc-stock, command: ship}]}
        """));
    Process first = h.launch("child-crash-runtime-1");
    for (int i = 0; i < PARENTS; i++) {
      assertThat(h.start("checkout", "cc-" + i, "{\"n\": " + i + "}").status()).isEqualTo(201);
    }
    TestWorker w = h.worker()
        .serve("q.cc-stock.reserve", "cc-stock", "reserve", c -> Reply.success(null))
        .serve("q.cc-stock.ship", "cc-stock", "ship", c -> Reply.success(null))
        .serve("q.cc-bill.issue", "cc-bill", "issue", c -> Reply.success(null));
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20)).until(() ->
        h.count("SELECT count(*) FROM workflow_instance WHERE workflow = 'billing' AND status = 'SUCCEEDED'") >= 40);
    first.destroyForcibly(); // SIGKILL: no shutdown hook, wake-ups in memory lost
    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
    long unfinished = h.count("SELECT count(*) FROM workflow_instance WHERE status <> 'SUCCEEDED'");
    System.out.printf("CHILDREN killed with %d instances unfinished%n", unfinished);
    assertThat(unfinished).as("killed in the middle").isPositive();

    Process second = h.launch("child-crash-runtime-2");
    try {
      await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
          assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE status = 'SUCCEEDED'"))
              .isEqualTo(2L * PARENTS));
      assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE workflow = 'billing'")).isEqualTo(PARENTS);
      assertThat(h.count("SELECT count(*) FROM instance_link")).isEqualTo(PARENTS);
      Map<String, Integer> ledger = w.ledger();
      assertThat(ledger.size()).as("reserve, ship and the child's issue of every parent").isEqualTo(3 * PARENTS);
      assertThat(ledger).allSatisfy((key, count) -> assertThat(count).as("effects of " + key).isEqualTo(1));
    } finally {
      second.destroy();
      if (!second.waitFor(30, TimeUnit.SECONDS)) {
        second.destroyForcibly();
      }
    }
  }
}
