package dev.baton.operator.broker;

/** An exchange as the broker reports it; {@code type} as RabbitMQ spells it ({@code topic}, {@code direct}). */
public record BrokerExchange(String name, String type) {}
