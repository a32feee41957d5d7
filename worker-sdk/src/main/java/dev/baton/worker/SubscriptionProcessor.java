package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.EventResult;
import dev.baton.contract.topology.ConsumerTopology;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One subscription queue: like commands, without result events. */
final class SubscriptionProcessor implements DeliveryProcessor {

  private static final Logger LOG = LoggerFactory.getLogger(SubscriptionProcessor.class);

  private final ConsumerTopology consumer;
  private final EventHandler handler;
  private final IdempotencyStore store;
  private final WorkerListener listener;
  private final RetryRouter router;
  private final InProgress inProgress = new InProgress();

  SubscriptionProcessor(String service, ConsumerTopology consumer, EventHandler handler, IdempotencyStore store,
      WorkerListener listener) {
    this.consumer = consumer;
    this.handler = handler;
    this.store = store;
    this.listener = listener;
    this.router = new RetryRouter(service, consumer, listener);
  }

  @Override
  public DeliveryDecision decide(InboundMessage message) {
    int retries = 0;
    JsonNode body;
    try {
      retries = retriesSoFar(message);
      message.requireJsonContentType();
      body = Json.readObject(message.body());
    } catch (UnprocessableMessageException poison) {
      return router.onFailure(message, retries, poison, outcome -> null);
    }
    String key = message.messageId() == null ? null : consumer.name() + ":" + message.messageId();
    try (InProgress.Claim claim = inProgress.claim(key)) {
      return handleOnce(message, key, body, retries);
    } catch (Throwable failure) {
      CommandProcessor.rethrowIfFatal(failure);
      return router.onFailure(message, retries, failure, outcome -> null);
    }
  }

  private DeliveryDecision handleOnce(InboundMessage message, String key, JsonNode body, int retries)
      throws Exception {
    if (key != null && store.find(key).isPresent()) {
      LOG.info("subscription {} message_id={} was handled before: acked without running the handler",
          consumer.name(), message.messageId());
      listener.duplicate(consumer.name(), key);
      return DeliveryDecision.ack();
    }
    long started = System.nanoTime();
    handler.handle(new Event(consumer.name(), message, body, retries));
    listener.handled(consumer.name(), EventResult.SUCCESS, Duration.ofNanos(System.nanoTime() - started));
    if (key != null) {
      try {
        store.remember(key, Outcome.success());
      } catch (RuntimeException e) {
        LOG.warn("idempotency store could not remember {}; acking anyway", key, e);
      }
    }
    return DeliveryDecision.ack();
  }

  /**
   * An event arrives with the {@code baton-retries} of the command that produced it, which says nothing about this
   * subscription. Only a message coming back from this subscription's own tier (through the default exchange, see
   * TopologyPlanner) carries a count of ours.
   */
  private static int retriesSoFar(InboundMessage message) {
    return message.exchange().isEmpty() ? message.retriesHeader() : 0;
  }
}
