package dev.baton.runtime.messaging;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.time.Duration;

/**
 * Replacing a closed channel on a connection with automatic recovery. A channel closed by a connection failure
 * ("hard error") is reopened by the connection's recovery — after the connection itself, so there is a moment when
 * the connection is open again and the channel is not yet: a channel opened then as a replacement ends up next to
 * the recovered one, an idle channel more after every outage (the soak saw it). So: wait for recovery while the close
 * was connection-level (bounded: a channel whose recovery failed is replaced after a while), and abort a channel
 * before replacing it, which also takes it off the recovery list.
 */
final class RecoveringChannels {

  /** How long a channel may wait for the connection's recovery before it is given up and replaced. */
  static final Duration RECOVERY_WAIT = Duration.ofSeconds(60);

  private RecoveringChannels() {}

  /** Tracks when a channel was first seen closed: 0 while it is open (or absent), else that first time. */
  static long closedSince(Channel channel, long since) {
    if (channel == null || channel.isOpen()) {
      return 0;
    }
    return since == 0 ? System.nanoTime() : since;
  }

  /**
   * Checks whether {@code channel} may be used or replaced.
   *
   * @param closedSince {@link #closedSince} of the channel
   * @return true when the caller should open a new channel (after {@link #discard}); false when it is open
   * @throws IOException while automatic recovery is expected to reopen it: the caller backs off and tries again
   */
  static boolean needsReplacing(Channel channel, long closedSince) throws IOException {
    if (channel == null) {
      return true;
    }
    if (channel.isOpen()) {
      return false;
    }
    ShutdownSignalException why = channel.getCloseReason();
    boolean connectionLevel = why == null || why.isHardError();
    if (connectionLevel && System.nanoTime() - closedSince < RECOVERY_WAIT.toNanos()) {
      throw new IOException("the broker connection is down or recovering; waiting for its automatic recovery");
    }
    return true;
  }

  /** Closes without waiting and unregisters it from automatic recovery; a closed channel is fine. */
  static void discard(Channel channel) {
    if (channel == null) {
      return;
    }
    try {
      channel.abort();
    } catch (IOException | RuntimeException ignored) {
      // already closed: aborting only unregistered it
    }
  }
}
