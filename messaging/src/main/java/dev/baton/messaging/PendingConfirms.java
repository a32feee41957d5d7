package dev.baton.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The messages of one channel generation that wait for their confirm, by publish sequence number. A generation ends
 * when its channel shuts down (or is recovered, which restarts the sequence at 1): what it still holds is failed
 * then, and the next generation starts empty. Each message is completed exactly once, by whoever takes it out of the
 * map first (a confirm, a return, the timeout sweep or the end of the generation).
 *
 * <p>Lock-free: confirms and returns arrive on the connection's I/O thread while the publishing thread adds.
 */
final class PendingConfirms {

  /** One message waiting for its confirm. */
  static final class Pending {
    final OutboundMessage message;
    final long deadlineNanos;
    final CompletableFuture<PublishResult> future = new CompletableFuture<>();

    Pending(OutboundMessage message, long deadlineNanos) {
      this.message = message;
      this.deadlineNanos = deadlineNanos;
    }
  }

  private final ConcurrentSkipListMap<Long, Pending> bySeq = new ConcurrentSkipListMap<>();

  Pending add(long seq, OutboundMessage message, long deadlineNanos) {
    Pending p = new Pending(message, deadlineNanos);
    bySeq.put(seq, p);
    return p;
  }

  /** A {@code basic.ack} or {@code basic.nack} for {@code seq}, or for every message up to it when multiple. */
  void confirm(long seq, boolean multiple, boolean ack) {
    PublishResult result = ack ? PublishResult.CONFIRMED : PublishResult.nacked();
    if (!multiple) {
      complete(bySeq.remove(seq), result);
      return;
    }
    for (Long s : List.copyOf(bySeq.headMap(seq, true).keySet())) {
      complete(bySeq.remove(s), result);
    }
  }

  /**
   * A mandatory message came back unroutable. The return carries no sequence number, but the broker sends it before
   * the message's confirm and in publish order, so it belongs to the oldest waiting message that looks like it.
   */
  void returned(String exchange, String routingKey, String messageId, int replyCode, String replyText) {
    for (Map.Entry<Long, Pending> e : bySeq.entrySet()) {
      OutboundMessage m = e.getValue().message;
      if (m.exchange().equals(exchange) && m.routingKey().equals(routingKey)
          && Objects.equals(m.messageId(), messageId)) {
        complete(bySeq.remove(e.getKey()), PublishResult.unroutable(replyCode, replyText));
        return;
      }
    }
  }

  /** The message with {@code seq} failed before it could be confirmed (the publish itself threw). */
  void fail(long seq, PublishResult result) {
    complete(bySeq.remove(seq), result);
  }

  /** Every message still waiting fails: its channel generation is over. */
  void failAll(PublishResult result) {
    Map.Entry<Long, Pending> e;
    while ((e = bySeq.pollFirstEntry()) != null) {
      complete(e.getValue(), result);
    }
  }

  /**
   * Fails the messages whose deadline passed. Deadlines grow with the sequence (one publisher thread at a time), so
   * the sweep stops at the first message still in time.
   */
  List<Pending> expire(long nowNanos, PublishResult result) {
    List<Pending> expired = new ArrayList<>();
    for (Map.Entry<Long, Pending> e : bySeq.entrySet()) {
      if (e.getValue().deadlineNanos - nowNanos > 0) {
        break;
      }
      Pending p = bySeq.remove(e.getKey());
      if (p != null) {
        expired.add(p);
        complete(p, result);
      }
    }
    return expired;
  }

  int size() {
    return bySeq.size();
  }

  private static void complete(Pending p, PublishResult result) {
    if (p != null) {
      p.future.complete(result);
    }
  }
}
