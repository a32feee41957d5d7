package dev.baton.runtime.engine;

import dev.baton.contract.EventResult;

/**
 * A worker's answer as the state machine sees it: which execution it answers (step, action, attempt) and how it
 * went. The output itself is not needed to decide, only to record.
 */
public record StepResult(String step, String action, int attempt, EventResult result, String errorCode, String reason) {}
