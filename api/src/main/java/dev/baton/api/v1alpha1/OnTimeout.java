package dev.baton.api.v1alpha1;

/** What a step does when no result arrives before its timeout. */
public enum OnTimeout {
  /** The step fails with reason Timeout; then the Workflow's onFailure applies. */
  Fail,
  /** The command is sent again (a new attempt), up to maxDispatches; then the step fails with reason Timeout. */
  Redispatch
}
