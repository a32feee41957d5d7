package dev.baton.runtime.engine;

/**
 * Told by the outbox relay after a commit that marked commands refused by the broker (docs/design.md#runtime-semantics,
 * "refused commands fail fast"): the engine side fails the attempts that sent them ({@link InstanceService#applyRefusals}),
 * on a thread of its own. The relay never locks an instance row itself.
 */
@FunctionalInterface
public interface CommandRefusals {

  /** Commands were marked refused and committed: apply them soon. Must not block. */
  void refused();

  /** For a relay without an engine (tests): the rows stay marked for whoever applies them. */
  CommandRefusals NONE = () -> {};
}
