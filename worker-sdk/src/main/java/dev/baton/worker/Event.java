package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.EventResult;
import java.util.Map;
import java.util.Optional;

/** An event delivered to one of the service's subscriptions. */
public final class Event {

  private final String subscription;
  private final InboundMessage message;
  private final JsonNode body;
  private final int retries;
  private final Map<String, Object> headers;

  Event(String subscription, InboundMessage message, JsonNode body, int retries) {
    this.subscription = subscription;
    this.message = message;
    this.body = body;
    this.retries = retries;
    this.headers = HeaderValues.plain(message.rawHeaders());
  }

  /** The subscription name, e.g. {@code order_pay_failed_notify}. */
  public String subscription() {
    return subscription;
  }

  /** The routing key the event was published with, e.g. {@code order.pay.failed} (kept across retries). */
  public String routingKey() {
    return message.originalRoutingKey();
  }

  /** The exchange it was published to, e.g. {@code payment.event.topic.ex} (kept across retries). */
  public String exchange() {
    return message.originalExchange();
  }

  /** {@code success}, {@code failed} or {@code error} when the routing key ends with one. */
  public Optional<EventResult> result() {
    return EventResult.fromRoutingKey(routingKey());
  }

  public String messageId() {
    return message.messageId();
  }

  public String correlationId() {
    return message.properties().getCorrelationId();
  }

  public JsonNode body() {
    return body;
  }

  /**
   * The body as {@code type} (unknown fields ignored).
   *
   * @throws UnprocessableMessageException when it does not fit: the SDK parks the event instead of retrying it
   */
  public <T> T bodyAs(Class<T> type) {
    return Bodies.convert(body, type);
  }

  /** This subscription's retries so far: 0 on the first delivery. */
  public int retries() {
    return retries;
  }

  public Map<String, Object> headers() {
    return headers;
  }

  public String header(String name) {
    Object v = headers.get(name);
    return v == null ? null : v.toString();
  }

  @Override
  public String toString() {
    return "Event[" + subscription + ", " + routingKey() + ", message_id=" + messageId() + ", retries=" + retries + "]";
  }
}
