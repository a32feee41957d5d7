package dev.baton.reliability.suite;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * HTTP to a rig's runtimes: one client (3 s to connect, 20 s a request), requests with the rig's bearer token or
 * exactly as given. Shared by the health checks of {@link Runtimes} and the API calls of {@link RuntimeApi}.
 */
final class RuntimeHttp {

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
  private final String token;

  RuntimeHttp(String token) {
    this.token = token;
  }

  static URI uri(int port, String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /** The request with the bearer token. */
  HttpResponse<String> send(HttpRequest.Builder request) {
    return raw(request.header("Authorization", "Bearer " + token));
  }

  /** The request exactly as given: no token added. */
  HttpResponse<String> raw(HttpRequest.Builder request) {
    try {
      return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException("HTTP request failed: " + e, e);
    }
  }
}
