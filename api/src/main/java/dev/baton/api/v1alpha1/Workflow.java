package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.SchemaSwap;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * An ordered list of steps the orchestrator runs over worker services (docs/design.md#architecture). Instances of a Workflow live in
 * the runtime's database, never as resources; the counts in the status are read from the runtime.
 */
@JsonClassDescription("A multi-step business process the orchestrator runs over worker services: an ordered list of steps, "
    + "each a command to a service with an optional compensation. Instances (one per business key) live in the runtime's "
    + "database, never as resources; status counts them.")
@Group(BatonGroup.NAME)
@Version(BatonGroup.VERSION)
@ShortNames("bwf")
@Categories("baton") // kubectl get baton: every kind of Baton; short names no other project on the cluster uses
@AdditionalPrinterColumn(name = "Entity", jsonPath = ".spec.entity", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Steps", jsonPath = ".status.steps", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Paused", jsonPath = ".spec.paused", type = AdditionalPrinterColumn.Type.BOOLEAN)
@AdditionalPrinterColumn(name = "Running", jsonPath = ".status.running", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Succeeded", jsonPath = ".status.succeeded", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Failed", jsonPath = ".status.failed", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Compensated", jsonPath = ".status.compensated", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Last Fire", jsonPath = ".status.lastFire", type = AdditionalPrinterColumn.Type.DATE, priority = 1)
@AdditionalPrinterColumn(name = "Next Fire", jsonPath = ".status.nextFire", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
@SchemaSwap(originalType = StepSpec.class, fieldName = "parallel")
@SchemaSwap(originalType = StepSpec.class, fieldName = "choice")
@SchemaSwap(originalType = StepSpec.class, fieldName = "otherwise")
@SchemaSwap(originalType = StepSpec.class, fieldName = "map")
public class Workflow extends CustomResource<WorkflowSpec, WorkflowStatus> implements Namespaced {}
