package dev.baton.cli;

import dev.baton.operator.OperatorSettings;
import dev.baton.runtime.app.RuntimeSettings;
import dev.baton.runtime.http.auth.AuthMode;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything {@code baton dev} needs to know, from flags and environment, and how it maps onto the settings of the
 * operator and the runtime; {@code exampleWorkers}: whether the example workers run; {@code workers}: in which
 * language ({@link WorkerLanguage}: Java in-process, Python or TypeScript as child processes); {@code apiToken}: the
 * token the runtime's API requires, null for an open API; {@code auth}: the runtime's tokens, or Kubernetes tokens
 * and RBAC answered by the dev API. Passwords never appear in {@link #toString()}.
 */
record DevSettings(
    String host,
    int kubePort,
    int httpPort,
    String rabbitManagementUrl,
    String rabbitHost,
    int rabbitPort,
    String rabbitUsername,
    String rabbitPassword,
    String vhost,
    String userPrefix,
    Duration resync,
    String databaseUrl,
    String databaseUsername,
    String databasePassword,
    Path kubeconfig,
    boolean exampleWorkers,
    String apiToken,
    AuthMode auth,
    WorkerLanguage workers) {

  /**
   * The operator against the dev API: server-side apply off (the fabric8 mock has none, docs/design.md#platform-notes);
   * it declares over AMQP at the broker address the runtime and workers use.
   */
  OperatorSettings operator(String runtimeUrl) {
    return operator(runtimeUrl, apiToken);
  }

  /**
   * {@link #operator(String)} sending {@code runtimeToken} to the runtime: under Kubernetes auth, its ServiceAccount's
   * token ({@link DevAccess}).
   */
  OperatorSettings operator(String runtimeUrl, String runtimeToken) {
    return OperatorSettings.localDefaults().toBuilder()
        .managementUrl(rabbitManagementUrl).admin(rabbitUsername, rabbitPassword).amqp(rabbitHost, rabbitPort)
        .vhost(vhost).userPrefix(userPrefix).resync(resync).serverSideApply(false)
        .runtimeUrl(runtimeUrl).runtimeToken(runtimeToken)
        // One developer watching 'kubectl get': live figures every few seconds cost nothing here.
        .statusInterval(java.time.Duration.ofSeconds(5))
        .build();
  }

  /** The runtime, creating its database when missing (dev mode). */
  RuntimeSettings runtime() {
    return RuntimeSettings.localDefaults().toBuilder()
        .databaseUrl(databaseUrl).databaseUsername(databaseUsername).databasePassword(databasePassword)
        .createDatabase(true)
        .amqpUri(amqpUri()).httpHost(host).httpPort(httpPort)
        .apiToken(apiToken)
        .auth(auth)
        .management(rabbitManagementUrl, rabbitUsername, rabbitPassword) // the web UI's dead-letter page
        .build();
  }

  /** {@code amqp://user:password@host:port/vhost}, every part URL-encoded ({@code /} becomes {@code %2F}). */
  String amqpUri() {
    return amqpUri(rabbitUsername, rabbitPassword, rabbitHost, rabbitPort, vhost);
  }

  static String amqpUri(String username, String password, String host, int port, String vhost) {
    return "amqp://" + encode(username) + ":" + encode(password) + "@" + host + ":" + port + "/" + encode(vhost);
  }

  /** Host and port of the JDBC URL ({@code jdbc:postgresql://host:port/db}), for a reachability check. */
  URI databaseAddress() {
    URI uri = URI.create(databaseUrl.replaceFirst("^jdbc:", ""));
    return URI.create("tcp://" + (uri.getHost() == null ? "127.0.0.1" : uri.getHost()) + ":"
        + (uri.getPort() < 0 ? 5432 : uri.getPort()));
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "DevSettings[kube=" + host + ":" + kubePort + ", http=" + host + ":" + httpPort + ", rabbitmq="
        + rabbitHost + ":" + rabbitPort + " as " + rabbitUsername + " (management " + rabbitManagementUrl
        + "), vhost=" + vhost + ", userPrefix=" + userPrefix + ", resync=" + resync + ", database=" + databaseUrl
        + " as " + databaseUsername
        + ", kubeconfig=" + kubeconfig + ", exampleWorkers=" + exampleWorkers + ", workers=" + workers + ", apiToken="
        + (apiToken == null ? "none" : "(set)") + "]";
  }
}
