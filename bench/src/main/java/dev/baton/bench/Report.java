package dev.baton.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What a run found: written as Markdown (stdout and {@code report.md}) and JSON ({@code report.json}). */
final class Report {


  final BenchConfig config;
  final Instant startedAt = Instant.now();
  final Machine machineBefore = Machine.now();
  /** The machine's CPU time when the run began: what the hypervisor took of it during the run shows in the report. */
  private final Resources.CpuTimes cpuAtStart = Resources.CpuTimes.read();
  Double ceiling;
  final List<Double> ceilingRuns = new ArrayList<>();
  Resources.Usage ceilingUsage;
  BatonRun.Drain drain;
  BatonRun.BatchStarts batch;
  /** The ceiling's closed loop with starts, before and after Baton's runs. */
  final List<Ceiling.WithStarts> ceilingWithStarts = new ArrayList<>();
  BatonRun.Sustained sustained;
  /** Half the sustained rate, with the raw pipeline at the same rate when the ceiling phase runs. */
  RatePoint half;
  /** Light load ({@code --light-rate}), with the raw pipeline at the same rate. */
  RatePoint light;
  long startFailures;
  /** How long the closed loop ran after the warm-up until the JIT compilers settled (0: not run). */
  double jitSettleSeconds;
  final List<SweepPoint> sweeps = new ArrayList<>();
  final List<String> sweepNotes = new ArrayList<>();
  /** The shape sweep's map beside as many tasks in a line (null when it did not run). */
  MapShape mapShape;
  /** The limit sweep's drain with an unreached maxInFlight over the drain without (NaN when it did not run). */
  double limitRatio = Double.NaN;
  Growth.Result growth;
  OperatorScale.Result operator;
  String profile;

  Report(BenchConfig config) {
    this.config = config;
  }

  /** One point of a sweep: the knob's value and the drain of preloaded instances (and the ceiling's, if run). */
  record SweepPoint(String sweep, String value, double stepsPerSecond, Double ceilingStepsPerSecond,
      double startsPerSecond, Percentiles stepLatency, Resources.Usage usage) {}

  /**
   * The shape sweep's map of {@code items} items (one task per iteration) and as many tasks in a line, the same
   * number of tasks each ({@code instances} instances, after a warm-up of {@code warmUpInstances}), in the same run.
   *
   * @param mapConcurrency the map's maxConcurrency; 0: unset, every iteration at once
   * @param linearStepsPerSecond the line's drain (the sweep's steps/s)
   * @param mapStepsPerSecond the map's drain: with every iteration at once, its start dispatched all its tasks
   * @param linearStartToFinish tasks per second from the preload's first start to the last result applied
   * @param mapStartToFinish the same for the map: every dispatch counted, as in the line's
   */
  record MapShape(int items, int mapConcurrency, int instances, int warmUpInstances, double linearStepsPerSecond,
      double mapStepsPerSecond, double linearStartToFinish, double mapStartToFinish, double linearStartsPerSecond,
      double mapStartsPerSecond) {

    double drainRatio() {
      return mapStepsPerSecond / linearStepsPerSecond;
    }

    double startToFinishRatio() {
      return mapStartToFinish / linearStartToFinish;
    }

    String note() {
      return String.format(Locale.ROOT, "Map: a map of %d items (maxConcurrency %s) at **%.2f** of the steps/s of "
          + "%d tasks in a line start to finish (preload, relay and drain: %s / %s tasks/s), %.2f drained (%s / %s "
          + "steps/s%s); %,d instances of each, %,d tasks; starts %s / %s per second.", items,
          mapConcurrency > 0 ? String.valueOf(mapConcurrency) : "unset: every iteration at once",
          startToFinishRatio(), items, f0(mapStartToFinish), f0(linearStartToFinish), drainRatio(),
          f0(mapStepsPerSecond), f0(linearStepsPerSecond),
          mapConcurrency == 0 || mapConcurrency >= items
              ? ": the map's start dispatched all its tasks, its drain only applies their results" : "",
          instances, (long) instances * items, f0(mapStartsPerSecond), f0(linearStartsPerSecond));
    }
  }

