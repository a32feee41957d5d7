package dev.baton.runtime.relay;

import dev.baton.messaging.OutboundMessage;
import dev.baton.messaging.PublishResult;
import dev.baton.runtime.store.OutboxRow;
import java.util.concurrent.CompletableFuture;

/** One claimed row of a batch and, once published, its outcome. */
final class BatchEntry {
  final OutboxRow row;
  final OutboundMessage message;
  /** Null while not sent. */
  CompletableFuture<PublishResult> result;

  BatchEntry(OutboxRow row, OutboundMessage message) {
    this.row = row;
    this.message = message;
  }

  /** Failed without an answer from the broker about it (a nack or a return does not close the channel). */
  boolean failedAlready() {
    return result.isDone() && result.join().status() == PublishResult.Status.FAILED;
  }
}
