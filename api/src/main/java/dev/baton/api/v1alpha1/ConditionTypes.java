package dev.baton.api.v1alpha1;

/** Condition types Baton writes. */
public final class ConditionTypes {
  /** Sums up the others: True only when everything the resource asks for is in place. */
  public static final String READY = "Ready";
  /** A WorkerService's or Workflow's exchanges, queues, bindings, user and permissions are declared as planned. */
  public static final String TOPOLOGY_READY = "TopologyReady";
  /** A WorkerService's Deployment has its replicas available (True with reason NotRequested without a deployment). */
  public static final String DEPLOYMENT_READY = "DeploymentReady";
  /** Autoscaling is in place (KEDA ScaledObject), when requested. */
  public static final String AUTOSCALING_READY = "AutoscalingReady";
  /**
   * kstatus's: present (True) while the resource is not Ready and the operator is still at it (a reference that may
   * appear, a broker that may come back, a rollout): GitOps tools wait.
   */
  public static final String RECONCILING = "Reconciling";
  /**
   * kstatus's: present (True, with Ready's reason) when only a person can make the resource Ready (an invalid spec, a
   * conflict over a name, a refusal, a queue argument that cannot change): Flux and Argo CD stop waiting and say why.
   */
  public static final String STALLED = "Stalled";

  private ConditionTypes() {}
}
