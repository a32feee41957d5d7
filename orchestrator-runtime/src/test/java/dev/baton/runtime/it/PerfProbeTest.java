package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class PerfProbeTest {
  @Test
  void probe() throws Exception {
    int n = Integer.getInteger("perf.n", 1000);
    try (RuntimeHarness h = RuntimeHarness.create("perf")) {
      h.startRuntime(h.settings().toBuilder().consumerThreads(Integer.getInteger("perf.threads", 4))
          .eventBatchSize(Integer.getInteger("perf.batch", 20)).build());
      h.apply("perf", spec("order", step("a", "pf-a", "a", null), step("b", "pf-b", "b", null), step("c", "pf-c", "c", null)));
      long t0 = System.nanoTime();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String key = "p-" + i;
        fs.add(pool.submit(() -> h.startOk("perf", key)));
      }
      for (Future<?> f : fs) f.get();
      pool.shutdown();
      double startS = (System.nanoTime() - t0) / 1e9;
      System.out.printf("PERF starts: %d in %.2f s = %.0f/s%n", n, startS, n / startS);
      await().atMost(Duration.ofSeconds(30)).until(() -> h.count("SELECT count(*) FROM outbox") == 0);
      long t1 = System.nanoTime();
      h.worker().serve("q.pf-a.a", "pf-a", "a", c -> Reply.success(null))
          .serve("q.pf-b.b", "pf-b", "b", c -> Reply.success(null))
          .serve("q.pf-c.c", "pf-c", "c", c -> Reply.success(null));
      com.rabbitmq.client.Channel ch = h.amqp.createChannel();
      await().atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
        System.out.printf("PERF depth orch=%d a=%d b=%d c=%d outbox=%d done=%d%n", ch.messageCount("q.orchestrator.perf"),
            ch.messageCount("q.pf-a.a"), ch.messageCount("q.pf-b.b"), ch.messageCount("q.pf-c.c"),
            h.count("SELECT count(*) FROM outbox"), h.count("SELECT count(*) FROM workflow_instance WHERE status = 'SUCCEEDED'"));
          assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE status = 'SUCCEEDED'")).isEqualTo(n);});
      double s = (System.nanoTime() - t1) / 1e9;
      System.out.printf("PERF steps: %d events in %.2f s = %.0f steps/s%n", 3 * n, s, 3 * n / s);
    }
  }
}
