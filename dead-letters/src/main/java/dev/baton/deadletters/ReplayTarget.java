package dev.baton.deadletters;

import com.rabbitmq.client.AMQP;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a dead letter goes back to, and with which headers.
 *
 * <ul>
 *   <li>A command's dead letter ({@code x-original-exchange} is a command exchange, or absent) goes back to
 *       {@code x-original-exchange} (else {@code S.command.topic.ex}, from the queue name) with
 *       {@code x-original-routing-key} (else {@code service.S.C}): the command queue, through the same exchange
 *       and key as the orchestrator's publish.
 *   <li>A subscription's dead letter ({@code x-original-exchange} is another service's event exchange) goes to the
 *       subscription queue {@code q.S.<subscription>} only, through the default exchange, so the other subscribers
 *       and the orchestrator do not receive the event a second time. Its {@code x-original-*} headers stay, so the
 *       handler still sees the event's routing key ({@code order.pay.failed}). The runtime's parked events
 *       ({@code q.dlx.orchestrator.W}) go back to {@code q.orchestrator.W} the same way.
 * </ul>
 *
 * <p>Every header is kept, except: {@code baton-retries} is reset to 0 (a fresh staircase), the
 * {@code x-exception-*} headers are dropped (they describe the failure that parked it; a new failure writes new
 * ones), and {@code x-replay-count} counts the replays of the message. The {@code message_id} is unchanged, so
 * workers can recognise the message (the Java SDK re-runs the handler anyway: technical failures are never
 * remembered as outcomes).
 */
public record ReplayTarget(String exchange, String routingKey, boolean toSubscriptionQueue) {

  public static final String REPLAY_COUNT = "x-replay-count";

  public static ReplayTarget of(DeadLetterQueue dlq, Map<String, Object> headers) {
    String exchange = Headers.text(headers.get(Headers.ORIGINAL_EXCHANGE));
    String routingKey = Headers.text(headers.get(Headers.ORIGINAL_ROUTING_KEY));
    boolean commandExchange = exchange != null && exchange.endsWith(".command.topic.ex");
    if (exchange != null && !commandExchange) {
      return new ReplayTarget("", Names.consumerQueue(dlq.service(), dlq.consumer()), true);
    }
    return new ReplayTarget(commandExchange ? exchange : Names.commandExchange(dlq.service()),
        routingKey != null ? routingKey : Names.commandRoutingKey(dlq.service(), dlq.consumer()), false);
  }

  /** The dead letter's properties for its new life: see the class comment for what changes. */
  public static AMQP.BasicProperties replayProperties(AMQP.BasicProperties parked) {
    Map<String, Object> headers = new LinkedHashMap<>(parked.getHeaders() == null ? Map.of() : parked.getHeaders());
    headers.remove(Headers.EXCEPTION_MESSAGE);
    headers.remove(Headers.EXCEPTION_TYPE);
    headers.put(Headers.RETRIES, 0);
    Object count = headers.get(REPLAY_COUNT);
    headers.put(REPLAY_COUNT, count instanceof Number n ? n.intValue() + 1 : 1);
    return parked.builder().headers(headers).deliveryMode(2).build();
  }

  /** {@code exchange → key}, the default exchange written as such. */
  public String describe() {
    return (exchange.isEmpty() ? "(default exchange)" : exchange) + " -> " + routingKey;
  }

}
