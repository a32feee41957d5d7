package dev.baton.operator.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.api.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The runtime's HTTP API as the operator reads it ({@link RuntimeCounts}, {@link RuntimeRoutes}): GETs of JSON,
 * with the bearer token when there is one (never logged). Connections and requests time out, so a runtime that does
 * not answer costs a few seconds of a background thread and nothing else.
 */
public final class RuntimeApi {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  private final String base;
  private final Supplier<String> token;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

  /**
   * @param runtimeUrl the runtime's HTTP API, e.g. {@code http://baton-runtime:8080} (a final slash is dropped)
   * @param token bearer token for it, or null
   */
  public RuntimeApi(String runtimeUrl, String token) {
    this(runtimeUrl, () -> token);
  }

  /**
   * @param token the bearer token to send, asked before each request (null: none), so that a token read from a file
   *     the kubelet renews is always the current one
   */
  public RuntimeApi(String runtimeUrl, Supplier<String> token) {
    this.base = runtimeUrl.endsWith("/") ? runtimeUrl.substring(0, runtimeUrl.length() - 1) : runtimeUrl;
    this.token = token;
    uri("/"); // a bad URL fails at start-up, not at the first poll
  }

  /**
   * The token of {@code settings}: the one given, else the file's content read at each request, else none. A file
   * that cannot be read sends no token (the runtime then answers 401, which the operator reports).
   */
  public static Supplier<String> tokenOf(String token, Path file) {
    if (token != null || file == null) {
      return () -> token;
    }
    return () -> {
      try {
        String t = Files.readString(file).strip();
        return t.isEmpty() ? null : t;
      } catch (IOException unreadable) {
        return null;
      }
    };
  }

  /** {@code runtimeUrl} followed by {@code path}. */
  public URI uri(String path) {
    try {
      return URI.create(base + path);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad runtime URL '" + base + "': " + e.getMessage(), e);
    }
  }

  /**
   * The body of a 200 answer to {@code GET path}.
   *
   * @throws Unavailable when the runtime cannot be reached or answers with an error
   */
  public String get(String path) {
    URI uri = uri(path);
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
        .header("Accept", "application/json").GET();
    String bearer = token.get();
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (HttpTimeoutException e) {
      throw new Unavailable("no answer from " + uri + " within " + REQUEST_TIMEOUT.toSeconds() + "s");
    } catch (IOException e) {
      throw new Unavailable("cannot reach " + uri + " (" + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unavailable("interrupted while reading " + uri);
    }
    if (response.statusCode() != 200) {
      String hint = response.statusCode() == 401 || response.statusCode() == 403
          ? ": the runtime refused the operator's token (BATON_RUNTIME_TOKEN or BATON_RUNTIME_TOKEN_PATH)" : "";
      throw new Unavailable(uri + " answered HTTP " + response.statusCode() + hint);
    }
    return response.body();
  }

  /**
   * An answer of the runtime as its type in the HTTP contract.
   *
   * @param what what was read, for the message: "counts", "routes"
   * @throws Unavailable when it is not JSON
   */
  static <T> T read(String body, Class<T> type, String what) {
    try {
      T answer = Json.MAPPER.readValue(body, type);
      if (answer == null) {
        throw new Unavailable("the runtime's " + what + " are empty");
      }
      return answer;
    } catch (JsonProcessingException e) {
      throw new Unavailable("the runtime's " + what + " are not JSON: " + e.getOriginalMessage());
    }
  }

  /** The runtime could not be read this time (unreachable, an error, or an answer that makes no sense). */
  public static final class Unavailable extends RuntimeException {
    Unavailable(String message) {
      super(message);
    }
  }
}
