package dev.baton.operator.broker;

/** A broker user: its name and how the broker stores its password (never the password itself). */
public record BrokerUser(String name, String passwordHash, String hashingAlgorithm) {}
