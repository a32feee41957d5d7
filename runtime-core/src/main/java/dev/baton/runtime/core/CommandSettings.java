package dev.baton.runtime.core;

import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What a state machine gives every command it sends: its message id, and the two limits its input must keep under
 * (the smaller applies); the {@link StateMachine} constructors say what each is.
 */
record CommandSettings(Supplier<UUID> messageIds, long maxCommandBytes, LongSupplier brokerCommandBytes) {}
