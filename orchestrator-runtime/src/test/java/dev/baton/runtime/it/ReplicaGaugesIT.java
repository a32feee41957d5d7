package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.runtime.app.BatonRuntime;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two replicas on one database: the database-wide gauges come from exactly one of them, so
 * summing the pods' series is right; when that one stops, the other takes over. The counts API answers on both.
 * Fails on the code where every replica exported them.
 */
class ReplicaGaugesIT {

  static RuntimeHarness h;
  static BatonRuntime first;
  static BatonRuntime second;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("replica-gauges");
    h.apply("gauged", spec("order", step("only", "gauged-svc", "hold", null)));
    first = h.startRuntime();
    second = BatonRuntime.start(h.settings(), h.client);
  }

  @AfterAll
  static void stop() {
    if (second != null) {
      second.close();
    }
    h.close();
  }

  static String metrics(BatonRuntime r) {
    h.usePort(r.httpPort());
    return h.get("/metrics").text();
  }

  static boolean exports(String metrics) {
    return metrics.contains("baton_instances{") && metrics.contains("baton_outbox_pending ")
        && metrics.contains("baton_database_gauges_exporter 1.0");
  }

  static boolean exportsNone(String metrics) {
    return !metrics.contains("baton_instances{") && !metrics.contains("baton_outbox_pending ")
        && !metrics.contains("baton_outbox_lag_seconds ") && metrics.contains("baton_database_gauges_exporter 0.0");
  }

  @Test
  void oneReplicaExportsTheDatabaseWideGaugesAndTheOtherTakesOverWhenItStops() {
    h.usePort(first.httpPort());
    assertThat(h.start("gauged", "g-1", "{}").status()).isEqualTo(201);

    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      List<String> both = List.of(metrics(first), metrics(second));
      assertThat(both).as("exactly one replica exports baton_instances and baton_outbox_*")
          .satisfiesExactlyInAnyOrder(m -> assertThat(exports(m)).as(m).isTrue(),
              m -> assertThat(exportsNone(m)).as(m).isTrue());
    });
    for (BatonRuntime r : List.of(first, second)) {
      await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
        h.usePort(r.httpPort());
        assertThat(h.get("/api/v1/counts").text()).contains("\"workflow\":\"gauged\"", "\"running\":1");
      });
    }

    BatonRuntime exporter = exports(metrics(first)) ? first : second;
    BatonRuntime other = exporter == first ? second : first;
    exporter.close();
    if (exporter == second) {
      second = null;
    }
    await().atMost(Duration.ofSeconds(15)).until(() -> exports(metrics(other)));
  }
}
