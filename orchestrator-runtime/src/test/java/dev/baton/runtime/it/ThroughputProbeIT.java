package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A throughput figure, not an assertion, and off by default (2 shared cores): first the starts (HTTP, one
 * transaction each), then the step loop alone (workers start once every first command is queued).
 *
 * <pre>mvn -pl orchestrator-runtime -am verify -DskipUnitTests -Dit.test=ThroughputProbeIT -Dfailsafe.failIfNoSpecifiedTests=false -Dbaton.probe=true -Dprobe.instances=2000</pre>
 */
@EnabledIfSystemProperty(named = "baton.probe", matches = "true")
class ThroughputProbeIT {

  @Test
  void probe() throws Exception {
    int n = Integer.getInteger("probe.instances", 2000);
    try (RuntimeHarness h = RuntimeHarness.create("probe")) {
      h.startRuntime(h.settings().toBuilder()
          .consumerThreads(Integer.getInteger("probe.threads", 4))
          .eventBatchSize(Integer.getInteger("probe.batch", 20))
          .build());
      h.apply("probe", spec("order", step("a", "pr-a", "a", null), step("b", "pr-b", "b", null),
          step("c", "pr-c", "c", null)));
      long t0 = System.nanoTime();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> starts = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String key = "p-" + i;
        starts.add(pool.submit(() -> h.startOk("probe", key)));
      }
      for (Future<?> f : starts) {
        f.get();
      }
      pool.shutdown();
      double startSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("PROBE starts: %d in %.2f s = %.0f instances/s%n", n, startSeconds, n / startSeconds);
      await().atMost(Duration.ofSeconds(60)).until(() -> h.count("SELECT count(*) FROM outbox") == 0);

      long t1 = System.nanoTime();
      h.worker().serve("q.pr-a.a", "pr-a", "a", c -> Reply.success(null))
          .serve("q.pr-b.b", "pr-b", "b", c -> Reply.success(null))
          .serve("q.pr-c.c", "pr-c", "c", c -> Reply.success(null));
      try (Channel ch = h.amqp.createChannel()) {
        await().atMost(Duration.ofSeconds(600)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
          long done = h.count("SELECT count(*) FROM workflow_instance WHERE status = 'SUCCEEDED'");
          System.out.printf("PROBE waiting events=%d outbox=%d succeeded=%d%n",
              ch.messageCount("q.orchestrator.probe"), h.count("SELECT count(*) FROM outbox"), done);
          assertThat(done).isEqualTo(n);
        });
      }
      double seconds = (System.nanoTime() - t1) / 1e9;
      System.out.printf("PROBE step loop: %d results in %.2f s = %.0f steps/s%n", 3 * n, seconds, 3 * n / seconds);
    }
  }
}
