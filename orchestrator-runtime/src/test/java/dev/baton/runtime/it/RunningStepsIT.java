package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.WorkflowSpec;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The metrics of "stuck at which step": steps in flight per workflow and step, the oldest's age, in timeouts too. */
class RunningStepsIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("running-steps");
    h.startRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void instances_waiting_at_a_step_are_counted_there_with_the_age_of_the_oldest() {
    WorkflowSpec held = spec("order", step("hold", "rs-nobody", "work", null));
    held.getSteps().get(0).setTimeout("10m");
    h.apply("held", held);
    h.startOk("held", "a");
    h.startOk("held", "b");

    String series = "{step=\"hold\",workflow=\"held\",workflow_namespace=\"default\"}";
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      String scrape = h.runtime.metrics().scrape();
      assertThat(scrape).contains("baton_steps_running" + series + " 2.0");
      assertThat(value(scrape, "baton_step_oldest_seconds" + series)).isPositive();
      assertThat(value(scrape, "baton_step_oldest_timeouts" + series)).isBetween(0.0, 0.5);
    });
  }

  private static double value(String scrape, String series) {
    return scrape.lines().filter(l -> l.startsWith(series + " ")).findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length() + 1))).orElse(-1.0);
  }
}
