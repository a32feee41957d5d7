package dev.baton.cli;

import ch.qos.logback.classic.Level;
import dev.baton.operator.OperatorSettings;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
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

  @Option(names = "--rabbitmq-management-url", description = "RabbitMQ management API.",
      defaultValue = "${env:BATON_RABBITMQ_MANAGEMENT_URL:-http://127.0.0.1:15672/api/}")
  String managementUrl;

  @Option(names = "--rabbitmq-host", description = "RabbitMQ host for AMQP.",
      defaultValue = "${env:BATON_RABBITMQ_HOST:-127.0.0.1}")
  String rabbitHost;

  @Option(names = "--rabbitmq-port", description = "RabbitMQ AMQP port.",
      defaultValue = "${env:BATON_RABBITMQ_PORT:-5672}")
  int rabbitPort;

  @Option(names = "--rabbitmq-username", description = "RabbitMQ administrator (env BATON_RABBITMQ_USERNAME).",
      defaultValue = "${env:BATON_RABBITMQ_USERNAME:-guest}")
  String rabbitUsername;

  @Option(names = "--rabbitmq-password", description = "Its password (better: env BATON_RABBITMQ_PASSWORD).",
      defaultValue = "${env:BATON_RABBITMQ_PASSWORD:-guest}", showDefaultValue = Visibility.NEVER)
  String rabbitPassword;

  @Option(names = "--vhost", description = "The RabbitMQ vhost everything lives in.",
      defaultValue = "${env:BATON_RABBITMQ_VHOST:-/}")
  String vhost;

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
    out.println("Stopping: runtime, operator, dev API…");
    stack.close();
    out.println("Baton dev stopped.");
    return 0;
  }

  DevSettings settings() {
    Duration resyncPeriod = dev.baton.contract.BatonDuration.parse(resync).toDuration();
    return new DevSettings("127.0.0.1", kubePort, httpPort, managementUrl, rabbitHost, rabbitPort, rabbitUsername,
        rabbitPassword, vhost, OperatorSettings.localDefaults().userPrefix(), resyncPeriod, databaseUrl, databaseUser,
        databasePassword, kubeconfig);
  }

  private static void configureLogging(int verbosity) {
    if (verbosity > 0 && LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext ctx) {
      ctx.getLogger("dev.baton").setLevel(verbosity > 1 ? Level.DEBUG : Level.INFO);
      ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(verbosity > 1 ? Level.INFO : Level.WARN);
    }
  }
}
