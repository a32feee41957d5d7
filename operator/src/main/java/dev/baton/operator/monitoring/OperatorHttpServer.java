package dev.baton.operator.monitoring;

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
 * The operator's own small HTTP endpoint: {@code /metrics} (Prometheus text), {@code /healthz} and {@code /readyz}
 * (200 while the operator runs with healthy informers, 503 otherwise; the Helm chart probes them). GET only; one
 * thread, since Prometheus and kubelet are its only callers.
 */
public final class OperatorHttpServer implements AutoCloseable {

  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  private static final String PLAIN = "text/plain; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private OperatorHttpServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /** Starts serving on {@code host:port} (port 0 picks a free one; see {@link #port()}). */
  public static OperatorHttpServer start(String host, int port, OperatorMetrics metrics, Supplier<Health> health) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve the operator's /metrics and /healthz on " + host + ":" + port
          + " (BATON_OPERATOR_HTTP_PORT; 0 turns it off): " + e.getMessage(), e);
    }
    server.createContext("/metrics", exchange -> respond(exchange, 200, PROMETHEUS_TEXT, metrics.scrape()));
    server.createContext("/healthz", exchange -> health(exchange, health.get()));
    server.createContext("/readyz", exchange -> health(exchange, health.get()));
    server.createContext("/", exchange -> respond(exchange, 404, PLAIN, "not found: try /metrics or /healthz\n"));
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "baton-operator-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.start();
    return new OperatorHttpServer(server, executor);
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
