package dev.baton.operator.broker;

import java.util.List;

/** A broker user: its name, its tags and how the broker stores its password (never the password itself). */
public record BrokerUser(String name, String passwordHash, String hashingAlgorithm, List<String> tags) {

  public BrokerUser {
    tags = tags == null ? List.of() : List.copyOf(tags);
  }

  public BrokerUser(String name, String passwordHash, String hashingAlgorithm) {
    this(name, passwordHash, hashingAlgorithm, List.of());
  }
}
