package dev.baton.operator.status;

import dev.baton.api.validation.ProblemKind;
import dev.baton.api.validation.Validated;

/**
 * Every condition reason the operator writes, in one place (as Strimzi keeps its reasons in one enum): users match on
 * them in {@code kubectl wait}, alerts and scripts, so they are part of the contract.
 */
public enum Reason {
  // --- positive -----------------------------------------------------------------------------------------------
  /** Everything the resource asks for is in place. */
  READY("Ready"),
  /** The planned exchanges, queues, bindings, user and permissions exist on the broker. */
  DECLARED("Declared"),
  /** The RetryPolicy is valid. */
  VALID("Valid"),
  /** The WorkerService has no deployment section: workers run elsewhere. */
  NOT_REQUESTED("NotRequested"),
  /** The Deployment has all its replicas available. */
  AVAILABLE("Available"),

  // --- the spec -----------------------------------------------------------------------------------------------
  /** A rule the schema cannot express (or that a schema-less API server let through) is broken. */
  INVALID_SPEC("InvalidSpec"),
  /** A command names a RetryPolicy that does not exist in the namespace. */
  MISSING_RETRY_POLICY("MissingRetryPolicy"),
  /** A command names a RetryPolicy that exists but is itself invalid. */
  INVALID_RETRY_POLICY("InvalidRetryPolicy"),
  /** A Workflow step names a service that no WorkerService provides. */
  MISSING_SERVICE("MissingService"),
  /** A Workflow step names a command (or compensate command) its service does not accept. */
  MISSING_COMMAND("MissingCommand"),
  /** A child workflow step names a Workflow that does not exist in the namespace. */
  MISSING_WORKFLOW("MissingWorkflow"),
  /**
   * Another, older resource already holds the vhost-wide name (service name, orchestrator queue), or a Secret or
   * Deployment with the name the operator would use belongs to someone else (it is never adopted or overwritten).
   */
  CONFLICT("Conflict"),
  /**
   * Tenancy does not let this namespace do it (docs/design.md#tenancy): claim the service name (the claim rules), or
   * command or subscribe to a service another namespace provides without that provider's grant in spec.access (or
   * that nobody provides yet). Nothing is declared for what is refused, and what a withdrawn grant allowed is removed.
   */
  FORBIDDEN("Forbidden"),

  // --- the broker ---------------------------------------------------------------------------------------------
  /** The management API cannot be reached or answered with a server error; retried with backoff. */
  BROKER_UNAVAILABLE("BrokerUnavailable"),
  /** The management API refused a request (credentials, permissions, a malformed object). */
  BROKER_REJECTED("BrokerRejected"),
  /** An existing queue or exchange has arguments the spec no longer asks for; RabbitMQ cannot change them in place. */
  IMMUTABLE_QUEUE_ARGUMENTS("ImmutableQueueArguments"),

  // --- Kubernetes ---------------------------------------------------------------------------------------------
  /** The Deployment is not created yet, because the topology is not in place. */
  DEPLOYMENT_PENDING("Pending"),
  /** The Deployment exists but not all replicas are available yet. */
  REPLICAS_UNAVAILABLE("ReplicasUnavailable"),
  /** Something unexpected failed while reconciling; retried with backoff. */
  RECONCILE_ERROR("ReconcileError"),

  // --- the runtime (a Workflow being deleted) -------------------------------------------------------------------
  /**
   * The Workflow is being deleted and the runtime lists unfinished instances of it: its finalizer, orchestrator queue
   * and bindings stay until they have ended (docs/design.md#runtime-semantics).
   */
  WAITING_FOR_INSTANCES("WaitingForInstances"),
  /**
   * The Workflow is being deleted and the runtime cannot be read, so nobody can tell whether instances of it are
   * unfinished: everything stays, as for {@link #WAITING_FOR_INSTANCES}, until it answers.
   */
  RUNTIME_UNAVAILABLE("RuntimeUnavailable"),

  // --- autoscaling (AutoscalingReady; optional, so Ready does not depend on it) ---------------------------------
  /** The KEDA ScaledObject, its TriggerAuthentication and read-only broker user are in place. */
  SCALED_OBJECT_READY("ScaledObjectReady"),
  /** spec.autoscaling is set, but the cluster has no KEDA (no keda.sh/v1alpha1 ScaledObject API). */
  KEDA_NOT_INSTALLED("KedaNotInstalled"),
  /** KEDA is installed, but the operator's RBAC does not let it write keda.sh objects. */
  KEDA_FORBIDDEN("KedaForbidden"),
  /** spec.autoscaling is set without spec.deployment: there is no Deployment to scale. */
  NO_DEPLOYMENT("NoDeployment"),
  /** KEDA reports its ScaledObject as not ready (its message is quoted). */
  SCALER_NOT_READY("ScalerNotReady");

  private final String value;

  Reason(String value) {
    this.value = value;
  }

  /**
   * Whether a Ready=False with this reason is a failure worth a Warning Event; a Deployment still rolling out is
   * progress, which Kubernetes reports on the Deployment and its pods itself.
   */
  public boolean isFailure() {
    return this != DEPLOYMENT_PENDING && this != REPLICAS_UNAVAILABLE && this != WAITING_FOR_INSTANCES;
  }

  /**
   * Whether only a person can clear a Ready=False with this reason (kstatus's Stalled): the spec itself, a name another
   * resource holds, a grant refused, a queue argument the broker cannot change. A missing reference is not: what it
   * names is often applied in the same sync and may come a moment later.
   */
  public boolean needsAPerson() {
    return this == INVALID_SPEC || this == CONFLICT || this == FORBIDDEN || this == IMMUTABLE_QUEUE_ARGUMENTS;
  }

  /** Whether a Ready=False with this reason is no failure but worth a Normal Event: a deletion that waits. */
  public boolean isNotice() {
    return this == WAITING_FOR_INSTANCES;
  }

  /** The condition reason of a kind of spec problem (the api module's validation knows no conditions). */
  public static Reason of(ProblemKind kind) {
    return switch (kind) {
      case INVALID_SPEC -> INVALID_SPEC;
      case MISSING_RETRY_POLICY -> MISSING_RETRY_POLICY;
      case INVALID_RETRY_POLICY -> INVALID_RETRY_POLICY;
      case MISSING_SERVICE -> MISSING_SERVICE;
      case MISSING_COMMAND -> MISSING_COMMAND;
      case MISSING_WORKFLOW -> MISSING_WORKFLOW;
    };
  }

  /** The reason of a translation: {@link #VALID} when it has no problems, else that of the most important one. */
  public static Reason of(Validated<?> result) {
    return result.kind().map(Reason::of).orElse(VALID);
  }

  /** The reason as written into the condition. */
  public String value() {
    return value;
  }

  @Override
  public String toString() {
    return value;
  }
}
