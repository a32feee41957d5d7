package dev.baton.runtime.engine;

import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells, in this process, which instances this runtime has just ended, once the transaction that ended them has
 * committed: a request waiting for an instance's end ({@code GET /api/v1/instances/{id}?wait=}) answers at once
 * instead of at its next re-read. An instance ended by another replica is not told here; waiters read the database
 * for those.
 */
public final class InstanceEndings {

  private static final Logger LOG = LoggerFactory.getLogger(InstanceEndings.class);

  private final List<Consumer<Collection<UUID>>> listeners = new CopyOnWriteArrayList<>();

  /** {@code listener} is told the instances of each commit that ended some, on the committing thread: keep it short. */
  public void listen(Consumer<Collection<UUID>> listener) {
    listeners.add(listener);
  }

  /** The instances a committed transaction ended. */
  void ended(Collection<UUID> instances) {
    if (instances.isEmpty()) {
      return;
    }
    for (Consumer<Collection<UUID>> listener : listeners) {
      try {
        listener.accept(instances);
      } catch (RuntimeException e) {
        // A waiter's mistake must not fail the step loop's commit, which is done already.
        LOG.warn("Telling that instances ended failed: {}", e.toString());
      }
    }
  }
}
