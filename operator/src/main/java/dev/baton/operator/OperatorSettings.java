package dev.baton.operator;

import java.time.Duration;
import java.util.Map;

/**
 * How the operator reaches RabbitMQ and how it runs. Read from the environment ({@link #fromEnvironment}) in a
 * cluster; built in code by {@code baton dev} and by tests.
 *
 * @param managementUrl RabbitMQ management API, e.g. {@code http://127.0.0.1:15672/api/}
 * @param adminUsername broker user with the administrator tag, used for declarations (never logged)
 * @param adminPassword its password (never logged)
 * @param amqpHost host workers connect to, written into their credentials Secret's {@code uri}
 * @param amqpPort AMQP port for that URI
 * @param vhost the one vhost everything lives in ({@code /} by default)
 * @param userPrefix prefix of the broker users created for worker services ({@code baton-})
 * @param resync period of the drift-repairing resync (60 s by default)
 * @param serverSideApply true on real clusters; false against the fabric8 mock server (DESIGN.md §9)
 * @param runtimeUrl the orchestrator runtime's HTTP API, for live instance counts; null to skip them
 */
public record OperatorSettings(
    String managementUrl,
    String adminUsername,
    String adminPassword,
    String amqpHost,
    int amqpPort,
    String vhost,
    String userPrefix,
    Duration resync,
    boolean serverSideApply,
    String runtimeUrl) {

  public static OperatorSettings localDefaults() {
    return new OperatorSettings("http://127.0.0.1:15672/api/", "guest", "guest", "127.0.0.1", 5672, "/", "baton-",
        Duration.ofSeconds(60), true, null);
  }

  /** Settings from {@code BATON_*} environment variables, falling back to {@link #localDefaults()}. */
  public static OperatorSettings fromEnvironment(Map<String, String> env) {
    OperatorSettings d = localDefaults();
    return new OperatorSettings(
        env.getOrDefault("BATON_RABBITMQ_MANAGEMENT_URL", d.managementUrl()),
        env.getOrDefault("BATON_RABBITMQ_USERNAME", d.adminUsername()),
        env.getOrDefault("BATON_RABBITMQ_PASSWORD", d.adminPassword()),
        env.getOrDefault("BATON_RABBITMQ_HOST", d.amqpHost()),
        Integer.parseInt(env.getOrDefault("BATON_RABBITMQ_PORT", String.valueOf(d.amqpPort()))),
        env.getOrDefault("BATON_RABBITMQ_VHOST", d.vhost()),
        env.getOrDefault("BATON_USER_PREFIX", d.userPrefix()),
        dev.baton.contract.BatonDuration.parse(env.getOrDefault("BATON_RESYNC", "60s")).toDuration(),
        Boolean.parseBoolean(env.getOrDefault("BATON_SERVER_SIDE_APPLY", "true")),
        env.get("BATON_RUNTIME_URL"));
  }

  public OperatorSettings withVhost(String vhost) {
    return new OperatorSettings(managementUrl, adminUsername, adminPassword, amqpHost, amqpPort, vhost, userPrefix,
        resync, serverSideApply, runtimeUrl);
  }

  public OperatorSettings withResync(Duration resync) {
    return new OperatorSettings(managementUrl, adminUsername, adminPassword, amqpHost, amqpPort, vhost, userPrefix,
        resync, serverSideApply, runtimeUrl);
  }

  public OperatorSettings withServerSideApply(boolean serverSideApply) {
    return new OperatorSettings(managementUrl, adminUsername, adminPassword, amqpHost, amqpPort, vhost, userPrefix,
        resync, serverSideApply, runtimeUrl);
  }

  public OperatorSettings withUserPrefix(String userPrefix) {
    return new OperatorSettings(managementUrl, adminUsername, adminPassword, amqpHost, amqpPort, vhost, userPrefix,
        resync, serverSideApply, runtimeUrl);
  }

  public OperatorSettings withRuntimeUrl(String runtimeUrl) {
    return new OperatorSettings(managementUrl, adminUsername, adminPassword, amqpHost, amqpPort, vhost, userPrefix,
        resync, serverSideApply, runtimeUrl);
  }

  /** Never print the password. */
  @Override
  public String toString() {
    return "OperatorSettings[managementUrl=" + managementUrl + ", adminUsername=" + adminUsername + ", amqp=" + amqpHost
        + ":" + amqpPort + ", vhost=" + vhost + ", userPrefix=" + userPrefix + ", resync=" + resync
        + ", serverSideApply=" + serverSideApply + ", runtimeUrl=" + runtimeUrl + "]";
  }
}
