package dev.baton.api.v1alpha1;

/** What happens to broker objects when their resource is deleted. */
public enum DeletionPolicy {
  /** Queues that still hold messages are kept (nothing is lost); everything else is removed. */
  Retain,
  /** Everything is removed, messages included. */
  Delete
}
