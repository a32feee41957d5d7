package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import dev.baton.api.crd.MetadataName;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A service module that "both listens and speaks" (docs/design.md#architecture): the commands it accepts, the events it publishes, its
 * broker user and, optionally, the Deployment of its workers.
 */
@JsonClassDescription("A service module that both listens and speaks: the commands it accepts (one queue each, with retry "
    + "tiers and a dead-letter queue), its subscriptions to other services' events, its own broker user and credentials "
    + "Secret and, optionally, the Deployment of its workers. The operator keeps RabbitMQ and the Deployment as declared "
    + "here and reports in status.")
// The name labels the Secret, the Deployment and the pods (label values: at most 63 characters).
@MetadataName(maxLength = Bounds.NAME)
// A dotted name without spec.service is the operator's InvalidSpec, not a CEL rule: before Kubernetes 1.3x the API
// server costs self.metadata.name as an unbounded string (3 MiB), whatever the schema says.
@Group(BatonGroup.NAME)
@Version(BatonGroup.VERSION)
@ShortNames("bws")
@Categories("baton") // kubectl get baton: every kind of Baton; short names no other project on the cluster uses
@AdditionalPrinterColumn(name = "Service", jsonPath = ".status.service", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Commands", jsonPath = ".status.commandCount", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Paused", jsonPath = ".spec.paused", type = AdditionalPrinterColumn.Type.BOOLEAN)
@AdditionalPrinterColumn(name = "Messages", jsonPath = ".status.messages", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "DeadLetters", jsonPath = ".status.deadLetters", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class WorkerService extends CustomResource<WorkerServiceSpec, WorkerServiceStatus> implements Namespaced {

  /** The service name used in broker names: {@code spec.service}, or the resource's name. */
  public String serviceName() {
    String s = getSpec() == null ? null : getSpec().getService();
    return s == null || s.isBlank() ? getMetadata().getName() : s;
  }
}
