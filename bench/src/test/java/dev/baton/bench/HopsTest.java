package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hop breakdown: hops the runtime does not time alone are what is left of a measured span. */
class HopsTest {

  @Test
  void untimedHopsAreWhatIsLeftOfTheMeasuredSpans() {
    Map<String, Hops.Delta> timers = new LinkedHashMap<>();
    timers.put("start.wait", new Hops.Delta(10, 5));
    timers.put("start.apply", new Hops.Delta(10, 10)); // 1 ms
    timers.put("start.commit", new Hops.Delta(10, 10)); // 1 ms
    timers.put("event.wait", new Hops.Delta(20, 10)); // 0.5 ms
    timers.put("event.apply", new Hops.Delta(20, 20)); // 1 ms
    timers.put("event.commit", new Hops.Delta(20, 20)); // 1 ms
    timers.put("outbox.wait", new Hops.Delta(30, 30)); // 1 ms, from the commit
    timers.put("outbox.confirm", new Hops.Delta(30, 30)); // 1 ms
    // dispatch → worker 4 and 6 ms (mean 5), → applied 7 and 11 ms (worker → applied: 3 and 5, mean 4)
    List<Hops.Step> steps = List.of(new Hops.Step(4, 7), new Hops.Step(6, 11));

    List<Hops.Hop> hops = Hops.breakdown(timers, steps);

    assertThat(hops.get(0).meanMs()).isEqualTo(1); // statements of start and event transactions together
    assertThat(hops.get(1).meanMs()).isEqualTo(1); // their commits
    assertThat(hops.get(2).meanMs()).isEqualTo(1); // outbox.wait: the relay is handed its commands at their commit
    assertThat(hops.get(3).meanMs()).isEqualTo(2); // dispatch → worker - the dispatching transaction - outbox.wait
    assertThat(hops.get(5).meanMs()).isEqualTo(3.5); // worker → applied - event.wait
    assertThat(hops.get(6).meanMs()).isEqualTo(0.5);
    // The timed and derived hops add up to the step.
    double sum = hops.get(0).meanMs() + hops.get(1).meanMs() + hops.get(2).meanMs() + hops.get(3).meanMs()
        + hops.get(5).meanMs() + hops.get(6).meanMs();
    Hops.Hop step = hops.get(9);
    assertThat(sum).isCloseTo(step.meanMs(), within(1e-9));
    assertThat(step.p50Ms()).isEqualTo(7);
    assertThat(step.p99Ms()).isEqualTo(11);
  }

  @Test
  void nearestRankPercentiles() {
    double[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assertThat(Hops.at(v, 0.5)).isEqualTo(5);
    assertThat(Hops.at(v, 0.99)).isEqualTo(10);
    assertThat(Hops.at(new double[0], 0.5)).isNaN();
  }
}
