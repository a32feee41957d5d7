package dev.baton.cli.dlq;

import dev.baton.cli.support.EnvVariable;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * How to reach RabbitMQ as an administrator: the management API (queue information) and AMQP (moving messages).
 * The same flags and environment variables as {@code baton dev}, so one set of {@code BATON_RABBITMQ_*} serves both.
 */
public final class BrokerOptions {

  @EnvVariable(value = "BATON_RABBITMQ_MANAGEMENT_URL", schemes = {"http", "https"})
  @Option(names = "--rabbitmq-management-url", paramLabel = "URL", description = "RabbitMQ management API.",
      defaultValue = "http://127.0.0.1:15672/api/")
  public String managementUrl;

  @EnvVariable("BATON_RABBITMQ_HOST")
  @Option(names = "--rabbitmq-host", paramLabel = "HOST", description = "RabbitMQ host for AMQP.",
      defaultValue = "127.0.0.1")
  public String host;

  @EnvVariable(value = "BATON_RABBITMQ_PORT", min = 1, max = 65_535)
  @Option(names = "--rabbitmq-port", paramLabel = "PORT", description = "RabbitMQ AMQP port.", defaultValue = "5672")
  public int port;

  @EnvVariable("BATON_RABBITMQ_USERNAME")
  @Option(names = "--rabbitmq-username", paramLabel = "USER", description = "RabbitMQ administrator.",
      defaultValue = "guest")
  public String username;

  @EnvVariable(value = "BATON_RABBITMQ_PASSWORD", secret = true)
  @Option(names = "--rabbitmq-password", paramLabel = "PASSWORD", description = "Its password (better: from the"
      + " environment).", defaultValue = "guest", showDefaultValue = Visibility.NEVER)
  public String password;

  @EnvVariable("BATON_RABBITMQ_VHOST")
  @Option(names = "--vhost", paramLabel = "VHOST", description = "The vhost Baton lives in.", defaultValue = "/")
  public String vhost;

  /** Never the password. */
  @Override
  public String toString() {
    return "RabbitMQ " + host + ":" + port + " (management " + managementUrl + ") as " + username + ", vhost " + vhost;
  }
}
