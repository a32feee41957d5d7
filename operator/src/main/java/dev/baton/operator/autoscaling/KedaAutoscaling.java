package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.AutoscalingSettings;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.Names;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.DeploymentRequested;
import dev.baton.operator.dependent.ForeignObjects;
import dev.baton.operator.dependent.WorkerResources;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.status.Reason;
import dev.baton.operator.topology.WorkerUserSync;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.WorkflowReconcileResult;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Autoscaling of a WorkerService's Deployment on queue depth, carried out by KEDA (no home-made autoscaler). The
 * ScaledObject, its TriggerAuthentication and the autoscaler's Secret are JOSDK dependents of the WorkerService
 * ({@link ScaledObjectDependent}, {@link TriggerAuthenticationDependent}, {@link AutoscalerSecretDependent}),
 * activated only where the cluster serves KEDA's API ({@link KedaServed}) and reconciled only while they are wanted
 * ({@link AutoscalingWanted}). This class decides what they act on before the workflow runs ({@link #plan}) and reads
 * the outcome after it ({@link #verdict}): the AutoscalingReady condition, which the reconciler writes with the rest
 * of the status. Autoscaling is optional, so Ready does not depend on it.
 */
public final class KedaAutoscaling {

  /** The autoscaler's user may not configure, write or read (consume) anything: it only sees statistics. */
  static final PermissionSpec READ_NOTHING = new PermissionSpec(Names.NOTHING_REGEX, Names.NOTHING_REGEX,
      Names.NOTHING_REGEX);
  /** The least tag that grants the management API's queue statistics, for the vhosts the user has access to. */
  static final List<String> TAGS = List.of("management");

  private final KedaDetector detector;
  private final WorkerUserSync users;
  private final OperatorSettings settings;
  /**
   * Set when the API server refused the keda.sh objects (403): KEDA is installed but the operator's RBAC does not
   * cover it (the Helm chart grants it only with autoscaling.keda.enabled). The Deployment then keeps its spec
   * replicas, as without KEDA. Cleared by the next pass whose KEDA objects are written.
   */
  private volatile boolean forbidden;

  public KedaAutoscaling(KedaDetector detector, WorkerUserSync users, OperatorSettings settings) {
    this.detector = detector;
    this.users = users;
    this.settings = settings;
  }

  /** Whether KEDA, not the spec, sets the replica count of the WorkerService's Deployment. */
  public boolean ownsReplicas(WorkerService ws, Context<WorkerService> context) {
    return asksForAutoscaling(ws) && DeploymentRequested.isRequested(ws) && detector.installed(context.getClient())
        && !forbidden;
  }

  /**
   * What the KEDA dependents act on in this pass, handed to them through the context. An autoscaler Secret,
   * TriggerAuthentication or ScaledObject of the name Baton would give it that is not this WorkerService's belongs to
   * someone else: it is never adopted or overwritten, so nothing is wanted while it is there. The informer holds only the operator's objects; one missing from it is looked up by
   * name (one request, on creation or while in conflict).
   */
  public AutoscalerPlan plan(WorkerService ws, ServiceTopology topology, Context<WorkerService> context) {
    boolean served = served(ws, context);
    boolean asked = served && asksForAutoscaling(ws) && DeploymentRequested.isRequested(ws);
    String conflict = asked ? someoneElsesObject(ws, context).orElse(null) : null;
    AutoscalerPlan plan = new AutoscalerPlan(served, asked && conflict == null, conflict,
        Names.autoscalerUser(settings.userPrefix(), topology.service()), settings.managementUrl(), settings.vhost(),
        topology);
    plan.handTo(context);
    return plan;
  }

  /** The plan of a WorkerService's deletion: JOSDK deletes the KEDA objects wherever KEDA is served. */
  public void planCleanup(WorkerService ws, Context<WorkerService> context) {
    new AutoscalerPlan(served(ws, context), false, null, null, settings.managementUrl(),
        settings.vhost(), null).handTo(context);
  }

  /**
   * The AutoscalingReady verdict after the workflow ran, with the autoscaler's broker user put in place (it follows
   * the Secret's password) or removed when autoscaling went.
   *
   * @param refused whether the API server refused keda.sh requests in this pass ({@link #refusedByRbac})
   * @param actions what was changed, for the log
   * @return the verdict, or null when autoscaling is not asked for
   */
  public ConditionState verdict(WorkerService ws, AutoscalerPlan plan, boolean refused,
      Context<WorkerService> context, List<String> actions) {
    AutoscalingSettings a = asksForAutoscaling(ws) ? ws.getSpec().getAutoscaling() : null;
    if (a == null || !DeploymentRequested.isRequested(ws)) {
      if (mayHaveObjects(ws)) {
        users.remove(plan.username());
      }
      return a == null ? null : ConditionState.failed(Reason.NO_DEPLOYMENT, "spec.autoscaling needs spec.deployment: "
          + "without a Deployment there is nothing to scale (scale workers that run elsewhere with their own tools)");
    }
    if (!plan.kedaServed()) {
      return ConditionState.failed(Reason.KEDA_NOT_INSTALLED, "KEDA is not installed in this cluster ("
          + KedaDetector.GROUP_VERSION + " ScaledObject is not served): install KEDA 2.x, e.g. the kedacore/keda Helm "
          + "chart, to scale on queue depth; until then the Deployment keeps spec.deployment.replicas ("
          + ws.getSpec().getDeployment().getReplicas() + ")");
    }
    if (plan.conflict() != null) {
      return ConditionState.failed(Reason.CONFLICT, plan.conflict());
    }
    AutoscalerSecretDependent.current(ws, context).flatMap(Credentials::password)
        .ifPresent(password -> actions.addAll(users.ensure(plan.username(), password, TAGS, READ_NOTHING)));
    forbidden = refused;
    if (refused) {
      return ConditionState.failed(Reason.KEDA_FORBIDDEN, "KEDA is installed but the operator may not write keda.sh "
          + "ScaledObjects/TriggerAuthentications (HTTP 403): grant them (Helm: --set autoscaling.keda.enabled=true); "
          + "until then the Deployment keeps spec.deployment.replicas (" + ws.getSpec().getDeployment().getReplicas()
          + ")");
    }
    ScaledObject scaledObject = ScaledObjectDependent.current(ws, context).orElseThrow(() ->
        new IllegalStateException("the ScaledObject is not in the cache after reconciling it"));
    return kedaSays(scaledObject).orElse(ConditionState.ok(Reason.SCALED_OBJECT_READY, "ScaledObject "
        + scaledObject.getMetadata().getName() + " scales Deployment " + WorkerResources.deploymentName(ws) + " from "
        + a.getMinReplicas() + " to " + a.getMaxReplicas() + " replicas, aiming at " + a.getTargetQueueDepth()
        + " messages per replica in each of " + plan.topology().consumers().size() + " queue(s)"));
  }

  /**
   * Whether the API server refused keda.sh requests (HTTP 403) in this pass. Any other error of the workflow is
   * thrown, for JOSDK to retry, as it would be without this check.
   */
  public static boolean refusedByRbac(WorkflowReconcileResult result) {
    Map<DependentResource, Exception> errors = result.getErroredDependents();
    if (errors.isEmpty()) {
      return false;
    }
    if (errors.entrySet().stream().allMatch(e -> isKedaRefusal(e.getKey(), e.getValue()))) {
      return true;
    }
    result.throwAggregateExceptionIfErrorsPresent();
    return false;
  }

  /**
   * A 403 on a KEDA dependent's request, or on starting the informer of one (reported on the dependent that
   * activated it, its parent in the workflow).
   */
  static boolean isKedaRefusal(DependentResource<?, ?> dependent, Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException k && k.getCode() == 403
          && (dependent instanceof KedaDependent || dependent instanceof AutoscalerSecretDependent
              || String.valueOf(k.getMessage()).contains(KedaObjects.GROUP))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether KEDA's API is served, asked (at most once per resync) only for a WorkerService that asks or asked for
   * autoscaling: the others have no KEDA objects, and an operator without autoscaling sends no discovery request. The
   * answer is one for all, so the activation condition holds for every WorkerService alike.
   */
  private boolean served(WorkerService ws, Context<WorkerService> context) {
    return concerns(ws) ? detector.installed(context.getClient()) : detector.lastKnown();
  }

  private static boolean asksForAutoscaling(WorkerService ws) {
    return ws.getSpec() != null && ws.getSpec().getAutoscaling() != null;
  }

  /**
   * The first of the autoscaler's Secret, the TriggerAuthentication and the ScaledObject that has the name Baton would
   * give it but is not this WorkerService's. Each is looked up by name only when the informer does not hold it.
   */
  private static Optional<String> someoneElsesObject(WorkerService ws, Context<WorkerService> context) {
    KubernetesClient client = context.getClient();
    String ns = ws.getMetadata().getNamespace();
    return ForeignObjects.foreign(ws, "Secret", AutoscalerSecretDependent.current(ws, context),
            () -> client.secrets().inNamespace(ns).withName(WorkerResources.autoscalerSecretName(ws)).get())
        .or(() -> ForeignObjects.foreign(ws, TriggerAuthentication.KIND, TriggerAuthenticationDependent.current(ws,
            context), () -> client.genericKubernetesResources(KedaObjects.TRIGGER_AUTHENTICATIONS).inNamespace(ns)
            .withName(WorkerResources.triggerAuthenticationName(ws)).get()))
        .or(() -> ForeignObjects.foreign(ws, ScaledObject.KIND, ScaledObjectDependent.current(ws, context),
            () -> client.genericKubernetesResources(KedaObjects.SCALED_OBJECTS).inNamespace(ns)
            .withName(WorkerResources.scaledObjectName(ws)).get()));
  }

  /** Whether the last status said the KEDA objects were written (so there may be a broker user to remove). */
  private static boolean mayHaveObjects(WorkerService ws) {
    return ws.getStatus() != null && ws.getStatus().condition(ConditionTypes.AUTOSCALING_READY)
        .map(c -> Reason.SCALED_OBJECT_READY.value().equals(c.getReason())
            || Reason.SCALER_NOT_READY.value().equals(c.getReason()))
        .orElse(false);
  }

  /** Whether the WorkerService asks or asked for autoscaling, so that its deletion has a broker user to remove. */
  public static boolean concerns(WorkerService ws) {
    return asksForAutoscaling(ws)
        || ws.getStatus() != null && ws.getStatus().condition(ConditionTypes.AUTOSCALING_READY).isPresent();
  }

  /** Removes the autoscaler's broker user of a service name (its Kubernetes objects go with the workflow). */
  public void removeUser(String service) {
    users.remove(Names.autoscalerUser(settings.userPrefix(), service));
  }

  /** KEDA's own Ready condition on the ScaledObject, when it says False. */
  @SuppressWarnings("unchecked")
  private static Optional<ConditionState> kedaSays(GenericKubernetesResource scaledObject) {
    Object status = scaledObject.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> conditions)) {
      return Optional.empty();
    }
    return conditions.stream().filter(Map.class::isInstance).map(c -> (Map<String, Object>) c)
        .filter(c -> "Ready".equals(c.get("type")) && "False".equals(c.get("status")))
        .findFirst()
        .map(c -> ConditionState.failed(Reason.SCALER_NOT_READY, "KEDA reports ScaledObject "
            + scaledObject.getMetadata().getName() + " not ready: " + c.getOrDefault("reason", "") + " "
            + c.getOrDefault("message", "")));
  }
}
