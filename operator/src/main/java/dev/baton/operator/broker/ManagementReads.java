package dev.baton.operator.broker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.contract.topology.PermissionSpec;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The management API's listings with {@code columns=}: only the fields Baton reads, so a vhost of 10,000 queues is a
 * hundred kilobytes, not megabytes of message rates. (Hop pages such requests; Baton wants each listing in one
 * request.) Errors become {@link BrokerException}s as Hop's do in {@link HopBrokerClient}.
 */
final class ManagementReads {

  static final String QUEUE_COLUMNS = "name,arguments,messages,messages_unacknowledged,consumers";
  /**
   * The listing of every queue leaves the statistics database out ({@code disable_stats}): with it, 25,000 queues took
   * the broker 18 s to list, more than a request may take; without, 4 s. The counts come from the queues themselves
   * ({@code enable_queue_totals}), the consumers from the vhost's consumers, one request more.
   */
  static final String LISTED_QUEUE_COLUMNS = "name,arguments,messages,messages_unacknowledged";
  /**
   * A listing's time grows with the vhost (15 s and more for 25,000 queues on a busy broker), and there is one per half
   * resync for all passes, which go on with the last one meanwhile: it may take longer than a single request.
   */
  static final Duration LISTING_TIMEOUT = Duration.ofSeconds(60);

  private final HttpClient http;
  private final String base;
  private final String authorization;
  private final Duration timeout;
  private final String vhost;

  ManagementReads(HttpClient http, String managementUrl, String authorization, Duration timeout, String vhost) {
    this.http = http;
    this.base = managementUrl.endsWith("/") ? managementUrl : managementUrl + "/";
    this.authorization = authorization;
    this.timeout = timeout;
    this.vhost = vhost;
  }

  List<BrokerQueue> queues() {
    Map<String, Integer> consumers = new HashMap<>();
    list("listing consumers", "consumers/" + encode(vhost) + "?columns=queue.name", true)
        .forEach(c -> consumers.merge(c.path("queue").path("name").asText(), 1, Integer::sum));
    return list("listing queues", "queues/" + encode(vhost) + "?disable_stats=true&enable_queue_totals=true&columns="
        + LISTED_QUEUE_COLUMNS, true).stream()
        .map(q -> queue(q, consumers.getOrDefault(q.path("name").asText(), 0))).toList();
  }

  Optional<BrokerQueue> queue(String name) {
    return get("reading queue " + name, "queues/" + encode(vhost) + "/" + encode(name) + "?columns=" + QUEUE_COLUMNS)
        .map(q -> queue(q, (int) count(q, "consumers")));
  }

  List<BrokerExchange> exchanges() {
    return list("listing exchanges", "exchanges/" + encode(vhost) + "?columns=name,type", true).stream()
        .map(e -> new BrokerExchange(e.path("name").asText(), e.path("type").asText())).toList();
  }

  List<BrokerBinding> bindings() {
    return list("listing bindings", "bindings/" + encode(vhost)
        + "?columns=source,destination,destination_type,routing_key,properties_key", true).stream()
        .filter(b -> "queue".equals(b.path("destination_type").asText()) && !b.path("source").asText().isEmpty())
        .map(b -> new BrokerBinding(b.path("source").asText(), b.path("destination").asText(),
            b.path("routing_key").asText(), b.path("properties_key").asText()))
        .toList();
  }

  List<BrokerUser> users() {
    return list("listing users", "users?columns=name,password_hash,hashing_algorithm,tags", false).stream()
        .map(u -> new BrokerUser(u.path("name").asText(), text(u, "password_hash"), text(u, "hashing_algorithm"),
            tags(u.path("tags"))))
        .toList();
  }

  Map<String, PermissionSpec> permissions() {
    Map<String, PermissionSpec> byUser = new LinkedHashMap<>();
    list("listing permissions", "vhosts/" + encode(vhost) + "/permissions?columns=user,configure,write,read", true)
        .forEach(p -> byUser.put(p.path("user").asText(), new PermissionSpec(p.path("configure").asText(),
            p.path("write").asText(), p.path("read").asText())));
    return byUser;
  }

  private static BrokerQueue queue(JsonNode q, int consumers) {
    Map<String, Object> arguments = q.hasNonNull("arguments")
        ? Json.MAPPER.convertValue(q.get("arguments"), Json.MAPPER.getTypeFactory().constructMapType(Map.class, String.class, Object.class))
        : Map.of();
    return new BrokerQueue(q.path("name").asText(), arguments, count(q, "messages"),
        count(q, "messages_unacknowledged"), consumers);
  }

  /** A count the broker has not collected yet is absent (or negative on some versions): unknown. */
  private static long count(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || !value.isNumber() || value.asLong() < 0 ? BrokerQueue.UNKNOWN : value.asLong();
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  /** RabbitMQ 3.9+ writes tags as a list, older versions as one comma-separated string. */
  private static List<String> tags(JsonNode tags) {
    List<String> out = new ArrayList<>();
    if (tags.isArray()) {
      tags.forEach(t -> out.add(t.asText()));
    } else if (tags.isTextual() && !tags.asText().isBlank()) {
      out.addAll(Arrays.stream(tags.asText().split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList());
    }
    return out;
  }

  /** @param inVhost whether a 404 means that the vhost does not exist */
  private List<JsonNode> list(String what, String path, boolean inVhost) {
    Optional<JsonNode> body = get(what, path, LISTING_TIMEOUT);
    if (body.isEmpty()) {
      if (inVhost) {
        throw new BrokerException(BrokerException.Failure.REJECTED, "vhost '" + vhost + "' does not exist on the "
            + "broker at " + base + ": create it, or set BATON_RABBITMQ_VHOST to an existing one");
      }
      throw new BrokerException(BrokerException.Failure.REJECTED, what + ": the management API at " + base
          + " answered 404");
    }
    List<JsonNode> items = new ArrayList<>();
    body.get().forEach(items::add);
    return items;
  }

  private Optional<JsonNode> get(String what, String path) {
    return get(what, path, timeout);
  }

  private Optional<JsonNode> get(String what, String path, Duration timeout) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
        .header("Authorization", authorization).header("Accept", "application/json").GET().build();
    HttpResponse<byte[]> response;
    try {
      response = StaleConnections.send(http, request);
    } catch (IOException e) {
      throw new BrokerException(BrokerException.Failure.UNAVAILABLE, what + " failed: cannot reach the RabbitMQ "
          + "management API at " + base + " (" + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrokerException(BrokerException.Failure.UNAVAILABLE, what + " was interrupted", e);
    }
    int status = response.statusCode();
    if (status == 404) {
      return Optional.empty();
    }
    if (status >= 500) {
      throw new BrokerException(BrokerException.Failure.UNAVAILABLE,
          what + " failed: the RabbitMQ management API answered HTTP " + status);
    }
    if (status >= 400) {
      throw new BrokerException(BrokerException.Failure.REJECTED, what + " was refused by the RabbitMQ management API "
          + "(HTTP " + status + ")" + (status == 401 ? ": the operator's broker credentials were refused" : ""));
    }
    try {
      return Optional.of(Json.MAPPER.readTree(response.body()));
    } catch (IOException e) {
      throw new BrokerException(BrokerException.Failure.UNAVAILABLE, what + ": the management API's answer is not "
          + "JSON (" + e.getMessage() + ")", e);
    }
  }

  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
