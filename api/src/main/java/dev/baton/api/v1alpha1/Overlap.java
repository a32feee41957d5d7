package dev.baton.api.v1alpha1;

/** What a schedule's fire does while the instance of its previous fire is still running. */
public enum Overlap {
  /** The fire is skipped (the default): at most one instance of the schedule runs at a time. */
  Skip,
  /** The fire starts its instance anyway: instances of the schedule may run side by side. */
  Allow,
  /** The first such fire waits and starts once the running instance ends; further fires meanwhile are skipped. */
  BufferOne
}
