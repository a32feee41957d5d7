package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.autoscaling.AutoscalerPlan;
import dev.baton.operator.autoscaling.KedaAutoscaling;
import dev.baton.operator.broker.PasswordHash;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.CredentialsSecretDependent;
import dev.baton.operator.dependent.WorkerPlan;
import dev.baton.operator.model.WorkerServiceTranslator;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;

/**
 * The Kubernetes objects a WorkerService's workers need: the credentials Secret, the Deployment and its PodDisruptionBudget when asked for, and
 * KEDA's objects when autoscaling is asked for. They are the JOSDK dependents declared on
 * {@link WorkerServiceReconciler}, invoked explicitly so that only an admitted spec whose topology is on the broker
 * gets them. JOSDK instantiates dependents itself, so what they act on is handed over through the context first.
 */
final class WorkerDependents {

  /**
   * What the dependents left for the rest of the pass.
   *
   * @param autoscaler what the KEDA dependents acted on
   * @param kedaRefused whether the API server refused KEDA's objects (HTTP 403: {@link KedaAutoscaling#refusedByRbac})
   * @param credentials the credentials Secret, whose password the workers' broker user must have
   * @param passwordDigest the digest of that password, which a reused pass must have been checked against
   */
  record Applied(AutoscalerPlan autoscaler, boolean kedaRefused, Secret credentials, String passwordDigest) {

    String password() {
      return Credentials.password(credentials).orElseThrow();
    }
  }

  private final OperatorSettings settings;
  /** The broker's CA certificate (PEM) that workers get in their Secrets, or null. */
  private final String brokerCa;
  private final KedaAutoscaling autoscaling;

  WorkerDependents(OperatorSettings settings, String brokerCa, KedaAutoscaling autoscaling) {
    this.settings = settings;
    this.brokerCa = brokerCa;
    this.autoscaling = autoscaling;
  }

  Applied apply(ServiceRequest request, Context<WorkerService> context) {
    WorkerService ws = request.resource();
    new WorkerPlan(request.username(), settings.amqpHost(), settings.amqpPort(), settings.vhost(),
        new WorkerEnvironment(request.model(), WorkerServiceTranslator.prefetch(ws)).variables(),
        !autoscaling.ownsReplicas(ws, context), request.importedPassword(), settings.amqpTls(),
        brokerCa).handTo(context);
    AutoscalerPlan autoscaler = autoscaling.plan(ws, request.topology(), context);
    boolean kedaRefused = KedaAutoscaling.refusedByRbac(
        context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow());
    Secret credentials = CredentialsSecretDependent.current(ws, context).orElseThrow(
        () -> new IllegalStateException("the credentials Secret is not in the cache after reconciling it"));
    return new Applied(autoscaler, kedaRefused, credentials,
        PasswordHash.digest(Credentials.password(credentials).orElseThrow()));
  }

  /**
   * Deletes them (Deployment, PodDisruptionBudget, Secrets, KEDA objects) on the WorkerService's deletion, explicitly: the dev API server
   * has no garbage collector to follow their owner references.
   */
  void delete(WorkerService ws, Context<WorkerService> context) {
    autoscaling.planCleanup(ws, context);
    context.managedWorkflowAndDependentResourceContext().cleanupManageWorkflow()
        .throwAggregateExceptionIfErrorsPresent();
  }
}
