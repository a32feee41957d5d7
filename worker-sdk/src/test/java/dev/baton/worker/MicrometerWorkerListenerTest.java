package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.contract.BatonDuration;
import dev.baton.contract.EventResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What each hook of the worker counts, per consumer, and the in-flight gauge read at each look. */
class MicrometerWorkerListenerTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final MicrometerWorkerListener listener = new MicrometerWorkerListener(registry, "payment")
      .inFlight(inFlight::get);

  @Test
  void handlersAreTimedByConsumerAndResult() {
    listener.handled("pay", EventResult.SUCCESS, Duration.ofMillis(30));
    listener.handled("pay", EventResult.SUCCESS, Duration.ofMillis(10));
    listener.handled("pay", EventResult.FAILED, Duration.ofMillis(5));
    listener.handled("refund", EventResult.SUCCESS, Duration.ofMillis(7));

    var paid = registry.get("baton.worker.handler").tags("service", "payment", "consumer", "pay", "result", "success")
        .timer();
    assertThat(paid.count()).isEqualTo(2);
    assertThat(paid.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(40.0);
    assertThat(registry.get("baton.worker.handler").tags("consumer", "pay", "result", "failed").timer().count())
        .isEqualTo(1);
    assertThat(registry.get("baton.worker.handler").tags("consumer", "refund").timer().count()).isEqualTo(1);
  }

  @Test
  void retriesDeadLettersExpiriesDuplicatesAndStuckHandlersAreCountedByConsumer() {
    listener.retried("pay", 1, BatonDuration.parse("1s"), new IllegalStateException("down"));
    listener.retried("pay", 2, BatonDuration.parse("5s"), new IllegalStateException("down"));
    listener.deadLettered("pay", "java.lang.IllegalStateException", "down");
    listener.expired("refund", "m-1", Duration.ofSeconds(3));
    listener.duplicate("pay", "m-2");
    listener.stuck("pay", "m-3", Duration.ofMinutes(20));

    assertThat(count("baton.worker.retried", "pay")).isEqualTo(2);
    assertThat(count("baton.worker.dead.lettered", "pay")).isEqualTo(1);
    assertThat(count("baton.worker.expired", "refund")).isEqualTo(1);
    assertThat(count("baton.worker.duplicates", "pay")).isEqualTo(1);
    assertThat(count("baton.worker.stuck", "pay")).isEqualTo(1);
    assertThat(registry.find("baton.worker.expired").tags("consumer", "pay").counter()).isNull();
  }

  @Test
  void inFlightIsReadWhenLookedAt() {
    inFlight.set(3);
    assertThat(registry.get("baton.worker.in.flight").tags("service", "payment").gauge().value()).isEqualTo(3.0);
    inFlight.set(0);
    assertThat(registry.get("baton.worker.in.flight").gauge().value()).isZero();
  }

  private double count(String name, String consumer) {
    return registry.get(name).tags("service", "payment", "consumer", consumer).counter().count();
  }
}
