package dev.baton.worker;

import dev.baton.contract.BatonDuration;
import dev.baton.contract.EventResult;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the team's listener (and the SDK's Micrometer one, when metrics are on) of everything, each on its own, so that
 * a failing metrics hook can never change what happens to a message nor keep the other listener from hearing of it.
 */
final class SafeListener implements WorkerListener {

  private static final Logger LOG = LoggerFactory.getLogger(SafeListener.class);

  private final List<WorkerListener> delegates;

  SafeListener(WorkerListener... delegates) {
    this.delegates = List.of(delegates);
  }

  @Override
  public void handled(String consumer, EventResult result, Duration took) {
    guard(d -> d.handled(consumer, result, took));
  }

  @Override
  public void retried(String consumer, int retry, BatonDuration delay, Throwable failure) {
    guard(d -> d.retried(consumer, retry, delay, failure));
  }

  @Override
  public void deadLettered(String consumer, String exceptionType, String reason) {
    guard(d -> d.deadLettered(consumer, exceptionType, reason));
  }

  @Override
  public void duplicate(String consumer, String key) {
    guard(d -> d.duplicate(consumer, key));
  }

  @Override
  public void expired(String consumer, String messageId, Duration late) {
    guard(d -> d.expired(consumer, messageId, late));
  }

  @Override
  public void stuck(String consumer, String messageId, Duration running) {
    guard(d -> d.stuck(consumer, messageId, running));
  }

  private void guard(Consumer<WorkerListener> call) {
    for (WorkerListener d : delegates) {
      try {
        call.accept(d);
      } catch (RuntimeException e) {
        LOG.warn("worker listener failed; ignored", e);
      }
    }
  }
}
