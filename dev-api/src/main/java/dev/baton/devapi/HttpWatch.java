package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Watches over a streamed HTTP response, the way kubectl watches ({@code ?watch=true}, one JSON event per line):
 * the initial state (or what changed since {@code resourceVersion}), then each change as it is stored, until
 * {@code timeoutSeconds} or the client leaves.
 */
final class HttpWatch {

  private final Vertx vertx;
  private final DevApiDispatcher store;
  private final WatchHub hub;

  HttpWatch(Vertx vertx, DevApiDispatcher store, WatchHub hub) {
    this.vertx = vertx;
    this.store = store;
    this.hub = hub;
  }

  /** True for a watch that is not a WebSocket upgrade (those go to the fabric8 store). */
  static boolean isHttpWatch(HttpServerRequest request) {
    String upgrade = request.getHeader("Upgrade");
    String watch = request.getParam("watch");
    return ("true".equals(watch) || "1".equals(watch)) && (upgrade == null || !upgrade.equalsIgnoreCase("websocket"));
  }

  void serve(HttpServerRequest request) {
    ApiPath path = ApiPath.parse(request.uri());
    HttpServerResponse response = request.response();
    if (!path.isResource()) {
      response.setStatusCode(404).putHeader("Content-Type", "application/json")
          .end(Json.write(ApiStatus.notFound(null, null, null)));
      return;
    }
    FieldSelector fields = FieldSelector.parse(path.param("fieldSelector"));
    LabelSelector labels = LabelSelector.parse(path.param("labelSelector"));
    Context context = vertx.getOrCreateContext();
    // kubectl get -w asks for Tables: each event then carries a one-row Table instead of the object
    Optional<ResourceType> type = store.knownResources().find(path.group(), path.version(), path.plural());
    boolean table = TableRenderer.wanted(request.getHeader("Accept")) && type.isPresent();
    Function<WatchHub.Event, WatchHub.Event> render = e -> !table ? e
        : e.withObject(TableRenderer.render(PrinterColumns.forType(type.get()), e.object(),
            path.param("includeObject"), Instant.now()));
    AtomicBoolean open = new AtomicBoolean(true);
    WatchHub.Subscription subscription = new WatchHub.Subscription(
        e -> e.group().equals(path.group()) && e.version().equals(path.version()) && e.plural().equals(path.plural())
            && (path.namespace() == null || path.namespace().equals(namespaceOf(e.object())))
            && fields.matchesAll(e.object()) && labels.matches(e.object()),
        e -> context.runOnContext(v -> {
          if (open.get()) {
            response.write(render.apply(e).line());
          }
        }));
    String since = path.param("resourceVersion");
    List<WatchHub.Event> first = store.withoutConcurrentWrites(() -> {
      if (since == null || since.isEmpty() || since.equals("0")) {
        return currentState(path, fields, labels, subscription);
      }
      return hub.subscribeAfter(Long.parseLong(since), subscription);
    });
    response.setStatusCode(200).setChunked(true).putHeader("Content-Type", "application/json");
    if (first == null) {
      response.end(gone(since));
      return;
    }
    response.writeHead();
    first.forEach(e -> response.write(render.apply(e).line()));
    Runnable close = () -> {
      if (open.getAndSet(false)) {
        hub.unsubscribe(subscription);
        response.end();
      }
    };
    response.closeHandler(v -> {
      open.set(false);
      hub.unsubscribe(subscription);
    });
    String timeout = path.param("timeoutSeconds");
    if (timeout != null && !timeout.isEmpty()) {
      vertx.setTimer(Math.max(1, Long.parseLong(timeout)) * 1000, id -> close.run());
    }
  }

  private List<WatchHub.Event> currentState(ApiPath path, FieldSelector fields, LabelSelector labels,
      WatchHub.Subscription subscription) {
    String list = (path.group().isEmpty() ? "/api/" : "/apis/") + path.groupVersion()
        + (path.namespace() == null ? "" : "/namespaces/" + path.namespace()) + "/" + path.plural();
    JsonNode stored = store.read(list);
    List<WatchHub.Event> added = new ArrayList<>();
    long version = 0;
    if (stored != null) {
      version = stored.path("metadata").path("resourceVersion").asLong(0);
      for (JsonNode item : stored.path("items")) {
        if (fields.matchesAll(item) && labels.matches(item)) {
          added.add(new WatchHub.Event(0, WatchHub.Type.ADDED, path.group(), path.version(), path.plural(), item));
        }
      }
    }
    List<WatchHub.Event> later = hub.subscribeAfter(version, subscription);
    if (later != null) {
      added.addAll(later);
    }
    return added;
  }

  private static String namespaceOf(JsonNode object) {
    return object.path("metadata").path("namespace").asText(null);
  }

  private static String gone(String since) {
    ObjectNode status = ApiStatus.failure(410, "Expired", "too old resource version: " + since);
    ObjectNode event = Json.object();
    event.put("type", "ERROR");
    event.set("object", status);
    return Json.write(event) + "\n";
  }
}
