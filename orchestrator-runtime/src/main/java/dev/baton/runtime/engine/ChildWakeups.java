package dev.baton.runtime.engine;

import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * Tells, once a transaction has committed, which parents' child workflow steps it moved (a step started, ended, or
 * began to be undone), so that their children follow ({@link ChildWorkflows#drive}). Bound once the runtime is wired;
 * until then, and without child workflows, nobody listens.
 */
public final class ChildWakeups {

  private volatile Consumer<Collection<java.util.UUID>> listener = parents -> { };

  public void listen(Consumer<Collection<java.util.UUID>> listener) {
    this.listener = listener;
  }

  void wake(Collection<java.util.UUID> parents) {
    if (!parents.isEmpty()) {
      listener.accept(List.copyOf(parents));
    }
  }
}
