package dev.baton.runtime.engine;

import dev.baton.runtime.store.QueuedCommand;
import java.util.List;

/** Told after a commit that wrote commands, so the relay publishes them now instead of at its next poll. */
public interface OutboxSignal {

  /**
   * These commands were committed: the relay claims their rows by id and publishes the messages it is handed, without
   * searching the outbox or reading them back.
   */
  void committed(List<QueuedCommand> commands);

  /** Commands were committed that the relay is not handed: it searches the outbox for them. */
  void commandsWritten();
}
