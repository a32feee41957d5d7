package dev.baton.messaging;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * One channel on a connection with automatic recovery, opened on first use and replaced when it cannot come back.
 *
 * <p>A channel closed by a connection failure ("hard error") is reopened by the connection's recovery, after the
 * connection itself: there is a moment when the connection is open again and the channel not yet. A channel opened
 * then as a replacement ends up next to the recovered one, one idle channel more after every outage (the soak saw
 * exactly that). So {@link #get()} waits for recovery while the close was connection-level (bounded: a channel whose
 * recovery failed is replaced after {@code recoveryWait}), replaces a channel the broker closed with a channel error
 * at once (recovery never reopens those), and aborts a channel before replacing it, which also takes it off the
 * connection's recovery list.
 *
 * <p>Thread-safe; {@link #get()} never blocks on the broker beyond opening a channel.
 */
public final class RecoveringChannel implements AutoCloseable {

  /** How long a channel may wait for the connection's recovery before it is given up and replaced. */
  public static final Duration DEFAULT_RECOVERY_WAIT = Duration.ofSeconds(60);

  /** Prepares every new channel (qos, confirm mode, listeners, consumers) before it is handed out. */
  @FunctionalInterface
  public interface Setup {
    void prepare(Channel channel) throws IOException;
  }

  private final Connection connection;
  private final Setup setup;
  private final long recoveryWaitNanos;
  private final LongSupplier nanoClock;
  private Channel channel;
  /** {@link #nanoClock} when the channel was first seen closed, 0 while it is open. */
  private long closedSince;
  private boolean closed;

  public RecoveringChannel(Connection connection, Setup setup) {
    this(connection, setup, DEFAULT_RECOVERY_WAIT, System::nanoTime);
  }

  RecoveringChannel(Connection connection, Setup setup, Duration recoveryWait, LongSupplier nanoClock) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.setup = Objects.requireNonNull(setup, "setup");
    this.recoveryWaitNanos = recoveryWait.toNanos();
    this.nanoClock = nanoClock;
  }

  /**
   * The open channel, opening (and preparing) a new one when there is none or the old one will not come back.
   *
   * @throws AwaitingRecoveryException while automatic recovery is expected to reopen the channel or the connection
   * @throws IOException when a new channel cannot be opened or prepared (it is not kept)
   */
  public synchronized Channel get() throws IOException {
    if (closed) {
      throw new IOException("the channel holder is closed");
    }
    if (channel != null && channel.isOpen()) {
      closedSince = 0;
      return channel;
    }
    if (channel != null) {
      long now = nanoClock.getAsLong();
      if (closedSince == 0) {
        closedSince = now;
      }
      ShutdownSignalException why = channel.getCloseReason();
      boolean connectionLevel = why == null || why.isHardError();
      if (connectionLevel && now - closedSince < recoveryWaitNanos) {
        throw new AwaitingRecoveryException("the broker connection is down or recovering; waiting for its automatic "
            + "recovery to reopen the channel");
      }
      discard(channel);
      channel = null;
    }
    Channel fresh;
    try {
      fresh = connection.createChannel();
    } catch (AlreadyClosedException e) {
      throw new AwaitingRecoveryException("the broker connection is down: " + e.getMessage(), e);
    }
    if (fresh == null) {
      throw new IOException("no channel available on the connection (channel_max reached)");
    }
    try {
      setup.prepare(fresh);
    } catch (IOException | RuntimeException e) {
      discard(fresh);
      throw e;
    }
    channel = fresh;
    closedSince = 0;
    return channel;
  }

  /** The channel as it is now (maybe closed, maybe null), without opening or replacing anything. */
  public synchronized Channel current() {
    return channel;
  }

  /**
   * After a failure on the channel: an open one is aborted (its state can no longer be trusted) and replaced on the
   * next {@link #get()}; a closed one is kept, so that the connection's recovery reopens it rather than a second
   * channel being opened next to it.
   */
  public synchronized void failed() {
    if (channel != null && channel.isOpen()) {
      discard(channel);
      channel = null;
      closedSince = 0;
    }
  }

  /** For good: closes an open channel, and takes a closed one off the connection's recovery list. */
  @Override
  public synchronized void close() {
    closed = true;
    Channel ch = channel;
    channel = null;
    if (ch == null) {
      return;
    }
    if (ch.isOpen()) {
      try {
        ch.close();
        return;
      } catch (IOException | TimeoutException | RuntimeException e) {
        // closed meanwhile, or the broker is away: aborted below
      }
    }
    discard(ch);
  }

  /**
   * Closes a channel without waiting and unregisters it from automatic recovery (a closed channel is fine): for
   * channels given up, and throwaway ones.
   */
  public static void discard(Channel channel) {
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
