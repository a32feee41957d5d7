package dev.baton.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.client.UnknownFieldWarnings.UnknownField;
import dev.baton.api.v1alpha1.QueueKind;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A resource with fields this version does not know (a newer CRD during an upgrade or a rollback, a client's JSON
 * patch an API server did not prune) is read with every field it knows, and each unknown field is said once per kind
 * and path, wherever it is: at the top, in the spec, in a list's items, in nested steps, in the status.
 */
class TolerantSerializationTest {

  private final List<UnknownField> said = new CopyOnWriteArrayList<>();
  private final KubernetesSerialization serialization = new TolerantSerialization(new UnknownFieldWarnings(said::add));

  static final String WORKER_SERVICE = """
      apiVersion: baton.dev/v1alpha1
      kind: WorkerService
      metadata: {name: payment, namespace: shop}
      topLevel: x
      spec:
        service: payment
        unknownField: 1
        deployment: {image: registry.example/payment:1, sidecars: [{name: x}]}
        futureField: {on: true, deeper: [1, 2]}
        queue: {type: quorum, someQueueOption: 3}
        commands: [{name: pay, priority: high}, {name: refund, priority: low}]
      status: {somethingNew: 1, observedGeneration: 4, conditions: []}
      """;

  @Test
  void aWorkerServiceIsReadWithItsKnownFieldsAndEachUnknownOneIsSaidOnce() {
    WorkerService ws = serialization.unmarshal(WORKER_SERVICE, WorkerService.class);
    serialization.unmarshal(WORKER_SERVICE, WorkerService.class); // read again, as a resync would: nothing new to say

    assertThat(ws.getSpec().getService()).isEqualTo("payment");
    assertThat(ws.getSpec().getDeployment().getImage()).isEqualTo("registry.example/payment:1");
    assertThat(ws.getSpec().getQueue().getType()).isEqualTo(QueueKind.QUORUM);
    assertThat(ws.getSpec().getCommands()).extracting(c -> c.getName()).containsExactly("pay", "refund");
    assertThat(ws.getStatus().getObservedGeneration()).isEqualTo(4L);
    assertThat(said).containsExactlyInAnyOrder(
        new UnknownField("WorkerService", "topLevel", "shop/payment"),
        new UnknownField("WorkerService", "spec.unknownField", "shop/payment"),
        new UnknownField("WorkerService", "spec.futureField", "shop/payment"),
        new UnknownField("WorkerService", "spec.queue.someQueueOption", "shop/payment"),
        new UnknownField("WorkerService", "spec.deployment.sidecars", "shop/payment"),
        new UnknownField("WorkerService", "spec.commands[*].priority", "shop/payment"),
        new UnknownField("WorkerService", "status.somethingNew", "shop/payment"));
  }

  @Test
  void aWorkflowWithUnknownFieldsInNestedStepsAndSchedulesIsReadWithTheKnownOnes() {
    Workflow wf = serialization.unmarshal("""
        apiVersion: baton.dev/v1alpha1
        kind: Workflow
        metadata: {name: order, namespace: shop}
        spec:
          entity: order
          schedules: [{name: nightly, cron: "0 2 * * *", jitter: 5s}]
          steps:
            - name: checks
              parallel:
                - steps: [{name: a, service: s, command: c, retries: 3}]
                - steps: [{name: b, delay: 1s, retries: 1}]
            - {name: ship, service: s, command: ship, hint: fast}
        status: {running: 2, lastSeenBy: newer}
        """, Workflow.class);

    assertThat(wf.getSpec().getSteps()).extracting(s -> s.getName()).containsExactly("checks", "ship");
    assertThat(wf.getSpec().getSteps().get(0).getParallel().get(1).getSteps().get(0).getDelay()).isEqualTo("1s");
    assertThat(wf.getSpec().getSchedules().get(0).getCron()).isEqualTo("0 2 * * *");
    assertThat(said).extracting(UnknownField::kind).containsOnly("Workflow");
    assertThat(said).extracting(UnknownField::path).containsExactlyInAnyOrder(
        "spec.schedules[*].jitter",
        "spec.steps[*].parallel[*].steps[*].retries",
        "spec.steps[*].hint",
        "status.lastSeenBy");
  }

  @Test
  void theSamePathInAnotherKindIsSaidForThatKind() {
    serialization.unmarshal("""
        apiVersion: baton.dev/v1alpha1
        kind: RetryPolicy
        metadata: {name: quick, namespace: shop}
        spec: {delays: [1s, 5s], unknownField: 0.1}
        """, RetryPolicy.class);
    RetryPolicy p = serialization.unmarshal("""
        apiVersion: baton.dev/v1alpha1
        kind: RetryPolicy
        metadata: {name: slow, namespace: shop}
        spec: {delays: [1m], unknownField: 0.2}
        """, RetryPolicy.class);
    serialization.unmarshal(WORKER_SERVICE, WorkerService.class);

    assertThat(p.getSpec().getDelays()).containsExactly("1m");
    assertThat(said).filteredOn(f -> f.path().equals("spec.unknownField")).containsExactly(
        new UnknownField("RetryPolicy", "spec.unknownField", "shop/quick"),
        new UnknownField("WorkerService", "spec.unknownField", "shop/payment"));
  }

