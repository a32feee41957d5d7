package dev.baton.runtime.relay;

import com.rabbitmq.client.Connection;
import dev.baton.runtime.broker.BrokerObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells whether an exchange exists before the relay publishes to it: publishing to a missing exchange closes the
 * publishing channel and would fail the whole batch, again and again. A positive answer is remembered for a while.
 */
final class ExchangeProbe {

  private static final long REMEMBER_MS = 30_000;

  private final Connection connection;
  private final Map<String, Long> knownUntil = new ConcurrentHashMap<>();

  ExchangeProbe(Connection connection) {
    this.connection = connection;
  }

  /**
   * @throws UncheckedIOException when the broker cannot be asked (the relay round fails and is retried; rows are
   *     not set aside for a missing exchange that may well exist)
   */
  boolean exists(String exchange) {
    Long until = knownUntil.get(exchange);
    long now = System.currentTimeMillis();
    if (until != null && until > now) {
      return true;
    }
    try {
      if (BrokerObjects.exchangeExists(connection, exchange)) {
        knownUntil.put(exchange, now + REMEMBER_MS);
        return true;
      }
      knownUntil.remove(exchange);
      return false;
    } catch (IOException | RuntimeException e) {
      throw new UncheckedIOException(new IOException("cannot check exchange " + exchange + ": " + e, e));
    }
  }

  /** After a publish failed: check every exchange again. */
  void forget() {
    knownUntil.clear();
  }
}
