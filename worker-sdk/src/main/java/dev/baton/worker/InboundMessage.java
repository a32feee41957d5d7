package dev.baton.worker;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;
import dev.baton.contract.Headers;
import java.util.Map;

/** One delivery as the processors see it: no channel, no delivery tag, so deciding about it cannot ack it. */
record InboundMessage(String exchange, String routingKey, boolean redelivered, AMQP.BasicProperties properties,
    byte[] body) {

  static InboundMessage of(Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
    return new InboundMessage(envelope.getExchange(), envelope.getRoutingKey(), envelope.isRedeliver(),
        properties == null ? new AMQP.BasicProperties() : properties, body == null ? new byte[0] : body);
  }

  String messageId() {
    return properties.getMessageId();
  }

  Map<String, Object> rawHeaders() {
    return properties.getHeaders() == null ? Map.of() : properties.getHeaders();
  }

  String header(String name) {
    String v = HeaderValues.text(rawHeaders().get(name));
    return v == null || v.isBlank() ? null : v;
  }

  /**
   * The exchange it was first published to. A subscription's retry tier returns messages through the default
   * exchange, so the SDK records the first exchange in {@code x-original-exchange} when it sends one to a tier.
   */
  String originalExchange() {
    String recorded = header(Headers.ORIGINAL_EXCHANGE);
    return recorded != null ? recorded : exchange;
  }

  /** The routing key it was first published with (see {@link #originalExchange()}). */
  String originalRoutingKey() {
    String recorded = header(Headers.ORIGINAL_ROUTING_KEY);
    return recorded != null ? recorded : routingKey;
  }

  /**
   * @throws UnprocessableMessageException when a content type other than JSON is declared (none at all is accepted)
   */
  void requireJsonContentType() {
    if (!Headers.isJsonContentType(properties.getContentType())) {
      throw new UnprocessableMessageException("content_type '" + properties.getContentType() + "' is not "
          + Headers.CONTENT_TYPE_JSON);
    }
  }

  /**
   * {@code baton-retries} as a number, 0 when absent.
   *
   * @throws UnprocessableMessageException when it is not a whole number
   */
  int retriesHeader() {
    Object raw = rawHeaders().get(Headers.RETRIES);
    try {
      Long n = HeaderValues.number(raw);
      return n == null ? 0 : (int) Math.max(0, Math.min(n, Integer.MAX_VALUE));
    } catch (NumberFormatException e) {
      throw new UnprocessableMessageException("header " + Headers.RETRIES + " is not a whole number");
    }
  }
}
