package dev.baton.runtime.relay;

import dev.baton.runtime.store.RefusedCommand;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The broker's {@code max_message_size}, as learned from its refusal of a command over it (RabbitMQ names its limit
 * in the channel error; nothing else tells a client). The state machine's command-size check reads
 * {@link #commandBytes}: once the limit is known, a command the broker would refuse is not written at all, its step
 * fails at once (or its start is refused with 413). Kept in memory: after a restart the first oversized command is
 * refused again, and the limit learned again.
 */
public final class BrokerMessageLimit {

  /**
   * What a command's body holds besides its input and earlier outputs (instance id, workflow, step, attempt, business
   * key and the JSON around them), with room to spare: the broker measures the whole body.
   */
  public static final long MARGIN = 16 * 1024;

  private final AtomicLong maxMessageSize = new AtomicLong(Long.MAX_VALUE);

  /** Remembers the limit named in a refusal's reason, if it names one. */
  public void learnFrom(String reason) {
    RefusedCommand.brokerMaxSize(reason).ifPresent(this::learn);
  }

  /** The broker's latest word: its setting may have been lowered or raised since the last refusal. */
  public void learn(long maxMessageSize) {
    this.maxMessageSize.set(maxMessageSize);
  }

  /** The broker's {@code max_message_size}, once a refusal named it. */
  public OptionalLong maxMessageSize() {
    long m = maxMessageSize.get();
    return m == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(m);
  }

  /** The most input (with the earlier outputs) a command may carry for the broker; {@link Long#MAX_VALUE} unknown. */
  public long commandBytes() {
    long m = maxMessageSize.get();
    return m == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, m - MARGIN);
  }
}
