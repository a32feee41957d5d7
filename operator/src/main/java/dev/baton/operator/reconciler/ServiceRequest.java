package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.operator.model.NameClaims;
import dev.baton.operator.model.SubscriptionGrants;
import java.util.List;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * A WorkerService whose spec may be applied ({@link ServiceAdmission}): everything the rest of the pass acts on,
 * decided before anything is written.
 *
 * @param resource the WorkerService as this pass read it: its status is still the one the last pass wrote
 * @param model the translated spec, every subscription included: the workers' environment names them all, so that a
 *     grant coming or going does not roll the pods
 * @param grants which events its namespace may receive (docs/design.md#tenancy)
 * @param subscriptions which of its subscriptions are granted
 * @param claims who holds which service name of the vhost; a name given up by a rename is retired only if it is free
 * @param importedPassword the password of the Secret the WorkerService imports, null when the operator draws its own
 *     (never logged)
 * @param topology the exchanges, queues, bindings and worker permissions planned from the spec's commands and granted
 *     subscriptions
 * @param username the workers' broker user
 */
record ServiceRequest(WorkerService resource, ServiceModel model, SubscriptionGrants grants,
    SubscriptionGrants.Verdict subscriptions, NameClaims<WorkerService> claims, String importedPassword,
    ServiceTopology topology, String username) {

  /** What a broker pass acts on besides the generation: the plan, and the subscriptions whose queues it removes. */
  record BrokerPlan(ServiceTopology topology, List<String> withdrawn) {}

  String service() {
    return model.service();
  }

  ResourceID id() {
    return ResourceID.fromResource(resource);
  }

  BrokerPlan brokerPlan() {
    return new BrokerPlan(topology, subscriptions.withdrawn());
  }

  Long generation() {
    return resource.getMetadata().getGeneration();
  }

  /** Never print the imported password. */
  @Override
  public String toString() {
    return "ServiceRequest[" + id() + ", service=" + service() + ", username=" + username + ", importedPassword="
        + (importedPassword == null ? "none" : "(set)") + "]";
  }
}
