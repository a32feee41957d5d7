package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.client.TolerantSerialization;
import dev.baton.api.v1alpha1.AutoscalingSettings;
import dev.baton.api.v1alpha1.BatonStatus;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.v1alpha1.DisruptionBudgetSettings;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.RetryPolicySpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.runtime.RuntimeApiTokens;
import dev.baton.helm.RequiredPermissions.Scope;
import dev.baton.runtime.definitions.ServiceWatcher;
import dev.baton.runtime.definitions.WorkflowWatcher;
import dev.baton.runtime.http.auth.AccessRequest;
import dev.baton.runtime.http.auth.Caller;
import dev.baton.runtime.http.auth.KubernetesReviews;
import dev.baton.runtime.http.auth.RuntimeTargets;
import dev.baton.runtime.http.auth.SubjectAccessReviewAuthorizer;
import dev.baton.runtime.http.auth.Targets;
import dev.baton.runtime.http.auth.TokenReviewAuthenticator;
import dev.baton.sandbox.LocalServices;
import dev.baton.sandbox.MockKubernetes;
import dev.baton.sandbox.Sandbox;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The real operator, the runtime's Workflow watcher and its checks of callers (Kubernetes auth) against the fabric8
 * mock API server in CRUD mode, every request they make noted as the API server's authorizer would see it and checked
 * against the RBAC of the chart rendered for the same settings ({@link Rbac}). The operator runs on the real broker,
 * with leader election, the runtime's broker credentials and KEDA on, through the order-saga example's whole life:
 * created, ready (and one bad RetryPolicy, for an Event), Secrets tampered with, a Deployment, its ScaledObject and its
 * PodDisruptionBudget changed, the budget dropped, everything deleted.
 *
 * <p>Three directions: every request is allowed by the chart; nothing asked for is missing from
 * {@link RequiredPermissions}; every row the table marks {@link RequiredPermissions.Evidence#RECORDED} was asked
 * for, so that a grant nothing uses any more fails here instead of lingering in the chart.
 */
class RecordedRequestsIT {

  /** How the operator and the chart are set up for one run. */
  enum Mode {
    CLUSTER_WIDE(true, List.of()),
    CLUSTER_WIDE_WITHOUT_SERVER_SIDE_APPLY(false, List.of()),
    WATCHED_NAMESPACE(true, List.of(RecordedRequestsIT.NAMESPACE));

    final boolean serverSideApply;
    final List<String> watchNamespaces;

    Mode(boolean serverSideApply, List<String> watchNamespaces) {
      this.serverSideApply = serverSideApply;
      this.watchNamespaces = watchNamespaces;
    }

    Rendered chart() {
      Map<String, Object> sets = new LinkedHashMap<>();
      sets.put("autoscaling.keda.enabled", true);
      sets.put("operator.serverSideApply", serverSideApply);
      sets.put("watchNamespaces", watchNamespaces);
      // Token mode without a Secret of the user's: the operator makes the runtime's API tokens (its requests for
      // that are recorded; the rest of its grants are those of kubernetes mode).
      sets.put("runtime.auth.mode", "token");
      return Chart.template(ValueSet.DEFAULTS, sets);
    }
  }

  static final String NAMESPACE = "shop";
  private static final String OPERATOR_AGENT = "baton-operator-under-test";
  private static final String RUNTIME_AGENT = "baton-runtime-under-test";
  private static final String OPERATOR_SA = Chart.RELEASE + "-operator";
  private static final Duration WITHIN = Duration.ofSeconds(30);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
      "RetryPolicy", RetryPolicy.class, "WorkerService", WorkerService.class, "Workflow", Workflow.class);
  private static final ResourceDefinitionContext SCALED_OBJECTS = keda("ScaledObject", "scaledobjects");
  private static final ResourceDefinitionContext TRIGGER_AUTHENTICATIONS =
      keda("TriggerAuthentication", "triggerauthentications");
  /** Requests every authenticated client may make (system:basic-user, system:discovery), granted by no chart. */
  private static final Predicate<Permission> DEFAULT_ALLOWED = p -> p.group().equals("authorization.k8s.io")
      && p.resource().startsWith("selfsubject") && p.verb().equals("create");
  private static final Predicate<String> DISCOVERY = path -> path.matches("GET /(api|apis)(/[^/?]+){0,2}(\\?.*)?")
      || path.startsWith("GET /version");

  private RequestRecorder recorder;
  private MockKubernetes apiServer;
  private KubernetesClient admin;

  @BeforeEach
  void startApiServer() {
    recorder = new RequestRecorder();
    apiServer = MockKubernetes.start(MockKubernetes.ALL_CRDS, null, recorder);
    admin = apiServer.client();
  }

  @AfterEach
  void stopApiServer() {
    apiServer.close();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void operatorAsksOnlyForWhatTheChartGrants(Mode mode) {
    Rendered chart = mode.chart();
    Rbac rbac = Rbac.of(chart, OPERATOR_SA, Chart.NAMESPACE);
    pretendKedaIsInstalled();
    answerRulesReviews(rbac);

    List<OwnerReference> ownerReferences = new ArrayList<>();
    // The broker users the operator makes live outside the vhost: the stack deletes any it leaves.
    try (Sandbox broker = Sandbox.builder("helm-rbac").brokerUsers("baton-h").start();
        KubernetesClient client = clientAs(OPERATOR_AGENT)) {
      OperatorSettings settings = OperatorSettings.localDefaults().toBuilder()
          .managementUrl(LocalServices.RABBITMQ_MANAGEMENT_URL)
          .admin(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD)
          .amqp(LocalServices.RABBITMQ_HOST, LocalServices.RABBITMQ_PORT)
          .vhost(broker.vhost().name()).userPrefix(broker.userPrefix()).resync(Duration.ofSeconds(3)).serverSideApply(mode.serverSideApply)
          .runtimeCredentialsSecret(Chart.NAMESPACE + "/" + RequiredPermissions.RUNTIME_SECRET)
          .runtimeApiTokens(new RuntimeApiTokens(Chart.NAMESPACE, RequiredPermissions.API_SECRET, "token", null))
          .leaderElection(true, Chart.NAMESPACE, RequiredPermissions.LEASE)
          .namespaces(Set.copyOf(mode.watchNamespaces))
          .build();
      try (BatonOperator operator = BatonOperator.start(client, settings)) {
        runTheSaga(ownerReferences);
      }
    }

    List<ApiRequest> requests = recorder.requests(OPERATOR_AGENT);
    Set<Permission> asked = recorder.permissions(OPERATOR_AGENT);
    assertThat(recorder.nonResourceRequests(OPERATOR_AGENT)).as("non-resource requests: discovery only")
        .allMatch(DISCOVERY);
    assertThat(requests).as("requests the chart's RBAC (%s) refuses", mode)
        .filteredOn(r -> !DEFAULT_ALLOWED.test(r.permission()) && !rbac.allows(r)).isEmpty();
    assertThat(asked).as("the operator's requests, all in the table")
        .filteredOn(DEFAULT_ALLOWED.negate())
        .isSubsetOf(Permission.anyName(allScopes(mode)));
    for (RequiredPermissions.Scope scope : RequiredPermissions.Scope.values()) {
      assertThat(asked).as("rows of scope %s marked RECORDED, all asked for (%s)", scope, mode)
          .containsAll(Permission.anyName(RequiredPermissions.operator(scope, mode.serverSideApply, true,
              RequiredPermissions.Evidence.RECORDED)));
    }
    // Hence no finalizers subresource in the chart: OwnerReferencesPermissionEnforcement asks for update on
    // <owner>/finalizers only from those who set blockOwnerDeletion.
    assertThat(ownerReferences).isNotEmpty().allSatisfy(ref -> {
      assertThat(ref.getBlockOwnerDeletion()).isNotEqualTo(Boolean.TRUE);
      assertThat(ref.getKind()).isEqualTo("WorkerService");
    });
  }

  @Test
  void runtimeOnlyReadsWorkflowsAndWorkerServices() {
    List<String> seen = new CopyOnWriteArrayList<>();
    WorkflowWatcher.Listener listener = new WorkflowWatcher.Listener() {
      @Override
      public void changed(Workflow workflow) {
        seen.add(workflow.getMetadata().getNamespace() + "/" + workflow.getMetadata().getName());
      }

      @Override
      public void deleted(Workflow workflow) {}
    };
    Workflow workflow = orderSaga().stream().filter(Workflow.class::isInstance).map(Workflow.class::cast).findFirst()
        .orElseThrow();
    try (KubernetesClient everywhereClient = clientAs(RUNTIME_AGENT + "-all");
        KubernetesClient namespacedClient = clientAs(RUNTIME_AGENT + "-ns");
        WorkflowWatcher everywhere = WorkflowWatcher.start(everywhereClient, List.of(), listener);
        WorkflowWatcher oneNamespace = WorkflowWatcher.start(namespacedClient, List.of(NAMESPACE), listener);
        ServiceWatcher everywhereServices = ServiceWatcher.start(everywhereClient, List.of()).orElseThrow();
        ServiceWatcher oneNamespaceServices = ServiceWatcher.start(namespacedClient, List.of(NAMESPACE)).orElseThrow()) {
      admin.resource(workflow).inNamespace(NAMESPACE).create();
      await().atMost(WITHIN).until(() -> seen.size() >= 2);
      assertThat(everywhere.find(NAMESPACE, "created-a-moment-ago")).isEmpty();
      assertThat(oneNamespace.find(NAMESPACE, "created-a-moment-ago")).isEmpty();
    }

    Rbac clusterWide = Rbac.of(Chart.template(ValueSet.DEFAULTS), Chart.RELEASE + "-runtime", Chart.NAMESPACE);
    Rbac namespaced = Rbac.of(Chart.template(ValueSet.DEFAULTS, Map.of("watchNamespaces", List.of(NAMESPACE))),
        Chart.RELEASE + "-runtime", Chart.NAMESPACE);
    assertThat(recorder.requests(RUNTIME_AGENT + "-all")).isNotEmpty().allMatch(clusterWide::allows);
    assertThat(recorder.requests(RUNTIME_AGENT + "-ns")).isNotEmpty().allMatch(namespaced::allows);
    assertThat(recorder.nonResourceRequests(RUNTIME_AGENT)).allMatch(DISCOVERY);
    assertThat(recorder.permissions(RUNTIME_AGENT)).isSubsetOf(RequiredPermissions.runtime(Scope.WATCHED))
        .containsAll(RequiredPermissions.runtime(Scope.WATCHED, RequiredPermissions.Evidence.RECORDED));
  }

  /**
   * With Kubernetes auth the runtime asks who a token is (TokenReview), whether its owner may replay a service's dead
   * letters (SubjectAccessReview), and, to know where to ask, which namespace's WorkerService holds the service: all
   * of it granted by the chart in kubernetes mode, with or without watchNamespaces, and none of it in token mode.
   */
  @Test
  void runtimeChecksItsCallersOnlyAsTheChartAllows() {
    recorder.answer("POST", "/apis/authentication.k8s.io/v1/tokenreviews", request -> RequestRecorder.json(201, Map.of(
        "apiVersion", "authentication.k8s.io/v1", "kind", "TokenReview", "status", Map.of("authenticated", true,
            "user", Map.of("username", "system:serviceaccount:" + NAMESPACE + ":ci"), "audiences", List.of("baton")))));
    recorder.answer("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", request -> RequestRecorder.json(201,
        Map.of("apiVersion", "authorization.k8s.io/v1", "kind", "SubjectAccessReview", "status",
            Map.of("allowed", true))));
    WorkerService payment = orderSaga().stream().filter(WorkerService.class::isInstance).map(WorkerService.class::cast)
        .filter(w -> w.serviceName().equals("payment")).findFirst().orElseThrow();
    admin.resource(payment).inNamespace(NAMESPACE).create();

    try (KubernetesClient client = clientAs(RUNTIME_AGENT);
        KubernetesClient reviews = KubernetesReviews.clientFor(client)) {
      Caller caller = new TokenReviewAuthenticator(reviews, List.of("baton")).authenticate("a-token").orElseThrow();
      Targets.Target owner = new RuntimeTargets(null, null, reviews).serviceOwner("payment").orElseThrow();
      assertThat(owner).isEqualTo(new Targets.Target(NAMESPACE, payment.getMetadata().getName()));
      assertThat(new SubjectAccessReviewAuthorizer(reviews).allows(caller, new AccessRequest("create",
          AccessRequest.GROUP, "workerservices", "deadletters", owner.namespace(), owner.name()))).isTrue();
    }

    String runtime = Chart.RELEASE + "-runtime";
    for (List<String> watchNamespaces : List.of(List.<String>of(), List.of(NAMESPACE))) {
      Rbac kubernetesMode = Rbac.of(Chart.template(ValueSet.DEFAULTS, Map.of("watchNamespaces", watchNamespaces)),
          runtime, Chart.NAMESPACE);
      Rbac tokenMode = Rbac.of(Chart.template(ValueSet.DEFAULTS, Map.of("watchNamespaces", watchNamespaces,
          "runtime.auth.mode", "token")), runtime, Chart.NAMESPACE);
      assertThat(recorder.requests(RUNTIME_AGENT)).as("with watchNamespaces %s", watchNamespaces).isNotEmpty()
          .allMatch(kubernetesMode::allows);
      // Token mode allows none of it but what the watch needs anyway (listing WorkerServices, where it watches).
      assertThat(recorder.requests(RUNTIME_AGENT)).as("with watchNamespaces %s", watchNamespaces)
          .filteredOn(r -> !RequiredPermissions.runtime(Scope.WATCHED).contains(r.permission()))
          .isNotEmpty().noneMatch(tokenMode::allows);
    }
    assertThat(recorder.nonResourceRequests(RUNTIME_AGENT)).allMatch(DISCOVERY);
    assertThat(recorder.permissions(RUNTIME_AGENT)).isSubsetOf(RequiredPermissions.runtime(Scope.AUTH))
        .containsAll(RequiredPermissions.runtime(Scope.AUTH, RequiredPermissions.Evidence.RECORDED));
  }

  /**
   * The order saga plus one bad RetryPolicy; one WorkerService gets a Deployment, a PodDisruptionBudget and
   * autoscaling. Returns once everything is deleted again.
   */
  private void runTheSaga(List<OwnerReference> ownerReferences) {
    List<HasMetadata> saga = orderSaga();
    RetryPolicy broken = new RetryPolicy();
    broken.setMetadata(new ObjectMetaBuilder().withName("broken").build());
    broken.setSpec(SERIALIZATION.convertValue(Map.of("maxAttempts", 2, "delays", List.of("soon")),
        RetryPolicySpec.class));
    saga.add(broken);
    WorkerService deployed = withDeploymentAndAutoscaling(saga);
    String name = deployed.getMetadata().getName();
    String secretName = name + "-broker-credentials";
    saga.forEach(r -> admin.resource(r).inNamespace(NAMESPACE).create());

    for (HasMetadata r : saga) {
      if (r == broken) {
        // Ready=False with a reason: a Warning Event.
        awaitCondition(r, ConditionTypes.READY, "False");
      } else {
        // No kubelet here: the Deployment never has pods, so that one stops at its topology being declared.
        awaitCondition(r, r == deployed ? ConditionTypes.TOPOLOGY_READY : ConditionTypes.READY, "True");
      }
    }
    Secret secret = awaitPresent(() -> admin.secrets().inNamespace(NAMESPACE).withName(secretName).get());
    Deployment deployment = awaitPresent(() -> admin.apps().deployments().inNamespace(NAMESPACE).withName(name).get());
    awaitPresent(() -> admin.policy().v1().podDisruptionBudget().inNamespace(NAMESPACE).withName(name).get());
    awaitPresent(() -> admin.genericKubernetesResources(SCALED_OBJECTS).inNamespace(NAMESPACE).withName(name).get());
    awaitPresent(() -> admin.genericKubernetesResources(TRIGGER_AUTHENTICATIONS).inNamespace(NAMESPACE).withName(name)
        .get());
    Secret runtimeSecret = awaitPresent(() -> admin.secrets().inNamespace(Chart.NAMESPACE)
        .withName(RequiredPermissions.RUNTIME_SECRET).get());
    awaitPresent(() -> admin.leases().inNamespace(Chart.NAMESPACE).withName(RequiredPermissions.LEASE).get());
    ownerReferences.addAll(secret.getMetadata().getOwnerReferences());
    ownerReferences.addAll(deployment.getMetadata().getOwnerReferences());

    // Drift behind the operator's back: it puts both Secrets right again.
    tamperWith(NAMESPACE, secretName, secret.getData().get("uri"));
    tamperWith(Chart.NAMESPACE, RequiredPermissions.RUNTIME_SECRET, runtimeSecret.getData().get("uri"));

    // KEDA objects edited behind the operator's back are put right at the next pass (their informers' event).
    admin.genericKubernetesResources(TRIGGER_AUTHENTICATIONS).inNamespace(NAMESPACE).withName(name).edit(ta -> {
      ta.setAdditionalProperty("spec", Map.of("secretTargetRef", List.of()));
      return ta;
    });
    await().atMost(WITHIN).until(() -> !String.valueOf(admin.genericKubernetesResources(TRIGGER_AUTHENTICATIONS)
        .inNamespace(NAMESPACE).withName(name).get().<Object>get("spec", "secretTargetRef")).equals("[]"));

    // A spec change reaches the Deployment and the ScaledObject.
    admin.resources(WorkerService.class).inNamespace(NAMESPACE).withName(name).edit(ws -> {
      ws.getSpec().getDeployment().setImage("example/" + name + ":1.1");
      ws.getSpec().getDeployment().getPodDisruptionBudget().setMinAvailable(new IntOrString(2));
      ws.getSpec().getAutoscaling().setMaxReplicas(4);
      return ws;
    });
    await().atMost(WITHIN).until(() -> admin.apps().deployments().inNamespace(NAMESPACE).withName(name).get()
        .getSpec().getTemplate().getSpec().getContainers().get(0).getImage().endsWith(":1.1"));
    await().atMost(WITHIN).until(() -> String.valueOf(admin.genericKubernetesResources(SCALED_OBJECTS)
        .inNamespace(NAMESPACE).withName(name).get().<Object>get("spec", "maxReplicaCount")).equals("4"));
    await().atMost(WITHIN).until(() -> new IntOrString(2).equals(admin.policy().v1().podDisruptionBudget()
        .inNamespace(NAMESPACE).withName(name).get().getSpec().getMinAvailable()));

    // Without a budget in the spec, its PodDisruptionBudget goes.
    admin.resources(WorkerService.class).inNamespace(NAMESPACE).withName(name).edit(ws -> {
      ws.getSpec().getDeployment().setPodDisruptionBudget(null);
      return ws;
    });
    await().atMost(WITHIN).until(() -> admin.policy().v1().podDisruptionBudget().inNamespace(NAMESPACE).withName(name)
        .get() == null);

    // Everything goes: finalizers run; Secret, Deployment and KEDA objects are deleted.
    saga.forEach(r -> admin.resource(r).inNamespace(NAMESPACE).delete());
    for (HasMetadata r : saga) {
      await().atMost(WITHIN).until(() -> admin.resources(r.getClass()).inNamespace(NAMESPACE)
          .withName(r.getMetadata().getName()).get() == null);
    }
    await().atMost(WITHIN).until(() -> admin.secrets().inNamespace(NAMESPACE).withName(secretName).get() == null
        && admin.apps().deployments().inNamespace(NAMESPACE).withName(name).get() == null
        && admin.genericKubernetesResources(SCALED_OBJECTS).inNamespace(NAMESPACE).withName(name).get() == null);
  }

  private void tamperWith(String namespace, String secretName, String uri) {
    admin.secrets().inNamespace(namespace).withName(secretName).edit(s -> {
      s.getData().put("uri", Base64.getEncoder().encodeToString("amqp://tampered".getBytes(StandardCharsets.UTF_8)));
      return s;
    });
    await().atMost(WITHIN).until(() -> admin.secrets().inNamespace(namespace).withName(secretName).get().getData()
        .get("uri"), uri::equals);
  }

  /** KEDA's CRDs in the mock's store, and the discovery document the operator asks for before touching them. */
  private void pretendKedaIsInstalled() {
    for (ResourceDefinitionContext keda : List.of(SCALED_OBJECTS, TRIGGER_AUTHENTICATIONS)) {
      admin.resource(new CustomResourceDefinitionBuilder()
          .withNewMetadata().withName(keda.getPlural() + "." + keda.getGroup()).endMetadata()
          .withNewSpec().withGroup(keda.getGroup()).withScope("Namespaced")
          .withNewNames().withKind(keda.getKind()).withPlural(keda.getPlural())
          .withSingular(keda.getKind().toLowerCase(java.util.Locale.ROOT)).endNames()
          .addNewVersion().withName(keda.getVersion()).withServed(true).withStorage(true)
          .withNewSchema().withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true)
          .endOpenAPIV3Schema().endSchema().endVersion()
          .endSpec().build()).create();
    }
    List<Map<String, Object>> resources = Stream.of(SCALED_OBJECTS, TRIGGER_AUTHENTICATIONS)
        .map(k -> Map.<String, Object>of("name", k.getPlural(), "singularName", "", "namespaced", true,
            "kind", k.getKind(), "verbs", List.of("get", "list", "watch", "create", "update", "patch", "delete")))
        .toList();
    recorder.answer("GET", "/apis/keda.sh/v1alpha1", request -> RequestRecorder.json(200, Map.of(
        "kind", "APIResourceList", "apiVersion", "v1", "groupVersion", "keda.sh/v1alpha1", "resources", resources)));
  }

  /** SelfSubjectRulesReview (JOSDK checks its Lease permissions with one) answered from the chart's RBAC. */
  private void answerRulesReviews(Rbac rbac) {
    recorder.answer("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", request -> {
      JsonNode review = RequestRecorder.body(request);
      String namespace = review.path("spec").path("namespace").asText();
      List<Map<String, Object>> rules = new ArrayList<>();
      for (PolicyRule rule : rbac.rulesIn(namespace)) {
        rules.add(Map.of("verbs", rule.getVerbs(), "apiGroups", rule.getApiGroups(), "resources",
            rule.getResources(), "resourceNames", rule.getResourceNames() == null ? List.of() : rule.getResourceNames()));
      }
      return RequestRecorder.json(201, Map.of("apiVersion", "authorization.k8s.io/v1",
          "kind", "SelfSubjectRulesReview", "spec", Map.of("namespace", namespace),
          "status", Map.of("resourceRules", rules, "nonResourceRules", List.of(), "incomplete", false)));
    });
  }

  /** A client of the mock server whose requests carry the given User-Agent. */
  private KubernetesClient clientAs(String agent) {
    Config config = new ConfigBuilder(admin.getConfiguration()).withUserAgent(agent).build();
    return TolerantSerialization.clientBuilder().withConfig(config).build();
  }

  private static Set<Permission> allScopes(Mode mode) {
    Set<Permission> all = new java.util.TreeSet<>();
    for (RequiredPermissions.Scope scope : RequiredPermissions.Scope.values()) {
      all.addAll(RequiredPermissions.operator(scope, mode.serverSideApply, true));
    }
    return all;
  }

  /** examples/order-saga/ as typed resources. */
  private static List<HasMetadata> orderSaga() {
    List<HasMetadata> resources = new ArrayList<>();
    Path dir = Chart.repoRoot().resolve("examples/order-saga");
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        for (JsonNode doc : YAML.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile()).readAll()) {
          Class<? extends HasMetadata> kind = KINDS.get(doc.path("kind").asText());
          if (kind != null) {
            resources.add(SERIALIZATION.convertValue(doc, kind));
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + dir, e);
    }
    assertThat(resources).extracting(HasMetadata::getKind).contains("RetryPolicy", "WorkerService", "Workflow");
    return resources;
  }

  /** The first WorkerService with commands gets a Deployment (replacing any it has), a budget and autoscaling. */
  private static WorkerService withDeploymentAndAutoscaling(List<HasMetadata> saga) {
    WorkerService ws = saga.stream().filter(WorkerService.class::isInstance).map(WorkerService.class::cast)
        .filter(w -> w.getSpec().getCommands() != null && !w.getSpec().getCommands().isEmpty())
        .findFirst().orElseThrow(() -> new IllegalStateException("no WorkerService with commands in the saga"));
    DeploymentSettings deployment = new DeploymentSettings();
    deployment.setImage("example/" + ws.getMetadata().getName() + ":1.0");
    deployment.setReplicas(1);
    deployment.setPodDisruptionBudget(new DisruptionBudgetSettings(new IntOrString(1), null));
    ws.getSpec().setDeployment(deployment);
    AutoscalingSettings autoscaling = new AutoscalingSettings();
    autoscaling.setMinReplicas(1);
    autoscaling.setMaxReplicas(3);
    autoscaling.setTargetQueueDepth(10);
    ws.getSpec().setAutoscaling(autoscaling);
    return ws;
  }

  private <T> T awaitPresent(Callable<T> lookup) {
    return await().atMost(WITHIN).until(lookup, t -> t != null);
  }

  private void awaitCondition(HasMetadata resource, String type, String status) {
    try {
      await().atMost(WITHIN).until(() -> status(resource) instanceof BatonStatus s
          && s.condition(type).map(c -> status.equals(c.getStatus())).orElse(false));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(resource.getKind() + " " + resource.getMetadata().getName() + " has no " + type + "="
          + status + " within " + WITHIN + "; its status: " + SERIALIZATION.asJson(status(resource)), e);
    }
  }

  private Object status(HasMetadata resource) {
    HasMetadata now = admin.resources(resource.getClass()).inNamespace(NAMESPACE)
        .withName(resource.getMetadata().getName()).get();
    return now instanceof CustomResource<?, ?> cr ? cr.getStatus() : null;
  }

  private static ResourceDefinitionContext keda(String kind, String plural) {
    return new ResourceDefinitionContext.Builder().withGroup("keda.sh").withVersion("v1alpha1").withKind(kind)
        .withPlural(plural).withNamespaced(true).build();
  }
}