  /** Whether the machine looked quiet: load average and other Java processes (builds, tests) running. */
  record Machine(int cpus, double loadAverage, long otherJavaProcesses) {
    static Machine now() {
      long self = ProcessHandle.current().pid();
      long others = ProcessHandle.allProcesses()
          .filter(p -> p.pid() != self)
          .filter(p -> p.info().command().map(c -> c.endsWith("/java") || c.endsWith("/mvn")).orElse(false))
          .count();
      return new Machine(Runtime.getRuntime().availableProcessors(),
          java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), others);
    }

    boolean quiet() {
      return loadAverage < 0.5 && otherJavaProcesses == 0;
    }
  }

  /**
   * The machine's CPU time when the run's figures were first put out: report.md, report.json and stdout all give the
   * share the hypervisor took up to then, not each its own.
   */
  private Resources.CpuTimes cpuAtEnd;

  /** The share of the machine's CPU time the hypervisor took during the run (NaN where unknown). */
  double stealShareDuringRun() {
    if (cpuAtEnd == null) {
      cpuAtEnd = Resources.CpuTimes.read();
    }
    return cpuAtEnd == null ? Double.NaN : cpuAtEnd.stealShareSince(cpuAtStart);
  }

  double stepsPerSecond() {
    return drain != null ? drain.stepsPerSecond() : sustained != null ? sustained.stepsPerSecond() : Double.NaN;
  }

  Double ratio() {
    return ceiling == null || drain == null ? null : drain.stepsPerSecond() / ceiling;
  }

  /** The mean of the ceiling-with-starts runs; null when none ran. */
  Double ceilingWithStartsStepsPerSecond() {
    return ceilingWithStarts.isEmpty() ? null
        : ceilingWithStarts.stream().mapToDouble(Ceiling.WithStarts::stepsPerSecond).average().orElseThrow();
  }

  /** Sustained steps/s (starts included) over the ceiling's with starts: like against like. */
  Double ratioSustainedToCeiling() {
    Double c = ceilingWithStartsStepsPerSecond();
    return c == null || sustained == null || c <= 0 ? null : sustained.stepsPerSecond() / c;
  }

  /** The CPU per step of the ceiling's drain: its resources are those of its first run. */
  private Resources.PerStep ceilingDrainPerStep() {
    return ceilingUsage.perStep(ceilingRuns.isEmpty() ? Double.NaN : ceilingRuns.get(0));
  }

  /** The CPU per step of the ceiling's closed loop with starts: its resources are those of its first run. */
  private Resources.PerStep ceilingWithStartsPerStep() {
    Ceiling.WithStarts first = ceilingWithStarts.get(0);
    return first.usage().perStep(first.stepsPerSecond());
  }

  // --- Markdown --------------------------------------------------------------------------------------------------

  String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("## Baton benchmark: ").append(config.steps()).append("-step workflows, ")
        .append(config.queueType().argument()).append(" queues, ").append(config.payloadBytes())
        .append(" B input\n\n");
    Machine m = machineBefore;
    md.append(String.format(Locale.ROOT, "Machine: %d CPUs, load average %.2f at the start, %d other Java/Maven "
        + "process(es) running: %s. Real RabbitMQ and PostgreSQL on the same machine; durable queues, persistent "
        + "messages, publisher confirms, manual acks, synchronous commit.%n%n", m.cpus(), m.loadAverage(),
        m.otherJavaProcesses(), m.quiet() ? "quiet" : "NOT quiet (figures are noisy; compare the ratio)"));
    double steal = stealShareDuringRun();
    if (!Double.isNaN(steal)) {
      md.append(String.format(Locale.ROOT, "The hypervisor took %.1f%% of this machine's CPU time during the run "
          + "(steal: time its CPUs had work but ran another guest's); every figure moves with it, the ratios least.%n%n",
          100 * steal));
    }
    if (jitSettleSeconds > 0) {
      md.append(String.format(Locale.ROOT, "Measured on a warm JVM: after the warm-up, the closed loop ran %.0f s "
          + "until the JIT compilers settled; the ceilings ran after that, and the start phases (preload, batch) "
          + "are each their second round.%n%n", jitSettleSeconds));
    }
    List<RatePoint> ratePoints = java.util.stream.Stream.of(half, light).filter(java.util.Objects::nonNull).toList();
    if (drain != null || sustained != null || !ratePoints.isEmpty()) {
      md.append("| throughput | Baton | ceiling (raw amqp-client + JDBC) | Baton / ceiling |\n|---|---|---|---|\n");
      if (drain != null) {
        md.append(row("step loop at saturation (" + drain.instances() + " instances preloaded)",
            f0(drain.stepsPerSecond()) + " steps/s (" + f0(drain.stepsPerSecond() / config.steps())
                + " workflows/s)",
            ceiling == null ? "not run" : f0(ceiling) + " steps/s" + (ceilingRuns.size() > 1
                ? " (mean of " + String.join(" before and ", ceilingRuns.stream().map(Report::f0).toList())
                    + " after)" : ""),
            ratio() == null ? "" : "**" + f2(ratio()) + "**"));
        md.append(row("single starts through the HTTP API (" + config.httpClients() + " clients, workers idle)",
            f0(drain.startsPerSecond()) + " starts/s", "", ""));
      }
      if (batch != null) {
        md.append(row("batch starts (" + batch.clients() + " clients, " + batch.batchSize()
                + " per request, workers idle)", f0(batch.startsPerSecond()) + " starts/s", "", ""));
      }
      if (sustained != null) {
        Double c = ceilingWithStartsStepsPerSecond();
        md.append(row("sustained, starts included (" + sustained.inFlight() + " instances kept in flight, "
                + f0(sustained.seconds()) + " s)",
            f0(sustained.stepsPerSecond()) + " steps/s, " + f0(sustained.workflowsPerSecond()) + " workflows/s, "
                + f0(sustained.startsPerSecond()) + " starts/s",
            c == null ? "not run" : f0(c) + " steps/s with starts" + (ceilingWithStarts.size() > 1
                ? " (mean of " + String.join(" before and ", ceilingWithStarts.stream()
                    .map(w -> f0(w.stepsPerSecond())).toList()) + " after)" : ""),
            ratioSustainedToCeiling() == null ? "" : "**" + f2(ratioSustainedToCeiling()) + "**"));
      }
      ratePoints.forEach(p -> md.append(p.throughputRow()));
      md.append("\n| latency (ms, from the runtime's DB timestamps) | p50 | p95 | p99 | samples |\n"
          + "|---|---|---|---|---|\n");
      if (drain != null) {
        md.append(latency("step (dispatch → result applied), draining the preload", drain.stepLatency()));
      }
      if (sustained != null) {
        md.append(latency("step, sustained saturation", sustained.stepLatency()));
        md.append(latency("end to end (start → finished), sustained saturation", sustained.endToEnd()));
      }
      ratePoints.forEach(p -> md.append(p.latencyRows()));
      if (!ratePoints.isEmpty()) {
        md.append("\n| latency against the raw pipeline, same rate, same run (ms) | Baton | raw pipeline | Baton / raw "
            + "| target |\n|---|---|---|---|---|\n");
        ratePoints.forEach(p -> md.append(p.againstRawRows()));
      }
      md.append("\n| resources (cores busy on average) | bench JVM (runtime + workers + load; its JIT compilers) | PostgreSQL | RabbitMQ "
          + "| whole machine busy (+ taken by the hypervisor) | load avg (1 min) | heap after GC / committed |\n|---|---|---|---|---|---|---|\n");
      if (drain != null) {
        md.append(usage("starting the preload (HTTP API, workers idle)", drain.startUsage()));
        md.append(usage("draining the preload", drain.usage()));
      }
      if (batch != null) {
        md.append(usage("batch starts (workers idle)", batch.usage()));
      }
      if (sustained != null) {
        md.append(usage("sustained saturation", sustained.usage()));
      }
      ratePoints.forEach(p -> md.append(p.usageRows()));
      if (ceilingUsage != null) {
        md.append(usage("ceiling, draining its preload", ceilingUsage));
      }
      if (!ceilingWithStarts.isEmpty()) {
        md.append(usage("ceiling with starts (first run)", ceilingWithStarts.get(0).usage()));
      }
      // Inside this block a phase that applies steps ran: the table has a row.
      md.append("\n| CPU per step (ms of CPU time per step applied, with the starts of the phases that run them; "
          + "the JVM without its compilers) | bench JVM | PostgreSQL | RabbitMQ | whole machine |\n"
          + "|---|---|---|---|---|\n");
      if (drain != null) {
        md.append(perStep("draining the preload", drain.usage().perStep(drain.stepsPerSecond())));
      }
      if (sustained != null) {
        md.append(perStep("sustained saturation", sustained.usage().perStep(sustained.stepsPerSecond())));
      }
      if (ceilingUsage != null) {
        md.append(perStep("ceiling, draining its preload", ceilingDrainPerStep()));
      }
      if (!ceilingWithStarts.isEmpty()) {
        md.append(perStep("ceiling with starts (first run)", ceilingWithStartsPerStep()));
      }
      ratePoints.forEach(p -> md.append(p.perStepRows()));
      ratePoints.forEach(p -> md.append(p.hopsTable()));
      if (startFailures > 0) {
        md.append("\n").append(startFailures).append(" start request(s) failed (see the log).\n");
      }
    } else if (ceiling != null) {
      md.append("Ceiling: ").append(f0(ceiling)).append(" steps/s\n");
    }
    if (!sweeps.isEmpty()) {
      md.append("\n### Sweeps (each point: a fresh vhost and database, ").append(config.instances())
          .append(" instances preloaded then drained)\n\n")
          .append("| sweep | value | Baton steps/s | ceiling steps/s | Baton / ceiling | starts/s | step p50 / p99 ms "
              + "| cores: JVM / PostgreSQL / RabbitMQ / machine |\n|---|---|---|---|---|---|---|---|\n");
      for (SweepPoint p : sweeps) {
        md.append("| ").append(p.sweep()).append(" | ").append(p.value()).append(" | ")
            .append(f0(p.stepsPerSecond())).append(" | ")
            .append(p.ceilingStepsPerSecond() == null ? "" : f0(p.ceilingStepsPerSecond())).append(" | ")
            .append(p.ceilingStepsPerSecond() == null ? "" : f2(p.stepsPerSecond() / p.ceilingStepsPerSecond()))
            .append(" | ").append(f0(p.startsPerSecond())).append(" | ")
            .append(f0(p.stepLatency().p50())).append(" / ").append(f0(p.stepLatency().p99())).append(" | ")
            .append(f2(p.usage().jvmCores())).append(" / ").append(f2(p.usage().postgresCores())).append(" / ")
            .append(f2(p.usage().rabbitCores())).append(" / ").append(f2(p.usage().machineCores())).append(" |\n");
      }
      sweepNotes.forEach(n -> md.append("\n").append(n).append("\n"));
    }
    if (growth != null) {
      md.append("\n").append(growth.markdown());
    }
    if (operator != null) {
      md.append("\n").append(operator.markdown());
    }
    if (profile != null) {
      md.append("\n### Profile (JFR execution samples, top frames)\n\n```\n").append(profile).append("```\n");
    }
    return md.toString();
  }

  private static String row(String what, String baton, String ceiling, String ratio) {
    return "| " + what + " | " + baton + " | " + ceiling + " | " + ratio + " |\n";
  }

  static String latency(String what, Percentiles p) {
    return "| " + what + " | " + f1(p.p50()) + " | " + f1(p.p95()) + " | " + f1(p.p99()) + " | " + p.count() + " |\n";
  }

  static String usage(String what, Resources.Usage u) {
    return "| " + what + " | " + f2(u.jvmCores()) + " (JIT " + f2(u.jitCores()) + ") | " + f2(u.postgresCores()) + " | " + f2(u.rabbitCores())
        + " | " + f2(u.machineCores()) + " (+ " + f2(u.stealCores()) + ") of " + u.machineCpus() + " | " + f2(u.loadAverage()) + " | " + f0(u.heapAfterGcMb()) + " / " + f0(u.heapCommittedMb())
        + " MB |\n";
  }

  static String perStep(String what, Resources.PerStep p) {
    return "| " + what + " | " + f2(p.jvmMs()) + " | " + f2(p.postgresMs()) + " | " + f2(p.rabbitMs()) + " | "
        + f2(p.machineMs()) + " |\n";
  }

  static String f0(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
  }

  static String f1(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
  }

  static String f2(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
  }

  // --- JSON ------------------------------------------------------------------------------------------------------

  ObjectNode json() {
    ObjectNode root = Json.PRETTY.createObjectNode();
    root.put("startedAt", startedAt.toString());
    ObjectNode machine = root.putObject("machine");
    machine.put("cpus", machineBefore.cpus());
    num(machine, "loadAverageAtStart", machineBefore.loadAverage());
    machine.put("otherJavaProcesses", machineBefore.otherJavaProcesses());
    machine.put("quiet", machineBefore.quiet());
    num(machine, "stealShareDuringRun", stealShareDuringRun());
    num(root, "jitSettleSeconds", jitSettleSeconds);
    root.set("config", Json.PRETTY.valueToTree(config));
    num(root, "stepsPerSecond", stepsPerSecond());
    num(root, "workflowsPerSecond", stepsPerSecond() / config.steps());
    num(root, "ceilingStepsPerSecond", ceiling == null ? Double.NaN : ceiling);
    num(root, "ratioToCeiling", ratio() == null ? Double.NaN : ratio());
    if (ceilingUsage != null || !ceilingRuns.isEmpty()) {
      ObjectNode c = root.putObject("ceiling");
      ArrayNode runs = c.putArray("stepsPerSecondRuns");
      ceilingRuns.forEach(v -> runs.add(Math.round(v * 100) / 100.0));
      if (ceilingUsage != null) {
        c.set("resources", usage(ceilingUsage));
        c.set("cpuPerStepMs", perStep(ceilingDrainPerStep()));
      }
    }
    Percentiles headline = sustained != null ? sustained.stepLatency()
        : drain != null ? drain.stepLatency() : Percentiles.NONE;
    root.set("latencyMs", percentiles(headline));
    root.put("latencyMeaning", sustained != null ? "step latency (dispatch to result applied) at sustained saturation"
        : "step latency while draining the preload");
    root.put("startFailures", startFailures);
    ObjectNode starts = root.putObject("starts");
    num(starts, "singlePerSecond", drain == null ? Double.NaN : drain.startsPerSecond());
    starts.put("httpClients", config.httpClients());
    num(starts, "batchPerSecond", batch == null ? Double.NaN : batch.startsPerSecond());
    if (batch != null) {
      starts.put("batchSize", batch.batchSize());
      starts.put("batchClients", batch.clients());
      num(starts, "batchSeconds", batch.seconds());
      starts.set("batchResources", usage(batch.usage()));
    }
    ObjectNode withStarts = root.putObject("ceilingWithStarts");
    Double cws = ceilingWithStartsStepsPerSecond();
    num(withStarts, "stepsPerSecond", cws == null ? Double.NaN : cws);
    ArrayNode cwsRuns = withStarts.putArray("stepsPerSecondRuns");
    ceilingWithStarts.forEach(w -> cwsRuns.add(Math.round(w.stepsPerSecond() * 100) / 100.0));
    num(withStarts, "startsPerSecond", ceilingWithStarts.stream()
        .mapToDouble(Ceiling.WithStarts::startsPerSecond).average().orElse(Double.NaN));
    if (!ceilingWithStarts.isEmpty()) {
      withStarts.put("inFlight", ceilingWithStarts.get(0).inFlight());
      withStarts.set("resources", usage(ceilingWithStarts.get(0).usage()));
      withStarts.set("cpuPerStepMs", perStep(ceilingWithStartsPerStep()));
    }
    num(root, "ratioSustainedToCeiling", ratioSustainedToCeiling() == null ? Double.NaN : ratioSustainedToCeiling());
    if (drain != null) {
      ObjectNode d = root.putObject("drain");
      d.put("instances", drain.instances());
      num(d, "stepsPerSecond", drain.stepsPerSecond());
      num(d, "startsPerSecond", drain.startsPerSecond());
      num(d, "drainSeconds", drain.drainSeconds());
      num(d, "relaySecondsAfterStarts", drain.relaySeconds());
      d.set("stepLatencyMs", percentiles(drain.stepLatency()));
      d.set("resources", usage(drain.usage()));
      d.set("cpuPerStepMs", perStep(drain.usage().perStep(drain.stepsPerSecond())));
      d.set("startResources", usage(drain.startUsage()));
    }
    if (sustained != null) {
      ObjectNode s = root.putObject("sustained");
      s.put("inFlight", sustained.inFlight());
      num(s, "seconds", sustained.seconds());
      num(s, "stepsPerSecond", sustained.stepsPerSecond());
      num(s, "workflowsPerSecond", sustained.workflowsPerSecond());
      num(s, "startsPerSecond", sustained.startsPerSecond());
      s.set("stepLatencyMs", percentiles(sustained.stepLatency()));
      s.set("endToEndLatencyMs", percentiles(sustained.endToEnd()));
      s.set("resources", usage(sustained.usage()));
      s.set("cpuPerStepMs", perStep(sustained.usage().perStep(sustained.stepsPerSecond())));
    }
    if (half != null) {
      root.set("halfRate", half.json());
    }
    if (light != null) {
      root.set("lightRate", light.json());
    }
    ArrayNode sw = root.putArray("sweeps");
    for (SweepPoint p : sweeps) {
      ObjectNode o = sw.addObject();
      o.put("sweep", p.sweep());
      o.put("value", p.value());
      num(o, "stepsPerSecond", p.stepsPerSecond());
      num(o, "ceilingStepsPerSecond", p.ceilingStepsPerSecond() == null ? Double.NaN : p.ceilingStepsPerSecond());
      num(o, "ratioToCeiling", p.ceilingStepsPerSecond() == null ? Double.NaN
          : p.stepsPerSecond() / p.ceilingStepsPerSecond());
      num(o, "startsPerSecond", p.startsPerSecond());
      o.set("stepLatencyMs", percentiles(p.stepLatency()));
      o.set("resources", usage(p.usage()));
    }
    if (!Double.isNaN(limitRatio)) {
      ObjectNode l = root.putObject("limit");
      l.put("maxInFlight", Sweeps.UNREACHED_LIMIT);
      num(l, "drainRatio", limitRatio);
    }
    if (mapShape != null) {
      ObjectNode m = root.putObject("mapShape");
      m.put("items", mapShape.items());
      if (mapShape.mapConcurrency() > 0) {
        m.put("maxConcurrency", mapShape.mapConcurrency());
      } else {
        m.putNull("maxConcurrency"); // unset: every iteration at once
      }
      m.put("instances", mapShape.instances());
      m.put("tasks", (long) mapShape.instances() * mapShape.items());
      m.put("warmUpInstances", mapShape.warmUpInstances());
      num(m, "linearStepsPerSecond", mapShape.linearStepsPerSecond());
      num(m, "mapStepsPerSecond", mapShape.mapStepsPerSecond());
      num(m, "drainRatio", mapShape.drainRatio());
      num(m, "linearStartToFinishStepsPerSecond", mapShape.linearStartToFinish());
      num(m, "mapStartToFinishStepsPerSecond", mapShape.mapStartToFinish());
      num(m, "startToFinishRatio", mapShape.startToFinishRatio());
      num(m, "linearStartsPerSecond", mapShape.linearStartsPerSecond());
      num(m, "mapStartsPerSecond", mapShape.mapStartsPerSecond());
    }
    if (growth != null) {
      root.set("growth", growth.json());
    }
    if (operator != null) {
      root.set("operator", operator.json());
    }
    return root;
  }

  static ObjectNode percentiles(Percentiles p) {
    ObjectNode o = Json.PRETTY.createObjectNode();
    num(o, "p50", p.p50());
    num(o, "p95", p.p95());
    num(o, "p99", p.p99());
    o.put("samples", p.count());
    return o;
  }

  static ObjectNode usage(Resources.Usage u) {
    ObjectNode o = Json.PRETTY.createObjectNode();
    num(o, "jvmCores", u.jvmCores());
    num(o, "jitCores", u.jitCores());
    num(o, "machineCores", u.machineCores());
    num(o, "stealCores", u.stealCores());
    num(o, "postgresCores", u.postgresCores());
    num(o, "rabbitmqCores", u.rabbitCores());
    o.put("machineCpus", u.machineCpus());
    num(o, "loadAverage", u.loadAverage());
    num(o, "heapAfterGcMb", u.heapAfterGcMb());
    num(o, "heapCommittedMb", u.heapCommittedMb());
    return o;
  }

  static ObjectNode perStep(Resources.PerStep p) {
    ObjectNode o = Json.PRETTY.createObjectNode();
    num(o, "jvm", p.jvmMs());
    num(o, "postgres", p.postgresMs());
    num(o, "rabbitmq", p.rabbitMs());
    num(o, "machine", p.machineMs());
    return o;
  }

  /** JSON has no NaN: unknown figures are null. */
  static void num(ObjectNode o, String name, double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      o.putNull(name);
    } else {
      o.put(name, Math.round(v * 100) / 100.0);
    }
  }

  /** Writes report.md and report.json into {@code dir}. */
  void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("report.md"), markdown());
    Json.PRETTY.writeValue(dir.resolve("report.json").toFile(), json());
  }
}
