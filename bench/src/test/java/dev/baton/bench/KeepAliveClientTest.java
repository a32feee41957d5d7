package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The load generator's client against the JDK's own HTTP server on loopback: what it sends, reads and reuses. */
class KeepAliveClientTest {

  HttpServer server;
  final List<String> bodies = new CopyOnWriteArrayList<>();
  /** The client's port of each request: one connection means one port. */
  final List<Integer> ports = new CopyOnWriteArrayList<>();

  @BeforeEach
  void serve() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
    server.createContext("/sized", ex -> {
      record(ex);
      answer(ex, 201, "{\"id\":\"a\"}".getBytes(StandardCharsets.UTF_8), false);
    });
    server.createContext("/chunked", ex -> {
      record(ex);
      ex.sendResponseHeaders(200, 0); // length 0: chunked
      try (OutputStream out = ex.getResponseBody()) {
        out.write("{\"results\":".getBytes(StandardCharsets.UTF_8));
        out.flush();
        out.write("[1,2,3]}".getBytes(StandardCharsets.UTF_8));
      }
    });
    server.createContext("/closing", ex -> {
      record(ex);
      answer(ex, 503, "{}".getBytes(StandardCharsets.UTF_8), true);
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void postsTheJsonAndReadsTheAnswerOnOneConnection() throws Exception {
    try (KeepAliveClient client = new KeepAliveClient(base(), 5_000)) {
      KeepAliveClient.Response first = client.post("/sized", "{\"businessKey\":\"k-1\"}");
      KeepAliveClient.Response second = client.post("/sized", "{\"businessKey\":\"k-2\"}");

      assertThat(first.status()).isEqualTo(201);
      assertThat(first.body()).isEqualTo("{\"id\":\"a\"}");
      assertThat(second.status()).isEqualTo(201);
      assertThat(bodies).containsExactly("{\"businessKey\":\"k-1\"}", "{\"businessKey\":\"k-2\"}");
      assertThat(ports).hasSize(2).containsOnly(ports.get(0)); // kept alive
    }
  }

  @Test
  void readsAChunkedAnswer() throws Exception {
    try (KeepAliveClient client = new KeepAliveClient(base(), 5_000)) {
      KeepAliveClient.Response r = client.post("/chunked", "{}");

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("{\"results\":[1,2,3]}");
      assertThat(client.post("/sized", "{}").status()).isEqualTo(201); // the connection is still usable
      assertThat(ports).containsOnly(ports.get(0));
    }
  }

  @Test
  void aConnectionTheServerClosesIsOpenedAgainForTheNextRequest() throws Exception {
    try (KeepAliveClient client = new KeepAliveClient(base(), 5_000)) {
      assertThat(client.post("/closing", "{}").status()).isEqualTo(503);
      assertThat(client.post("/sized", "{}").status()).isEqualTo(201);

      assertThat(ports).hasSize(2).doesNotHaveDuplicates();
    }
  }

  private URI base() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private void record(com.sun.net.httpserver.HttpExchange ex) throws IOException {
    bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    ports.add(ex.getRemoteAddress().getPort());
  }

  private static void answer(com.sun.net.httpserver.HttpExchange ex, int status, byte[] body, boolean close)
      throws IOException {
    ex.getResponseHeaders().add("Content-Type", "application/json");
    if (close) {
      ex.getResponseHeaders().add("Connection", "close");
    }
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }
}
