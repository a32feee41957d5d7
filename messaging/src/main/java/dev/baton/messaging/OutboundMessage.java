package dev.baton.messaging;

import com.rabbitmq.client.AMQP;
import java.util.Objects;

/**
 * A message to publish with a confirm.
 *
 * @param mandatory ask the broker to return the message when no queue is bound for its routing key (the outcome is
 *     then {@link PublishResult.Status#UNROUTABLE} instead of a silent drop)
 * @param what a few words for logs, never the body
 */
public record OutboundMessage(String exchange, String routingKey, boolean mandatory, AMQP.BasicProperties properties,
    byte[] body, String what) {

  public OutboundMessage {
    Objects.requireNonNull(exchange, "exchange");
    Objects.requireNonNull(routingKey, "routingKey");
    Objects.requireNonNull(properties, "properties");
    body = body == null ? new byte[0] : body;
    what = what == null ? "message to " + exchange + " with key " + routingKey : what;
  }

  /** The body's size in bytes: what the broker's {@code max_message_size} is compared with (headers aside). */
  public int size() {
    return body.length;
  }

  public String messageId() {
    return properties.getMessageId();
  }
}
