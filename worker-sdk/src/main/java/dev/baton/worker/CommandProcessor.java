package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.Headers;
import dev.baton.contract.topology.ConsumerTopology;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One command queue: checks the message can be handled at all, answers duplicates from the idempotency store, runs
 * the handler, and turns its outcome or failure into a {@link DeliveryDecision}.
 */
final class CommandProcessor implements DeliveryProcessor {

  private static final Logger LOG = LoggerFactory.getLogger(CommandProcessor.class);

  private final ConsumerTopology consumer;
  private final CommandHandler handler;
  private final IdempotencyStore store;
  private final WorkerListener listener;
  private final ResultEvents events;
  private final RetryRouter router;
  private final InProgress inProgress = new InProgress();

  CommandProcessor(String service, ConsumerTopology consumer, CommandHandler handler, IdempotencyStore store,
      WorkerListener listener) {
    this.consumer = consumer;
    this.handler = handler;
    this.store = store;
    this.listener = listener;
    this.events = new ResultEvents(service);
    this.router = new RetryRouter(service, consumer, listener);
  }

  @Override
  public DeliveryDecision decide(InboundMessage message) {
    boolean addressable = ResultEvents.addressable(message);
    JsonNode body = null;
    int retries = 0;
    try {
      retries = message.retriesHeader();
      if (!addressable) {
        throw new UnprocessableMessageException("header " + Headers.ENTITY + " or " + Headers.ACTION
            + " is missing, so no result event can be addressed");
      }
      message.requireJsonContentType();
      body = Json.readObject(message.body());
    } catch (UnprocessableMessageException poison) {
      JsonNode parsed = body;
      return router.onFailure(message, retries, poison,
          addressable ? outcome -> events.event(message, parsed, outcome) : outcome -> null);
    }
    JsonNode commandBody = body;
    Function<Outcome, OutboundMessage> errorEvent = outcome -> events.event(message, commandBody, outcome);
    try (InProgress.Claim claim = inProgress.claim(message.messageId())) {
      return handleOnce(message, commandBody, retries);
    } catch (Throwable failure) {
      // The store could not be asked (retry later rather than risk running the effect twice), or the wait for a
      // duplicate in progress was interrupted, or the handler failed.
      rethrowIfFatal(failure);
      return router.onFailure(message, retries, failure, errorEvent);
    }
  }

  /** Runs the handler unless the store knows the outcome already; a failure propagates to the router. */
  private DeliveryDecision handleOnce(InboundMessage message, JsonNode body, int retries) throws Exception {
    String key = message.messageId();
    Optional<Outcome> remembered = key == null ? Optional.empty() : store.find(key);
    if (remembered.isPresent()) {
      LOG.info("command {} message_id={} was handled before: re-publishing its {} event without running the handler",
          consumer.name(), key, remembered.get().result().key());
      listener.duplicate(consumer.name(), key);
      return DeliveryDecision.publishThenAck(events.event(message, body, remembered.get()));
    }

    long started = System.nanoTime();
    Outcome outcome = handler.handle(
        new Command(consumer.name(), message, body, retries, !consumer.retry().mayRetryAfter(retries)));
    if (outcome == null) {
      throw new IllegalStateException("the handler of command " + consumer.name() + " returned no Outcome");
    }
    listener.handled(consumer.name(), outcome.result(), Duration.ofNanos(System.nanoTime() - started));
    if (key != null) {
      remember(key, outcome);
    }
    return DeliveryDecision.publishThenAck(events.event(message, body, outcome));
  }

  private void remember(String key, Outcome outcome) {
    try {
      store.remember(key, outcome);
    } catch (RuntimeException e) {
      // The effect has happened: publishing its result matters more than remembering it.
      LOG.warn("idempotency store could not remember message_id={} of command {}; publishing the result anyway", key,
          consumer.name(), e);
    }
  }

  /** The JVM running out of memory is not a property of the message: let it bring the channel down. */
  static void rethrowIfFatal(Throwable failure) {
    if (failure instanceof VirtualMachineError fatal && !(failure instanceof StackOverflowError)) {
      throw fatal;
    }
    if (failure instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
  }
}
