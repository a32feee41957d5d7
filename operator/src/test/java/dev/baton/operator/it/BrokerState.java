package dev.baton.operator.it;

import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.domain.DestinationType;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** What the management API reports for one vhost, in plain values to compare against expectations. */
public final class BrokerState {

  private final Client management;
  private final String vhost;

  public BrokerState(Client management, String vhost) {
    this.management = management;
    this.vhost = vhost;
  }

  /** Exchanges Baton declared (not the amq.* and default ones): name → type. */
  public Map<String, String> exchanges() {
    return management.getExchanges(vhost).stream()
        .filter(e -> !e.getName().isEmpty() && !e.getName().startsWith("amq."))
        .peek(e -> {
          if (!e.isDurable()) {
            throw new AssertionError("exchange " + e.getName() + " is not durable");
          }
        })
        .collect(Collectors.toMap(e -> e.getName(), e -> e.getType(), (a, b) -> a, TreeMap::new));
  }

  /** Queues: name → arguments, numbers as written (30000, not 30000.0). */
  public Map<String, Map<String, Object>> queues() {
    return management.getQueues(vhost).stream()
        .peek(q -> {
          if (!q.isDurable()) {
            throw new AssertionError("queue " + q.getName() + " is not durable");
          }
        })
        .collect(Collectors.toMap(q -> q.getName(), q -> normalise(q.getArguments()), (a, b) -> a, TreeMap::new));
  }

  /** Bindings to queues as "exchange -> queue : key", the default exchange's implicit ones left out. */
  public Set<String> bindings() {
    return management.getBindings(vhost).stream()
        .filter(b -> !b.getSource().isEmpty() && b.getDestinationType() == DestinationType.QUEUE)
        .map(b -> binding(b.getSource(), b.getDestination(), b.getRoutingKey()))
        .collect(Collectors.toSet());
  }

  public Map<String, Object> arguments(String queue) {
    return queues().get(queue);
  }

  public long messages(String queue) {
    var q = management.getQueue(vhost, queue);
    return q == null ? -1 : q.getTotalMessages();
  }

  public static String binding(String exchange, String queue, String key) {
    return exchange + " -> " + queue + " : " + key;
  }

  private static Map<String, Object> normalise(Map<String, Object> args) {
    Map<String, Object> out = new TreeMap<>();
    args.forEach((k, v) -> out.put(k, v instanceof Number n ? new BigDecimal(n.toString()).longValue() : v));
    return out;
  }
}
