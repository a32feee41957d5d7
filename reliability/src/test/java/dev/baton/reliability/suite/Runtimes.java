package dev.baton.reliability.suite;

import dev.baton.reliability.infra.Cmd;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.infra.JavaProcess;
import dev.baton.runtime.app.BatonRuntime;
import dev.baton.runtime.app.RuntimeSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A rig's runtimes: the first as its own JVM ({@code dev.baton.runtime.app.Main}, configured by {@code BATON_*}
 * variables, bearer token on) or in this JVM, and more replicas beside it, each {@code baton runtime} in a JVM of its
 * own; started, SIGKILLed, and waited for until {@code /healthz} answers. What a scenario changes in their settings
 * ({@link #addEnv}, {@link #addJvmArgument}, {@link #databaseUrlQuery}) applies to the runtimes started afterwards.
 */
public final class Runtimes {

  /** A runtime replica: {@code baton runtime} in a JVM of its own, and its HTTP port. */
  public record Replica(int port, JavaProcess process) {}

  private final ChildJvms jvms;
  private final RuntimeHttp http;
  private final KubernetesClient client;
  private final String databaseUrl;
  private final String amqpUri;
  /** {@code 127.0.0.1:port} of every node of a cluster; empty on a single node. */
  private final List<String> addresses;
  private final String apiToken;
  /** Appended to the runtimes' JDBC URL (e.g. a pgjdbc {@code ?socketFactory=} of a scenario's). */
  private volatile String databaseUrlQuery = "";
  /** More {@code BATON_*} variables for the runtime processes (a scenario's limit, say). */
  private final Map<String, String> envExtra = new ConcurrentHashMap<>();
  /** More JVM arguments for the runtime processes. */
  private final List<String> jvmExtra = new CopyOnWriteArrayList<>();
  private JavaProcess runtime;
  private BatonRuntime inProcess;
  private int port;
  private int starts;
  /** More runtimes beside the first, each {@code baton runtime} in a JVM of its own (several replicas). */
  private final List<Replica> replicas = new ArrayList<>();

  Runtimes(ChildJvms jvms, RuntimeHttp http, KubernetesClient client, String databaseUrl, String amqpUri,
      List<String> addresses, String apiToken) {
    this.jvms = jvms;
    this.http = http;
    this.client = client;
    this.databaseUrl = databaseUrl;
    this.amqpUri = amqpUri;
    this.addresses = addresses;
    this.apiToken = apiToken;
  }

  /** The {@code BATON_*} variables of a runtime serving HTTP on {@code port}. */
  public Map<String, String> env(int port) {
    Map<String, String> env = new HashMap<>();
    env.put("BATON_DATABASE_URL", databaseUrl + databaseUrlQuery);
    env.put("BATON_DATABASE_USERNAME", "postgres");
    env.put("BATON_DATABASE_CREATE", "false");
    env.put("BATON_RABBITMQ_URI", amqpUri);
    if (!addresses.isEmpty()) {
      env.put("BATON_RABBITMQ_ADDRESSES", String.join(",", addresses));
    }
    env.put("BATON_HTTP_PORT", String.valueOf(port));
    env.put("BATON_API_TOKEN", apiToken);
    env.put("BATON_OUTBOX_POLL_INTERVAL", "500ms");
    env.put("BATON_CONSUMER_RETRY_INTERVAL", "500ms");
    env.put("BATON_METRICS_REFRESH_INTERVAL", "2s");
    env.putAll(envExtra);
    return env;
  }

  /** One more {@code BATON_*} variable for the runtime processes. */
  public void addEnv(String name, String value) {
    envExtra.put(name, value);
  }

  /** One more JVM argument for the runtime processes. */
  public void addJvmArgument(String argument) {
    jvmExtra.add(argument);
  }

  /** Appended to the runtimes' JDBC URL. */
  public void databaseUrlQuery(String query) {
    databaseUrlQuery = query;
  }

  /** The first runtime, {@code dev.baton.runtime.app.Main} in a JVM of its own, on a free port; waits until healthy. */
  public synchronized void start() {
    port = Cmd.freePort();
    starts++;
    runtime = jvms.start("dev.baton.runtime.app.Main", List.of(), env(port), jvmArgs(), "runtime-" + starts);
    awaitHealthy(Duration.ofSeconds(90));
  }

  /**
   * One more runtime replica against the same database and broker, started as a user would: {@code baton runtime
   * --http-port N} (the CLI's main) in a JVM of its own. Clients spread their starts over every live replica.
   */
  public synchronized Replica startReplica() {
    int port = Cmd.freePort();
    starts++;
    Map<String, String> env = env(port);
    env.put("BATON_HOME", Infra.logDir().toAbsolutePath().toString()); // no .baton/kubeconfig there: -D flags below
    JavaProcess p = jvms.start("dev.baton.cli.BatonCli", List.of("runtime", "--http-port", String.valueOf(port)),
        env, jvmArgs(), "replica-" + starts);
    Replica replica = new Replica(port, p);
    replicas.add(replica);
    awaitHealthy(port, p, Duration.ofSeconds(90));
    return replica;
  }

  public synchronized List<Replica> replicas() {
    return List.copyOf(replicas);
  }

  /** The HTTP ports of every runtime process still alive (the first runtime's first). */
  synchronized List<Integer> livePorts() {
    List<Integer> ports = new ArrayList<>();
    if (runtime == null ? inProcess != null : runtime.isAlive()) {
      ports.add(port);
    }
    replicas.stream().filter(r -> r.process().isAlive()).forEach(r -> ports.add(r.port()));
    return ports.isEmpty() ? List.of(port) : ports;
  }

  private List<String> jvmArgs() {
    List<String> args = new ArrayList<>(List.of("-Dkubernetes.master=" + client.getMasterUrl(),
        "-Dkubernetes.auth.tryKubeConfig=false", "-Dkubernetes.auth.tryServiceAccount=false"));
    args.addAll(jvmExtra);
    return args;
  }

  /** The runtime in this JVM instead, e.g. with other settings ({@link #env} read as {@code Main} would). */
  public synchronized BatonRuntime startInProcess(RuntimeSettings settings) {
    inProcess = BatonRuntime.start(settings, client);
    port = inProcess.httpPort();
    return inProcess;
  }

  /** What {@code Main} would read from {@link #env}, with any free HTTP port. */
  public RuntimeSettings settings() {
    return RuntimeSettings.fromEnvironment(env(0));
  }

  public synchronized void stopInProcess() {
    if (inProcess != null) {
      inProcess.close();
      inProcess = null;
    }
  }

  /** SIGKILL of the first runtime's JVM. */
  public synchronized void kill() {
    runtime.kill();
  }

  /** The first runtime's JVM (the latest one started). */
  public JavaProcess process() {
    return runtime;
  }

  public void awaitHealthy(Duration within) {
    awaitHealthy(port, runtime, within);
  }

  private void awaitHealthy(int port, JavaProcess process, Duration within) {
    Instant until = Instant.now().plus(within);
    while (Instant.now().isBefore(until)) {
      if (process != null && !process.isAlive()) {
        throw new IllegalStateException("the runtime process died; see " + process.log());
      }
      try {
        if (http.send(HttpRequest.newBuilder(RuntimeHttp.uri(port, "/healthz")).GET()).statusCode() == 200) {
          return;
        }
      } catch (RuntimeException notYet) {
        // starting
      }
      Wait.sleep(200);
    }
    throw new IllegalStateException("the runtime is not healthy within " + within);
  }

  /** The first runtime's HTTP port. */
  public int port() {
    return port;
  }

  /** Stops every runtime: the processes with SIGTERM, the one in this JVM. */
  void close() {
    if (runtime != null) {
      runtime.stop();
    }
    replicas.forEach(r -> r.process().stop());
    stopInProcess();
  }
}
