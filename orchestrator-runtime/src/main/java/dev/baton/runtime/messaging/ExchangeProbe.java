package dev.baton.runtime.messaging;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * Tells whether an exchange exists before the relay publishes to it: publishing to a missing exchange closes the
 * publishing channel and would fail the whole batch, again and again. Answers are remembered for a while; a passive
 * declare needs no configure permission, so the runtime's restricted broker user may do it.
 */
final class ExchangeProbe {

  private static final long REMEMBER_MS = 30_000;

  private final Connection connection;
  private final Map<String, Long> knownUntil = new ConcurrentHashMap<>();

  ExchangeProbe(Connection connection) {
    this.connection = connection;
  }

  boolean exists(String exchange) {
    Long until = knownUntil.get(exchange);
    long now = System.currentTimeMillis();
    if (until != null && until > now) {
      return true;
    }
    Channel probe = null;
    try {
      probe = connection.createChannel();
      probe.exchangeDeclarePassive(exchange);
      knownUntil.put(exchange, now + REMEMBER_MS);
      return true;
    } catch (IOException | RuntimeException e) {
      knownUntil.remove(exchange);
      return false;
    } finally {
      if (probe != null && probe.isOpen()) {
        try {
          probe.close();
        } catch (IOException | TimeoutException | RuntimeException ignored) {
          // throwaway channel
        }
      }
    }
  }

  /** After a publish failed: check every exchange again. */
  void forget() {
    knownUntil.clear();
  }
}
