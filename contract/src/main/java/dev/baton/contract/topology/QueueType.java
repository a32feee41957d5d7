package dev.baton.contract.topology;

import java.util.Locale;

/** RabbitMQ queue types Baton declares. */
public enum QueueType {
  CLASSIC,
  QUORUM;

  /** The value of {@code x-queue-type}. */
  public String argument() {
    return name().toLowerCase(Locale.ROOT);
  }
}
