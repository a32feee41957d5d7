package dev.baton.operator.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import dev.baton.api.v1alpha1.WorkerService;
import java.util.Map;

/**
 * What the WorkerService reconciler decided and the dependents turn into a Secret and a Deployment; handed over
 * through JOSDK's per-reconciliation context, because JOSDK instantiates managed dependents itself.
 *
 * @param username the broker user
 * @param amqpHost host for the credentials URI
 * @param amqpPort port for the credentials URI
 * @param vhost vhost for the credentials URI
 * @param environment the BATON_* variables of the workers, credentials excluded
 * @param replicasFromSpec false while an autoscaler (KEDA) owns the Deployment's replica count
 * @param importedPassword the password of the Secret named by the annotation baton.dev/password-secret, null when the
 *     operator draws its own (never logged)
 * @param tls whether the credentials URI is {@code amqps://}
 * @param caPem the broker's CA certificate (PEM) for the workers to trust, or null (the image's trust store)
 */
public record WorkerPlan(String username, String amqpHost, int amqpPort, String vhost, Map<String, String> environment,
    boolean replicasFromSpec, String importedPassword, boolean tls, String caPem) {

  public WorkerPlan {
    environment = Map.copyOf(environment);
  }

  /** Never print the imported password. */
  @Override
  public String toString() {
    return "WorkerPlan[username=" + username + ", amqp=" + amqpHost + ":" + amqpPort + ", vhost=" + vhost
        + ", replicasFromSpec=" + replicasFromSpec + ", tls=" + tls + ", ca=" + (caPem == null ? "none" : "(set)")
        + ", importedPassword=" + (importedPassword == null ? "none" : "(set)")
        + "]";
  }

  public void handTo(Context<WorkerService> context) {
    context.managedWorkflowAndDependentResourceContext().put(WorkerPlan.class, this);
  }

  static WorkerPlan from(Context<WorkerService> context) {
    return context.managedWorkflowAndDependentResourceContext().getMandatory(WorkerPlan.class, WorkerPlan.class);
  }
}
