package dev.baton.operator.it;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The runtime's {@code GET /api/v1/counts}, serving whatever JSON the test sets, on a free local port; and its
 * {@code GET /api/v1/routes}, with no older revisions running unless the test sets them.
 */
public final class FakeRuntime implements AutoCloseable {

  private final HttpServer server;
  private final AtomicReference<String> body = new AtomicReference<>("{\"items\":[]}");
  private final AtomicReference<String> routes = new AtomicReference<>("{\"items\":[]}");
  private final AtomicInteger requests = new AtomicInteger();
  private volatile boolean down;
  public final List<String> authorizations = new CopyOnWriteArrayList<>();

  private FakeRuntime(HttpServer server) {
    this.server = server;
  }

  public static FakeRuntime start() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
      FakeRuntime runtime = new FakeRuntime(server);
      server.createContext("/api/v1/counts", exchange -> {
        runtime.requests.incrementAndGet();
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        runtime.authorizations.add(auth == null ? "" : auth);
        runtime.respond(exchange, runtime.body.get());
      });
      server.createContext("/api/v1/routes", exchange -> runtime.respond(exchange, runtime.routes.get()));
      server.start();
      return runtime;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void respond(com.sun.net.httpserver.HttpExchange exchange, String json) throws IOException {
    byte[] bytes = (down ? "{\"error\":\"database unavailable\"}" : json).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(down ? 503 : 200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public void answer(String json) {
    body.set(json);
  }

  public void answerRoutes(String json) {
    routes.set(json);
  }

  /** While down, every request is answered 503. */
  public void down(boolean down) {
    this.down = down;
  }

  /** One item of the answer. */
  public static String item(String namespace, String workflow, long running, long succeeded, long failed,
      long compensated, long cancelled) {
    return "{\"namespace\":\"" + namespace + "\",\"workflow\":\"" + workflow + "\",\"running\":" + running
        + ",\"succeeded\":" + succeeded + ",\"failed\":" + failed + ",\"compensated\":" + compensated
        + ",\"cancelled\":" + cancelled + "}";
  }

  public static String items(String... items) {
    return "{\"items\":[" + String.join(",", items) + "]}";
  }

  public int requests() {
    return requests.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
