package dev.baton.cli.dlq;

import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * How to reach RabbitMQ as an administrator: the management API (queue information) and AMQP (moving messages).
 * The same flags and environment variables as {@code baton dev}, so one set of {@code BATON_RABBITMQ_*} serves both.
 */
public final class BrokerOptions {

  @Option(names = "--rabbitmq-management-url", paramLabel = "URL", description = "RabbitMQ management API"
      + " (env BATON_RABBITMQ_MANAGEMENT_URL).",
      defaultValue = "${env:BATON_RABBITMQ_MANAGEMENT_URL:-http://127.0.0.1:15672/api/}")
  public String managementUrl;

  @Option(names = "--rabbitmq-host", paramLabel = "HOST", description = "RabbitMQ host for AMQP"
      + " (env BATON_RABBITMQ_HOST).",
      defaultValue = "${env:BATON_RABBITMQ_HOST:-127.0.0.1}")
  public String host;

  @Option(names = "--rabbitmq-port", paramLabel = "PORT", description = "RabbitMQ AMQP port"
      + " (env BATON_RABBITMQ_PORT).",
      defaultValue = "${env:BATON_RABBITMQ_PORT:-5672}")
  public int port;

  @Option(names = "--rabbitmq-username", paramLabel = "USER", description = "RabbitMQ administrator"
      + " (env BATON_RABBITMQ_USERNAME).",
      defaultValue = "${env:BATON_RABBITMQ_USERNAME:-guest}")
  public String username;

  @Option(names = "--rabbitmq-password", paramLabel = "PASSWORD", description = "Its password (better: env"
      + " BATON_RABBITMQ_PASSWORD).",
      defaultValue = "${env:BATON_RABBITMQ_PASSWORD:-guest}", showDefaultValue = Visibility.NEVER)
  public String password;

  @Option(names = "--vhost", paramLabel = "VHOST", description = "The vhost Baton lives in"
      + " (env BATON_RABBITMQ_VHOST).",
      defaultValue = "${env:BATON_RABBITMQ_VHOST:-/}")
  public String vhost;

  /** Never the password. */
  @Override
  public String toString() {
    return "RabbitMQ " + host + ":" + port + " (management " + managementUrl + ") as " + username + ", vhost " + vhost;
  }
}
