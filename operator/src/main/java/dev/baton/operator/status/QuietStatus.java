package dev.baton.operator.status;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Keeps statuses quiet under traffic: every status write is an etcd write, and queue depths or instance counts change
 * on nearly every pass of a busy system. A new status that differs from the current one only in such live figures is
 * written at most once per interval per resource; until then the resource keeps showing the figures of its last
 * write. Anything else that changes (a condition, a queue name, dead letters) is written at once, with the live
 * figures of the moment.
 *
 * @param <S> the status type
 */
final class QuietStatus<S> {

  private final Duration interval;
  private final Clock clock;
  private final Class<S> type;
  private final Supplier<S> empty;
  private final BiConsumer<S, S> copyLiveFigures;
  private final Map<String, Instant> lastWrites = new ConcurrentHashMap<>();

  /** @param copyLiveFigures copies the live figures of its first argument into its second */
  QuietStatus(Duration interval, Clock clock, Class<S> type, Supplier<S> empty, BiConsumer<S, S> copyLiveFigures) {
    this.interval = interval;
    this.clock = clock;
    this.type = type;
    this.empty = empty;
    this.copyLiveFigures = copyLiveFigures;
  }

  /**
   * The status to write: {@code next}, or {@code next} with the current live figures while only those differ and
   * the resource's last write is younger than the interval. Records the write when the result differs from
   * {@code current}.
   */
  S settle(HasMetadata resource, S current, S next) {
    String key = key(resource);
    S result = next;
    if (current != null && !StatusPatch.same(current, next)) {
      S held = StatusPatch.copy(next, type, empty);
      copyLiveFigures.accept(current, held);
      Instant last = lastWrites.get(key);
      boolean onlyLiveFigures = StatusPatch.same(current, held);
      if (onlyLiveFigures && last != null && clock.instant().isBefore(last.plus(interval))) {
        result = held;
      }
    }
    if (!StatusPatch.same(current, result)) {
      lastWrites.put(key, clock.instant());
    }
    return result;
  }

  /** The resource is gone. */
  void forget(HasMetadata resource) {
    lastWrites.remove(key(resource));
  }

  private static String key(HasMetadata r) {
    return r.getMetadata().getNamespace() + "/" + r.getMetadata().getName();
  }
}
