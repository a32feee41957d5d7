package dev.baton.runtime;

import java.time.Duration;
import java.util.Map;

/**
 * How the runtime reaches PostgreSQL and RabbitMQ and how it runs. Read from the environment in a cluster; built in
 * code by {@code baton dev} and by tests.
 *
 * @param databaseUrl JDBC URL, e.g. {@code jdbc:postgresql://127.0.0.1:5432/baton}
 * @param databaseUser database user
 * @param databasePassword its password (never logged)
 * @param createDatabase create the database when it does not exist (dev mode)
 * @param amqpUri broker URI with credentials, e.g. {@code amqp://guest:guest@127.0.0.1:5672/%2F} (never logged)
 * @param httpHost address the HTTP API listens on
 * @param httpPort port of the HTTP API (0 picks a free one)
 * @param consumerThreads threads consuming orchestrator queues
 * @param prefetch unacknowledged events per consumer
 * @param retention finished instances older than this are purged
 */
public record RuntimeSettings(
    String databaseUrl,
    String databaseUser,
    String databasePassword,
    boolean createDatabase,
    String amqpUri,
    String httpHost,
    int httpPort,
    int consumerThreads,
    int prefetch,
    Duration retention) {

  public static RuntimeSettings localDefaults() {
    return new RuntimeSettings("jdbc:postgresql://127.0.0.1:5432/baton", "postgres", "", true,
        "amqp://guest:guest@127.0.0.1:5672/%2F", "127.0.0.1", 8080, 4, 50, Duration.ofDays(7));
  }

  /** Settings from {@code BATON_*} environment variables, falling back to {@link #localDefaults()}. */
  public static RuntimeSettings fromEnvironment(Map<String, String> env) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Never print credentials. */
  @Override
  public String toString() {
    return "RuntimeSettings[databaseUrl=" + databaseUrl + ", databaseUser=" + databaseUser + ", http=" + httpHost + ":"
        + httpPort + ", consumerThreads=" + consumerThreads + ", prefetch=" + prefetch + ", retention=" + retention + "]";
  }
}
