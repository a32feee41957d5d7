package dev.baton.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

/**
 * What the suite sees on the broker: every message published to the exchanges it taps (through a queue of its own
 * bound with {@code #}) and every message that reaches the queues it drains (the dead-letter queues), as it arrives.
 */
final class BrokerSpy implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A message as it arrived, headers with text values as strings. */
  record Message(String source, String routingKey, AMQP.BasicProperties properties, Map<String, Object> headers,
      byte[] body) {

    String messageId() {
      return properties.getMessageId();
    }

    String correlationId() {
      return properties.getCorrelationId();
    }

    String header(String name) {
      Object v = headers.get(name);
      return v == null ? null : v.toString();
    }

    /**
     * The queue the broker last dead-lettered the message from (the newest {@code x-death} entry's, which the broker
     * puts first), e.g. the retry tier whose TTL sent it back; null when it never was.
     */
    String lastDeadLetteredFrom() {
      Object deaths = properties.getHeaders() == null ? null : properties.getHeaders().get("x-death");
      if (deaths instanceof List<?> entries && !entries.isEmpty() && entries.get(0) instanceof Map<?, ?> newest) {
        Object queue = newest.get("queue");
        return queue == null ? null : queue.toString();
      }
      return null;
    }

    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("not JSON: " + routingKey, e);
      }
    }
  }

  private final Channel channel;
  private final Queue<Message> messages = new ConcurrentLinkedQueue<>();

  BrokerSpy(Connection connection) {
    try {
      this.channel = connection.createChannel();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sees every message published to the topic exchange {@code exchange} from now on. */
  BrokerSpy tap(String exchange) {
    return tap(exchange, List.of("#"));
  }

  /** Sees every message published to {@code exchange} with one of {@code routingKeys} (a direct exchange's). */
  BrokerSpy tap(String exchange, List<String> routingKeys) {
    try {
      String queue = channel.queueDeclare().getQueue(); // server-named, exclusive, gone with the channel's connection
      for (String key : routingKeys) {
        channel.queueBind(queue, exchange, key);
      }
      consume(queue, exchange);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /** Takes every message that reaches {@code queue}. */
  BrokerSpy drain(String queue) {
    try {
      consume(queue, queue);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  private void consume(String queue, String source) throws IOException {
    channel.basicConsume(queue, true, new DefaultConsumer(channel) {
      @Override
      public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
        messages.add(new Message(source, envelope.getRoutingKey(), props, strings(props.getHeaders()), body));
      }
    });
  }

  /** The messages seen from {@code source} (an exchange tapped or a queue drained) that match. */
  List<Message> from(String source, Predicate<Message> matching) {
    return messages.stream().filter(m -> m.source().equals(source) && matching.test(m)).toList();
  }

  private static Map<String, Object> strings(Map<String, Object> headers) {
    Map<String, Object> out = new HashMap<>();
    if (headers != null) {
      headers.forEach((k, v) -> out.put(k, v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
          : v instanceof Number || v instanceof Boolean || v == null ? v : v.toString()));
    }
    return out;
  }

  @Override
  public void close() {
    try {
      if (channel.isOpen()) {
        channel.close();
      }
    } catch (Exception ignored) {
      // the connection may be gone already
    }
  }
}
