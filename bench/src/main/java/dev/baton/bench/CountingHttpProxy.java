package dev.baton.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.operator.OperatorSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A reverse proxy in front of the RabbitMQ management API that counts the requests passing through, by method and
 * resource ({@code GET queues}, {@code PUT permissions}, ...). The operator is pointed at it through its ordinary
 * management URL setting, so what is counted is exactly what it sends, with no change to its code.
 */
final class CountingHttpProxy implements AutoCloseable {

  private static final Set<String> HOP_BY_HOP = Set.of("connection", "content-length", "expect", "host", "upgrade",
      "transfer-encoding", "keep-alive", "te", "trailer", "proxy-connection");

  private final HttpServer server;
  // More than the operator's reconciler threads, so that the proxy never queues what the operator sends at once.
  private final ExecutorService threads =
      Executors.newFixedThreadPool(OperatorSettings.DEFAULT_RECONCILE_THREADS + 14);
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final String target;
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private final AtomicLong failures = new AtomicLong();

  /** @param target the management API's root, e.g. {@code http://127.0.0.1:15672} (no path) */
  CountingHttpProxy(String target) throws IOException {
    this.target = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
    server.setExecutor(threads);
    server.createContext("/", this::forward);
    server.start();
  }

  /** The URL to give instead of {@code http://host:15672/api/}. */
  String apiUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/";
  }

  /** Requests by "METHOD resource" since the last reset, and resets. */
  Map<String, Long> takeCounts() {
    Map<String, Long> snapshot = new TreeMap<>();
    counts.forEach((k, v) -> {
      long n = v.getAndSet(0);
      if (n > 0) {
        snapshot.put(k, n);
      }
    });
    return snapshot;
  }

  static long total(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  private void forward(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getRawPath();
      String query = ex.getRequestURI().getRawQuery();
      counts.computeIfAbsent(ex.getRequestMethod() + " " + resource(path), k -> new AtomicLong()).incrementAndGet();
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(target + path + (query == null ? "" : "?" + query)))
          .timeout(Duration.ofSeconds(60))
          .method(ex.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(body));
      ex.getRequestHeaders().forEach((name, values) -> {
        if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
          values.forEach(v -> b.header(name, v));
        }
      });
      HttpResponse<byte[]> r = null;
      // The management API closes kept-alive connections after a number of requests, and refuses some connections
      // while a burst of them opens: such a request never reached the broker and is sent again, as a reverse proxy
      // does (counted once, as the operator's request). A timeout is the broker's answer and is passed on as 502.
      for (int attempt = 1; r == null; attempt++) {
        try {
          r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          ex.sendResponseHeaders(502, -1);
          return;
        } catch (java.net.http.HttpTimeoutException e) {
          ex.sendResponseHeaders(502, -1);
          return;
        } catch (IOException e) {
          if (attempt == 5) {
            if (failures.getAndIncrement() == 0) {
              System.err.println("counting proxy: " + e + " (answered 502; further failures are counted only)");
            }
            ex.sendResponseHeaders(502, -1);
            return;
          }
        }
      }
      r.headers().map().forEach((name, values) -> {
        if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
          ex.getResponseHeaders().put(name, List.copyOf(values));
        }
      });
      byte[] out = r.body();
      ex.sendResponseHeaders(r.statusCode(), out.length == 0 ? -1 : out.length);
      if (out.length > 0) {
        try (OutputStream os = ex.getResponseBody()) {
          os.write(out);
        }
      }
    }
  }

  /** {@code /api/queues/vh/q.a.b} → {@code queues}; {@code /api/vhosts/vh/permissions} → {@code vhosts/permissions}. */
  static String resource(String path) {
    String p = path.startsWith("/api/") ? path.substring(5) : path;
    String[] parts = p.split("/");
    if (parts.length == 0 || parts[0].isEmpty()) {
      return "/";
    }
    if (parts.length >= 3 && parts[0].equals("vhosts")) {
      return "vhosts/" + parts[2];
    }
    if (parts[0].equals("bindings") && parts.length >= 3) {
      return "bindings (" + parts[2] + ")";
    }
    return parts[0];
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
