package dev.baton.worker;

/**
 * Whether the worker does its work: started, both connections open, and every queue consumed (a consumer the broker
 * cancelled, or a channel being reopened, is not). {@code detail} says what is missing, or what it consumes.
 */
public record WorkerHealth(boolean ok, String detail) {}
