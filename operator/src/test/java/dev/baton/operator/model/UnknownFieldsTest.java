package dev.baton.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

/**
 * A resource with a field this operator does not know (written by a newer CRD during an upgrade or a rollback, or
 * added by a JSON patch an API server did not prune) is read as if the field were not there: the informer that reads
 * it must not fail, which would stop the operator.
 */
class UnknownFieldsTest {

  static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  @Test
  void aWorkerServiceWithUnknownFieldsInItsSpecCommandsAndStatusIsReadWithTheKnownOnes() {
    WorkerService ws = SERIALIZATION.unmarshal("""
        apiVersion: baton.dev/v1alpha1
        kind: WorkerService
        metadata: {name: payment, namespace: shop}
        spec:
          service: payment
          image: registry.example/payment:1
          futureField: {on: true}
          commands: [{name: pay, priority: high}]
        status: {somethingNew: 1, conditions: []}
        """, WorkerService.class);

    assertThat(ws.getSpec().getService()).isEqualTo("payment");
    assertThat(ws.getSpec().getCommands()).extracting(c -> c.getName()).containsExactly("pay");
  }

  @Test
  void aWorkflowWithAnUnknownFieldInANestedStepIsReadWithTheKnownOnes() {
    Workflow wf = SERIALIZATION.unmarshal("""
        apiVersion: baton.dev/v1alpha1
        kind: Workflow
        metadata: {name: order, namespace: shop}
        spec:
          entity: order
          schedules: [{name: nightly, cron: "0 2 * * *"}]
          steps:
            - {name: checks, parallel: [{steps: [{name: a, service: s, command: c, retries: 3}]}, {steps: [{name: b, delay: 1s}]}]}
        """, Workflow.class);

    assertThat(wf.getSpec().getSteps().get(0).getParallel().get(0).getSteps().get(0).getName()).isEqualTo("a");
  }

  @Test
  void aRetryPolicyWithAnUnknownFieldIsReadWithTheKnownOnes() {
    RetryPolicy p = SERIALIZATION.unmarshal("""
        apiVersion: baton.dev/v1alpha1
        kind: RetryPolicy
        metadata: {name: quick, namespace: shop}
        spec: {delays: [1s, 5s], jitter: 0.1}
        """, RetryPolicy.class);

    assertThat(p.getSpec().getDelays()).containsExactly("1s", "5s");
  }
}
