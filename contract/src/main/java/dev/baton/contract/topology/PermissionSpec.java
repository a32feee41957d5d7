package dev.baton.contract.topology;

/** RabbitMQ permissions in one vhost: three regular expressions over resource names. */
public record PermissionSpec(String configure, String write, String read) {}
