package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Asynchronous confirms with prefetch and several channels: every command answered exactly once, every delivery
 * acked, none before its confirm (else a closed worker would leave nothing to redeliver and events would be missing).
 */
class ThroughputIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-throughput");

  @Test
  void aThousandCommandsOnTwoChannelsAreEachAnsweredOnce() throws Exception {
    int n = 1_000;
    ServiceModel model = TestBroker.commandService("payment", "pay", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    Set<String> handled = ConcurrentHashMap.newKeySet();
    AtomicInteger calls = new AtomicInteger();

    long started;
    try (BatonWorker worker = broker.worker(model)
        .prefetch(50)
        .concurrency(2)
        .command("pay", cmd -> {
          calls.incrementAndGet();
          handled.add(cmd.messageId());
          return CommandResult.success(Map.of("n", cmd.messageId()));
        })
        .build()) {
      worker.start();
      started = System.nanoTime();
      broker.sendCommands("payment", "pay", n);
      await().atMost(TestBroker.WAIT).until(() -> broker.count(events) == n && worker.inFlight() == 0);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    LoggerFactory.getLogger(ThroughputIT.class).info("{} commands answered in {} s ({} msg/s, 2 channels, prefetch 50)",
        n, String.format("%.2f", seconds), Math.round(n / seconds));
    assertThat(calls).hasValue(n);
    assertThat(handled).hasSize(n);
    assertThat(broker.count("q.payment.pay")).isZero();
    assertThat(broker.count(events)).isEqualTo(n);
  }
}
