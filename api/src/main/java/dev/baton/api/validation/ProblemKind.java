package dev.baton.api.validation;

/**
 * What kind of thing is wrong with a spec, most important first: mistakes in the resource itself before references to
 * others that are missing. The operator maps each to the reason of its Ready condition.
 */
public enum ProblemKind {
  /** A rule the schema cannot express (or that a schema-less API server let through) is broken. */
  INVALID_SPEC,
  /** A command names a RetryPolicy that does not exist in the namespace. */
  MISSING_RETRY_POLICY,
  /** A command names a RetryPolicy that exists but is itself invalid. */
  INVALID_RETRY_POLICY,
  /** A Workflow step names a service that no WorkerService provides. */
  MISSING_SERVICE,
  /** A Workflow step names a command (or compensate command) its service does not accept. */
  MISSING_COMMAND,
  /** A child workflow step names a Workflow that does not exist in the namespace. */
  MISSING_WORKFLOW
}
