package dev.baton.contract.probes;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A Baton process's small HTTP endpoint for kubelet and Prometheus, on the JDK's own server (no framework):
 * {@code /healthz} and {@code /readyz} (200 while healthy, 503 otherwise, with a line saying why) and {@code /metrics}
 * (Prometheus text; 404 when the process has none to serve). GET and HEAD only; one thread, since probes and scrapes
 * are its only callers. The operator and the Java worker SDK serve theirs with it.
 */
public final class ProbeServer implements AutoCloseable {

  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  private static final String PLAIN = "text/plain; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private ProbeServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Starts serving on {@code host:port} (port 0 picks a free one; see {@link #port()}).
   *
   * @param name names the server's thread, and the server in the error when the port cannot be bound
   * @param setting the setting that chose the port, named in that error
   * @param metrics the Prometheus text of {@code /metrics}, or null to answer it 404; null from the supplier too
   */
  public static ProbeServer start(String name, String setting, String host, int port, Supplier<Health> health,
      Supplier<String> metrics) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve the " + name + "'s /healthz and /metrics on " + host + ":" + port
          + " (" + setting + "): " + e.getMessage(), e);
    }
    server.createContext("/metrics", exchange -> {
      String text = metrics == null ? null : metrics.get();
      if (text == null) {
        respond(exchange, 404, PLAIN, "no metrics here\n");
      } else {
        respond(exchange, 200, PROMETHEUS_TEXT, text);
      }
    });
    server.createContext("/healthz", exchange -> health(exchange, health.get()));
    server.createContext("/readyz", exchange -> health(exchange, health.get()));
    server.createContext("/", exchange -> respond(exchange, 404, PLAIN, "not found: try /metrics or /healthz\n"));
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name + "-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.start();
    return new ProbeServer(server, executor);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private static void health(HttpExchange exchange, Health health) throws IOException {
    respond(exchange, health.ok() ? 200 : 503, PLAIN, health.detail() + "\n");
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
        status = 405;
        body = "GET only\n";
        contentType = PLAIN;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", contentType);
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  /** The answer of {@code /healthz}: ok, and a line saying why (not). */
  public record Health(boolean ok, String detail) {}
}
