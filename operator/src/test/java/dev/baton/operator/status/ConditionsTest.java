package dev.baton.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.RetryPolicyStatus;
import dev.baton.operator.model.RetryPolicyTranslator;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {

  static Clock at(String instant) {
    return Clock.fixed(Instant.parse(instant), ZoneOffset.UTC);
  }

  @Test
  void lastTransitionTimeMovesOnlyWhenTheStatusChanges() {
    List<Condition> first = new Conditions(null, 1L, at("2026-01-01T10:00:00Z"))
        .set("Ready", ConditionState.failed(Reason.BROKER_UNAVAILABLE, "down")).toList();
    List<Condition> stillDown = new Conditions(first, 1L, at("2026-01-01T10:05:00Z"))
        .set("Ready", ConditionState.failed(Reason.INVALID_SPEC, "other reason")).toList();
    List<Condition> up = new Conditions(stillDown, 2L, at("2026-01-01T10:06:00Z"))
        .set("Ready", ConditionState.ok(Reason.READY, "fine")).toList();

    assertThat(stillDown.get(0).getLastTransitionTime()).isEqualTo("2026-01-01T10:00:00Z");
    assertThat(stillDown.get(0).getReason()).isEqualTo("InvalidSpec");
    assertThat(up.get(0).getLastTransitionTime()).isEqualTo("2026-01-01T10:06:00Z");
    assertThat(up.get(0).getObservedGeneration()).isEqualTo(2L);
  }

  static Condition of(List<Condition> conditions, String type) {
    return conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
  }

  @Test
  void kstatusReadsStalledWhenOnlyAPersonCanHelpReconcilingWhileTheOperatorIsAtItAndNeitherWhenReady() {
    List<Condition> invalid = new Conditions(null, 1L, at("2026-01-01T10:00:00Z"))
        .ready(ConditionState.failed(Reason.INVALID_SPEC, "spec.steps is empty")).toList();
    assertThat(of(invalid, "Stalled").getStatus()).isEqualTo("True");
    assertThat(of(invalid, "Stalled").getReason()).isEqualTo("InvalidSpec");
    assertThat(of(invalid, "Stalled").getMessage()).isEqualTo("spec.steps is empty");
    assertThat(of(invalid, "Reconciling")).isNull();

    for (Reason waits : new Reason[] {Reason.MISSING_SERVICE, Reason.BROKER_UNAVAILABLE, Reason.MISSING_WORKFLOW,
        Reason.REPLICAS_UNAVAILABLE, Reason.RECONCILE_ERROR}) {
      List<Condition> c = new Conditions(invalid, 2L, at("2026-01-01T10:01:00Z"))
          .ready(ConditionState.failed(waits, "not yet")).toList();
      assertThat(of(c, "Reconciling").getStatus()).as(waits.name()).isEqualTo("True");
      assertThat(of(c, "Stalled")).as(waits.name()).isNull();
    }
    for (Reason person : new Reason[] {Reason.CONFLICT, Reason.FORBIDDEN, Reason.IMMUTABLE_QUEUE_ARGUMENTS}) {
      assertThat(of(new Conditions(null, 1L, at("2026-01-01T10:00:00Z"))
          .ready(ConditionState.failed(person, "a person")).toList(), "Stalled")).as(person.name()).isNotNull();
    }

    List<Condition> ready = new Conditions(invalid, 3L, at("2026-01-01T10:02:00Z"))
        .ready(ConditionState.ok(Reason.READY, "fine")).toList();
    assertThat(ready).extracting(Condition::getType).containsExactly("Ready");
  }

  @Test
  void anUnchangedResourceGetsNoStatusPatch() {
    RetryPolicy policy = RetryPolicyTranslatorTestAccess.policy(3, "1s 5s");
    policy.getMetadata().setGeneration(1L);
    RetryPolicyStatusWriter writer = new RetryPolicyStatusWriter(at("2026-01-01T10:00:00Z"));
    var first = writer.write(policy, RetryPolicyTranslator.fromCrd(policy));
    assertThat(first.isPatchStatus()).isTrue();
    policy.setStatus(first.getResource().orElseThrow().getStatus());

    var later = new RetryPolicyStatusWriter(at("2026-01-01T11:00:00Z")).write(policy, RetryPolicyTranslator.fromCrd(policy));
    assertThat(later.isNoUpdate()).isTrue();
    RetryPolicyStatus status = policy.getStatus();
    assertThat(status.getDelays()).containsExactly("1s", "5s");
    assertThat(status.condition(ConditionTypes.READY).orElseThrow().getReason()).isEqualTo("Valid");
  }

  /** The policy builder of the model tests, without making it public there. */
  static final class RetryPolicyTranslatorTestAccess {
    static RetryPolicy policy(int maxAttempts, String delays) {
      RetryPolicy p = new RetryPolicy();
      p.getMetadata().setName("p");
      var spec = new dev.baton.api.v1alpha1.RetryPolicySpec();
      spec.setMaxAttempts(maxAttempts);
      spec.setDelays(Arrays.asList(delays.split(" ")));
      p.setSpec(spec);
      return p;
    }
  }
}
