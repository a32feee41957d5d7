package dev.baton.contract.topology;

/** Names of the RabbitMQ queue arguments Baton sets. */
public final class QueueArguments {
  public static final String QUEUE_TYPE = "x-queue-type";
  public static final String MESSAGE_TTL = "x-message-ttl";
  public static final String DEAD_LETTER_EXCHANGE = "x-dead-letter-exchange";
  public static final String DEAD_LETTER_ROUTING_KEY = "x-dead-letter-routing-key";

  /** The default exchange, addressed by an empty name. */
  public static final String DEFAULT_EXCHANGE = "";

  private QueueArguments() {}
}
