package dev.baton.operator.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads every Workflow's instance counts from the runtime in one request: {@code GET {runtimeUrl}/api/v1/counts},
 * answered with {@code {"items":[{"namespace":..,"workflow":..,"running":..,"succeeded":..,"failed":..,
 * "compensated":..,"cancelled":..}]}}. Connections and requests time out, so a runtime that does not answer costs a
 * few seconds of a background thread and nothing else. The bearer token, when there is one, is never logged.
 */
public final class RuntimeCounts {

  public static final String PATH = "/api/v1/counts";
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI uri;
  private final String token;
  private final HttpClient http;

  private RuntimeCounts(URI uri, String token, HttpClient http) {
    this.uri = uri;
    this.token = token;
    this.http = http;
  }

  /**
   * @param runtimeUrl the runtime's HTTP API, e.g. {@code http://baton-runtime:8080}
   * @param token bearer token for it, or null
   */
  public static RuntimeCounts create(String runtimeUrl, String token) {
    return new RuntimeCounts(resolve(runtimeUrl, PATH), token, httpClient());
  }

  public URI uri() {
    return uri;
  }

  /**
   * The counts of every Workflow the runtime knows; a Workflow it does not mention has none.
   *
   * @throws Unavailable when the runtime cannot be reached or answers with an error or something unreadable
   */
  public Map<ResourceID, InstanceCounts> fetch() {
    return parse(read(http, uri, token));
  }

  /**
   * The body of a 200 answer to {@code GET uri} (with the token, when there is one; never logged); shared with
   * {@link RuntimeRoutes}.
   *
   * @throws Unavailable when the runtime cannot be reached or answers with an error
   */
  static String read(HttpClient http, URI uri, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
        .header("Accept", "application/json").GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
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
          ? ": the runtime refused the operator's token (BATON_RUNTIME_TOKEN)" : "";
      throw new Unavailable(uri + " answered HTTP " + response.statusCode() + hint);
    }
    return response.body();
  }

  static HttpClient httpClient() {
    return HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
  }

  /** {@code runtimeUrl} (with or without a final slash) followed by {@code path}. */
  static URI resolve(String runtimeUrl, String path) {
    String base = runtimeUrl.endsWith("/") ? runtimeUrl.substring(0, runtimeUrl.length() - 1) : runtimeUrl;
    try {
      return URI.create(base + path);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad runtime URL '" + runtimeUrl + "': " + e.getMessage(), e);
    }
  }

  static Map<ResourceID, InstanceCounts> parse(String body) {
    JsonNode items;
    try {
      items = JSON.readTree(body).path("items");
    } catch (JsonProcessingException e) {
      throw new Unavailable("the runtime's counts are not JSON: " + e.getOriginalMessage());
    }
    if (!items.isArray()) {
      throw new Unavailable("the runtime's counts have no 'items' list");
    }
    Map<ResourceID, InstanceCounts> counts = new HashMap<>();
    for (JsonNode item : items) {
      String namespace = item.path("namespace").asText(null);
      String workflow = item.path("workflow").asText(null);
      if (namespace == null || workflow == null) {
        continue;
      }
      counts.put(new ResourceID(workflow, namespace), new InstanceCounts(item.path("running").asLong(0),
          item.path("succeeded").asLong(0), item.path("failed").asLong(0), item.path("compensated").asLong(0),
          item.path("cancelled").asLong(0)));
    }
    return counts;
  }

  /** The counts could not be read this time; the last ones stand. */
  public static final class Unavailable extends RuntimeException {
    Unavailable(String message) {
      super(message);
    }
  }
}
