package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.EventResult;
import dev.baton.contract.Headers;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.messaging.OutboundMessage;
import io.opentelemetry.api.trace.Span;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One command queue: checks the message can be handled at all, answers duplicates from the idempotency store and
 * commands past their deadline with {@code expired}, runs the handler (on a thread of its own, within its time limit),
 * and turns its outcome or failure into a {@link DeliveryDecision}.
 */
final class CommandProcessor implements DeliveryProcessor {

  private static final Logger LOG = LoggerFactory.getLogger(CommandProcessor.class);

  private final ConsumerTopology consumer;
  private final CommandHandler handler;
  private final IdempotencyStore store;
  private final WorkerListener listener;
  private final ResultEvents events;
  private final RetryRouter router;
  private final TimedHandlers handlers;
  private final HandlerLimits limits;
  private final CommandTracing tracing;
  private final String service;
  private final InProgress inProgress = new InProgress();

  CommandProcessor(String service, ConsumerTopology consumer, CommandHandler handler, IdempotencyStore store,
      WorkerListener listener, TimedHandlers handlers, HandlerLimits limits, CommandTracing tracing) {
    this.service = service;
    this.tracing = tracing;
    this.consumer = consumer;
    this.handler = handler;
    this.store = store;
    this.listener = listener;
    this.events = new ResultEvents(service, tracing);
    this.router = new RetryRouter(service, consumer, listener);
    this.handlers = handlers;
    this.limits = limits;
  }

