package dev.baton.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * Checks before {@code baton dev} starts anything, so a missing broker, database or free port ends in one line
 * that says what to do instead of a stack trace from deep inside the operator.
 */
final class Preflight {

  private static final Duration TIMEOUT = Duration.ofSeconds(3);

  private Preflight() {}

  static void check(DevSettings s) {
    portFree(s.host(), s.kubePort(), "--kube-port");
    portFree(s.host(), s.httpPort(), "--http-port");
    rabbitManagement(s);
    reachable(s.rabbitHost(), s.rabbitPort(), "RabbitMQ (AMQP)",
        "start RabbitMQ (rabbitmq-server -detached) or point --rabbitmq-host/--rabbitmq-port at it");
    URI db = s.databaseAddress();
    reachable(db.getHost(), db.getPort(), "PostgreSQL",
        "start PostgreSQL or point --database-url at it (jdbc:postgresql://host:port/baton)");
  }

  static void portFree(String host, int port, String flag) {
    if (port == 0) {
      return;
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new DevStackException("port " + port + " on " + host + " is already in use: stop what listens there"
          + " (another baton dev?) or choose another port with " + flag);
    }
  }

  private static void rabbitManagement(DevSettings s) {
    String url = s.rabbitManagementUrl().endsWith("/") ? s.rabbitManagementUrl() : s.rabbitManagementUrl() + "/";
    String auth = Base64.getEncoder().encodeToString(
        (s.rabbitUsername() + ":" + s.rabbitPassword()).getBytes(StandardCharsets.UTF_8));
    HttpRequest request = HttpRequest.newBuilder(URI.create(url + "overview")).timeout(TIMEOUT)
        .header("Authorization", "Basic " + auth).GET().build();
    int status;
    try {
      status = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()
          .send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      throw new DevStackException("the RabbitMQ management API is not reachable at " + url + " (" + describe(e)
          + "): start RabbitMQ and enable the plugin (rabbitmq-server -detached; rabbitmq-plugins enable"
          + " rabbitmq_management) or pass --rabbitmq-management-url");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DevStackException("interrupted while checking RabbitMQ");
    }
    if (status == 401 || status == 403) {
      throw new DevStackException("RabbitMQ at " + url + " refused user '" + s.rabbitUsername() + "' (HTTP " + status
          + "): pass an administrator with --rabbitmq-username/--rabbitmq-password"
          + " (or BATON_RABBITMQ_USERNAME/BATON_RABBITMQ_PASSWORD)");
    }
    if (status / 100 != 2) {
      throw new DevStackException("the RabbitMQ management API at " + url + " answered HTTP " + status
          + ": check --rabbitmq-management-url (it ends in /api/)");
    }
  }

  private static void reachable(String host, int port, String what, String hint) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), (int) TIMEOUT.toMillis());
    } catch (IOException e) {
      throw new DevStackException(what + " is not reachable at " + host + ":" + port + " (" + describe(e) + "): "
          + hint);
    }
  }

  private static String describe(IOException e) {
    if (e instanceof ConnectException || e.getCause() instanceof ConnectException) {
      return "connection refused";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
