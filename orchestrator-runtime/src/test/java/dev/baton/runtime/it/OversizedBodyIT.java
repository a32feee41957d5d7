package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.NS;
import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A body over the limit is refused with a 413 the client can read. Most clients (curl, Java's HttpClient, browsers)
 * send the whole body before they read the answer; a server that answers and closes while body bytes are still
 * arriving makes the kernel reset the connection, and the client sees "connection reset" or no answer at all instead
 * of the 413 (the reliability suite's bad-input table met it in CI). 20 MB is more than the sockets buffer, so the
 * old behaviour failed here every time (broken pipe), not now and then.
 */
class OversizedBodyIT {

  static final int LIMIT = 4_096;
  static RuntimeHarness h;
  static int port;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("oversized");
    port = h.startRuntime(h.settings().toBuilder().maxRequestBytes(LIMIT).build()).httpPort();
    h.apply("orders", spec("order", step("only", "big-only", "only", null)));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void aClientThatSendsTheWholeOversizedBodyBeforeReadingGetsThe413() throws Exception {
    byte[] body = ("{\"businessKey\":\"big\",\"input\":{\"x\":\"" + "x".repeat(20_000_000) + "\"}}")
        .getBytes(StandardCharsets.UTF_8);
    String head = "POST /api/v1/namespaces/" + NS + "/workflows/orders/instances HTTP/1.1\r\n"
        + "Host: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + "Content-Length: " + body.length + "\r\n\r\n";
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      for (int at = 0; at < body.length; at += 8_192) {
        out.write(body, at, Math.min(8_192, body.length - at));
      }
      out.flush();
      InputStream in = socket.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 413").contains("\"error\":\"PayloadTooLarge\"")
          .contains("the limit is " + LIMIT);
    }
  }
}
