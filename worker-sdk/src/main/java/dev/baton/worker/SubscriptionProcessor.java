package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.EventResult;
import dev.baton.contract.topology.ConsumerTopology;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
  private final TimedHandlers handlers;
  private final HandlerLimits limits;
  private final InProgress inProgress = new InProgress();

  SubscriptionProcessor(String service, ConsumerTopology consumer, EventHandler handler, IdempotencyStore store,
      WorkerListener listener, TimedHandlers handlers, HandlerLimits limits) {
    this.consumer = consumer;
    this.handler = handler;
    this.store = store;
    this.listener = listener;
    this.router = new RetryRouter(service, consumer, listener);
    this.handlers = handlers;
    this.limits = limits;
  }

  @Override
  public CompletableFuture<DeliveryDecision> decide(InboundMessage message) {
    int retries = 0;
    JsonNode body;
    try {
      retries = retriesSoFar(message);
      message.requireJsonContentType();
      body = Bodies.readObject(message.body());
    } catch (UnprocessableMessageException poison) {
      return CommandProcessor.done(router.onFailure(message, retries, poison, outcome -> null));
    }
    int retriesSoFar = retries;
    String key = message.messageId() == null ? null : consumer.name() + ":" + message.messageId();
    Optional<InProgress.Claim> claim = inProgress.tryClaim(key);
    if (claim.isEmpty()) {
      return CommandProcessor.done(DeliveryDecision.later(inProgress.released(key)));
    }
    InProgress.Claim held = claim.get();
    try {
      if (key != null && store.find(key).isPresent()) {
        LOG.info("subscription {} message_id={} was handled before: acked without running the handler",
            consumer.name(), message.messageId());
        listener.duplicate(consumer.name(), key);
        held.close();
        return CommandProcessor.done(DeliveryDecision.ack());
      }
    } catch (RuntimeException failure) {
      held.close();
      return CommandProcessor.done(router.onFailure(message, retries, failure, outcome -> null));
    }
    long started = System.nanoTime();
    Event event = new Event(consumer.name(), message, body, retries);
    // Not the step timeout nor the deadline an event may carry (copied from its command): those bound the producer's
    // handler, not what others do with its event.
    return handlers.start("subscription " + consumer.name(), message.messageId(), limits::handlerTimeout, () -> {
      handler.handle(event);
      return Boolean.TRUE;
    }).decide((ok, thrown) -> {
      // Over (past its limit perhaps): the claim is released only now, as for commands.
      try {
        if (thrown != null) {
          throw thrown;
        }
        listener.handled(consumer.name(), EventResult.SUCCESS, Duration.ofNanos(System.nanoTime() - started));
        if (key != null) {
          try {
            store.remember(key, CommandResult.success());
          } catch (RuntimeException e) {
            LOG.warn("idempotency store could not remember {}; acking anyway", key, e);
          }
        }
        return DeliveryDecision.ack();
      } catch (Throwable failure) {
        CommandProcessor.rethrowIfFatal(failure);
        return router.onFailure(message, retriesSoFar, failure, outcome -> null);
      } finally {
        held.close();
      }
    });
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
