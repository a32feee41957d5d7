package dev.baton.worker;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** A least-recently-used map of outcomes; one lock, since a lookup is far cheaper than a handler. */
final class InMemoryIdempotencyStore implements IdempotencyStore {

  private final Map<String, CommandResult> outcomes;

  InMemoryIdempotencyStore(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.outcomes = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, CommandResult> eldest) {
        return size() > capacity;
      }
    };
  }

  @Override
  public synchronized Optional<CommandResult> find(String key) {
    return Optional.ofNullable(outcomes.get(key));
  }

  @Override
  public synchronized void remember(String key, CommandResult outcome) {
    outcomes.putIfAbsent(key, outcome);
  }

  synchronized int size() {
    return outcomes.size();
  }
}
