package dev.baton.cli;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.examples.ExampleWorker;
import dev.baton.examples.ExampleWorkers;
import dev.baton.worker.BatonWorker;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.opentelemetry.api.OpenTelemetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs the example workers ({@code examples-workers/}) in the {@code baton dev} process, standing in for the kubelet
 * that does not exist locally. Every second it looks at the WorkerServices labelled
 * {@value ExampleWorkers#LABEL}: once the operator has made one Ready, it starts the example worker the label names,
 * configured exactly as a pod of that WorkerService would be ({@link WorkerEnvironmentSource}: the operator's
 * variables and the credentials from its Secret). A changed configuration (spec, retry policy, rotated password)
 * restarts the worker; a deleted WorkerService stops it. Each example keeps its state (stock, ledger...) for the
 * life of the process. With {@code --workers python} or {@code typescript} the same examples run as child processes
 * instead, one program per worker ({@link WorkerLanguage}), with the same environment; one that exits is started
 * again.
 */
final class ExampleWorkerRunner implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExampleWorkerRunner.class);
  private static final Duration SHUTDOWN = Duration.ofSeconds(5);

  /** A started example worker: in this process (Java) or a child process (another language). */
  private record Running(String example, String fingerprint, String service, List<String> queues,
      AutoCloseable worker, BooleanSupplier alive) {}

  private final KubernetesClient client;
  private final PrintStream out;
  private final ScheduledExecutorService poller;
  private final Map<String, ExampleWorker> examples = new ConcurrentHashMap<>();
  private final Map<String, Running> running = new HashMap<>();
  /** The last problem printed per WorkerService, so a lasting one is said once. */
  private final Map<String, String> reported = new HashMap<>();
  private boolean closed;

  private final OpenTelemetry openTelemetry;
  private final WorkerLanguage language;
  private final Path root;

  private ExampleWorkerRunner(KubernetesClient client, PrintStream out, OpenTelemetry openTelemetry,
      WorkerLanguage language, Path root) {
    this.openTelemetry = openTelemetry;
    this.language = language;
    this.root = root;
    this.client = client;
    this.out = out;
    this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "baton-dev-example-workers");
      t.setDaemon(true);
      return t;
    });
  }

  static ExampleWorkerRunner start(KubernetesClient client, Duration interval, PrintStream out,
      OpenTelemetry openTelemetry) {
    return start(client, interval, out, openTelemetry, WorkerLanguage.JAVA, Path.of("."));
  }

  /**
   * @param language the example workers' language ({@code --workers}): Java in this process, the others as child
   *     processes started from {@code root} (the repository) by {@link WorkerLanguage#command}
   */
  static ExampleWorkerRunner start(KubernetesClient client, Duration interval, PrintStream out,
      OpenTelemetry openTelemetry, WorkerLanguage language, Path root) {
    ExampleWorkerRunner runner = new ExampleWorkerRunner(client, out, openTelemetry, language, root);
    runner.poller.scheduleWithFixedDelay(runner::sync, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return runner;
  }

  /** The example worker of this name (and its state), once a WorkerService has asked for it. */
  <T extends ExampleWorker> Optional<T> example(String name, Class<T> type) {
    return Optional.ofNullable(examples.get(name)).filter(type::isInstance).map(type::cast);
  }

  /** The services whose example worker is running. */
  synchronized Set<String> runningServices() {
    Set<String> services = new HashSet<>();
    running.values().forEach(r -> services.add(r.service()));
    return services;
  }

  /** One look at the WorkerServices: start, restart and stop workers to match. */
  synchronized void sync() {
    if (closed) {
      return;
    }
    List<WorkerService> all;
    try {
      all = client.resources(WorkerService.class).inAnyNamespace().list().getItems();
    } catch (KubernetesClientException e) {
      LOG.debug("cannot list WorkerServices: {}", e.toString());
      return;
    }
    Set<String> present = new HashSet<>();
    for (WorkerService ws : all) {
      Map<String, String> labels = ws.getMetadata().getLabels();
      String example = labels == null ? null : labels.get(ExampleWorkers.LABEL);
      if (example == null) {
        continue;
      }
      String key = ws.getMetadata().getNamespace() + "/" + ws.getMetadata().getName();
      present.add(key);
      try {
        ensure(key, example, ws);
      } catch (RuntimeException e) {
        report(key, "example worker " + example + " for WorkerService " + key + " not started: " + e.getMessage()
            + " (trying again)");
      }
    }
    for (String key : Set.copyOf(running.keySet())) {
      if (!present.contains(key)) {
        stop(key, "its WorkerService is gone");
        reported.remove(key);
      }
    }
  }

  private void ensure(String key, String exampleName, WorkerService ws) {
    if (!isReady(ws)) {
      return; // a running worker keeps running: a moment of Ready=False (a broker hiccup) is no reason to stop it
    }
    if (ExampleWorkers.create(exampleName).isEmpty()) {
      report(key, "WorkerService " + key + ": label " + ExampleWorkers.LABEL + "=" + exampleName
          + " names no example worker (there are " + String.join(", ", ExampleWorkers.NAMES) + ")");
      return;
    }
    Map<String, String> env = WorkerEnvironmentSource.resolve(client, ws);
    String fingerprint = fingerprint(env);
    Running current = running.get(key);
    if (current != null && current.fingerprint().equals(fingerprint) && current.alive().getAsBoolean()) {
      return;
    }
    if (current != null) {
      stop(key, current.alive().getAsBoolean() ? "its configuration changed" : "it exited (starting it again)");
    }
    Optional<WorkerLanguage.ChildCommand> child = language.command(root, exampleName);
    Running started = child.isPresent() ? startChild(key, exampleName, fingerprint, env, child.get())
        : startInProcess(exampleName, fingerprint, env);
    if (started == null) {
      return;
    }
    running.put(key, started);
    reported.remove(key);
    out.println("  example worker " + exampleName + (child.isPresent() ? " (" + language + ")" : "")
        + " started for WorkerService " + key + ", consuming " + String.join(", ", started.queues()));
  }

  private Running startInProcess(String exampleName, String fingerprint, Map<String, String> env) {
    ExampleWorker example = examples.computeIfAbsent(exampleName, n -> ExampleWorkers.create(n).orElseThrow());
    BatonWorker worker = example.handlers(BatonWorker.builder().fromEnvironment(env))
        .connectionName("baton-dev-example-" + exampleName)
        .openTelemetry(openTelemetry)
        .shutdownTimeout(SHUTDOWN)
        .build();
    worker.start();
    return new Running(exampleName, fingerprint, worker.service(), worker.queues(), worker, worker::isRunning);
  }

  /** The example's program in {@link #language}, with the pod's environment; null (and said) when it is missing. */
  private Running startChild(String key, String exampleName, String fingerprint, Map<String, String> env,
      WorkerLanguage.ChildCommand command) {
    Optional<String> missing = command.missing();
    if (missing.isPresent()) {
      report(key, "example worker " + exampleName + " for WorkerService " + key + " not started: " + missing.get()
          + " (--workers " + language + ")");
      return null;
    }
    Map<String, String> environment = new LinkedHashMap<>(env);
    environment.putAll(command.environment());
    ChildWorker worker = ChildWorker.start(command.commandLine(), root, environment, language + ":" + exampleName, out,
        SHUTDOWN);
    List<String> queues = env.entrySet().stream()
        .filter(e -> e.getKey().startsWith("BATON_CONSUMER_") && e.getKey().endsWith("_QUEUE"))
        .map(Map.Entry::getValue).toList();
    return new Running(exampleName, fingerprint, env.get(WorkerEnvironment.SERVICE), queues, worker,
        worker::isAlive);
  }

  private static boolean isReady(WorkerService ws) {
    if (ws.getStatus() == null || !ws.getStatus().isReady()) {
      return false;
    }
    Long observed = ws.getStatus().getObservedGeneration();
    Long generation = ws.getMetadata().getGeneration();
    return observed == null || generation == null || observed >= generation;
  }

  private void stop(String key, String why) {
    Running r = running.remove(key);
    if (r != null) {
      try {
        r.worker().close();
      } catch (Exception e) {
        LOG.warn("example worker {} did not stop cleanly: {}", r.example(), e.toString());
      }
      out.println("  example worker " + r.example() + " stopped: " + why);
    }
  }

  private void report(String key, String problem) {
    if (!problem.equals(reported.put(key, problem))) {
      out.println("  " + problem);
    }
  }

  /** Compares configurations without keeping the password in a readable form. */
  private static String fingerprint(Map<String, String> env) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(new TreeMap<>(env).toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Stops polling, then every worker (each finishes what it is doing). */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    poller.shutdownNow();
    try {
      poller.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      for (String key : Set.copyOf(running.keySet())) {
        stop(key, "baton dev is stopping");
      }
    }
  }
}
