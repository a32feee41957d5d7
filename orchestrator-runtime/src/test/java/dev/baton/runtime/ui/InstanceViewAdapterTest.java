package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.json.Json;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceLink;
import dev.baton.runtime.ui.InstanceView.StepView;
import dev.baton.workflow.StepKind;
import org.junit.jupiter.api.Test;

/** The instance document (the API's contract) folded into one view per step, compensations attached. */
class InstanceViewAdapterTest {


  @Test
  void todaysDocumentFoldsDispatchesPerStepAndAttachesCompensations() throws Exception {
    InstanceView v = InstanceViewAdapter.from(Json.MAPPER.readValue("""
        {"id": "i-1", "namespace": "default", "workflow": "orders", "revision": 2, "businessKey": "o-1",
         "status": "COMPENSATED", "phase": "COMPENSATION", "currentStep": "reserve", "attempt": 1,
         "lastError": {"step": "ship", "kind": "STEP", "status": "FAILED", "errorCode": "NO_PARCELS",
                       "reason": "none left", "at": "2026-01-05T10:00:03Z"},
         "createdAt": "2026-01-05T10:00:00Z", "input": {"sku": "b"}, "outputs": {},
         "steps": [
          {"name": "reserve", "kind": "STEP", "action": "reserve", "status": "SUCCEEDED", "attempt": 1,
           "startedAt": "2026-01-05T10:00:00Z", "finishedAt": "2026-01-05T10:00:01Z", "output": {"ok": true},
           "error": null},
          {"name": "ship", "kind": "STEP", "action": "ship", "status": "TIMED_OUT", "attempt": 1, "error": null},
          {"name": "ship", "kind": "STEP", "action": "ship", "status": "FAILED", "attempt": 2,
           "error": {"code": "NO_PARCELS", "reason": "none left"}},
          {"name": "reserve", "kind": "COMPENSATION", "action": "release", "status": "SUCCEEDED", "attempt": 1}
         ]}""", InstanceDocument.class));
    assertThat(v.steps()).extracting(StepView::name).containsExactly("reserve", "ship");
    StepView reserve = v.step("reserve").orElseThrow();
    assertThat(reserve.compensation().action()).isEqualTo("release");
    assertThat(reserve.compensation().status()).isEqualTo("SUCCEEDED");
    assertThat(reserve.latest().output().path("ok").asBoolean()).isTrue();
    StepView ship = v.step("ship").orElseThrow();
    assertThat(ship.status()).isEqualTo("FAILED");
    assertThat(ship.latest().attempt()).isEqualTo(2);
    assertThat(ship.dispatches()).hasSize(2);
    assertThat(ship.latest().error().text()).isEqualTo("NO_PARCELS: none left");
    assertThat(v.lastError().text()).isEqualTo("NO_PARCELS: none left");
    assertThat(v.active()).isFalse();
    assertThat(InstanceDetailView.where(v)).isEqualTo("compensating reserve");
  }

  @Test
  void theContractsFormHasKindsParentsAndCompensationsNamedAfterTheirStep() throws Exception {
    InstanceView v = InstanceViewAdapter.from(Json.MAPPER.readValue("""
        {"id": "i-2", "status": "RUNNING", "currentStep": "fraud/compensate", "steps": [
          {"name": "checks", "kind": "parallel", "parent": null, "status": "RUNNING", "attempt": 1},
          {"name": "fraud", "kind": "task", "parent": "checks", "status": "SUCCEEDED", "attempt": 1},
          {"name": "approval", "kind": "wait", "parent": null, "status": "RUNNING", "attempt": 1},
          {"name": "fraud/compensate", "kind": "task", "parent": "checks", "status": "RUNNING", "attempt": 1}
        ]}""", InstanceDocument.class));
    assertThat(v.steps()).extracting(StepView::name).containsExactly("checks", "fraud", "approval");
    assertThat(v.step("checks").orElseThrow().kind()).isEqualTo(StepKind.PARALLEL);
    assertThat(v.step("fraud").orElseThrow().parent()).isEqualTo("checks");
    assertThat(v.step("fraud").orElseThrow().compensation().status()).isEqualTo("RUNNING");
    assertThat(v.waiting()).containsExactly("approval");
    assertThat(v.active()).isTrue();
    assertThat(InstanceDetailView.where(v)).as("the engine names a compensation <step>/compensate")
        .isEqualTo("compensating fraud");
  }

