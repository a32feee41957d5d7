package dev.baton.deadletters;

import com.rabbitmq.http.client.domain.InboundMessage;
import dev.baton.contract.Headers;
import java.time.Instant;
import java.util.Map;

/**
 * A dead letter looked at through the management API (peeked: taken and put back at once, never consumed), with
 * what a person needs to decide about it: the original routing key, the exception that parked it, and which
 * instance and step it belongs to.
 */
public record ParkedMessage(String messageId, String routingKey, Map<String, Object> headers, Instant timestamp,
    InboundMessage raw) {

  @SuppressWarnings("unchecked")
  public static ParkedMessage of(InboundMessage m) {
    Map<String, Object> props = m.getProperties() == null ? Map.of() : m.getProperties();
    Map<String, Object> headers = props.get("headers") instanceof Map<?, ?> h ? (Map<String, Object>) h : Map.of();
    Object ts = props.get("timestamp");
    Instant timestamp = ts instanceof Number n ? Instant.ofEpochSecond(n.longValue()) : null;
    Object key = headers.get(Headers.ORIGINAL_ROUTING_KEY);
    return new ParkedMessage(props.get("message_id") == null ? "" : props.get("message_id").toString(),
        key == null ? m.getRoutingKey() : key.toString(), headers, timestamp, m);
  }

  /** A header as text, empty when absent. */
  public String header(String name) {
    Object v = headers.get(name);
    return v == null ? "" : v.toString();
  }

  /** {@code SimpleExceptionType: message}, cut at 100 characters (a table cell). */
  public String exception() {
    String text = exceptionText();
    return text.length() > 100 ? text.substring(0, 97) + "..." : text;
  }

  /** {@code SimpleExceptionType: message} in full. */
  public String exceptionText() {
    String type = header(Headers.EXCEPTION_TYPE);
    String message = header(Headers.EXCEPTION_MESSAGE);
    String simple = type.substring(Math.max(type.lastIndexOf('.'), type.lastIndexOf('$')) + 1);
    return message.isEmpty() ? simple : simple.isEmpty() ? message : simple + ": " + message;
  }

  /** The body as the management API gave it (text, or base64 when it is not UTF-8). */
  public String payload() {
    return raw.getPayload() == null ? "" : raw.getPayload();
  }
}
