package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.reliability.infra.Cmd;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.suite.Rig;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The soak ({@code -Psoak}, {@code baton.soak.minutes}, 30 by default): the throughput of the rig is measured for a
 * minute, then instances are started at half of it for the whole run while a fault is injected every few minutes
 * (all broker connections closed; the broker application stopped and started; PostgreSQL restarted; a worker killed
 * with SIGKILL). Every 30 s the runtime process's heap after a full GC, its threads and RSS, the vhost's broker
 * connections and channels and the runtime's database connections are sampled. Verdict: nothing lost, nothing
 * applied twice, nothing stuck, and the figures flat (last sample near the first, no growth trend). Written to
 * {@code .baton/reliability/soak.md}.
 */
@EnabledIfSystemProperty(named = "baton.soak", matches = "true")
class SoakIT {

  record Sample(double minute, long heapKb, long rssKb, int threads, int connections, int channels, long dbConnections,
      long succeeded, double load1) {}

  @Test
  void halfTheThroughputWithFaultsForThirtyMinutes() throws Exception {
    int minutes = Integer.getInteger("baton.soak.minutes", 30);
    Infra infra = Infra.get();
    try (Rig rig = Rig.create(infra, "soak")) {
      rig.quickStart = false;
      rig.startRuntime();
      for (String s : List.of("stock", "pay", "ship")) {
        rig.startWorkerProcess(s, 0);
      }
      Rig.sleep(5_000);
      String load = Cmd.run(List.of("uptime"), Map.of(), 10).trim();

      // 1. calibration: as fast as 8 clients can start instances, for 60 s
      AtomicInteger next = new AtomicInteger();
      ExecutorService clients = Executors.newFixedThreadPool(8);
      Instant calibrationEnd = Instant.now().plusSeconds(60);
      long before = rig.succeeded();
      for (int t = 0; t < 8; t++) {
        clients.submit(() -> {
          while (Instant.now().isBefore(calibrationEnd)) {
            rig.startOne("soak-" + next.getAndIncrement(), calibrationEnd.plusSeconds(30));
          }
        });
      }
      Rig.sleep(20_000);
      long c0 = rig.succeeded();
      long t0 = System.nanoTime();
      Rig.sleep(40_000);
      double measured = (rig.succeeded() - c0) / ((System.nanoTime() - t0) / 1e9);
      clients.shutdown();
      clients.awaitTermination(2, TimeUnit.MINUTES);
      Rig.await(Duration.ofMinutes(2), () -> rig.succeeded() >= rig.accepted.size());
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
          starters.submit(() -> rig.startOne(key, end.plusSeconds(120)));
        }
      }, 0, 100, TimeUnit.MILLISECONDS);
      long start = System.nanoTime();
      int fault = 0;
      long nextFault = start + TimeUnit.MINUTES.toNanos(3);
      samples.add(sample(rig, infra, start));
      while (Instant.now().isBefore(end)) {
        Rig.sleep(30_000);
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
      boolean drained = Rig.await(Duration.ofMinutes(5), () -> rig.succeeded() >= rig.accepted.size()
          && rig.leftovers() == 0);
      samples.add(sample(rig, infra, start));
      Rig.Counts counts = rig.counts();

      String report = report(minutes, load, measured, rate, samples, faults, counts, drained);
      System.out.println(report);
      Path file = Path.of(System.getProperty("baton.repo.root", ".")).resolve(".baton/reliability/soak.md");
      Files.createDirectories(file.getParent());
      Files.writeString(file, report);

      assertThat(drained).as("drained").isTrue();
      assertThat(counts.lost()).isZero();
      assertThat(counts.appliedTwice()).isZero();
      assertThat(counts.stuck()).isZero();
      Sample first = samples.get(1);
      Sample last = samples.get(samples.size() - 1);
      assertThat(last.heapKb()).as("heap after GC stays flat").isLessThan(first.heapKb() * 3 / 2 + 16_384);
      assertThat(last.connections()).as("broker connections stay flat").isEqualTo(first.connections());
      assertThat(last.channels()).as("channels stay flat").isLessThanOrEqualTo(first.channels());
      assertThat(last.threads()).as("threads stay flat").isLessThan(first.threads() + 10);
    }
  }

  /** One fault of the rotation; returns what it did. */
  private static String inject(Rig rig, Infra infra, int n) {
    switch (n % 4) {
      case 0 -> {
        return "closed " + infra.rabbit.closeConnections(rig.vhost, name -> name.startsWith("baton-"))
            + " broker connections";
      }
      case 1 -> {
        infra.rabbit.stopApp();
        Rig.sleep(5_000);
        infra.rabbit.startApp();
        return "broker stop_app 5 s, start_app";
      }
      case 2 -> {
        infra.postgres.stopServer();
        Rig.sleep(5_000);
        infra.postgres.startServer();
        return "PostgreSQL stopped 5 s, started";
      }
      default -> {
        rig.workerProcess("pay").kill();
        rig.startWorkerProcess("pay", 0);
        return "pay worker SIGKILL, restarted";
      }
    }
  }

  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  private static Sample sample(Rig rig, Infra infra, long start) {
    long pid = rig.runtimeProcess().pid();
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    Cmd.run(List.of(jcmd, String.valueOf(pid), "GC.run"), Map.of(), 60, false);
    String heap = Cmd.run(List.of(jcmd, String.valueOf(pid), "GC.heap_info"), Map.of(), 60, false);
    long heapKb = 0;
    for (String line : heap.lines().toList()) {
      if (line.contains("generation")) {
        Matcher m = USED.matcher(line);
        if (m.find()) {
          heapKb += Long.parseLong(m.group(1));
        }
      }
    }
    long rss = 0;
    int threads = 0;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("\\D", ""));
        } else if (line.startsWith("Threads:")) {
          threads = Integer.parseInt(line.replaceAll("\\D", ""));
        }
      }
    } catch (Exception e) {
      // process gone: zeros
    }
    int connections = 0;
    int channels = 0;
    try {
      List<com.rabbitmq.http.client.domain.ConnectionInfo> runtime = infra.rabbit.connections(rig.vhost,
          "baton-runtime");
      connections = runtime.size();
      channels = runtime.stream().mapToInt(c -> c.getChannels()).sum();
    } catch (RuntimeException e) {
      // broker restarting
    }
    long db = rig.runtimeCount("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        + " AND application_name = 'baton-runtime'");
    double load = 0;
    try {
      load = Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (Exception e) {
      // not Linux
    }
    return new Sample((System.nanoTime() - start) / 6e10, heapKb, rss, threads, connections, channels, db,
        rig.succeeded(), load);
  }

  private static String report(int minutes, String load, double measured, double rate, List<Sample> samples,
      List<String> faults, Rig.Counts counts, boolean drained) {
    StringBuilder sb = new StringBuilder();
    sb.append("Soak, ").append(ZonedDateTime.now()).append(": ").append(minutes).append(" min at ")
        .append(String.format(Locale.ROOT, "%.1f", rate)).append(" instances/s (half of the measured ")
        .append(String.format(Locale.ROOT, "%.1f", measured)).append("/s), a fault every 3 min. Load before: ")
        .append(load).append("\n\n");
    sb.append("| figure (runtime process) | first | last | max |\n|---|---|---|---|\n");
    List<Sample> s = samples.subList(1, samples.size());
    row(sb, "heap after full GC (MiB)", s, x -> x.heapKb() / 1024.0);
    row(sb, "RSS (MiB)", s, x -> x.rssKb() / 1024.0);
    row(sb, "threads", s, x -> x.threads());
    row(sb, "broker connections", s, x -> x.connections());
    row(sb, "broker channels", s, x -> x.channels());
    row(sb, "database connections", s, x -> x.dbConnections());
    row(sb, "machine load (1 min average; 2 CPUs)", s, x -> x.load1());
    sb.append("\nInstances: ").append(counts.accepted()).append(" accepted, lost ").append(counts.lost())
        .append(", applied twice ").append(counts.appliedTwice()).append(", stuck ").append(counts.stuck())
        .append(", parked ").append(counts.parked()).append(", leftovers ").append(counts.leftovers())
        .append(drained ? "" : " (NOT DRAINED)").append("\n\nFaults:\n");
    faults.forEach(f -> sb.append("- ").append(f).append('\n'));
    sb.append("\nSamples (minute, heap KiB, RSS KiB, threads, connections, channels, db connections, succeeded, load):\n");
    samples.forEach(x -> sb.append(String.format(Locale.ROOT, "%.1f %d %d %d %d %d %d %d %.2f%n", x.minute(),
        x.heapKb(), x.rssKb(), x.threads(), x.connections(), x.channels(), x.dbConnections(), x.succeeded(),
        x.load1())));
    return sb.toString();
  }

  private static void row(StringBuilder sb, String name, List<Sample> s,
      java.util.function.ToDoubleFunction<Sample> f) {
    double max = s.stream().mapToDouble(f).max().orElse(0);
    sb.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f |%n", name, f.applyAsDouble(s.get(0)),
        f.applyAsDouble(s.get(s.size() - 1)), max));
  }
}