  @Override
  public CompletableFuture<DeliveryDecision> decide(InboundMessage message) {
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
      body = Bodies.readObject(message.body());
    } catch (UnprocessableMessageException poison) {
      JsonNode parsed = body;
      return done(router.onFailure(message, retries, poison,
          addressable ? outcome -> events.event(message, parsed, outcome) : outcome -> null));
    }
    JsonNode commandBody = body;
    int retriesSoFar = retries;
    Function<CommandResult, OutboundMessage> errorEvent = outcome -> events.event(message, commandBody, outcome);
    String key = message.messageId();
    Optional<InProgress.Claim> claim = inProgress.tryClaim(key);
    if (claim.isEmpty()) {
      return done(DeliveryDecision.later(inProgress.released(key)));
    }
    InProgress.Claim held = claim.get();
    try {
      // The store could not be asked: retry later rather than risk running the effect twice.
      Optional<CommandResult> remembered = key == null ? Optional.empty() : store.find(key);
      if (remembered.isPresent()) {
        LOG.info("command {} message_id={} was handled before: re-publishing its {} event without running the "
            + "handler", consumer.name(), key, remembered.get().result().key());
        listener.duplicate(consumer.name(), key);
        held.close();
        return done(DeliveryDecision.publishThenAck(resultEvent(message, commandBody, remembered.get(),
            Span.getInvalid())));
      }
    } catch (RuntimeException failure) {
      held.close();
      return done(router.onFailure(message, retries, failure, errorEvent));
    }
    // After the store: a command answered before is answered the same way, even past its deadline (its effect
    // happened). Checked here so that an expired command takes no handler thread, and again when the handler would
    // start, since the pool may keep it waiting.
    Optional<Duration> expired = HandlerLimits.expiredBy(message, Instant.now());
    if (expired.isPresent()) {
      held.close();
      return done(expired(message, commandBody, expired.get(), Span.getInvalid()));
    }
    Command command = new Command(consumer.name(), message, commandBody, retries,
        !consumer.retry().mayRetryAfter(retries));
    Span span = tracing.start(service, consumer.name(), message, retries);
    Function<CommandResult, OutboundMessage> tracedErrorEvent =
        outcome -> events.event(message, commandBody, outcome, span.getSpanContext());
    AtomicLong started = new AtomicLong();
    return handlers.start("command " + consumer.name(), key, () -> limits.limitFor(message, Instant.now()),
            tracing.within(span, message, () -> {
              Optional<Duration> late = HandlerLimits.expiredBy(message, Instant.now());
              if (late.isPresent()) {
                throw new Expired(late.get());
              }
              started.set(System.nanoTime());
              return handler.handle(command);
            }))
        .decide((outcome, thrown) -> {
          // The handler is over (returned or threw; past its limit perhaps, but over): the claim is released only
          // now, after its outcome is remembered, so that a copy of the message finds the outcome instead of running
          // the handler a second time.
          try {
            // (at a limit of a millisecond, the timer may have reported the refusal to start as an overrun)
            if ((thrown instanceof HandlerTimeoutException ? thrown.getCause() : thrown) instanceof Expired late) {
              return expired(message, commandBody, late.by, span);
            }
            if (thrown != null) {
              throw thrown;
            }
            if (outcome == null) {
              throw new IllegalStateException("the handler of command " + consumer.name()
                  + " returned no CommandResult");
            }
            listener.handled(consumer.name(), outcome.result(), Duration.ofNanos(System.nanoTime() - started.get()));
            OutboundMessage event = resultEvent(message, commandBody, outcome, span);
            if (key != null) {
              remember(key, outcome);
            }
            return DeliveryDecision.publishThenAck(event);
          } catch (Throwable failure) {
            // The handler failed, overran its limit and then failed, or produced a result too large to publish.
            CommandTracing.failed(span, failure);
            rethrowIfFatal(failure);
            return router.onFailure(message, retriesSoFar, failure, tracedErrorEvent);
          } finally {
            span.end();
            held.close();
          }
        });
  }

  /**
   * The command came after its deadline: not run, answered {@code expired} (never remembered, never retried: a later
   * copy is past the deadline too). The runtime reads it as "not executed".
   */
  private DeliveryDecision expired(InboundMessage message, JsonNode body, Duration late, Span handling) {
    String reason = "not run: its deadline (" + Headers.DEADLINE + ") had passed " + late.toMillis()
        + " ms before the worker could start it";
    LOG.warn("command {} message_id={} (instance {}, step {}) came {} ms after its deadline: not run, answered {}",
        consumer.name(), message.messageId(), message.header(Headers.INSTANCE), message.header(Headers.STEP),
        late.toMillis(), EventResult.EXPIRED.key());
    listener.expired(consumer.name(), message.messageId(), late);
    return DeliveryDecision.publishThenAck(
        events.event(message, body, CommandResult.expired(reason), handling.getSpanContext()));
  }

  /** Thrown instead of starting a handler whose command's deadline passed while it waited for a thread. */
  private static final class Expired extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Duration by;

    Expired(Duration by) {
      super(null, null, false, false);
      this.by = by;
    }
  }

  static CompletableFuture<DeliveryDecision> done(DeliveryDecision decision) {
    return CompletableFuture.completedFuture(decision);
  }

  /** The event answering the command, unless it is over the size limit. */
  private OutboundMessage resultEvent(InboundMessage message, JsonNode body, CommandResult outcome, Span handling) {
    OutboundMessage event = events.event(message, body, outcome, handling.getSpanContext());
    if (event.size() > limits.maxResultBytes()) {
      throw new PayloadTooLargeException("command " + consumer.name(), event.size(), limits.maxResultBytes());
    }
    return event;
  }

  private void remember(String key, CommandResult outcome) {
    try {
      store.remember(key, outcome);
    } catch (RuntimeException e) {
      // The effect has happened: publishing its result matters more than remembering it.
      LOG.warn("idempotency store could not remember message_id={} of command {}; publishing the result anyway", key,
          consumer.name(), e);
    }
  }

  /** The JVM running out of memory is not a property of the message: let it reach the channel. */
  static void rethrowIfFatal(Throwable failure) {
    if (failure instanceof VirtualMachineError fatal && !(failure instanceof StackOverflowError)) {
      throw fatal;
    }
    if (failure instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
  }
}
