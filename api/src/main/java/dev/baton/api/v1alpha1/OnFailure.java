package dev.baton.api.v1alpha1;

/** What an instance does when a step fails (business 'failed', technical 'error' or timeout). */
public enum OnFailure {
  /** Completed steps that declare 'compensate' are compensated in reverse order; the instance ends COMPENSATED. */
  Compensate,
  /** The instance ends FAILED at once. */
  Stop
}
