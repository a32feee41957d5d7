package dev.baton.operator.status;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.RetryPolicyStatus;
import dev.baton.api.validation.Validated;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.RetryStaircase;
import dev.baton.operator.monitoring.KubeEvents;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.util.ArrayList;

/** The one place that writes a RetryPolicy's status: the normalised staircase, or why there is none. */
public final class RetryPolicyStatusWriter {

  private final Clock clock;
  private final KubeEvents events;

  public RetryPolicyStatusWriter(Clock clock) {
    this(clock, KubeEvents.none());
  }

  /** @param events where a Warning goes when Ready turns False */
  public RetryPolicyStatusWriter(Clock clock, KubeEvents events) {
    this.clock = clock;
    this.events = events;
  }

  public UpdateControl<RetryPolicy> write(RetryPolicy policy, Validated<RetryStaircase> staircase) {
    RetryPolicyStatus status = new RetryPolicyStatus();
    status.setObservedGeneration(policy.getMetadata().getGeneration());
    ConditionState ready;
    if (staircase.isValid()) {
      RetryStaircase s = staircase.value();
      status.setRetries(s.retries());
      status.setDelays(new ArrayList<>(s.normalisedDelays()));
      status.setTiers(new ArrayList<>(s.tiers().stream().map(BatonDuration::toString).toList()));
      ready = ConditionState.ok(Reason.VALID, s.hasRetries()
          ? s.retries() + " retries over " + s.tiers().size() + " retry queue(s) per command: " + String.join(", ", status.getTiers())
          : "no retries: the first technical failure dead-letters");
    } else {
      ready = ConditionState.failed(Reason.of(staircase), staircase.message());
    }
    status.setConditions(new ArrayList<>(new Conditions(
        policy.getStatus() == null ? null : policy.getStatus().getConditions(), policy.getMetadata().getGeneration(), clock)
        .ready(ready)
        .toList()));
    ReadyEvents.onTransition(events, policy, ready);
    return StatusPatch.ifChanged(policy, status, RetryPolicy::new);
  }

  public ErrorStatusUpdateControl<RetryPolicy> failed(RetryPolicy policy, Exception e) {
    return ErrorStatus.of(policy, e, RetryPolicyStatus.class, RetryPolicyStatus::new, RetryPolicy::new, clock, events);
  }
}