  @Test
  void theRowsOfAMapsIterationsAreFoldedPerMapAndAWaitInsideOneStillOffersItsSignal() throws Exception {
    InstanceView v = InstanceViewAdapter.from(Json.MAPPER.readValue("""
        {"id": "i-4", "status": "RUNNING", "currentStep": "approve-one[1]", "steps": [
          {"name": "approve-items", "kind": "map", "parent": null, "status": "RUNNING", "attempt": 1, "itemCount": 2},
          {"name": "approve-items[0]", "kind": "iteration", "parent": "approve-items", "status": "SUCCEEDED",
           "attempt": 1},
          {"name": "approve-one[0]", "kind": "wait", "parent": "approve-items[0]", "status": "SUCCEEDED", "attempt": 1},
          {"name": "approve-items[1]", "kind": "iteration", "parent": "approve-items", "status": "RUNNING",
           "attempt": 1},
          {"name": "approve-one[1]", "kind": "wait", "parent": "approve-items[1]", "status": "RUNNING", "attempt": 1}
        ]}""", InstanceDocument.class));
    assertThat(v.steps()).extracting(StepView::name).containsExactly("approve-items");
    assertThat(v.step("approve-items").orElseThrow().kind()).isEqualTo(StepKind.MAP);
    assertThat(v.maps().get("approve-items").summary())
        .isEqualTo("2 items: 1 succeeded, 1 running, 0 failed, 0 not started");
    assertThat(v.iterationOf("approve-one[1]").orElseThrow().index()).isEqualTo(1);
    assertThat(v.waiting()).containsExactly("approve-one[1]");
    StepTree tree = StepTree.of(Json.MAPPER.convertValue(Json.readObject("""
        {"steps": [{"name": "approve-items", "map": {"items": "input.items",
          "steps": [{"name": "approve-one", "wait": {"signal": "approved"}}]}}]}"""),
        dev.baton.api.v1alpha1.WorkflowSpec.class));
    assertThat(tree.signalOf("approve-one[1]")).contains("approved");
  }

  @Test
  void theChildrenOfChildWorkflowStepsGoToTheirStepsAndTheParentToTheInstance() throws Exception {
    InstanceView v = InstanceViewAdapter.from(Json.MAPPER.readValue("""
        {"id": "p-1", "status": "RUNNING", "currentStep": "invoice-items",
         "parent": {"step": "orders[2]", "id": "g-1", "workflow": "batches", "status": "RUNNING"},
         "children": [{"step": "invoice", "id": "c-1", "workflow": "invoicing", "status": "SUCCEEDED"},
                      {"step": "invoice-one[0]", "id": "c-2", "workflow": "invoicing", "status": "RUNNING"}],
         "steps": [
          {"name": "invoice", "kind": "workflow", "parent": null, "status": "SUCCEEDED", "attempt": 1},
          {"name": "invoice/compensate", "kind": "workflow", "parent": null, "status": "RUNNING", "attempt": 1},
          {"name": "invoice-items", "kind": "map", "parent": null, "status": "RUNNING", "attempt": 1, "itemCount": 1},
          {"name": "invoice-items[0]", "kind": "iteration", "parent": "invoice-items", "status": "RUNNING",
           "attempt": 1},
          {"name": "invoice-one[0]", "kind": "workflow", "parent": "invoice-items[0]", "status": "RUNNING",
           "attempt": 1}
        ]}""", InstanceDocument.class));

    assertThat(v.parent()).isEqualTo(new InstanceLink("orders[2]", "g-1", "batches", "RUNNING"));
    StepView invoice = v.step("invoice").orElseThrow();
    assertThat(invoice.kind()).isEqualTo(StepKind.WORKFLOW);
    assertThat(invoice.child().id()).isEqualTo("c-1");
    assertThat(invoice.compensation().status()).as("the compensation of a child workflow step is its step's")
        .isEqualTo("RUNNING");
    assertThat(v.step("invoice-items").orElseThrow().child()).isNull();
    assertThat(v.childOf("invoice-one[0]").orElseThrow().id()).as("an iteration's child, by its row")
        .isEqualTo("c-2");
  }

  @Test
  void anInstanceWithoutLinksHasNoParentAndNoChildren() throws Exception {
    InstanceView v = InstanceViewAdapter.from(Json.MAPPER.readValue("""
        {"id": "i-5", "status": "RUNNING", "steps": [
          {"name": "reserve", "kind": "task", "status": "RUNNING", "attempt": 1}]}""", InstanceDocument.class));

    assertThat(v.parent()).isNull();
    assertThat(v.children()).isEmpty();
    assertThat(v.step("reserve").orElseThrow().child()).isNull();
  }

  @Test
  void aRunningInstanceShowsWhenItTimesOutAsAWholeAndAnEndedOneDoesNot() throws Exception {
    String running = """
        {"id": "i-3", "namespace": "default", "workflow": "orders", "status": "RUNNING", "currentStep": "ship",
         "attempt": 1, "createdAt": "2026-01-05T10:00:00Z", "instanceDeadline": "2026-01-05T12:00:00Z", "steps": []}""";
    StringBuilder facts = new StringBuilder();
    InstanceDetailView.facts(facts, InstanceViewAdapter.from(Json.MAPPER.readValue(running, InstanceDocument.class)),
        java.time.Instant.parse("2026-01-05T10:30:00Z"), TraceLink.NONE);
    assertThat(facts.toString()).contains("id=\"instance-deadline\"").contains("spec.timeout");

    StringBuilder ended = new StringBuilder();
    InstanceDetailView.facts(ended, InstanceViewAdapter.from(Json.MAPPER.readValue(running.replace("\"RUNNING\"",
        "\"SUCCEEDED\", \"finishedAt\": \"2026-01-05T10:05:00Z\""), InstanceDocument.class)),
        java.time.Instant.parse("2026-01-05T10:30:00Z"), TraceLink.NONE);
    assertThat(ended.toString()).doesNotContain("instance-deadline");
  }
}
