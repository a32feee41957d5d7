package dev.baton.cli;

import ch.qos.logback.classic.Level;
import dev.baton.api.client.TolerantSerialization;
import dev.baton.cli.dlq.BrokerOptions;
import dev.baton.cli.support.EnvVariable;
import dev.baton.runtime.app.BatonRuntime;
import dev.baton.runtime.app.RuntimeSettings;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code baton runtime}: one more orchestrator runtime, alone, in the foreground until SIGTERM or Ctrl-C. Several may
 * run against one database and broker (docs/design.md#runtime-semantics, Replicas). The database and the broker
 * default to those of {@code baton dev}; every other runtime setting is read from {@code BATON_*} as the runtime's
 * own process reads it.
 */
@Command(name = "runtime", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {
        "Runs one more orchestrator runtime in the foreground until SIGTERM or Ctrl-C, against the database and the"
            + " broker of `baton dev` by default. Several can run at once against one database.",
        "Other runtime settings come from the BATON_* variables of orchestrator-runtime/README.md."})
final class RuntimeCommand implements Callable<Integer> {

  /** The broker options given on the command line win over BATON_RABBITMQ_URI (the runtime's own variable). */
  private static final List<String> BROKER_FLAGS =
      List.of("--rabbitmq-host", "--rabbitmq-port", "--rabbitmq-username", "--rabbitmq-password", "--vhost");

  @EnvVariable(value = "BATON_HTTP_PORT", min = 0, max = 65_535)
  @Option(names = "--http-port", description = "Port of this runtime's HTTP API (0: any free port).",
      defaultValue = "8080")
  int httpPort;

  @Mixin BrokerOptions broker;

  @Mixin DatabaseOptions database;

  @Option(names = "--kubeconfig", showDefaultValue = Visibility.NEVER, description = "Where to read Workflows from"
      + " (default: the .baton/kubeconfig `baton dev` wrote in BATON_HOME when there is one, else the usual"
      + " Kubernetes client configuration: KUBECONFIG, ~/.kube/config, the pod's service account).")
  Path kubeconfig;

  @Option(names = {"-v", "--verbose"}, description = "DEBUG logs of the runtime (INFO without).")
  boolean verbose;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    configureLogging(verbose);
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true);
    RuntimeSettings settings;
    KubernetesClient client;
    try {
      settings = settings(System.getenv());
      client = kubernetesClient(System.getenv());
    } catch (IllegalArgumentException e) { // InvalidSettingsException included: a bad BATON_* value
      spec.commandLine().getErr().println("baton runtime: " + e.getMessage());
      return 2;
    }
    BatonRuntime runtime;
    try {
      runtime = BatonRuntime.start(settings, client);
    } catch (RuntimeException e) {
      client.close();
      spec.commandLine().getErr().println("baton runtime: " + e.getMessage());
      return 1;
    }
    CountDownLatch stop = new CountDownLatch(1);
    ShutdownSignals.onStop(stop::countDown);
    Thread hook = new Thread(() -> {
      runtime.close();
      client.close();
    }, "baton-runtime-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    out.println("Baton runtime ready: http://" + settings.httpHost() + ":" + runtime.httpPort() + " (database "
        + settings.databaseUrl().replaceFirst("\\?.*", "") + ")");
    try {
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    out.println("Stopping the runtime…");
    runtime.close();
    client.close();
    out.println("Baton runtime stopped.");
    return 0;
  }

  /** The runtime's settings from {@code env}, with the database, broker and port of the options. */
  RuntimeSettings settings(Map<String, String> env) {
    RuntimeSettings.Builder b = RuntimeSettings.fromEnvironment(env).toBuilder()
        .databaseUrl(database.url).databaseUsername(database.username).databasePassword(database.password)
        .httpPort(httpPort);
    boolean brokerFlags = BROKER_FLAGS.stream().anyMatch(f -> spec != null && spec.commandLine().getParseResult()
        .hasMatchedOption(f));
    if (brokerFlags || env.get("BATON_RABBITMQ_URI") == null) {
      b.amqpUri(DevSettings.amqpUri(broker.username, broker.password, broker.host, broker.port, broker.vhost));
    }
    return b.build();
  }

  private KubernetesClient kubernetesClient(Map<String, String> env) {
    Path file = kubeconfig != null ? kubeconfig : BatonHome.of(env, Path.of(".")).resolve(".baton/kubeconfig");
    if (kubeconfig == null && !Files.isRegularFile(file)) {
      return TolerantSerialization.clientBuilder().build();
    }
    try {
      return TolerantSerialization.clientBuilder().withConfig(Config.fromKubeconfig(Files.readString(file))).build();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read --kubeconfig " + file + ": " + e.getMessage(), e);
    }
  }

  private static void configureLogging(boolean debug) {
    if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext ctx) {
      ctx.getLogger("dev.baton").setLevel(debug ? Level.DEBUG : Level.INFO);
    }
  }
}
