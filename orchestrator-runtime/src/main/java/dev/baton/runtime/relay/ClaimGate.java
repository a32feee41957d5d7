package dev.baton.runtime.relay;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * When the outbox relay's next claim may find rows, so that it does not ask the database for nothing. Every commit
 * that wrote commands counts itself ({@link #written}) after it committed; a claim that begins after that count
 * sees its rows. A claim is due when a commit counted itself since the last claim began, when the last claim came
 * back full, when the poll interval has passed since the last claim (rows of other replicas, rows set aside whose
 * time has come), and after a failure. Wake-ups for other reasons (confirms arriving) and wake-ups whose rows an
 * earlier claim already took do not claim: at half load those were a third of the relay's transactions, each a claim
 * that found nothing and its rollback.
 */
final class ClaimGate {

  private final AtomicLong written = new AtomicLong();
  private final LongSupplier nanoClock;
  private final long pollNanos;
  /** The count when the last claim began; -1 before the first (rows left by an earlier run) and after a failure. */
  private long writtenAtLastClaim = -1;
  private long lastClaimNanos;
  private boolean lastClaimFull;

  ClaimGate(long pollNanos, LongSupplier nanoClock) {
    this.pollNanos = pollNanos;
    this.nanoClock = nanoClock;
  }

  /** A commit wrote commands (called after it committed, from any thread). */
  void written() {
    written.incrementAndGet();
  }

  /** Whether a claim now may find rows (the relay's thread). */
  boolean claimDue() {
    return writtenAtLastClaim < 0 || written.get() != writtenAtLastClaim || lastClaimFull
        || nanoClock.getAsLong() - lastClaimNanos >= pollNanos;
  }

  /** A claim begins: called before its statement runs (the relay's thread). */
  void claiming() {
    writtenAtLastClaim = written.get();
    lastClaimNanos = nanoClock.getAsLong();
    lastClaimFull = false;
  }

  /** The claim that began came back with as many rows as it asked for: more may wait. */
  void claimedFull() {
    lastClaimFull = true;
  }

  /** A round failed: the next one claims whatever the counts say. */
  void failed() {
    writtenAtLastClaim = -1;
  }
}
