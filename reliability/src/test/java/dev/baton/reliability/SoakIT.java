package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.http.client.domain.ConnectionInfo;
import dev.baton.reliability.infra.Cmd;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.infra.ProcessProbe;
import dev.baton.reliability.suite.Rig;
import dev.baton.reliability.suite.Tally;
import dev.baton.reliability.suite.Wait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The soak ({@code -Psoak}, {@code baton.soak.minutes}, 30 by default): two runtimes on one database and broker (the
 * first {@code dev.baton.runtime.app.Main}, the second {@code baton runtime}, as a user would start a replica), the
 * clients' starts spread over both. The throughput is measured for a minute, then instances are started at half of
 * it for the whole run while a fault is injected every 3 minutes in rotation (one runtime SIGKILLed — alternately the
 * replica and the first — and restarted; all broker connections closed; the broker application stopped and started;
 * PostgreSQL restarted; a worker SIGKILLed). Every 30 s, for each runtime process: its heap after a full GC, threads
 * and RSS, its broker connections and their channels, and its database connections (told apart by their sockets).
 * Verdict: nothing lost, applied twice or stuck, and each runtime process's figures flat (its last sample near its
 * first). Written to {@code .baton/reliability/soak.md}.
 */
@EnabledIfSystemProperty(named = "baton.soak", matches = "true")
class SoakIT {

  /** One runtime process at one moment; zeros for a process that is gone or a broker that is away. */
  record Figures(long pid, long heapKb, long rssKb, long threads, int connections, int channels, int dbConnections) {}

  /** One sample: each runtime's figures (the first runtime, then the replica), and the run's progress. */
  record Sample(double minute, List<Figures> runtimes, long succeeded, double load1) {}

  static final List<String> RUNTIME_NAMES = List.of("runtime 1 (`dev.baton.runtime.app.Main`)",
      "runtime 2 (`baton runtime` replica)");

  @Test
  void halfTheThroughputWithFaultsForThirtyMinutes() throws Exception {
    int minutes = Integer.getInteger("baton.soak.minutes", 30);
    Infra infra = Infra.get();
    try (Rig rig = Rig.create(infra, "soak")) {
      rig.childJvms().quickStart(false);
      rig.runtime().start();
      rig.runtime().startReplica();
      for (String s : List.of("stock", "pay", "ship")) {
        rig.workers().startProcess(s, 0);
      }
      Wait.sleep(5_000);
      String load = Cmd.run(List.of("uptime"), Map.of(), 10).trim();

      // 1. calibration: as fast as 8 clients can start instances (spread over both runtimes), for 60 s
      AtomicInteger next = new AtomicInteger();
      ExecutorService clients = Executors.newFixedThreadPool(8);
      Instant calibrationEnd = Instant.now().plusSeconds(60);
      long before = rig.tally().succeeded();
      for (int t = 0; t < 8; t++) {
        clients.submit(() -> {
          while (Instant.now().isBefore(calibrationEnd)) {
            rig.api().startOne("soak-" + next.getAndIncrement(), calibrationEnd.plusSeconds(30));
          }
        });
      }
      Wait.sleep(20_000);
      long c0 = rig.tally().succeeded();
      long t0 = System.nanoTime();
      Wait.sleep(40_000);
      double measured = (rig.tally().succeeded() - c0) / ((System.nanoTime() - t0) / 1e9);
      clients.shutdown();
      clients.awaitTermination(2, TimeUnit.MINUTES);
      Wait.until(Duration.ofMinutes(2), () -> rig.tally().succeeded() >= rig.api().accepted().size());
      double rate = measured / 2;
      System.out.printf(Locale.ROOT, "SOAK measured %.1f instances/s (%d before); soak rate %.1f/s for %d min%n",
          measured, before, rate, minutes);

      // 2. the soak: paced starts, faults every few minutes, samples every 30 s
      List<Sample> samples = new ArrayList<>();
      List<String> faults = new ArrayList<>();
      ScheduledExecutorService pacer = Executors.newScheduledThreadPool(1);
      ExecutorService starters = Executors.newFixedThreadPool(16);
      Instant end = Instant.now().plus(Duration.ofMinutes(minutes));
      double[] owed = {0};
      pacer.scheduleAtFixedRate(() -> {
        owed[0] += rate / 10;
        while (owed[0] >= 1) {
          owed[0]--;
          String key = "soak-" + next.getAndIncrement();
          starters.submit(() -> rig.api().startOne(key, end.plusSeconds(120)));
        }
      }, 0, 100, TimeUnit.MILLISECONDS);
      long start = System.nanoTime();
      int fault = 0;
      long nextFault = start + TimeUnit.MINUTES.toNanos(3);
      samples.add(sample(rig, infra, start));
      while (Instant.now().isBefore(end)) {
        Wait.sleep(30_000);
        if (System.nanoTime() >= nextFault && Instant.now().plusSeconds(60).isBefore(end)) {
          faults.add(String.format(Locale.ROOT, "%.1f min: %s", (System.nanoTime() - start) / 6e10,
              inject(rig, infra, fault++)));
          nextFault += TimeUnit.MINUTES.toNanos(3);
        }
        samples.add(sample(rig, infra, start));
        System.out.println("SOAK " + samples.get(samples.size() - 1));
      }
      pacer.shutdownNow();
      starters.shutdown();
      starters.awaitTermination(3, TimeUnit.MINUTES);
      boolean drained = Wait.until(Duration.ofMinutes(5), () -> rig.tally().succeeded() >= rig.api().accepted().size()
          && rig.tally().leftovers() == 0);
      samples.add(sample(rig, infra, start));
      Tally.Counts counts = rig.tally().counts();

      String report = report(minutes, load, measured, rate, samples, faults, counts, drained);
      System.out.println(report);
      Path file = Path.of(System.getProperty("baton.repo.root", ".")).resolve(".baton/reliability/soak.md");
      Files.createDirectories(file.getParent());
      Files.writeString(file, report);

      assertThat(drained).as("drained").isTrue();
      assertThat(counts.lost()).isZero();
      assertThat(counts.appliedTwice()).isZero();
      assertThat(counts.stuck()).isZero();
      for (int r = 0; r < RUNTIME_NAMES.size(); r++) {
        // a restarted runtime is a new process: its last sample is compared with that process's first one
        Figures last = samples.get(samples.size() - 1).runtimes().get(r);
        Figures first = firstOf(samples, r, last.pid());
        String who = RUNTIME_NAMES.get(r) + " (pid " + last.pid() + ")";
        assertThat(last.heapKb()).as(who + ": heap after GC stays flat").isLessThan(first.heapKb() * 3 / 2 + 16_384);
        assertThat(last.connections()).as(who + ": broker connections stay flat").isEqualTo(first.connections());
        assertThat(last.channels()).as(who + ": channels stay flat").isLessThanOrEqualTo(first.channels());
        assertThat(last.threads()).as(who + ": threads stay flat").isLessThan(first.threads() + 10);
        assertThat(last.dbConnections()).as(who + ": database connections stay flat")
            .isLessThanOrEqualTo(Math.max(first.dbConnections(), 10));
      }
    }
  }

