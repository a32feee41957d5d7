package dev.baton.bench;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where a step's time goes at half load, hop by hop (dispatch → command published → worker → event → commit → next
 * command), from the runtime's own figures: its hop timers ({@code baton_hop_seconds{hop}}, means over the window)
 * and, per step, the step row's timestamps (dispatch: its transaction's start; result applied: the start of the
 * transaction applying it) set against when the benchmark's worker received the command. Hops the runtime does not
 * time alone are what is left of a measured span once the timed hops inside it are taken away (means add up,
 * percentiles do not: those hops have a mean only).
 */
final class Hops {

  /** One hop: its mean and, where each step measures it, its percentiles (else NaN). */
  record Hop(String name, double meanMs, double p50Ms, double p99Ms, long samples) {}

  /** How far one runtime hop timer moved: passes and their total time. */
  record Delta(long count, double totalMs) {
    double meanMs() {
      return count == 0 ? Double.NaN : totalMs / count;
    }
  }

  /** Per step, by one clock: dispatch → the worker has the command, and → its result applied. */
  record Step(double toWorkerMs, double toAppliedMs) {}

  static final List<String> TIMED = List.of("start.wait", "start.apply", "start.commit", "event.wait", "event.apply",
      "event.commit", "outbox.wait", "outbox.confirm");

  private Hops() {}

  /** Each runtime hop timer's count and total time now (the runtime registers them all at start). */
  static Map<String, Delta> read(MeterRegistry registry) {
    Map<String, Delta> now = new LinkedHashMap<>();
    for (String hop : TIMED) {
      Timer t = registry.find("baton.hop").tag("hop", hop).timer();
      now.put(hop, t == null ? new Delta(0, 0) : new Delta(t.count(), t.totalTime(TimeUnit.MILLISECONDS)));
    }
    return now;
  }

  static Map<String, Delta> between(Map<String, Delta> before, Map<String, Delta> after) {
    Map<String, Delta> d = new LinkedHashMap<>();
    for (String hop : TIMED) {
      Delta a = after.getOrDefault(hop, new Delta(0, 0));
      Delta b = before.getOrDefault(hop, new Delta(0, 0));
      d.put(hop, new Delta(a.count() - b.count(), a.totalMs() - b.totalMs()));
    }
    return d;
  }

  /** The breakdown, in the order a step goes through it, then the step as a whole and the hops of a start. */
  static List<Hop> breakdown(Map<String, Delta> timers, List<Step> steps) {
    double[] toWorker = steps.stream().mapToDouble(Step::toWorkerMs).sorted().toArray();
    double[] toApplied = steps.stream().mapToDouble(Step::toAppliedMs).sorted().toArray();
    double[] fromWorker = steps.stream().mapToDouble(s -> s.toAppliedMs() - s.toWorkerMs()).sorted().toArray();
    // A step is dispatched by a start's transaction (the first) or an event batch's (the others).
    Delta work = sum(timers.get("event.apply"), timers.get("start.apply"));
    Delta commit = sum(timers.get("event.commit"), timers.get("start.commit"));
    double dispatching = work.meanMs() + commit.meanMs();
    double outboxWait = timers.get("outbox.wait").meanMs();
    double eventWait = timers.get("event.wait").meanMs();
    long n = steps.size();
    List<Hop> hops = new ArrayList<>();
    hops.add(new Hop("dispatch → its transaction's statements done (lock, read, decide, write step and command)",
        work.meanMs(), Double.NaN, Double.NaN, work.count()));
    hops.add(new Hop("→ committed (the commit: WAL flush)", commit.meanMs(), Double.NaN, Double.NaN,
        commit.count()));
    // The relay is handed its commands at their commit: its wait counts from there.
    hops.add(new Hop("committed → claimed by the outbox relay", outboxWait, Double.NaN,
        Double.NaN, timers.get("outbox.wait").count()));
    hops.add(new Hop("claimed → published, routed, delivered to the worker",
        mean(toWorker) - dispatching - outboxWait, Double.NaN, Double.NaN, n));
    hops.add(new Hop("(claimed → confirmed by the broker, meanwhile)", timers.get("outbox.confirm").meanMs(),
        Double.NaN, Double.NaN, timers.get("outbox.confirm").count()));
    hops.add(new Hop("worker → its event at the runtime (handler, confirmed publish, delivery)",
        mean(fromWorker) - eventWait, Double.NaN, Double.NaN, n));
    hops.add(new Hop("event waits in a lane for its batch's transaction (= result applied)", eventWait, Double.NaN,
        Double.NaN, timers.get("event.wait").count()));
    hops.add(new Hop("dispatch → worker has the command (measured per step)", mean(toWorker), at(toWorker, 0.5),
        at(toWorker, 0.99), n));
    hops.add(new Hop("worker has the command → result applied (measured per step)", mean(fromWorker),
        at(fromWorker, 0.5), at(fromWorker, 0.99), n));
    hops.add(new Hop("step: dispatch → result applied", mean(toApplied), at(toApplied, 0.5), at(toApplied, 0.99), n));
    hops.add(new Hop("start: waiting for a writer of the group commit", timers.get("start.wait").meanMs(),
        Double.NaN, Double.NaN, timers.get("start.wait").count()));
    hops.add(new Hop("start: its group's statements (insert the instances, write their first steps)",
        timers.get("start.apply").meanMs(), Double.NaN, Double.NaN, timers.get("start.apply").count()));
    hops.add(new Hop("start: its group's commit", timers.get("start.commit").meanMs(), Double.NaN, Double.NaN,
        timers.get("start.commit").count()));
    return hops;
  }

  private static Delta sum(Delta a, Delta b) {
    return new Delta(a.count() + b.count(), a.totalMs() + b.totalMs());
  }

  private static double mean(double[] sorted) {
    return sorted.length == 0 ? Double.NaN : Arrays.stream(sorted).average().orElseThrow();
  }

  /** The nearest-rank percentile of sorted values. */
  static double at(double[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
  }
}
