package dev.baton.runtime.store;

import java.time.Instant;
import java.util.UUID;

/** A {@code step_execution} row: one dispatch of a step or of its compensation. */
public record StepExecutionRecord(
    long id,
    int stepIndex,
    String stepName,
    String kind,
    String action,
    int attempt,
    String status,
    UUID commandMessageId,
    Instant startedAt,
    Instant finishedAt,
    String outputJson,
    String errorCode,
    String errorReason) {}
