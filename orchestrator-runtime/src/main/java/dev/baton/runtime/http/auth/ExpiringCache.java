package dev.baton.runtime.http.auth;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A small map whose entries expire, each after its own time, and which never holds more than its capacity (the
 * oldest entry goes first once the expired ones are gone). Enough for answers that must be fresh within seconds —
 * a review of a token, a decision of RBAC — without a cache library.
 */
public final class ExpiringCache<K, V> {

  private record Entry<V>(V value, long expiresAtNanos) {}

  private final int capacity;
  private final LongSupplier nanoTime;
  private final LinkedHashMap<K, Entry<V>> entries = new LinkedHashMap<>();

  public ExpiringCache(int capacity) {
    this(capacity, System::nanoTime);
  }

  /** @param nanoTime the clock ({@link System#nanoTime} but in tests) */
  public ExpiringCache(int capacity, LongSupplier nanoTime) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.nanoTime = nanoTime;
  }

  /** The value, or null when there is none or it has expired. */
  public synchronized V get(K key) {
    Entry<V> e = entries.get(key);
    if (e == null) {
      return null;
    }
    if (nanoTime.getAsLong() - e.expiresAtNanos() >= 0) {
      entries.remove(key);
      return null;
    }
    return e.value();
  }

  /** Keeps the value for {@code ttl}, in place of any earlier one. */
  public synchronized void put(K key, V value, Duration ttl) {
    long now = nanoTime.getAsLong();
    entries.remove(key); // a new entry is the newest: eviction goes by age
    if (entries.size() >= capacity) {
      entries.values().removeIf(e -> now - e.expiresAtNanos() >= 0);
    }
    if (entries.size() >= capacity) {
      Iterator<Map.Entry<K, Entry<V>>> oldest = entries.entrySet().iterator();
      oldest.next();
      oldest.remove();
    }
    entries.put(key, new Entry<>(value, now + ttl.toNanos()));
  }

  /** Entries held, expired ones not yet dropped included. */
  public synchronized int size() {
    return entries.size();
  }
}
