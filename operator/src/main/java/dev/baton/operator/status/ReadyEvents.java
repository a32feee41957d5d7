package dev.baton.operator.status;

import dev.baton.api.v1alpha1.BatonStatus;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.operator.monitoring.KubeEvents;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.CustomResource;
import java.util.Optional;

/**
 * A Warning Event on a resource when its Ready condition turns False, or changes its reason while False; the Event's
 * reason is the condition's. Only on such transitions, never per reconciliation, and not for a Deployment still
 * rolling out ({@link Reason#isFailure()}). A Ready=False that is expected progress worth telling (a deleted Workflow
 * waiting for its instances, {@link Reason#isNotice()}) gets a Normal Event instead.
 */
final class ReadyEvents {

  private ReadyEvents() {}

  static void onTransition(KubeEvents events, CustomResource<?, ? extends BatonStatus> resource, ConditionState ready) {
    if (ready.ok() || !(ready.reason().isFailure() || ready.reason().isNotice())) {
      return;
    }
    Optional<Condition> before = resource.getStatus() == null ? Optional.empty()
        : resource.getStatus().condition(ConditionTypes.READY);
    boolean same = before.filter(c -> "False".equals(c.getStatus()) && ready.reason().value().equals(c.getReason()))
        .isPresent();
    if (!same && ready.reason().isFailure()) {
      events.warning(resource, ready.reason().value(), ready.message());
    } else if (!same) {
      events.normal(resource, ready.reason().value(), ready.message());
    }
  }
}
