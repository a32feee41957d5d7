package dev.baton.contract.topology;

/** Names of the RabbitMQ queue arguments Baton sets. */
public final class QueueArguments {
  public static final String QUEUE_TYPE = "x-queue-type";
  public static final String MESSAGE_TTL = "x-message-ttl";
  public static final String DEAD_LETTER_EXCHANGE = "x-dead-letter-exchange";
  public static final String DEAD_LETTER_ROUTING_KEY = "x-dead-letter-routing-key";
  public static final String DEAD_LETTER_STRATEGY = "x-dead-letter-strategy";
  public static final String OVERFLOW = "x-overflow";
  public static final String DELIVERY_LIMIT = "x-delivery-limit";

  /**
   * Quorum queues only: dead-letter at least once (the message stays in its queue until the target confirmed it),
   * which RabbitMQ honours only together with {@code x-overflow: reject-publish}.
   */
  public static final String AT_LEAST_ONCE = "at-least-once";
  public static final String REJECT_PUBLISH = "reject-publish";
  /**
   * Quorum queues with a dead-letter exchange: returns to the queue (a consumer's channel or connection closing
   * counts, up to RabbitMQ 4.2) after which the broker dead-letters a message along the queue's own path instead of
   * delivering it again. Explicit, so 3.x and 4.x (default 20) behave alike; high enough that a flapping network
   * does not move commands to their first tier, low enough to end a crash loop.
   */
  public static final int DELIVERY_LIMIT_WITH_DEAD_LETTERING = 50;
  /**
   * Parking queues have no dead-letter exchange: past its delivery limit RabbitMQ 4 would drop a parked message
   * (every {@code baton dlq replay --dry-run} returns what it looked at). A limit no one reaches, not "none": 3.x has
   * no way to switch it off.
   */
  public static final int DELIVERY_LIMIT_PARKING = 1_000_000;

  /**
   * Arguments Baton added to quorum queues after queues were already declared without them. Queue arguments are
   * immutable, so an existing queue that lacks one is used as it is (not an {@code ImmutableQueueArguments}
   * mismatch): it keeps the broker's at-most-once dead-lettering and default delivery limit until it is drained and
   * deleted (docs/design.md#platform-notes). A different value is still a mismatch.
   */
  public static final java.util.Set<String> ADDED_LATER = java.util.Set.of(DEAD_LETTER_STRATEGY, OVERFLOW,
      DELIVERY_LIMIT);

  /** The default exchange, addressed by an empty name. */
  public static final String DEFAULT_EXCHANGE = "";

  private QueueArguments() {}
}
