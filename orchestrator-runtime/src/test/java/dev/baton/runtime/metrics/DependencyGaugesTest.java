package dev.baton.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Whether the runtime reaches its database and broker, as a gauge that outlives garbage collections. */
class DependencyGaugesTest {

  @Test
  void the_dependency_gauges_read_their_checks_after_a_garbage_collection() {
    RuntimeMetrics metrics = new RuntimeMetrics();
    AtomicBoolean database = new AtomicBoolean(true);
    AtomicBoolean broker = new AtomicBoolean(false);
    metrics.dependencies(database::get, broker::get); // method references nothing else holds

    for (int i = 0; i < 3; i++) {
      System.gc();
    }

    assertThat(metrics.scrape())
        .contains("baton_runtime_dependency_up{dependency=\"database\"} 1.0")
        .contains("baton_runtime_dependency_up{dependency=\"broker\"} 0.0");
  }
}
