package dev.baton.worker;

import com.rabbitmq.client.AMQP;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.messaging.OutboundMessage;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks a message in {@code q.dlx.S.<consumer>} through the service's retry exchange, with why it died in
 * {@code x-exception-*} headers and where it came from in {@code x-original-*} headers (so it can be replayed).
 * Every dead letter is an ERROR log line (docs/design.md#runtime-semantics "Alerts"); the body is never logged.
 */
final class DeadLetterer {

  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterer.class);

  /** Long exception messages are cut: headers travel in one frame and the parking lot is not a log store. */
  static final int MAX_MESSAGE_LENGTH = 1_000;

  private final String service;
  private final ConsumerTopology consumer;
  private final WorkerListener listener;

  DeadLetterer(String service, ConsumerTopology consumer, WorkerListener listener) {
    this.service = service;
    this.consumer = consumer;
    this.listener = listener;
  }

  OutboundMessage deadLetter(InboundMessage message, int retriesSoFar, Throwable cause) {
    String type = exceptionType(cause);
    String reason = exceptionMessage(cause);
    String parking = Names.deadLetterQueue(service, consumer.name());

    Map<String, Object> headers = new LinkedHashMap<>(message.rawHeaders());
    headers.put(Headers.RETRIES, retriesSoFar);
    headers.put(Headers.EXCEPTION_MESSAGE, reason);
    headers.put(Headers.EXCEPTION_TYPE, type);
    headers.put(Headers.ORIGINAL_ROUTING_KEY, message.originalRoutingKey());
    headers.put(Headers.ORIGINAL_EXCHANGE, message.originalExchange());
    AMQP.BasicProperties properties = message.properties().builder().headers(headers).build();

    String what = consumer.kind().name().toLowerCase() + " " + consumer.name() + " of service " + service
        + " (message_id=" + message.messageId() + ", instance=" + message.header(Headers.INSTANCE)
        + ", step=" + message.header(Headers.STEP) + ")";
    if (cause instanceof UnprocessableMessageException || cause instanceof PayloadTooLargeException) {
      LOG.error("dead letter: {} is unprocessable, parked in {}: {}", what, parking, reason);
    } else {
      LOG.error("dead letter: {} failed after {} attempt(s), parked in {}: {}: {}", what, retriesSoFar + 1, parking,
          type, reason, cause);
    }
    listener.deadLettered(consumer.name(), type, reason);
    return new OutboundMessage(Names.retryExchange(service), parking, true, properties, message.body(),
        "dead letter to " + parking);
  }

  /** The exception's class name; {@link PayloadTooLargeException#CODE} for a result over the size limit. */
  static String exceptionType(Throwable cause) {
    return cause instanceof PayloadTooLargeException ? PayloadTooLargeException.CODE : cause.getClass().getName();
  }

  static String exceptionMessage(Throwable cause) {
    String m = cause.getMessage();
    if (m == null || m.isBlank()) {
      m = cause.getClass().getSimpleName();
    }
    return m.length() <= MAX_MESSAGE_LENGTH ? m : m.substring(0, MAX_MESSAGE_LENGTH) + "…";
  }
}
