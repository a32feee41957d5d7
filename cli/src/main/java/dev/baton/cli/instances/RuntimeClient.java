package dev.baton.cli.instances;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.cli.login.TokenSource;
import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;
import dev.baton.httpapi.ErrorBody;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;

/**
 * The runtime's HTTP API (docs/design.md#interfaces) from the command line: the API's own types (module http-api)
 * sent and read as JSON, and every failure turned into a {@link CliException} with the exit code it deserves: the
 * server's own message ({@link ErrorBody}) for 4xx/5xx, one clear line when the runtime cannot be reached.
 */
public final class RuntimeClient {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** An answer: its HTTP status and its body, read as the document asked for. */
  public record Response<T>(int status, T body) {}

  private final URI base;
  private final HttpClient http;
  private final TokenSource.Token token;

  /** @param token sent as {@code Authorization: Bearer <token>} (never printed); null: none */
  public RuntimeClient(String baseUrl, TokenSource.Token token) {
    this.base = baseUri(baseUrl);
    this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
    this.token = token;
  }

  /** The runtime's address as given, for messages. */
  public String url() {
    return base.toString();
  }

  public <T> T get(String path, Class<T> type) {
    return getAccepting(path, type, Set.of()).body();
  }

  /**
   * A GET whose listed error statuses are answers, not failures (e.g. {@code /healthz} says 503 when DOWN); their body
   * is read as {@code type} too.
   */
  public <T> Response<T> getAccepting(String path, Class<T> type, Set<Integer> accepted) {
    return send(HttpRequest.newBuilder(resolve(path)).GET(), path, type, accepted, REQUEST_TIMEOUT);
  }

  /** A GET the runtime may hold for up to {@code wait} (a long poll): the request may take that much longer. */
  public <T> T getWaiting(String path, Class<T> type, Duration wait) {
    return send(HttpRequest.newBuilder(resolve(path)).GET(), path, type, Set.of(), REQUEST_TIMEOUT.plus(wait))
        .body();
  }

  /** @param body sent as JSON; null sends none */
  public <T> T post(String path, Object body, Class<T> type) {
    return postWithStatus(path, body, type).body();
  }

  /** {@link #post}, with the status of the answer (a start says 201 when it created the instance, 200 when not). */
  public <T> Response<T> postWithStatus(String path, Object body, Class<T> type) {
    HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(Json.write(body), StandardCharsets.UTF_8);
    return send(HttpRequest.newBuilder(resolve(path)).header("Content-Type", "application/json").POST(publisher),
        path, type, Set.of(), REQUEST_TIMEOUT);
  }

  private <T> Response<T> send(HttpRequest.Builder request, String path, Class<T> type, Set<Integer> accepted,
      Duration timeout) {
    HttpResponse<String> response;
    if (token != null) {
      request.header("Authorization", "Bearer " + token.value());
    }
    try {
      response = http.send(request.timeout(timeout).header("Accept", "application/json").build(),
          HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpConnectTimeoutException e) {
      throw unreachable("no answer within " + CONNECT_TIMEOUT.toSeconds() + "s", e);
    } catch (HttpTimeoutException e) {
      throw CliException.server("the Baton runtime at " + base + " did not answer " + path + " within "
          + timeout.toSeconds() + "s");
    } catch (IOException e) {
      throw unreachable(reason(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.SERVER_ERROR, "interrupted");
    }
    JsonNode body = Json.parseOrNull(response.body());
    int status = response.statusCode();
    if (body == null) {
      throw CliException.server("the server at " + base + " answered " + path + " with HTTP " + status
          + " and no JSON: is --runtime-url the Baton runtime?");
    }
    if (status >= 400 && !accepted.contains(status)) {
      ErrorBody error = readOrNull(body, ErrorBody.class);
      String message = error == null || error.message() == null ? "" : error.message();
      String code = error == null || error.error() == null ? "" : error.error();
      String hint = status == 401 ? token == null ? "; pass --token, set BATON_RUNTIME_TOKEN or run `baton login`"
          : "; the token came from " + token.from() : "";
      throw CliException.server((message.isEmpty() ? "request failed" : message) + " (HTTP " + status
          + (code.isEmpty() ? "" : " " + code) + ")" + hint);
    }
    T document = readOrNull(body, type);
    if (document == null) {
      throw CliException.server("the server at " + base + " answered " + path + " with HTTP " + status
          + " and JSON that is not the runtime's " + type.getSimpleName() + ": is --runtime-url the Baton runtime?");
    }
    return new Response<>(status, document);
  }

  /** The JSON read as {@code type}, or null when it is not of that shape. */
  private static <T> T readOrNull(JsonNode json, Class<T> type) {
    try {
      return Json.MAPPER.treeToValue(json, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return null;
    }
  }

  private CliException unreachable(String why, Throwable cause) {
    return CliException.unreachable("cannot reach the Baton runtime at " + base + " (" + why
        + "): is `bin/baton dev` running? Otherwise point --runtime-url or BATON_RUNTIME_URL at it", cause);
  }

  private static String reason(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "connection refused";
      }
      if (t instanceof UnresolvedAddressException || t instanceof java.net.UnknownHostException) {
        return "unknown host";
      }
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private URI resolve(String path) {
    String b = base.toString();
    return URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + path);
  }

  private static URI baseUri(String url) {
    try {
      URI uri = new URI(url == null ? "" : url.trim());
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
        throw new URISyntaxException(String.valueOf(url), "not an http(s) URL with a host");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new CliException(ExitCodes.USAGE, "--runtime-url '" + url + "' is not a URL such as http://127.0.0.1:8080");
    }
  }
}
