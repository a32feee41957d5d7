package dev.baton.cli.dlq;

import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.ClientParameters;
import com.rabbitmq.http.client.HttpClientException;
import com.rabbitmq.http.client.HttpException;
import com.rabbitmq.http.client.HttpServerException;
import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;
import dev.baton.deadletters.DeadLetterQueue;
import dev.baton.deadletters.ManagementApi;
import java.io.IOException;
import java.net.ConnectException;
import java.net.MalformedURLException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** RabbitMQ as the dlq commands use it, with every failure turned into one line and the right exit code. */
final class Broker {

  private Broker() {}

  /**
   * A management API client (Hop).
   *
   * @param caFile PEM file of the CA to trust over https (--rabbitmq-ca-file), or null: the JVM's trust store
   */
  static Client management(BrokerOptions o, String caFile) {
    ClientParameters parameters;
    try {
      parameters = ManagementApi.parameters(o.managementUrl, o.username, o.password, caFile);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, "--rabbitmq-ca-file (BATON_RABBITMQ_CA_FILE): " + e.getMessage());
    } catch (MalformedURLException e) {
      throw badUrl(o);
    }
    try {
      return new Client(parameters);
    } catch (MalformedURLException | java.net.URISyntaxException | RuntimeException e) {
      throw badUrl(o);
    }
  }

  private static CliException badUrl(BrokerOptions o) {
    return new CliException(ExitCodes.USAGE, "--rabbitmq-management-url '" + o.managementUrl
        + "' is not a URL such as http://127.0.0.1:15672/api/");
  }

  /** Runs a management API call; connection problems exit 3, refusals exit 1 with the broker's reason. */
  static <T> T call(BrokerOptions o, Supplier<T> call) {
    try {
      return call.get();
    } catch (HttpClientException e) {
      if (e.status() == 401 || e.status() == 403) {
        throw CliException.server("RabbitMQ refused user '" + o.username + "' (HTTP " + e.status() + "): pass an"
            + " administrator with --rabbitmq-username/--rabbitmq-password (or BATON_RABBITMQ_USERNAME/_PASSWORD)");
      }
      throw CliException.server("the RabbitMQ management API answered HTTP " + e.status() + ": " + e.reason());
    } catch (HttpServerException e) {
      throw CliException.server("the RabbitMQ management API failed (HTTP " + e.status() + "): " + e.reason());
    } catch (HttpException e) {
      if (untrusted(e)) {
        throw CliException.unreachable("the RabbitMQ management API at " + o.managementUrl + " shows a certificate"
            + " this CLI does not trust (" + reason(e) + "): pass the CA that signed it with --rabbitmq-ca-file"
            + " (BATON_RABBITMQ_CA_FILE), a PEM file", e);
      }
      throw CliException.unreachable("cannot reach the RabbitMQ management API at " + o.managementUrl + " ("
          + reason(e) + "): is RabbitMQ running with rabbitmq_management enabled? Otherwise set"
          + " --rabbitmq-management-url", e);
    }
  }

  /** The dead-letter queue a user named; exits 2 (usage) when the name is not one. */
  static DeadLetterQueue deadLetterQueue(String name) {
    return DeadLetterQueue.parse(name).orElseThrow(() ->
        new CliException(ExitCodes.USAGE, DeadLetterQueue.notADeadLetterQueue(name)));
  }

  /** An AMQP connection to the vhost as the administrator. */
  static Connection amqp(BrokerOptions o, String name) {
    ConnectionFactory cf = new ConnectionFactory();
    cf.setHost(o.host);
    cf.setPort(o.port);
    cf.setVirtualHost(o.vhost);
    cf.setUsername(o.username);
    cf.setPassword(o.password);
    cf.setConnectionTimeout(5_000);
    cf.setAutomaticRecoveryEnabled(false);
    try {
      return cf.newConnection(name);
    } catch (AuthenticationFailureException e) {
      throw CliException.server("RabbitMQ refused user '" + o.username + "' on vhost '" + o.vhost + "': pass an"
          + " administrator with --rabbitmq-username/--rabbitmq-password");
    } catch (IOException | TimeoutException e) {
      if (isAccessRefused(e)) {
        throw CliException.server("user '" + o.username + "' may not use vhost '" + o.vhost + "' (or it does not"
            + " exist): check --vhost");
      }
      throw CliException.unreachable("cannot reach RabbitMQ (AMQP) at " + o.host + ":" + o.port + " (" + reason(e)
          + "): is it running? Otherwise set --rabbitmq-host/--rabbitmq-port", e);
    }
  }

  private static boolean untrusted(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLHandshakeException) {
        return true;
      }
    }
    return false;
  }

  private static boolean isAccessRefused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && (t.getMessage().contains("ACCESS_REFUSED") || t.getMessage().contains("NOT_ALLOWED")
          || t.getMessage().contains("not found"))) {
        return true;
      }
    }
    return false;
  }

  static String reason(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "connection refused";
      }
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
