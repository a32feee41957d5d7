package dev.baton.contract.topology;

/** A binding from an exchange to a queue. */
public record BindingSpec(String exchange, String queue, String routingKey) {}
