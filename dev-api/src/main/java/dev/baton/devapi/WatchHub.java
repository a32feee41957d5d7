package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Every change the dev API stores, kept for a while and handed to open watches. The fabric8 store only watches over
 * WebSocket (what fabric8 clients use); kubectl watches over a streamed HTTP response ({@code kubectl get -w},
 * {@code kubectl wait}, the wait of {@code kubectl delete}), which {@link HttpWatch} serves from here.
 */
final class WatchHub {

  enum Type { ADDED, MODIFIED, DELETED }

  /** A stored change: where it happened (group, version, plural) and the object after it. */
  record Event(long resourceVersion, Type type, String group, String version, String plural, JsonNode object) {

    Event withObject(JsonNode other) {
      return new Event(resourceVersion, type, group, version, plural, other);
    }

    /** The line of a watch stream: {@code {"type":"ADDED","object":{...}}}. */
    String line() {
      ObjectNode e = Json.object();
      e.put("type", type.name());
      e.set("object", object);
      return Json.write(e) + "\n";
    }
  }

  /** A watcher: which events it wants and where they go. */
  record Subscription(Predicate<Event> filter, Consumer<Event> sink) {}

  private static final int HISTORY = 10_000;

  private final Deque<Event> history = new ArrayDeque<>();
  private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private long forgottenUpTo;

  /** Called by the store, in resource version order, for every change. */
  synchronized void publish(Type type, ApiPath path, JsonNode object) {
    long rv = Long.parseLong(object.path("metadata").path("resourceVersion").asText("0"));
    Event event = new Event(rv, type, path.group(), path.version(), path.plural(), object);
    history.addLast(event);
    if (history.size() > HISTORY) {
      forgottenUpTo = history.removeFirst().resourceVersion();
    }
    for (Subscription s : subscriptions) {
      if (s.filter().test(event)) {
        s.sink().accept(event);
      }
    }
  }

  /**
   * The matching events after {@code resourceVersion}, then every later one as it happens; null when that version
   * is older than the history kept (the watcher must list again: 410 Gone).
   */
  synchronized List<Event> subscribeAfter(long resourceVersion, Subscription subscription) {
    if (resourceVersion < forgottenUpTo) {
      return null;
    }
    List<Event> missed = new ArrayList<>();
    for (Event e : history) {
      if (e.resourceVersion() > resourceVersion && subscription.filter().test(e)) {
        missed.add(e);
      }
    }
    subscriptions.add(subscription);
    return missed;
  }

  int subscriptionCount() {
    return subscriptions.size();
  }

  void unsubscribe(Subscription subscription) {
    subscriptions.remove(subscription);
  }
}