  @Test
  void aWatchEventCarryingTheResourceIsReadAsAnInformerReadsIt() {
    serialization.registerKubernetesResource(WorkerService.class);
    WatchEvent event = serialization.unmarshal("""
        {"type": "MODIFIED", "object": {"apiVersion": "baton.dev/v1alpha1", "kind": "WorkerService",
          "metadata": {"name": "payment", "namespace": "shop"},
          "spec": {"service": "payment", "unknownField": 1}}}
        """, WatchEvent.class);

    assertThat(event.getObject()).isInstanceOfSatisfying(WorkerService.class,
        ws -> assertThat(ws.getSpec().getService()).isEqualTo("payment"));
    assertThat(said).containsExactly(new UnknownField("WorkerService", "spec.unknownField", "shop/payment"));
  }

  static final String NEWER_WORKFLOW = """
      apiVersion: baton.dev/v1alpha1
      kind: Workflow
      metadata: {name: order-saga, namespace: shop}
      spec:
        entity: order
        onFailure: Retry
        steps:
          - {name: reserve, service: inventory, command: reserve}
          - {name: pay, service: payment, command: pay, onTimeout: Escalate}
        schedules: [{name: nightly, cron: "0 2 * * *", overlap: Queue}]
      """;

  @Test
  void enumValuesOfANewerCrdAreReadAsUnsetAndNotedOnTheSpecByFieldAndValue() {
    Workflow wf = serialization.unmarshal(NEWER_WORKFLOW, Workflow.class);

    assertThat(wf.getSpec().getEntity()).isEqualTo("order");
    assertThat(wf.getSpec().getOnFailure()).as("read as unset: the default, which the notes keep from standing in")
        .isEqualTo(dev.baton.api.v1alpha1.OnFailure.Compensate);
    assertThat(wf.getSpec().getUnknownValues()).containsExactly(
        new UnknownValue("spec.onFailure", "Retry", List.of("Compensate", "Stop")),
        new UnknownValue("spec.steps[1].onTimeout", "Escalate", List.of("Fail", "Redispatch")),
        new UnknownValue("spec.schedules[0].overlap", "Queue", List.of("Skip", "Allow", "BufferOne")));
    assertThat(wf.getSpec().getUnknownValues().get(0).message()).startsWith("spec.onFailure: 'Retry' is not a value "
        + "this version of Baton knows (Compensate, Stop)");
  }

  @Test
  void anEnumListKeepsTheIndexOfTheUnknownValue() {
    WorkerService ws = serialization.unmarshal("""
        {"apiVersion": "baton.dev/v1alpha1", "kind": "WorkerService", "metadata": {"name": "sms", "namespace": "shop"},
         "spec": {"deletionPolicy": "Archive", "subscriptions": [{"name": "notify", "workflow": "order-saga",
           "outcomes": ["failed", "timedOut"]}]}}
        """, WorkerService.class);

    assertThat(ws.getSpec().getUnknownValues()).extracting(UnknownValue::field, UnknownValue::value).containsExactly(
        org.assertj.core.groups.Tuple.tuple("spec.deletionPolicy", "Archive"),
        org.assertj.core.groups.Tuple.tuple("spec.subscriptions[0].outcomes[1]", "timedOut"));
  }

  @Test
  void aCopyMadeThroughJsonAsJosdkMakesOneKeepsTheNotesWhichTheCrdDoesNotHave() {
    Workflow wf = serialization.unmarshal(NEWER_WORKFLOW, Workflow.class);

    Workflow copy = serialization.clone(wf);

    assertThat(copy.getSpec().getUnknownValues()).isEqualTo(wf.getSpec().getUnknownValues()).hasSize(3);
    assertThat(serialization.asJson(serialization.unmarshal(WORKER_SERVICE, WorkerService.class)))
        .as("nothing written for a spec fully known").doesNotContain(UnknownEnumValues.PROPERTY);
    assertThat(new KubernetesSerialization().asJson(wf)).as("fabric8's own, and the CRD generator's, do not see them")
        .doesNotContain(UnknownEnumValues.PROPERTY).doesNotContain("unknownValues");
  }

  @Test
  void fabric8sOwnSerializationFailsOnTheSameResourceWhichIsWhyEveryBatonClientReadsWithThisOne() {
    assertThatThrownBy(() -> new KubernetesSerialization().unmarshal(WORKER_SERVICE, WorkerService.class))
        .hasStackTraceContaining("Unrecognized field \"topLevel\"");
  }

  @Test
  void aResourceFullOfMadeUpKeysStopsGrowingWhatIsRemembered() {
    StringBuilder spec = new StringBuilder("{\"service\": \"payment\"");
    for (int i = 0; i < UnknownFieldWarnings.MAX_REMEMBERED + 50; i++) {
      spec.append(", \"k").append(i).append("\": 1");
    }
    WorkerService ws = serialization.unmarshal("{\"apiVersion\": \"baton.dev/v1alpha1\", \"kind\": \"WorkerService\","
        + " \"metadata\": {\"name\": \"payment\"}, \"spec\": " + spec + "}}", WorkerService.class);

    assertThat(ws.getSpec().getService()).isEqualTo("payment");
    assertThat(said).hasSize(UnknownFieldWarnings.MAX_REMEMBERED);
  }
}
