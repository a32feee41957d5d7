package dev.baton.cli;

import dev.baton.api.client.TolerantSerialization;
import dev.baton.devapi.DevApiServer;
import dev.baton.devapi.PortInUseException;
import dev.baton.operator.BatonOperator;
import dev.baton.runtime.app.BatonRuntime;
import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.runtime.tracing.RuntimeTracing;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local stack of {@code baton dev}: the dev API (with the CRDs and namespace default), the operator, the
 * runtime and the example workers, started in that order and stopped in reverse (example workers, runtime, operator,
 * dev API). If any of them fails to start, what already started is stopped and {@link #start} throws.
 */
final class DevStack implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DevStack.class);
  private static final java.time.Duration EXAMPLE_WORKER_POLL = java.time.Duration.ofSeconds(1);

  private final Deque<AutoCloseable> toClose = new ArrayDeque<>();
  private DevApiServer api;
  private Path kubeconfig;
  private String runtimeUrl;
  private ExampleWorkerRunner workers;
  private boolean closed;

  private DevStack() {}

  /** Checks what it needs, then starts everything; on failure stops what already started and throws. */
  static DevStack start(DevSettings settings, PrintStream out) {
    return start(settings, out, null);
  }

  /** As {@link #start(DevSettings, PrintStream)}, with spans going to {@code tracing} (null: the OTEL_* variables). */
  static DevStack start(DevSettings settings, PrintStream out, RuntimeTracing tracing) {
    return start(settings, out, tracing, BatonHome.of(System.getenv(), Path.of("")));
  }

  /**
   * As {@link #start(DevSettings, PrintStream, RuntimeTracing)}, the example workers' programs in other languages
   * taken from the repository at {@code home} (otherwise {@code BATON_HOME}, else the working directory).
   */
  static DevStack start(DevSettings settings, PrintStream out, RuntimeTracing tracing, Path home) {
    Preflight.check(settings);
    DevStack stack = new DevStack();
    try {
      stack.startAll(settings, out, tracing != null ? tracing : RuntimeTracing.fromEnvironment(),
          home.toAbsolutePath());
      return stack;
    } catch (RuntimeException e) {
      stack.close();
      throw e;
    }
  }

  private void startAll(DevSettings s, PrintStream out, RuntimeTracing tracing, Path home) {
    try {
      api = DevApiServer.start(s.host(), s.kubePort());
    } catch (PortInUseException e) {
      throw new DevStackException("port " + e.port() + " is already in use: stop what listens there"
          + " (another baton dev?) or choose another port with --kube-port", e);
    }
    toClose.push(api);
    kubeconfig = api.writeKubeconfig(s.kubeconfig().toAbsolutePath());
    out.println("  dev API      " + api.url() + " (CRDs applied, namespace default)");

    String operatorToken = s.apiToken();
    if (s.auth() == AuthMode.KUBERNETES) {
      operatorToken = DevAccess.prepare(newClient());
      out.println("  access       Kubernetes tokens and RBAC: roles baton-instances-view and -edit (in view and edit)");
    }
    String plannedRuntimeUrl = "http://" + s.host() + ":" + s.httpPort();
    KubernetesClient operatorClient = newClient();
    try {
      toClose.push(BatonOperator.start(operatorClient, s.operator(s.httpPort() == 0 ? null : plannedRuntimeUrl,
          operatorToken)));
    } catch (RuntimeException e) {
      throw new DevStackException("the operator did not start: " + oneLine(e), e);
    }
    out.println("  operator     running (RabbitMQ " + s.rabbitHost() + ":" + s.rabbitPort() + ", vhost " + s.vhost() + ")");

    KubernetesClient runtimeClient = newClient();
    // One OpenTelemetry (the OTEL_* variables) for the runtime and the example workers: their spans form one trace.
    try {
      BatonRuntime started = BatonRuntime.start(s.runtime(), runtimeClient, tracing);
      toClose.push(started);
      runtimeUrl = "http://" + s.host() + ":" + started.httpPort();
    } catch (RuntimeException e) {
      throw new DevStackException("the runtime did not start: " + oneLine(e), e);
    }
    out.println("  runtime      running (" + runtimeUrl + ", database " + s.databaseUrl() + ")");

    if (s.exampleWorkers()) {
      // after the runtime, so that they stop before it (reverse order): no command is left half-handled
      workers = ExampleWorkerRunner.start(newClient(), EXAMPLE_WORKER_POLL, out, tracing.openTelemetry(),
          s.workers(), home);
      toClose.push(workers);
      out.println("  workers      example workers run " + (s.workers() == WorkerLanguage.JAVA ? "in-process"
          : "in " + s.workers() + " as child processes") + " for WorkerServices labelled "
          + dev.baton.examples.ExampleWorkers.LABEL + " (--no-example-workers to run your own)");
    }
  }

  /** A client of its own per component: each may close or reconfigure it without touching the others. */
  private KubernetesClient newClient() {
    KubernetesClient client = TolerantSerialization.clientBuilder().withConfig(api.clientConfig()).build();
    toClose.push(client);
    return client;
  }

  DevApiServer api() {
    return api;
  }

  Path kubeconfig() {
    return kubeconfig;
  }

  /** The in-process example workers, or null when they do not run ({@code --no-example-workers}). */
  ExampleWorkerRunner exampleWorkers() {
    return workers;
  }

  /** The runtime's HTTP API, e.g. {@code http://127.0.0.1:8080}. */
  String runtimeUrl() {
    return runtimeUrl;
  }

  /** Stops the example workers, the runtime, the operator, then the dev API (reverse start order). Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    while (!toClose.isEmpty()) {
      AutoCloseable c = toClose.pop();
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("stopping {} failed: {}", c.getClass().getSimpleName(), e.toString());
      }
    }
  }

  private static String oneLine(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return message.lines().findFirst().orElse(message);
  }
}
