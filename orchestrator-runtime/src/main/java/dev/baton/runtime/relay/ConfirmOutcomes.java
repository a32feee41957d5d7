package dev.baton.runtime.relay;

import dev.baton.messaging.PublishResult;
import dev.baton.messaging.PublishResult.Failure;
import dev.baton.runtime.store.OutboxMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a batch's rows came to, from the broker's answer for each: confirmed, returned unroutable, refused, sent to an
 * exchange that is gone or may not be written, or unknown (the answer says nothing about the message). Written in the
 * batch's transaction by {@link OutcomeRecorder#write}.
 */
final class ConfirmOutcomes {
  final List<Long> confirmed = new ArrayList<>();
  /** By "exchange routing-key". */
  final Map<String, List<Long>> unroutable = new LinkedHashMap<>();
  /** By "exchange reason". */
  final Map<String, List<Long>> refused = new LinkedHashMap<>();
  /** By exchange. */
  final Map<String, List<Long>> missingExchange = new LinkedHashMap<>();
  /** By exchange. */
  final Map<String, List<Long>> notPermitted = new LinkedHashMap<>();
  boolean unknown;

  void add(BatchEntry e, PublishResult r) {
    OutboxMessage m = e.row.message();
    switch (r.status()) {
      case CONFIRMED -> confirmed.add(e.row.id());
      case UNROUTABLE -> unroutable.computeIfAbsent(m.exchange() + " " + m.routingKey(), k -> new ArrayList<>())
          .add(e.row.id());
      case NACKED -> refused.computeIfAbsent(m.exchange() + " the broker refused the command (nack)",
          k -> new ArrayList<>()).add(e.row.id());
      case FAILED -> {
        if (r.failure() == Failure.CHANNEL_ERROR && r.detail().startsWith("404")) {
          // Deleted since the probe found it: as a missing exchange, set aside (its WorkerService may come back).
          missingExchange.computeIfAbsent(m.exchange(), k -> new ArrayList<>()).add(e.row.id());
        } else if (r.failure() == Failure.CHANNEL_ERROR && r.detail().startsWith("403") && m.isInstanceOutcome()) {
          // A runtime newer than its user's permissions (the operator grants the outcome exchange at its next
          // pass): the instance has ended, nothing waits for the outcome, so it waits too rather than be dropped.
          notPermitted.computeIfAbsent(m.exchange(), k -> new ArrayList<>()).add(e.row.id());
        } else if (r.aboutTheMessage()) {
          refused.computeIfAbsent(m.exchange() + " the broker refused the command: " + r.detail(),
              k -> new ArrayList<>()).add(e.row.id());
        } else {
          unknown = true;
        }
      }
    }
  }
}
