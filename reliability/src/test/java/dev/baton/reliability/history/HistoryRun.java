package dev.baton.reliability.history;

import dev.baton.httpapi.ApiPaths;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.ledger.PlannedBehaviour;
import dev.baton.reliability.suite.Rig;
import dev.baton.reliability.suite.Wait;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One seed's run: a {@link Rig} with the seed's Workflows (runtime in its own JVM, ledger workers reaching the broker
 * through a proxy, the pay worker in a JVM of its own), the instances started at their planned moments, signalled
 * and cancelled as planned, the faults injected at theirs; then the drain, the history, and the checker's verdict.
 */
public final class HistoryRun {

  /** How long an instance may take from start to end: far beyond its timeouts, re-sends and staircase. */
  static final Duration BOUND = Duration.ofMinutes(3);

  /** Marks a fault in {@link Outcome#faults} that could not be injected (the seed's test fails on it). */
  public static final String NOT_INJECTED = "FAILED TO INJECT";

  /** What a seed's run came to: its faults as injected, the violations, and counts for the notes. */
  public record Outcome(long seed, int instances, List<String> faults, List<Violation> violations,
      Map<String, Long> counts) {

    public long violations(Rule rule) {
      return violations.stream().filter(v -> v.rule() == rule).count();
    }
  }

  private HistoryRun() {}

  public static Outcome run(Infra infra, long seed, int instances) throws Exception {
    Workload w = Workload.generate(seed, instances);
    try (Rig rig = Rig.create(infra, "history-" + Long.toUnsignedString(seed, 36),
        Rig.Options.of(infra).withWorkflows(w.workflows(), w.services()));
        TcpProxy proxy = TcpProxy.start("127.0.0.1", rig.rabbit.amqpPort())) {
      rig.workers().connectThrough(List.of("127.0.0.1:" + proxy.port()));
      rig.workers().handlerFault(new PlannedBehaviour());
      rig.runtime().start();
      rig.workers().startInProcess(5, service -> !service.equals(Workload.KILLABLE_SERVICE));
      rig.workers().startProcess(Workload.KILLABLE_SERVICE, 5);
      Driver driver = new Driver(rig);
      Faults injector = new Faults(rig, proxy, seed);
      List<String> faults = driver.play(w, injector);
      Wait.until(BOUND, () -> rig.tally().finished() >= rig.api().accepted().size() && rig.tally().leftovers() == 0);
      untilTheLastDeadline(rig, w);
      History history = HistoryLoader.load(infra.postgres.jdbcUrl(rig.runtimeDb), rig.ledger.dataSource(),
          rig.api().accepted());
      List<Violation> violations = new HistoryChecker(BOUND).check(history);
      Map<String, Long> counts = new TreeMap<>(driver.counts());
      counts.putAll(injector.observed());
      history.instances().forEach(i -> counts.merge(i.status().toLowerCase(java.util.Locale.ROOT), 1L, Long::sum));
      counts.put("effects", (long) history.effects().size());
      counts.put("expired answers", rig.ledger.count("SELECT count(*) FROM expired_answer"));
      counts.put("timed out", history.steps().stream().filter(s -> "TIMED_OUT".equals(s.status())).count());
      counts.put("re-sent", history.steps().stream().filter(s -> "task".equals(s.kind()) && s.attempt() > 1).count());
      counts.put("late answers", rig.tally().runtimeCount("SELECT count(*) FROM instance_step WHERE late IS NOT NULL"));
      counts.put("past their instance deadline", rig.tally().runtimeCount(
          "SELECT count(*) FROM workflow_instance WHERE last_error->>'errorCode' = 'InstanceTimeout'"));
      return new Outcome(seed, rig.api().accepted().size(), faults, violations, counts);
    }
  }

  /**
   * Once every instance ended, an effect may still land until the last command's deadline (a cancel without
   * compensation leaves its command running): the fenced workers commit nothing after it. Every deadline is a task
   * attempt's start plus at most the longest task timeout.
   */
  private static void untilTheLastDeadline(Rig rig, Workload w) {
    long lastStart = rig.tally().runtimeCount("SELECT coalesce(max((extract(epoch FROM started_at) * 1000)::bigint), 0)"
        + " FROM instance_step WHERE kind = 'task'");
    long lastDeadline = lastStart + w.longestTimeout().toMillis();
    Wait.sleep(Math.max(0, lastDeadline - System.currentTimeMillis()));
  }

  /** Starts, signals and cancels the planned instances on time from a pool of clients; faults on the caller's. */
  private static final class Driver {
    final Rig rig;
    final ScheduledExecutorService clients = Executors.newScheduledThreadPool(16);
    final Queue<Future<?>> pending = new ConcurrentLinkedQueue<>();
    final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    Driver(Rig rig) {
      this.rig = rig;
    }

    List<String> play(Workload w, Faults faults) throws Exception {
      long t0 = System.nanoTime();
      for (Workload.Planned p : w.instances()) {
        pending.add(clients.schedule(() -> start(p), p.startAt().toMillis(), TimeUnit.MILLISECONDS));
      }
      List<String> injected = new ArrayList<>();
      for (Workload.PlannedFault f : w.faults()) {
        long wait = f.at().toMillis() - (System.nanoTime() - t0) / 1_000_000;
        Wait.sleep(Math.max(0, wait)); // the fault's planned moment
        try {
          faults.inject(f);
          injected.add(f.toString());
        } catch (Exception | AssertionError e) {
          injected.add(f + " (" + NOT_INJECTED + ": " + e + ")");
        }
      }
      Future<?> f;
      while ((f = pending.poll()) != null) {
        f.get(5, TimeUnit.MINUTES);
      }
      clients.shutdown();
      return injected;
    }

    private void start(Workload.Planned p) {
      String id = rig.api().start(p.workflow(), p.key(), p.startBody(), Instant.now().plusSeconds(90));
      if (id == null) {
        count("starts refused");
        return;
      }
      if (p.signalAfter() != null) {
        pending.add(clients.schedule(() -> count("signal " + answer(rig.api().postUntilAnswered(
            ApiPaths.signal(id, p.signal()), "{\"by\":\"driver\"}", Instant.now().plusSeconds(60)))),
            p.signalAfter().toMillis(), TimeUnit.MILLISECONDS));
      }
      if (p.cancelAfter() != null) {
        pending.add(clients.schedule(() -> count((p.cancelCompensate() ? "cancel+compensate " : "cancel ")
            + answer(rig.api().postUntilAnswered(ApiPaths.cancel(id), "{\"compensate\":" + p.cancelCompensate()
            + "}", Instant.now().plusSeconds(60)))), p.cancelAfter().toMillis(), TimeUnit.MILLISECONDS));
      }
    }

    /** 2xx: done; 409: the instance had ended first. */
    private static String answer(int status) {
      return status / 100 == 2 ? "done" : status == 409 ? "too late (409)" : "answered " + status;
    }

    private void count(String what) {
      counts.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
    }

    Map<String, Long> counts() {
      Map<String, Long> m = new TreeMap<>();
      counts.forEach((k, v) -> m.put(k, (long) v.get()));
      return m;
    }
  }
}
