package dev.baton.messaging;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.messaging.PublishResult.Failure;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes with publisher confirms on one channel of its own and tells the caller, per message and asynchronously,
 * what became of it: {@link PublishResult confirmed, returned unroutable, nacked or failed}. Callers keep publishing
 * while earlier messages wait for their confirms (the outbox relay pipelines batches; the worker SDK acks a delivery
 * once its publishes are confirmed).
 *
 * <p>Bookkeeping: publish sequence number → waiting message, per channel generation ({@link PendingConfirms}). A
 * generation ends when the channel shuts down, when automatic recovery reopens it (the sequence restarts at 1) and
 * when the channel is replaced: whatever it still holds fails then, classified by why the channel went. A sweep
 * fails messages whose confirm did not come within the confirm timeout, so every future completes in bounded time.
 *
 * <p>Threads: {@link #publish} writes on the caller's thread (it may block while the broker applies flow control;
 * publishers are serialised by a lock that confirms never need). Futures complete on the connection's I/O thread or
 * the sweep's: dependent stages must be short and must not block; hand anything longer to an executor
 * ({@code whenCompleteAsync}).
 */
public final class ConfirmedPublisher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ConfirmedPublisher.class);

  private final String name;
  private final long confirmTimeoutNanos;
  private final LongSupplier nanoClock;
  private final RecoveringChannel holder;
  private final ScheduledExecutorService sweeper;
  private final Object publishLock = new Object();

  /** Guarded by {@code this}: the channel whose callbacks count, its generation and what that generation holds. */
  private Channel tracked;
  private long generation;
  /** Whether anything was published in the current generation (a fresh channel for an unused one keeps it). */
  private boolean used;
  private PendingConfirms confirms = new PendingConfirms();
  private volatile boolean closed;

  /**
   * @param connection where the channel is opened (lazily, on the first publish); preferably a connection used for
   *     publishing only, so that a broker throttling publishers never delays consumers' acks
   * @param name for logs and the sweep thread's name
   * @param confirmTimeout how long a message may wait for its confirm before it fails with {@link Failure#TIMEOUT}
   */
  public ConfirmedPublisher(Connection connection, String name, Duration confirmTimeout) {
    this(connection, name, confirmTimeout, System::nanoTime, RecoveringChannel.DEFAULT_RECOVERY_WAIT);
  }

  ConfirmedPublisher(Connection connection, String name, Duration confirmTimeout, LongSupplier nanoClock,
      Duration recoveryWait) {
    this.name = Objects.requireNonNull(name, "name");
    if (confirmTimeout.isNegative() || confirmTimeout.isZero()) {
      throw new IllegalArgumentException("the confirm timeout must be positive, got " + confirmTimeout);
    }
    this.confirmTimeoutNanos = confirmTimeout.toNanos();
    this.nanoClock = nanoClock;
    this.holder = new RecoveringChannel(connection, this::prepare, recoveryWait, nanoClock);
    this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "baton-confirms-" + name);
      t.setDaemon(true);
      return t;
    });
    long every = Math.max(50, Math.min(1_000, confirmTimeout.toMillis() / 4));
    sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
  }

  /** Publishes {@code message}; never throws: every failure is in the future's result. */
  public CompletableFuture<PublishResult> publish(OutboundMessage message) {
    return publish(message, -1);
  }

  /**
   * Publishes {@code message} only if the channel is still in {@code expectedGeneration} ({@link #generation()}):
   * otherwise it is not sent and fails with {@link Failure#CHANNEL_ERROR}. A caller publishing a sequence in order
   * stops at the channel's first error this way, instead of carrying on, out of order, on a replacement channel.
   */
  public CompletableFuture<PublishResult> publishInGeneration(OutboundMessage message, long expectedGeneration) {
    if (expectedGeneration < 0) {
      throw new IllegalArgumentException("generations start at 0, got " + expectedGeneration);
    }
    return publish(message, expectedGeneration);
  }

  /**
   * The channel's current generation: it changes whenever the channel shuts down, is recovered or is replaced after
   * being used (a first channel, or one that replaces a channel already counted as gone, keeps it). Opens nothing.
   */
  public synchronized long generation() {
    return generation;
  }

  /** Messages published and waiting for their confirm. */
  public synchronized int pending() {
    return confirms.size();
  }

  /** Stops publishing: messages still waiting fail with {@link Failure#CLOSED}; the channel is closed. */
  @Override
  public void close() {
    closed = true;
    sweeper.shutdownNow();
    holder.close();
    endGeneration(null, PublishResult.failed(Failure.CLOSED, "the publisher " + name + " was closed"));
  }

  private CompletableFuture<PublishResult> publish(OutboundMessage message, long expectedGeneration) {
    Objects.requireNonNull(message, "message");
    if (closed) {
      return done(PublishResult.failed(Failure.CLOSED, "the publisher " + name + " is closed"));
    }
    synchronized (publishLock) {
      Channel channel;
      try {
        channel = holder.get();
      } catch (IOException | RuntimeException e) {
        return done(PublishResult.failed(Failure.CONNECTION, e.getMessage()));
      }
      PendingConfirms current;
      PendingConfirms.Pending pending;
      long seq;
      // Added under the lock that ends generations: a message is in the generation that its sequence number and
      // its channel belong to, and is failed with it.
      synchronized (this) {
        if (expectedGeneration >= 0 && expectedGeneration != generation) {
          return done(PublishResult.failed(Failure.CHANNEL_ERROR,
              "not sent: the channel was closed or replaced since generation " + expectedGeneration));
        }
        seq = channel.getNextPublishSeqNo();
        if (seq == 0) {
          // A recovered channel is briefly open before its confirm mode is restored.
          return done(PublishResult.failed(Failure.CONNECTION, "the channel is being recovered"));
        }
        current = confirms;
        used = true;
        pending = current.add(seq, message, nanoClock.getAsLong() + confirmTimeoutNanos);
      }
      try {
        channel.basicPublish(message.exchange(), message.routingKey(), message.mandatory(), message.properties(),
            message.body());
      } catch (ShutdownSignalException e) {
        current.fail(seq, fromShutdown(e));
      } catch (IOException e) {
        current.fail(seq, PublishResult.failed(Failure.CONNECTION, String.valueOf(e.getMessage())));
      } catch (RuntimeException e) {
        // Thrown while the frames are built, before anything is written (e.g. a header value AMQP cannot carry).
        current.fail(seq, PublishResult.failed(Failure.REJECTED_BY_CLIENT, e.toString()));
      }
      return pending.future;
    }
  }

  /** Sets up each new channel: confirm mode and the callbacks, bound to this channel only. */
  private void prepare(Channel channel) throws IOException {
    channel.confirmSelect();
    startGeneration(channel);
    channel.addConfirmListener(new ConfirmListener() {
      @Override
      public void handleAck(long seq, boolean multiple) {
        confirmsOf(channel).confirm(seq, multiple, true);
      }

      @Override
      public void handleNack(long seq, boolean multiple) {
        confirmsOf(channel).confirm(seq, multiple, false);
      }
    });
    channel.addReturnListener(r -> confirmsOf(channel).returned(r.getExchange(), r.getRoutingKey(),
        r.getProperties() == null ? null : r.getProperties().getMessageId(), r.getReplyCode(), r.getReplyText()));
    channel.addShutdownListener(cause -> endGeneration(channel, fromShutdown(cause)));
    if (channel instanceof Recoverable recoverable) {
      recoverable.addRecoveryListener(new RecoveryListener() {
        @Override
        public void handleRecoveryStarted(Recoverable r) {
          // The recovered channel numbers its publishes from 1 again.
          endGeneration(channel, PublishResult.failed(Failure.CONNECTION, "the channel is being recovered"));
        }

        @Override
        public void handleRecovery(Recoverable r) {
          LOG.debug("publisher {}: channel recovered", name);
        }
      });
    }
  }

  private synchronized void startGeneration(Channel channel) {
    PendingConfirms old = confirms;
    tracked = channel;
    if (used) {
      generation++;
      used = false;
    }
    confirms = new PendingConfirms();
    old.failAll(PublishResult.failed(Failure.CHANNEL_ERROR, "the channel was replaced"));
  }

  /** Ends the generation of {@code channel} (null: whatever is current); a stale channel's callback does nothing. */
  private void endGeneration(Channel channel, PublishResult why) {
    PendingConfirms old;
    synchronized (this) {
      if (channel != null && channel != tracked) {
        return;
      }
      old = confirms;
      generation++;
      used = false;
      confirms = new PendingConfirms();
    }
    if (old.size() > 0) {
      LOG.debug("publisher {}: {} message(s) without confirm: {}", name, old.size(), why);
    }
    old.failAll(why);
  }

  /** The bookkeeping a callback of {@code channel} may touch: an empty one once the channel is no longer tracked. */
  private synchronized PendingConfirms confirmsOf(Channel channel) {
    return channel == tracked ? confirms : new PendingConfirms();
  }

  private void sweep() {
    PendingConfirms current;
    synchronized (this) {
      current = confirms;
    }
    int expired = current.expire(nanoClock.getAsLong(), PublishResult.failed(Failure.TIMEOUT,
        "no confirm from the broker within " + Duration.ofNanos(confirmTimeoutNanos).toMillis() + " ms")).size();
    if (expired > 0) {
      LOG.warn("publisher {}: {} message(s) got no confirm within {} ms", name, expired,
          Duration.ofNanos(confirmTimeoutNanos).toMillis());
    }
  }

  private static PublishResult fromShutdown(ShutdownSignalException cause) {
    String detail = cause.getReason() instanceof AMQP.Channel.Close close
        ? close.getReplyCode() + " " + close.getReplyText()
        : cause.getReason() instanceof AMQP.Connection.Close close
            ? "connection closed: " + close.getReplyCode() + " " + close.getReplyText()
            : String.valueOf(cause.getMessage());
    if (cause.isHardError()) {
      return PublishResult.failed(Failure.CONNECTION, detail);
    }
    if (cause.isInitiatedByApplication()) {
      return PublishResult.failed(Failure.CLOSED, "the channel was closed by this process");
    }
    return PublishResult.failed(Failure.CHANNEL_ERROR, detail);
  }

  private static CompletableFuture<PublishResult> done(PublishResult result) {
    return CompletableFuture.completedFuture(result);
  }
}
