package dev.baton.worker;

import dev.baton.contract.BatonDuration;
import dev.baton.contract.EventResult;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wraps the team's listener so that a failing metrics hook can never change what happens to a message. */
final class SafeListener implements WorkerListener {

  private static final Logger LOG = LoggerFactory.getLogger(SafeListener.class);

  private final WorkerListener delegate;

  SafeListener(WorkerListener delegate) {
    this.delegate = delegate;
  }

  @Override
  public void handled(String consumer, EventResult result, Duration took) {
    guard(() -> delegate.handled(consumer, result, took));
  }

  @Override
  public void retried(String consumer, int retry, BatonDuration delay, Throwable failure) {
    guard(() -> delegate.retried(consumer, retry, delay, failure));
  }

  @Override
  public void deadLettered(String consumer, String exceptionType, String reason) {
    guard(() -> delegate.deadLettered(consumer, exceptionType, reason));
  }

  @Override
  public void duplicate(String consumer, String key) {
    guard(() -> delegate.duplicate(consumer, key));
  }

  @Override
  public void expired(String consumer, String messageId, Duration late) {
    guard(() -> delegate.expired(consumer, messageId, late));
  }

  @Override
  public void stuck(String consumer, String messageId, Duration running) {
    guard(() -> delegate.stuck(consumer, messageId, running));
  }

  private static void guard(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.warn("worker listener failed; ignored", e);
    }
  }
}
