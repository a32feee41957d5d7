package dev.baton.cli;

import ch.qos.logback.classic.Level;
import dev.baton.cli.dlq.BrokerOptions;
import dev.baton.operator.OperatorSettings;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code baton dev}: the dev API, the operator and the runtime in the foreground, against RabbitMQ and PostgreSQL
 * on localhost by default, until Ctrl-C.
 */
@Command(name = "dev", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {
        "Runs a local Baton stack in the foreground until Ctrl-C: a Kubernetes-compatible dev API (for kubectl),"
            + " the operator and the orchestrator runtime, against RabbitMQ and PostgreSQL.",
        "A development aid: on a real cluster the operator runs in the cluster, with server-side apply."})
final class DevCommand implements Callable<Integer> {

  @Option(names = "--kube-port", description = "Port of the dev Kubernetes API on 127.0.0.1 (0: any free port).",
      defaultValue = "${env:BATON_KUBE_PORT:-6443}")
  int kubePort;

  @Option(names = "--http-port", description = "Port of the runtime's HTTP API.",
      defaultValue = "${env:BATON_HTTP_PORT:-8080}")
  int httpPort;

  @Mixin BrokerOptions broker;

  @Option(names = "--resync", description = "Period of the operator's drift-repairing resync (e.g. 30s, 2m).",
      defaultValue = "${env:BATON_RESYNC:-60s}")
  String resync;

  @Option(names = "--database-url", description = "JDBC URL of the runtime's database (created when missing).",
      defaultValue = "${env:BATON_DATABASE_URL:-jdbc:postgresql://127.0.0.1:5432/baton}")
  String databaseUrl;

  @Option(names = "--database-user", description = "Database user.",
      defaultValue = "${env:BATON_DATABASE_USER:-postgres}")
  String databaseUser;

  @Option(names = "--database-password", description = "Its password (better: env BATON_DATABASE_PASSWORD).",
      defaultValue = "${env:BATON_DATABASE_PASSWORD:-}", showDefaultValue = Visibility.NEVER)
  String databasePassword;

  @Option(names = "--kubeconfig", description = "Where to write the kubeconfig for kubectl.",
      defaultValue = "${env:BATON_HOME:-.}/.baton/kubeconfig")
  Path kubeconfig;

  @Option(names = "--example-workers", negatable = true, defaultValue = "${env:BATON_EXAMPLE_WORKERS:-true}",
      fallbackValue = "true",
      description = "Run the example workers (examples-workers/) in-process for every WorkerService labelled"
          + " baton.dev/example-worker, e.g. those of examples/order-saga/, once the operator has made it Ready, with"
          + " the credentials from its Secret (there is no kubelet locally). On by default;"
          + " --no-example-workers (or BATON_EXAMPLE_WORKERS=false) to run your own workers instead.")
  boolean exampleWorkers;

  @Option(names = "--api-token", paramLabel = "TOKEN", defaultValue = "${env:BATON_API_TOKEN:-}",
      showDefaultValue = Visibility.NEVER,
      description = "Require this bearer token on the runtime's HTTP API (env BATON_API_TOKEN). Without it the local"
          + " API is open, as a development aid; the CLI sends a token with --token or BATON_RUNTIME_TOKEN.")
  String apiToken;

  @Option(names = {"-v", "--verbose"}, description = "Log what the components do (INFO), twice for DEBUG.")
  boolean[] verbose = new boolean[0];

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    configureLogging(verbose.length);
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true);
    DevSettings settings;
    try {
      settings = settings();
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("baton dev: " + e.getMessage());
      return 2;
    }
    out.println("Starting Baton dev…");
    DevStack stack;
    try {
      stack = DevStack.start(settings, out);
    } catch (DevStackException e) {
      spec.commandLine().getErr().println("baton dev: " + e.getMessage());
      return 1;
    }
    CountDownLatch stop = new CountDownLatch(1);
    ShutdownSignals.onStop(stop::countDown);
    Thread hook = new Thread(stack::close, "baton-dev-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    ReadyBanner.print(out, stack, Path.of("").toAbsolutePath());
    try {
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    out.println("Stopping: " + (settings.exampleWorkers() ? "example workers, " : "") + "runtime, operator, dev API…");
    stack.close();
    out.println("Baton dev stopped.");
    return 0;
  }

  DevSettings settings() {
    Duration resyncPeriod = dev.baton.contract.BatonDuration.parse(resync).toDuration();
    return new DevSettings("127.0.0.1", kubePort, httpPort, broker.managementUrl, broker.host, broker.port,
        broker.username, broker.password, broker.vhost, OperatorSettings.localDefaults().userPrefix(), resyncPeriod,
        databaseUrl, databaseUser, databasePassword, kubeconfig, exampleWorkers,
        apiToken == null || apiToken.isBlank() ? null : apiToken.trim());
  }

  private static void configureLogging(int verbosity) {
    if (verbosity > 0 && LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext ctx) {
      ctx.getLogger("dev.baton").setLevel(verbosity > 1 ? Level.DEBUG : Level.INFO);
      ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(verbosity > 1 ? Level.INFO : Level.WARN);
    }
  }
}
