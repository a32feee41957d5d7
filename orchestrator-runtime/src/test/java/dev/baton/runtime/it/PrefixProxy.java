package dev.baton.runtime.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A reverse proxy that serves the runtime under a path prefix and strips it, as an ingress with a rewrite or
 * {@code kubectl proxy} does: {@code /prefix/ui/x} is {@code /ui/x} at the runtime, which is not told the prefix. It
 * sends its own Host and the browser's in X-Forwarded-Host, the prefix in X-Forwarded-Prefix (unless made
 * {@link #sayingNoPrefix}, as {@code kubectl proxy}'s service proxy, which sends none), follows no redirect and passes
 * every other header and the body as they are, both ways.
 */
final class PrefixProxy implements AutoCloseable {

  /** Headers the JDK's client sets itself, and hop-by-hop ones. */
  private static final Set<String> NOT_PASSED = Set.of("host", "x-forwarded-host", "x-forwarded-prefix", "connection", "content-length", "expect", "upgrade",
      "transfer-encoding", "keep-alive");

  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private final HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
  private final String prefix;
  private final String target;
  private final boolean saysPrefix;

  /** Serves {@code http://127.0.0.1:<targetPort>/...} as {@code http://127.0.0.1:<port>/<prefix>/...}. */
  PrefixProxy(String prefix, int targetPort) throws IOException {
    this(prefix, targetPort, true);
  }

  /**
   * As {@link #PrefixProxy(String, int)}, without X-Forwarded-Prefix: as {@code kubectl proxy} serves a Service under
   * {@code /api/v1/namespaces/NS/services/NAME:PORT/proxy/}.
   */
  static PrefixProxy sayingNoPrefix(String prefix, int targetPort) throws IOException {
    return new PrefixProxy(prefix, targetPort, false);
  }

  private PrefixProxy(String prefix, int targetPort, boolean saysPrefix) throws IOException {
    this.saysPrefix = saysPrefix;
    this.prefix = prefix;
    this.target = "http://127.0.0.1:" + targetPort;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(prefix + "/", this::forward);
    server.setExecutor(threads);
    server.start();
  }

  /** The browser's URL of a path at the runtime: {@code /ui/} gives {@code http://127.0.0.1:<port>/<prefix>/ui/}. */
  String url(String runtimePath) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + prefix + runtimePath;
  }

  private void forward(HttpExchange exchange) throws IOException {
    try (exchange) {
      URI asked = exchange.getRequestURI();
      String path = asked.getRawPath().substring(prefix.length());
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target + path
          + (asked.getRawQuery() == null ? "" : "?" + asked.getRawQuery())));
      for (Map.Entry<String, List<String>> h : exchange.getRequestHeaders().entrySet()) {
        if (!NOT_PASSED.contains(h.getKey().toLowerCase(Locale.ROOT))) {
          h.getValue().forEach(v -> request.header(h.getKey(), v));
        }
      }
      request.header("X-Forwarded-Host", exchange.getRequestHeaders().getFirst("Host"));
      if (saysPrefix) {
        request.header("X-Forwarded-Prefix", prefix);
      }
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      request.method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofByteArray(body));
      HttpResponse<byte[]> response;
      try {
        response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exchange.sendResponseHeaders(502, -1);
        return;
      }
      response.headers().map().forEach((name, values) -> {
        if (!NOT_PASSED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
          values.forEach(v -> exchange.getResponseHeaders().add(name, v));
        }
      });
      byte[] out = response.body();
      exchange.sendResponseHeaders(response.statusCode(), out.length == 0 ? -1 : out.length);
      if (out.length > 0) {
        try (OutputStream o = exchange.getResponseBody()) {
          o.write(out);
        }
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
