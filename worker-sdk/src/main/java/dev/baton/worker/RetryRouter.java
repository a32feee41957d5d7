package dev.baton.worker;

import com.rabbitmq.client.AMQP;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.messaging.OutboundMessage;
import dev.baton.messaging.tracing.LogFields;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The staircase of docs/design.md#retries-and-dead-letters as docs/design.md#message-contract spells it: a failed delivery climbs to the retry tier of its next delay
 * through the service's retry exchange, or, when the staircase is spent (or the message is unprocessable), goes to
 * the parking lot together with an {@code error} event.
 */
final class RetryRouter {

  private static final Logger LOG = LoggerFactory.getLogger(RetryRouter.class);

  private final String service;
  private final ConsumerTopology consumer;
  private final DeadLetterer deadLetterer;
  private final WorkerListener listener;

  RetryRouter(String service, ConsumerTopology consumer, WorkerListener listener) {
    this.service = service;
    this.consumer = consumer;
    this.listener = listener;
    this.deadLetterer = new DeadLetterer(service, consumer, listener);
  }

  /**
   * @param retriesSoFar worker-level retries this message has had (0 on its first delivery)
   * @param errorEvent the {@code error} event to publish after the dead letter, or null for none (subscriptions, or a
   *     command that cannot be addressed)
   */
  DeliveryDecision onFailure(InboundMessage message, int retriesSoFar, Throwable failure,
      Function<CommandResult, OutboundMessage> errorEvent) {
    // On the consumer's thread, outside the handler's: the retry and dead-letter lines name the instance too.
    try (LogFields.Scope fields = CommandTracing.logFields(message)) {
      return route(message, retriesSoFar, failure, errorEvent);
    }
  }

  private DeliveryDecision route(InboundMessage message, int retriesSoFar, Throwable failure,
      Function<CommandResult, OutboundMessage> errorEvent) {
    RetryStaircase staircase = consumer.retry();
    // A message that cannot be handled, or whose result is too large, would fail the same way on every retry.
    boolean hopeless = failure instanceof UnprocessableMessageException || failure instanceof PayloadTooLargeException;
    if (!hopeless && staircase.mayRetryAfter(retriesSoFar)) {
      return DeliveryDecision.publishThenAck(retry(message, retriesSoFar + 1, failure));
    }
    List<OutboundMessage> publishes = new ArrayList<>();
    publishes.add(deadLetterer.deadLetter(message, retriesSoFar, failure));
    OutboundMessage event = errorEvent.apply(
        CommandResult.error(DeadLetterer.exceptionType(failure), DeadLetterer.exceptionMessage(failure)));
    if (event != null) {
      publishes.add(event);
    }
    return DeliveryDecision.publishThenAck(publishes);
  }

  private OutboundMessage retry(InboundMessage message, int retry, Throwable failure) {
    BatonDuration delay = consumer.retry().delayBeforeRetry(retry);
    String tier = Names.retryQueue(service, consumer.name(), delay);

    Map<String, Object> headers = new LinkedHashMap<>(message.rawHeaders());
    headers.put(Headers.RETRIES, retry);
    if (consumer.kind() == ConsumerTopology.Kind.SUBSCRIPTION) {
      // A subscription's tier returns the message through the default exchange, which replaces the event's routing
      // key with the queue name: keep the original so the handler (and a later replay) still sees it.
      headers.putIfAbsent(Headers.ORIGINAL_EXCHANGE, message.originalExchange());
      headers.putIfAbsent(Headers.ORIGINAL_ROUTING_KEY, message.originalRoutingKey());
    }
    AMQP.BasicProperties properties = message.properties().builder().headers(headers).build();

    LOG.warn("{} {} of service {} failed (message_id={}, instance={}): {}: {}; retry {} of {} in {}",
        consumer.kind().name().toLowerCase(), consumer.name(), service, message.messageId(),
        message.header(Headers.INSTANCE), DeadLetterer.exceptionType(failure), DeadLetterer.exceptionMessage(failure),
        retry, consumer.retry().retries(), delay);
    LOG.debug("failure behind the retry", failure);
    listener.retried(consumer.name(), retry, delay, failure);
    return new OutboundMessage(Names.retryExchange(service), tier, true, properties, message.body(),
        "retry " + retry + " to " + tier);
  }
}
