package dev.baton.operator.model;

import dev.baton.contract.Names;
import java.util.Optional;

/** Event exchange names ({@code S.event.topic.ex}, {@link Names#eventExchange}) read back: whose events they carry. */
public final class EventExchanges {

  private static final String SUFFIX = Names.eventExchange("x").substring(1);

  private EventExchanges() {}

  /** The service whose event exchange {@code exchange} is, if it is one (of a valid service name). */
  public static Optional<String> serviceOf(String exchange) {
    if (exchange == null || !exchange.endsWith(SUFFIX)) {
      return Optional.empty();
    }
    String service = exchange.substring(0, exchange.length() - SUFFIX.length());
    return Names.isValidToken(service) ? Optional.of(service) : Optional.empty();
  }
}
