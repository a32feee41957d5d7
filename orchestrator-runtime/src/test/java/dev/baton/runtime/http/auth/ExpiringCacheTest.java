package dev.baton.runtime.http.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ExpiringCacheTest {

  final AtomicLong now = new AtomicLong(1_000);
  final ExpiringCache<String, String> cache = new ExpiringCache<>(3, now::get);

  void pass(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void anEntryIsThereUntilItsTimeIsUp() {
    cache.put("a", "yes", Duration.ofSeconds(10));

    pass(Duration.ofSeconds(9));
    assertThat(cache.get("a")).isEqualTo("yes");
    pass(Duration.ofSeconds(1));
    assertThat(cache.get("a")).isNull();
  }

  @Test
  void eachEntryHasItsOwnTime() {
    cache.put("allowed", "yes", Duration.ofSeconds(10));
    cache.put("denied", "no", Duration.ofSeconds(2));

    pass(Duration.ofSeconds(3));
    assertThat(cache.get("denied")).isNull();
    assertThat(cache.get("allowed")).isEqualTo("yes");
  }

  @Test
  void aNewValueReplacesTheOldOneAndItsTime() {
    cache.put("a", "old", Duration.ofSeconds(2));
    cache.put("a", "new", Duration.ofSeconds(10));

    pass(Duration.ofSeconds(5));
    assertThat(cache.get("a")).isEqualTo("new");
  }

  @Test
  void itNeverHoldsMoreThanItsCapacityAndTheOldestGoesFirst() {
    cache.put("a", "1", Duration.ofSeconds(10));
    cache.put("b", "2", Duration.ofSeconds(10));
    cache.put("c", "3", Duration.ofSeconds(10));
    cache.put("d", "4", Duration.ofSeconds(10));

    assertThat(cache.size()).isEqualTo(3);
    assertThat(cache.get("a")).isNull();
    assertThat(cache.get("d")).isEqualTo("4");
  }

  @Test
  void expiredEntriesMakeRoomBeforeLiveOnesDo() {
    cache.put("a", "1", Duration.ofSeconds(10));
    cache.put("b", "2", Duration.ofSeconds(1));
    cache.put("c", "3", Duration.ofSeconds(10));
    pass(Duration.ofSeconds(2));

    cache.put("d", "4", Duration.ofSeconds(10));

    assertThat(cache.get("a")).as("the oldest, still live").isEqualTo("1");
    assertThat(cache.get("b")).isNull();
    assertThat(cache.size()).isEqualTo(3);
  }
}
