package dev.baton.cli;

import ch.qos.logback.classic.Level;
import dev.baton.cli.dlq.BrokerOptions;
import dev.baton.cli.support.BatonDurationConverter;
import dev.baton.cli.support.EnvVariable;
import dev.baton.operator.OperatorSettings;
import dev.baton.runtime.http.auth.AuthMode;
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

  @EnvVariable(value = "BATON_KUBE_PORT", min = 0, max = 65_535)
  @Option(names = "--kube-port", description = "Port of the dev Kubernetes API on 127.0.0.1 (0: any free port).",
      defaultValue = "6443")
  int kubePort;

  @EnvVariable(value = "BATON_HTTP_PORT", min = 0, max = 65_535)
  @Option(names = "--http-port", description = "Port of the runtime's HTTP API.", defaultValue = "8080")
  int httpPort;

  @Mixin BrokerOptions broker;

  @EnvVariable("BATON_RESYNC")
  @Option(names = "--resync", description = "Period of the operator's drift-repairing resync (e.g. 30s, 2m).",
      defaultValue = "60s", converter = BatonDurationConverter.class)
  Duration resync;

  @Mixin DatabaseOptions database;

  @Option(names = "--kubeconfig", description = "Where to write the kubeconfig for kubectl (default:"
      + " .baton/kubeconfig in BATON_HOME, which bin/baton sets to the repository, else in the current directory).",
      showDefaultValue = Visibility.NEVER)
  Path kubeconfig;

  @EnvVariable("BATON_EXAMPLE_WORKERS")
  @Option(names = "--example-workers", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Run the example workers (examples-workers/) in-process for every WorkerService labelled"
          + " baton.dev/example-worker, e.g. those of examples/order-saga/, once the operator has made it Ready, with"
          + " the credentials from its Secret (there is no kubelet locally). On by default;"
          + " --no-example-workers to run your own workers instead.")
  boolean exampleWorkers;

  @EnvVariable("BATON_DEV_WORKERS")
  @Option(names = "--workers", paramLabel = "LANGUAGE", defaultValue = "java", converter = WorkerLanguage.Names.class,
      description = "The language of the example workers: 'java' (in-process), 'python' or 'typescript' (one child"
          + " process per worker, from examples-workers/python/ or examples-workers/typescript/, its output prefixed"
          + " with its name). Default: ${DEFAULT-VALUE}.")
  WorkerLanguage workers;

  @EnvVariable(value = "BATON_API_TOKEN", secret = true)
  @Option(names = "--api-token", paramLabel = "TOKEN", showDefaultValue = Visibility.NEVER,
      description = "Require this bearer token on the runtime's HTTP API. Without it the local API is open, as a"
          + " development aid; the CLI sends a token with --token or BATON_RUNTIME_TOKEN.")
  String apiToken;

  @Option(names = "--auth", paramLabel = "MODE", defaultValue = "token", converter = AuthModes.class,
      description = "How the runtime knows its callers: 'token' (open, or --api-token) or 'kubernetes' (bearer tokens"
          + " from `kubectl create token`, checked with TokenReview, allowed by RBAC: bind baton-instances-edit or edit"
          + " in a namespace), as the Helm chart installs it. Default: ${DEFAULT-VALUE}.")
  AuthMode auth;

  /** {@code token} or {@code kubernetes}, spelt as {@code BATON_AUTH} is. */
  static final class AuthModes implements picocli.CommandLine.ITypeConverter<AuthMode> {
    @Override
    public AuthMode convert(String value) {
      for (AuthMode mode : AuthMode.values()) {
        if (mode.name().equalsIgnoreCase(value.trim())) {
          return mode;
        }
      }
      throw new picocli.CommandLine.TypeConversionException("expected token or kubernetes, got '" + value + "'");
    }
  }

  @Option(names = {"-v", "--verbose"}, description = "Log what the components do (INFO), twice for DEBUG.")
  boolean[] verbose = new boolean[0];

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    configureLogging(verbose.length);
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true);
    DevSettings settings = settings();
    if (settings.auth() == AuthMode.KUBERNETES && settings.apiToken() != null) {
      spec.commandLine().getErr().println("baton dev: --auth kubernetes checks Kubernetes tokens and takes no"
          + " --api-token (BATON_API_TOKEN): drop one of them");
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
    return new DevSettings("127.0.0.1", kubePort, httpPort, broker.managementUrl, broker.host, broker.port,
        broker.username, broker.password, broker.vhost, OperatorSettings.localDefaults().userPrefix(), resync,
        database.url, database.username, database.password,
        kubeconfig != null ? kubeconfig : BatonHome.of(System.getenv(), Path.of(".")).resolve(".baton/kubeconfig"),
        exampleWorkers, apiToken == null || apiToken.isBlank() ? null : apiToken.trim(), auth, workers);
  }

  private static void configureLogging(int verbosity) {
    if (verbosity > 0 && LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext ctx) {
      ctx.getLogger("dev.baton").setLevel(verbosity > 1 ? Level.DEBUG : Level.INFO);
      ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(verbosity > 1 ? Level.INFO : Level.WARN);
    }
  }
}