  /** The first sample of process {@code pid} in slot {@code r} after the start (sample 0 is the soak's start). */
  private static Figures firstOf(List<Sample> samples, int r, long pid) {
    return samples.stream().skip(1).map(s -> s.runtimes().get(r)).filter(f -> f.pid() == pid).findFirst()
        .orElseThrow();
  }

  /**
   * One fault of the rotation; returns what it did. The runtime kill comes first and every fifth time, so a
   * 30-minute run (9 faults) kills each runtime once.
   */
  private static String inject(Rig rig, Infra infra, int n) {
    switch (n % 5) {
      case 0 -> {
        String which;
        if (n / 5 % 2 == 0) {
          rig.runtime().replicas().get(rig.runtime().replicas().size() - 1).process().kill();
          which = "runtime 2 (`baton runtime`)";
          awaitConnected(rig, infra, rig.runtime().startReplica().process().pid());
        } else {
          rig.runtime().kill();
          which = "runtime 1 (`Main`)";
          rig.runtime().start();
          awaitConnected(rig, infra, rig.runtime().process().pid());
        }
        return which + " SIGKILL, restarted";
      }
      case 1 -> {
        return "closed " + infra.rabbit.closeConnections(rig.vhost, name -> name.startsWith("baton-"))
            + " broker connections";
      }
      case 2 -> {
        infra.rabbit.stopApp();
        Wait.sleep(5_000);
        infra.rabbit.startApp();
        return "broker stop_app 5 s, start_app";
      }
      case 3 -> {
        infra.postgres.stopServer();
        Wait.sleep(5_000);
        infra.postgres.startServer();
        return "PostgreSQL stopped 5 s, started";
      }
      default -> {
        rig.workers().process("pay").kill();
        rig.workers().startProcess("pay", 0);
        return "pay worker SIGKILL, restarted";
      }
    }
  }

  /**
   * Waits until a restarted runtime's broker connections are all listed by the management API with their channels
   * (it shows a new connection's channels a few seconds late): its first sample, its baseline, must see them.
   */
  private static void awaitConnected(Rig rig, Infra infra, long pid) {
    Wait.until(Duration.ofSeconds(60), () -> {
      List<Integer> amqp = ProcessProbe.localPortsTo(pid, infra.rabbit.amqpPort());
      try {
        return amqp.size() >= 2 && infra.rabbit.connections(rig.vhost).stream()
            .filter(c -> amqp.contains(c.getPeerPort()) && c.getChannels() > 0).count() == amqp.size();
      } catch (RuntimeException notYet) {
        return false;
      }
    });
  }

