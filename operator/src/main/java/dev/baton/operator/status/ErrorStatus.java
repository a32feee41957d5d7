package dev.baton.operator.status;

import dev.baton.api.v1alpha1.BatonStatus;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.operator.monitoring.KubeEvents;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import java.time.Clock;
import java.util.ArrayList;
import java.util.function.Supplier;

/**
 * The status after an unexpected exception (JOSDK retries it with backoff): everything as it was, but Ready=False
 * with reason ReconcileError, so nothing half-applied is reported as ready.
 */
final class ErrorStatus {

  private ErrorStatus() {}

  static <S extends BatonStatus, P extends CustomResource<?, S>> ErrorStatusUpdateControl<P> of(
      P primary, Exception e, Class<S> type, Supplier<S> empty, Supplier<P> bare, Clock clock, KubeEvents events) {
    S status = StatusPatch.copy(primary.getStatus(), type, empty);
    ConditionState error = ConditionState.failed(Reason.RECONCILE_ERROR, "reconciling failed, retrying: " + e.getMessage());
    ReadyEvents.onTransition(events, primary, error);
    status.setConditions(new ArrayList<>(new Conditions(status.getConditions(), primary.getMetadata().getGeneration(), clock)
        .keepAllBut(ConditionTypes.READY, ConditionTypes.RECONCILING, ConditionTypes.STALLED)
        .ready(error)
        .toList()));
    return StatusPatch.errorIfChanged(primary, status, bare);
  }
}
