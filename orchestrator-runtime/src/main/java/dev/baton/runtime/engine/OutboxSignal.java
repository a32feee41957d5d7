package dev.baton.runtime.engine;

/** Told after a commit that wrote commands, so the relay publishes them now instead of at its next poll. */
@FunctionalInterface
public interface OutboxSignal {
  void commandsWritten();
}
