package dev.baton.runtime.store;

import java.time.Instant;

/**
 * One {@code instance_audit} row: an action someone took on an instance.
 *
 * @param action {@code start}, {@code signal}, {@code retry}, {@code cancel} or {@code replay} ({@link Action})
 * @param at when, by the database's clock (the action's transaction)
 * @param detail what the action named (the signal, {@code compensate}, {@code batch}, the replayed queue), or null
 */
public record AuditRow(String action, String user, Instant at, String source, String detail) {

  /** The actions the audit records, as they are written. */
  public enum Action {
    START, SIGNAL, RETRY, CANCEL, REPLAY;

    public String wire() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
