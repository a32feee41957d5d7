package dev.baton.runtime.definitions;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.Optional;

/**
 * Whether instances may start from a Workflow now, for a start through the API and for a child workflow step alike: not
 * while it is being deleted, nor while its operator says it is not Ready. Without an operator (no status) a Workflow
 * is taken as it is, unless the runtime requires Ready ({@code BATON_REQUIRE_READY}). Pure.
 */
public final class Startability {

  private Startability() {}

  /** Why no instance may start from the Workflow now, or empty when one may. */
  public static Optional<String> refusal(Workflow workflow, boolean requireReady) {
    String where = workflow.getMetadata().getNamespace() + "/" + workflow.getMetadata().getName();
    if (WorkflowWatcher.isBeingDeleted(workflow)) {
      return Optional.of("Workflow " + where + " is being deleted: it starts no new instances; "
          + (WorkflowWatcher.failsRunningOnDelete(workflow)
              ? "its unfinished ones are failed (" + WorkflowWatcher.ON_DELETE + ": " + WorkflowWatcher.FAIL_RUNNING
                  + ")"
              : "its unfinished ones run to their end, then it is gone"));
    }
    Optional<Condition> ready = workflow.getStatus() == null
        ? Optional.empty()
        : workflow.getStatus().condition(ConditionTypes.READY);
    if (ready.isPresent() && "False".equals(ready.get().getStatus())) {
      return Optional.of("Workflow " + where + " is not Ready (" + ready.get().getReason() + "): "
          + ready.get().getMessage());
    }
    if (requireReady && (ready.isEmpty() || !"True".equals(ready.get().getStatus()))) {
      return Optional.of("Workflow " + where + " is not Ready yet: the operator has not confirmed its topology");
    }
    return Optional.empty();
  }
}