  private static Sample sample(Rig rig, Infra infra, long start) {
    List<ConnectionInfo> connections;
    try {
      connections = infra.rabbit.connections(rig.vhost);
    } catch (RuntimeException e) {
      connections = List.of(); // broker restarting
    }
    List<Long> pids = List.of(rig.runtime().process().pid(),
        rig.runtime().replicas().get(rig.runtime().replicas().size() - 1).process().pid());
    List<Figures> runtimes = new ArrayList<>();
    for (long pid : pids) {
      long heap = ProcessProbe.heapAfterGcKb(pid);
      long[] status = ProcessProbe.rssKbAndThreads(pid);
      List<Integer> amqp = ProcessProbe.localPortsTo(pid, infra.rabbit.amqpPort());
      int channels = connections.stream().filter(c -> amqp.contains(c.getPeerPort()))
          .mapToInt(ConnectionInfo::getChannels).sum();
      int db = ProcessProbe.localPortsTo(pid, infra.postgres.port()).size();
      runtimes.add(new Figures(pid, heap, status[0], status[1], amqp.size(), channels, db));
    }
    double load = 0;
    try {
      load = Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (Exception e) {
      // not Linux
    }
    return new Sample((System.nanoTime() - start) / 6e10, runtimes, rig.tally().succeeded(), load);
  }

  private static String report(int minutes, String load, double measured, double rate, List<Sample> samples,
      List<String> faults, Tally.Counts counts, boolean drained) {
    StringBuilder sb = new StringBuilder();
    sb.append("Soak, ").append(ZonedDateTime.now()).append(": two runtimes, ").append(minutes).append(" min at ")
        .append(String.format(Locale.ROOT, "%.1f", rate)).append(" instances/s (half of the measured ")
        .append(String.format(Locale.ROOT, "%.1f", measured)).append("/s), a fault every 3 min. Load before: ")
        .append(load).append("\n");
    List<Sample> s = samples.subList(1, samples.size());
    for (int r = 0; r < RUNTIME_NAMES.size(); r++) {
      int i = r;
      List<Figures> f = s.stream().map(x -> x.runtimes().get(i)).toList();
      sb.append("\n| ").append(RUNTIME_NAMES.get(r)).append(" | first | last | max |\n|---|---|---|---|\n");
      row(sb, "heap after full GC (MiB)", f, x -> x.heapKb() / 1024.0);
      row(sb, "RSS (MiB)", f, x -> x.rssKb() / 1024.0);
      row(sb, "threads", f, x -> x.threads());
      row(sb, "broker connections", f, x -> x.connections());
      row(sb, "broker channels", f, x -> x.channels());
      row(sb, "database connections", f, x -> x.dbConnections());
      sb.append("\nProcesses: ").append(String.join(", ", f.stream().map(Figures::pid).distinct()
          .map(pid -> "pid " + pid + " from minute " + String.format(Locale.ROOT, "%.1f", s.stream()
              .filter(x -> x.runtimes().get(i).pid() == pid).findFirst().orElseThrow().minute())).toList()))
          .append("\n");
    }
    double maxLoad = s.stream().mapToDouble(Sample::load1).max().orElse(0);
    sb.append(String.format(Locale.ROOT, "%nMachine load (1 min average, 2 CPUs): first %.2f, last %.2f, max %.2f%n",
        s.get(0).load1(), s.get(s.size() - 1).load1(), maxLoad));
    sb.append("\nInstances: ").append(counts.accepted()).append(" accepted, lost ").append(counts.lost())
        .append(", applied twice ").append(counts.appliedTwice()).append(", stuck ").append(counts.stuck())
        .append(", parked ").append(counts.parked()).append(", leftovers ").append(counts.leftovers())
        .append(drained ? "" : " (NOT DRAINED)").append("\n\nFaults:\n");
    faults.forEach(f -> sb.append("- ").append(f).append('\n'));
    sb.append("\nSamples (minute; per runtime: pid, heap KiB, RSS KiB, threads, connections, channels, db connections;"
        + " succeeded, load):\n");
    samples.forEach(x -> {
      sb.append(String.format(Locale.ROOT, "%.1f", x.minute()));
      x.runtimes().forEach(f -> sb.append(String.format(Locale.ROOT, " | %d %d %d %d %d %d %d", f.pid(), f.heapKb(),
          f.rssKb(), f.threads(), f.connections(), f.channels(), f.dbConnections())));
      sb.append(String.format(Locale.ROOT, " | %d %.2f%n", x.succeeded(), x.load1()));
    });
    return sb.toString();
  }

  private static void row(StringBuilder sb, String name, List<Figures> f,
      java.util.function.ToDoubleFunction<Figures> value) {
    double max = f.stream().mapToDouble(value).max().orElse(0);
    sb.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f |%n", name, value.applyAsDouble(f.get(0)),
        value.applyAsDouble(f.get(f.size() - 1)), max));
  }
}
