package dev.baton.httpapi;

import java.time.Instant;

/**
 * The last failure of an instance, "which step, which attempt, and why".
 *
 * @param kind the step's kind
 * @param action the command that failed, or null
 * @param status the attempt's status: FAILED, ERROR, TIMED_OUT, CANCELLED
 * @param errorCode the worker's error code, or the runtime's ({@code Timeout}, {@code PayloadTooLarge}, ...)
 * @param at when the runtime recorded it
 */
public record LastError(String step, String kind, String action, int attempt, String status, String errorCode,
    String reason, Instant at) {}
