package dev.baton.runtime.engine;

/**
 * What the state machine needs to know of an instance: read under the row lock, so a decision made from it cannot
 * race with another event, a timeout or an API call for the same instance.
 *
 * @param stepIndex the step in flight, or where the instance stopped
 * @param attempt the dispatch attempt in flight (events of other attempts are stale)
 * @param dispatches dispatches of the current step since it started or was retried by hand
 */
public record InstanceState(InstanceStatus status, Phase phase, int stepIndex, int attempt, int dispatches) {}
