package dev.baton.runtime.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A periodic task runs on whatever it throws. */
class PeriodicTest {

  /** Fails on the code before: an Error ended the task for good, and with it the timers or the gauges. */
  @Test
  void aTaskThatThrowsAnErrorRunsAgainAtItsNextInterval() {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicInteger runs = new AtomicInteger();
      Periodic.every(scheduler, Duration.ofMillis(10), () -> {
        if (runs.incrementAndGet() == 1) {
          throw new StackOverflowError("test hook: a sweep blew its stack");
        }
      });
      await().atMost(Duration.ofSeconds(5)).until(() -> runs.get() >= 3);
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void aTaskThatThrowsAnExceptionRunsAgainToo() {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicInteger runs = new AtomicInteger();
      Periodic.every(scheduler, Duration.ofMillis(10), () -> {
        runs.incrementAndGet();
        throw new IllegalStateException("the database is away");
      });
      await().atMost(Duration.ofSeconds(5)).until(() -> runs.get() >= 3);
      assertThat(runs.get()).isGreaterThanOrEqualTo(3);
    } finally {
      scheduler.shutdownNow();
    }
  }
}
