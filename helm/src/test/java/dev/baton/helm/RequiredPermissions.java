package dev.baton.helm;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * What the operator and the runtime need from the Kubernetes API, as a table derived from their code (operator/src,
 * orchestrator-runtime/src) and from what JOSDK 5.2.3 and fabric8 7.5.2 do on their behalf. The chart must grant
 * exactly this ({@link RbacTest}); a real operator and runtime must ask for nothing the chart does not grant
 * ({@link RecordedRequestsIT}), and every row marked {@link Evidence#RECORDED} must actually be asked for in that
 * run, so that a grant nothing uses any more fails too instead of lingering in the chart.
 */
final class RequiredPermissions {

  /** Where a row is granted. */
  enum Scope {
    /** The namespaces Baton watches: the ClusterRole, or the Role in each of watchNamespaces. */
    WATCHED,
    /** The release namespace: the Lease of leader election (operator.leaderElection.enabled). */
    LEADER_ELECTION,
    /**
     * The release namespace: the runtime's broker credentials Secret the operator keeps. A Role of its own only with
     * watchNamespaces; cluster-wide, the WATCHED rows already cover it.
     */
    RUNTIME_CREDENTIALS,
    /**
     * The release namespace, in token mode without runtime.apiToken.existingSecret: the runtime's API token Secret
     * the operator makes at its start. A Role of its own only with watchNamespaces, as {@link #RUNTIME_CREDENTIALS}.
     */
    API_TOKENS,
    /**
     * Every namespace, with runtime.auth.mode=kubernetes only, even with watchNamespaces (auth-rbac.yaml): the
     * reviews are cluster-scoped, and the runtime looks for WorkerServices in every namespace.
     */
    AUTH
  }

  /** When a WATCHED row applies, by the chart values it depends on. */
  enum When {
    ALWAYS,
    /** operator.serverSideApply=true (the default, real clusters). */
    SERVER_SIDE_APPLY,
    /** operator.serverSideApply=false (API servers without it, such as the dev API of `baton dev`). */
    NO_SERVER_SIDE_APPLY,
    /** autoscaling.keda.enabled=true. */
    KEDA
  }

  /** Why a row is believed. */
  enum Evidence {
    /** Asked for by the real component in {@link RecordedRequestsIT}, in every mode the row applies to. */
    RECORDED,
    /** In the code, on a path the recording does not reliably reach (the re-read after a 409). */
    CODE_PATH,
    /** get next to list: it reveals nothing list does not, and keeps tools and people sane. */
    GET_WITH_LIST,
    /** Checked by JOSDK before leader election starts (SelfSubjectRulesReview), though never used afterwards. */
    JOSDK_CHECK
  }

  record Row(Scope scope, String group, List<String> resources, List<String> verbs, String resourceName, When when,
      Evidence evidence, String why) {

    Set<Permission> permissions() {
      Set<Permission> out = new TreeSet<>();
      for (String resource : resources) {
        for (String verb : verbs) {
          out.add(new Permission(group, resource, verb, resourceName));
        }
      }
      return out;
    }
  }

  static final String BATON = "baton.dev";
  /** Names in the chart rendered as release "baton". */
  static final String LEASE = "baton-operator";
  static final String RUNTIME_SECRET = "baton-runtime-rabbitmq";
  static final String API_SECRET = "baton-runtime-api";

  /** The operator. Class names are of operator/src unless qualified; "JOSDK" is java-operator-sdk 5.2.3. */
  static final List<Row> OPERATOR = List.of(
      watched(List.of("workflows", "workerservices", "retrypolicies"), List.of("list", "watch"), When.ALWAYS,
          Evidence.RECORDED, "informers: each reconciler's primary resource, WorkerServiceReconciler's RetryPolicy "
              + "source, WorkflowReconciler's WorkerService source, ClaimPeers"),
      watched(List.of("workflows", "workerservices"), List.of("patch"), When.ALWAYS, Evidence.RECORDED,
          "WorkflowReconciler and WorkerServiceReconciler implement Cleaner: JOSDK adds and removes their finalizer "
              + "with a patch (server-side apply, or a JSON patch without it)"),
      watched(List.of("workflows", "workerservices"), List.of("get"), When.ALWAYS, Evidence.CODE_PATH,
          "JOSDK ReconciliationDispatcher.conflictRetryingPatch re-reads the resource after a 409/422 on that patch"),
      watched(List.of("retrypolicies"), List.of("get"), When.ALWAYS, Evidence.GET_WITH_LIST,
          "RetryPolicyReconciler has no Cleaner: no finalizer, no write to the resource itself"),
      watched(List.of("workflows/status", "workerservices/status", "retrypolicies/status"), List.of("patch"),
          When.ALWAYS, Evidence.RECORDED, "StatusPatch returns UpdateControl.patchStatus: JOSDK patches /status "
              + "(server-side apply, or a JSON patch without it); it never updates (PUT) it"),
      new Row(Scope.WATCHED, "", List.of("secrets"), List.of("get", "list", "watch", "create", "update", "delete"), "",
          When.ALWAYS, Evidence.RECORDED, "CredentialsSecretDependent: informer (label selector "
              + "app.kubernetes.io/managed-by=baton-operator; RBAC cannot narrow list by label), create and update "
              + "(JOSDK never uses server-side apply for Secrets: ConfigurationService.defaultNonSSAResources), delete "
              + "on cleanup; AutoscalerSecretDependent likewise (an informer of its own, by another label); "
              + "RuntimeBrokerUser gets, creates, updates and deletes its own"),
      new Row(Scope.WATCHED, "apps", List.of("deployments"), List.of("list", "watch", "delete"), "", When.ALWAYS,
          Evidence.RECORDED, "WorkerDeploymentDependent: informer; delete when spec.deployment goes and on cleanup"),
      new Row(Scope.WATCHED, "apps", List.of("deployments"), List.of("create", "update"), "",
          When.NO_SERVER_SIDE_APPLY, Evidence.RECORDED, "WorkerDeploymentDependent without server-side apply: POST, "
              + "then PUT"),
      new Row(Scope.WATCHED, "apps", List.of("deployments"), List.of("create", "patch"), "", When.SERVER_SIDE_APPLY,
          Evidence.RECORDED, "WorkerDeploymentDependent with server-side apply: an apply PATCH for create and update; "
              + "the API server authorises an apply that creates the object as create as well"),
      new Row(Scope.WATCHED, "apps", List.of("deployments"), List.of("get"), "", When.ALWAYS, Evidence.GET_WITH_LIST,
          "-"),
      new Row(Scope.WATCHED, "policy", List.of("poddisruptionbudgets"), List.of("list", "watch", "delete"), "",
          When.ALWAYS, Evidence.RECORDED, "WorkerDisruptionBudgetDependent: informer; delete when "
              + "spec.deployment.podDisruptionBudget goes and on cleanup"),
      new Row(Scope.WATCHED, "policy", List.of("poddisruptionbudgets"), List.of("create", "update"), "",
          When.NO_SERVER_SIDE_APPLY, Evidence.RECORDED, "WorkerDisruptionBudgetDependent without server-side apply: "
              + "POST, then PUT"),
      new Row(Scope.WATCHED, "policy", List.of("poddisruptionbudgets"), List.of("create", "patch"), "",
          When.SERVER_SIDE_APPLY, Evidence.RECORDED, "WorkerDisruptionBudgetDependent with server-side apply: an "
              + "apply PATCH for create and update"),
      new Row(Scope.WATCHED, "policy", List.of("poddisruptionbudgets"), List.of("get"), "", When.ALWAYS,
          Evidence.CODE_PATH, "dependent.ForeignObjects: a budget its informer does not hold is looked up by name "
              + "(someone else's is a Conflict)"),
      new Row(Scope.WATCHED, "", List.of("events"), List.of("create"), "", When.ALWAYS, Evidence.RECORDED,
          "monitoring.KubeEvents: core/v1 Warning Events when Ready turns False and on dead letters; create only"),
      new Row(Scope.WATCHED, "keda.sh", List.of("scaledobjects", "triggerauthentications"),
          List.of("list", "watch", "create", "update", "delete"), "", When.KEDA, Evidence.RECORDED,
          "autoscaling.ScaledObjectDependent, TriggerAuthenticationDependent: informers (registered only where KEDA's "
              + "API is served, found by API discovery, which needs no grant), create and update (never server-side "
              + "apply), delete when autoscaling goes and on cleanup"),
      new Row(Scope.WATCHED, "keda.sh", List.of("scaledobjects"), List.of("get"), "", When.KEDA, Evidence.RECORDED,
          "autoscaling.KedaAutoscaling: a ScaledObject its informer does not hold is looked up by name (someone "
              + "else's is a Conflict)"),
      new Row(Scope.WATCHED, "keda.sh", List.of("triggerauthentications"), List.of("get"), "", When.KEDA,
          Evidence.GET_WITH_LIST, "-"),
      new Row(Scope.LEADER_ELECTION, "coordination.k8s.io", List.of("leases"), List.of("create"), "", When.ALWAYS,
          Evidence.RECORDED, "fabric8 LeaseLock creates the Lease (create cannot be limited by name)"),
      new Row(Scope.LEADER_ELECTION, "coordination.k8s.io", List.of("leases"), List.of("get", "patch"), LEASE,
          When.ALWAYS, Evidence.RECORDED, "fabric8 LeaseLock reads and renews it"),
      new Row(Scope.LEADER_ELECTION, "coordination.k8s.io", List.of("leases"), List.of("update"), LEASE, When.ALWAYS,
          Evidence.JOSDK_CHECK, "JOSDK LeaderElectionManager.checkLeaseAccess requires create, update and get"),
      new Row(Scope.RUNTIME_CREDENTIALS, "", List.of("secrets"), List.of("create"), "", When.ALWAYS, Evidence.RECORDED,
          "runtime.RuntimeBrokerUser creates the runtime's Secret (create cannot be limited by name)"),
      new Row(Scope.RUNTIME_CREDENTIALS, "", List.of("secrets"), List.of("get", "update"), RUNTIME_SECRET, When.ALWAYS,
          Evidence.RECORDED, "runtime.RuntimeBrokerUser reads it, and puts its keys back when they change"),
      new Row(Scope.API_TOKENS, "", List.of("secrets"), List.of("create"), "", When.ALWAYS, Evidence.RECORDED,
          "runtime.RuntimeApiTokens creates the Secret of the runtime's API tokens when it is missing"),
      new Row(Scope.API_TOKENS, "", List.of("secrets"), List.of("get"), API_SECRET, When.ALWAYS, Evidence.RECORDED,
          "runtime.RuntimeApiTokens reads it at every start"),
      new Row(Scope.API_TOKENS, "", List.of("secrets"), List.of("update"), API_SECRET, When.ALWAYS,
          Evidence.CODE_PATH, "runtime.RuntimeApiTokens adds a key that is missing (a read-only token set since)"));

  /**
   * The runtime: it reads Workflow definitions (definitions/WorkflowWatcher) and WorkerServices (ServiceWatcher), and, with Kubernetes auth, checks its
   * callers (http.auth). Kubernetes' system:auth-delegator grants the two reviews ({@link Rbac#BUILT_IN}).
   */
  static final List<Row> RUNTIME = List.of(
      watched(List.of("workflows"), List.of("list", "watch"), When.ALWAYS, Evidence.RECORDED,
          "WorkflowWatcher: an informer per watched namespace, or one over all namespaces"),
      watched(List.of("workflows"), List.of("get"), When.ALWAYS, Evidence.RECORDED,
          "WorkflowWatcher.find: a Workflow created a moment ago, not yet in the informer's cache"),
      watched(List.of("workerservices"), List.of("list", "watch"), When.ALWAYS, Evidence.RECORDED,
          "ServiceWatcher: the WorkerServices' spec.paused, an informer per watched namespace or over all"),
      watched(List.of("workerservices"), List.of("get"), When.ALWAYS, Evidence.GET_WITH_LIST,
          "get next to list"),
      new Row(Scope.AUTH, "authentication.k8s.io", List.of("tokenreviews"), List.of("create"), "", When.ALWAYS,
          Evidence.RECORDED, "TokenReviewAuthenticator: who a caller's token belongs to"),
      new Row(Scope.AUTH, "authorization.k8s.io", List.of("subjectaccessreviews"), List.of("create"), "", When.ALWAYS,
          Evidence.RECORDED, "SubjectAccessReviewAuthorizer: whether that caller may do what it asks"),
      new Row(Scope.AUTH, BATON, List.of("workerservices"), List.of("list"), "", When.ALWAYS, Evidence.RECORDED,
          "RuntimeTargets.serviceOwner: the WorkerService that holds a service's name, in any namespace, whose "
              + "namespace RBAC is asked about for the service's dead letters"));

  private RequiredPermissions() {}

  /** What the operator needs in one scope, for the values in use. */
  static Set<Permission> operator(Scope scope, boolean serverSideApply, boolean keda) {
    return collect(OPERATOR, inScope(scope).and(applies(serverSideApply, keda)));
  }

  /** The same, only the rows with that evidence. */
  static Set<Permission> operator(Scope scope, boolean serverSideApply, boolean keda, Evidence evidence) {
    return collect(OPERATOR, inScope(scope).and(applies(serverSideApply, keda)).and(r -> r.evidence() == evidence));
  }

  /** What the runtime needs in one scope. */
  static Set<Permission> runtime(Scope scope) {
    return collect(RUNTIME, inScope(scope));
  }

  /** The same, only the rows with that evidence. */
  static Set<Permission> runtime(Scope scope, Evidence evidence) {
    return collect(RUNTIME, inScope(scope).and(r -> r.evidence() == evidence));
  }

  private static Row watched(List<String> resources, List<String> verbs, When when, Evidence evidence, String why) {
    return new Row(Scope.WATCHED, BATON, resources, verbs, "", when, evidence, why);
  }

  private static Predicate<Row> inScope(Scope scope) {
    return row -> row.scope() == scope;
  }

  private static Predicate<Row> applies(boolean serverSideApply, boolean keda) {
    return row -> switch (row.when()) {
      case ALWAYS -> true;
      case SERVER_SIDE_APPLY -> serverSideApply;
      case NO_SERVER_SIDE_APPLY -> !serverSideApply;
      case KEDA -> keda;
    };
  }

  private static Set<Permission> collect(List<Row> rows, Predicate<Row> filter) {
    return rows.stream().filter(filter).flatMap(r -> r.permissions().stream())
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
