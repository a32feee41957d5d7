package dev.baton.operator.broker;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;

/**
 * The management API (cowboy) closes a kept-alive connection after a number of requests; a request the JDK client
 * sends on such a connection just as it closes fails with "Broken pipe" or "Connection reset" without reaching the
 * broker. Every request Baton sends is idempotent (declarations, bindings, deletions, reads), so it is sent again on a
 * new connection. A refused connection or a timeout is the broker's state, not a stale connection: not retried here.
 */
final class StaleConnections {

  static final int RETRIES = 4;

  private StaleConnections() {}

  static boolean isStale(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof HttpTimeoutException || t instanceof ConnectException) {
        return false;
      }
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  static HttpResponse<byte[]> send(HttpClient http, HttpRequest request) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      } catch (IOException e) {
        if (attempt > RETRIES || !isStale(e)) {
          throw e;
        }
      }
    }
  }
}
