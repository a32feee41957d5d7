package dev.baton.helm;

import static dev.baton.helm.Rendered.container;
import static dev.baton.helm.Rendered.env;
import static dev.baton.helm.Rendered.value;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.rbac.InstanceRoles;
import dev.baton.helm.RequiredPermissions.Scope;
import dev.baton.operator.OperatorSettings;
import dev.baton.runtime.app.RuntimeSettings;
import dev.baton.runtime.http.auth.AuthMode;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * runtime.auth.mode: by default callers of the runtime show Kubernetes tokens and RBAC decides (BATON_AUTH=kubernetes);
 * token mode keeps the runtime's static tokens. What each mode gives the two Deployments, and the RBAC Kubernetes mode
 * needs (auth-rbac.yaml), read against the processes' own settings and the project's {@link InstanceRoles}.
 */
class KubernetesAuthTest {

  private static final String OPERATOR = Chart.RELEASE + "-operator";
  private static final String RUNTIME = Chart.RELEASE + "-runtime";
  private static final String AUTH_DELEGATOR = RUNTIME + "-auth-delegator";
  private static final String WORKERSERVICES_READER = RUNTIME + "-workerservices-reader";
  private static final String RUNTIME_READER = OPERATOR + "-runtime-reader";
  private static final String API_SECRET = RUNTIME + "-api";
  private static final String TOKEN_FILE = "/var/run/secrets/baton/runtime-token/token";
  private static final Map<String, Object> TOKEN_MODE = Map.of("runtime.auth.mode", "token");
  /** Every variable that carries a static token of the runtime's API, to it or from the operator. */
  private static final List<String> STATIC_TOKENS = List.of("BATON_API_TOKEN", "BATON_API_TOKEN_FILE",
      "BATON_API_READ_TOKEN", "BATON_API_READ_TOKEN_FILE", "BATON_RUNTIME_TOKEN", "BATON_RUNTIME_TOKEN_FILE");

  @Test
  void byDefaultTheRuntimeTakesKubernetesTokensAndNoStaticTokenIsMade() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS);

    assertThat(value(chart.runtime(), "BATON_AUTH")).isEqualTo("kubernetes");
    assertThat(chart.find(Secret.class, API_SECRET)).as("no Secret of static tokens").isEmpty();
    for (Deployment deployment : chart.all(Deployment.class)) {
      assertThat(env(deployment)).as("env of %s", deployment.getMetadata().getName())
          .doesNotContainKeys(STATIC_TOKENS.toArray(String[]::new));
    }
  }

  /** The runtime refuses to start in kubernetes mode with a static token set: the chart sets none there. */
  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void theRuntimeStartsInTheModeOfItsValues(ValueSet values) {
    Optional<Deployment> runtime = Chart.template(values).find(Deployment.class, RUNTIME);

    runtime.ifPresent(deployment -> assertThat(RuntimeSettings.fromEnvironment(asThePodSeesIt(deployment)).auth())
        .isEqualTo(values.kubernetesAuth() ? AuthMode.KUBERNETES : AuthMode.TOKEN));
  }

  /**
   * Kubernetes mode: a file of the operator's own token, read again before each request; token mode: the user's
   * Secret's, or the Secret the operator makes.
   */
  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void theOperatorSendsTheRuntimeTheTokenOfItsMode(ValueSet values) {
    OperatorSettings settings = OperatorSettings.fromEnvironment(asThePodSeesIt(Chart.template(values).operator()));

    if (values.kubernetesAuth()) {
      assertThat(settings.runtimeTokenPath()).isEqualTo(Path.of(TOKEN_FILE));
      assertThat(settings.runtimeToken()).isNull();
    } else {
      assertThat(settings.runtimeToken() != null || settings.runtimeApiTokens() != null).isTrue();
      assertThat(settings.runtimeTokenPath()).isNull();
    }
  }

  @Test
  void theOperatorsTokenIsProjectedForTheApiServerUnlessAudiencesAreSet() {
    Deployment operator = Chart.template(ValueSet.DEFAULTS).operator();
    assertThat(value(operator, "BATON_RUNTIME_TOKEN_PATH")).isEqualTo(TOKEN_FILE);
    VolumeMount mount = container(operator).getVolumeMounts().stream()
        .filter(m -> TOKEN_FILE.startsWith(m.getMountPath() + "/")).findFirst().orElseThrow();
    assertThat(mount.getReadOnly()).isTrue();
    ServiceAccountTokenProjection token = projectedToken(operator, mount.getName());
    assertThat(mount.getMountPath() + "/" + token.getPath()).isEqualTo(TOKEN_FILE);
    assertThat(token.getExpirationSeconds()).as("the kubelet renews it before").isEqualTo(3600L);
    assertThat(token.getAudience()).as("the API server's own audience").isNull();

    // Made for the first of the runtime's audiences, which the API server does not accept.
    Deployment forBaton = Chart.template(ValueSet.AUDIENCES).operator();
    assertThat(projectedToken(forBaton, mount.getName()).getAudience()).isEqualTo("baton");
  }

  @Test
  void audiencesAndATrustedProxyReachTheRuntimeOnlyWhenSet() {
    RuntimeSettings set = RuntimeSettings.fromEnvironment(asThePodSeesIt(Chart.template(ValueSet.AUDIENCES).runtime()));
    assertThat(set.authAudiences()).containsExactly("baton", "baton.example.com");
    assertThat(set.trustedProxy()).isTrue();

    assertThat(env(Chart.template(ValueSet.DEFAULTS).runtime()))
        .doesNotContainKeys("BATON_AUTH_AUDIENCES", "BATON_HTTP_TRUSTED_PROXY");
    // Audiences are for Kubernetes tokens; a trusted proxy concerns the audit in either mode.
    Deployment tokenMode = Chart.template(ValueSet.AUDIENCES, TOKEN_MODE).runtime();
    assertThat(env(tokenMode)).doesNotContainKey("BATON_AUTH_AUDIENCES");
    assertThat(value(tokenMode, "BATON_HTTP_TRUSTED_PROXY")).isEqualTo("true");
  }

  @Test
  void theRuntimeIsBoundToKubernetesOwnAuthDelegator() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS);
    ClusterRoleBinding binding = chart.get(ClusterRoleBinding.class, AUTH_DELEGATOR);

    assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
    assertThat(binding.getRoleRef().getName()).isEqualTo("system:auth-delegator");
    assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
      assertThat(s.getKind()).isEqualTo("ServiceAccount");
      assertThat(s.getName()).isEqualTo(chart.runtime().getSpec().getTemplate().getSpec().getServiceAccountName());
      assertThat(s.getNamespace()).isEqualTo(Chart.NAMESPACE);
    });
    // That role (the reviews) and the WorkerServices reader grant what Kubernetes auth needs of the API server.
    Set<Permission> granted = new TreeSet<>(Permission.grantedBy(Rbac.BUILT_IN.get("system:auth-delegator")));
    granted.addAll(Permission.grantedBy(chart.get(ClusterRole.class, WORKERSERVICES_READER).getRules()));
    assertThat(granted).containsExactlyInAnyOrderElementsOf(RequiredPermissions.runtime(Scope.AUTH));
  }

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void theOperatorsRuntimeReaderIsTheProjectsOperatorReader(ValueSet values) {
    Rendered chart = Chart.template(values);
    Optional<ClusterRole> reader = chart.find(ClusterRole.class, RUNTIME_READER);

    assertThat(reader.isPresent()).as("%s with %s", RUNTIME_READER, values).isEqualTo(values.kubernetesAuth());
    reader.ifPresent(role -> {
      assertThat(role.getRules()).isEqualTo(InstanceRoles.operatorReader(RUNTIME_READER).getRules());
      assertThat(role.getMetadata().getLabels()).doesNotContainKeys("rbac.authorization.k8s.io/aggregate-to-view",
          "rbac.authorization.k8s.io/aggregate-to-edit", "rbac.authorization.k8s.io/aggregate-to-admin");
      // Asked about every namespace at once: only a ClusterRoleBinding grants it, with or without watchNamespaces.
      assertThat(Rbac.of(chart, OPERATOR, Chart.NAMESPACE).everywhere())
          .containsAll(Permission.grantedBy(InstanceRoles.operatorReader(RUNTIME_READER).getRules()));
    });
  }

  @Test
  void anOperatorThatTalksToNoRuntimeGetsNoTokenAndNoReader() {
    Rendered chart = Chart.template(ValueSet.OPERATOR_ONLY, Map.of("operator.runtimeUrl", ""));

    assertThat(env(chart.operator())).doesNotContainKeys("BATON_RUNTIME_URL", "BATON_RUNTIME_TOKEN_PATH");
    assertThat(chart.operator().getSpec().getTemplate().getSpec().getVolumes()).extracting(Volume::getName)
        .containsExactly("tmp");
    assertThat(chart.all(ClusterRole.class)).extracting(r -> r.getMetadata().getName()).doesNotContain(RUNTIME_READER);
    assertThat(chart.all(ClusterRoleBinding.class)).as("no runtime, no auth-delegator").extracting(
        b -> b.getMetadata().getName()).doesNotContain(AUTH_DELEGATOR, WORKERSERVICES_READER);
  }

  @Test
  void withoutRbacTheDeploymentsStillTakeKubernetesTokens() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("rbac.create", false));

    assertThat(chart.objects()).extracting(HasMetadata::getKind).noneMatch(kind -> kind.contains("Role"));
    assertThat(value(chart.runtime(), "BATON_AUTH")).isEqualTo("kubernetes");
    assertThat(value(chart.operator(), "BATON_RUNTIME_TOKEN_PATH")).isEqualTo(TOKEN_FILE);
  }

  /** The chart of token mode is the chart before Kubernetes auth: the same objects, env and volumes. */
  @Test
  void tokenModeRendersTheChartAsBefore() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, TOKEN_MODE);

    assertThat(chart.names()).containsExactlyInAnyOrder("PodDisruptionBudget/baton-runtime",
        "ServiceAccount/baton-operator", "ServiceAccount/baton-runtime", "Secret/baton-rabbitmq-admin",
        "Secret/baton-runtime-database", "ClusterRole/baton-edit", "ClusterRole/baton-view",
        "ClusterRole/baton-instances-view", "ClusterRole/baton-instances-edit", "ClusterRole/" + OPERATOR,
        "ClusterRole/" + RUNTIME, "ClusterRoleBinding/" + OPERATOR, "ClusterRoleBinding/" + RUNTIME,
        "Role/" + OPERATOR + "-leader-election", "RoleBinding/" + OPERATOR + "-leader-election",
        "Service/" + OPERATOR, "Service/" + RUNTIME, "Deployment/" + OPERATOR, "Deployment/" + RUNTIME);
    assertThat(env(chart.operator()).keySet()).containsExactly("BATON_RABBITMQ_MANAGEMENT_URL",
        "BATON_RABBITMQ_USERNAME", "BATON_RABBITMQ_PASSWORD", "BATON_RABBITMQ_HOST", "BATON_RABBITMQ_PORT",
        "BATON_RABBITMQ_VHOST", "BATON_USER_PREFIX", "BATON_RESYNC", "BATON_SERVER_SIDE_APPLY", "BATON_RUNTIME_URL",
        "BATON_COUNTS_INTERVAL", "BATON_RUNTIME_API_SECRET", "BATON_RUNTIME_API_TOKEN_KEY",
        "BATON_RUNTIME_CREDENTIALS_SECRET", "BATON_LEADER_ELECTION",
        "BATON_LEADER_ELECTION_NAMESPACE", "BATON_LEADER_ELECTION_LEASE", "BATON_OPERATOR_HTTP_PORT",
        "BATON_LOG_FORMAT", "JAVA_TOOL_OPTIONS");
    assertThat(chart.operator().getSpec().getTemplate().getSpec().getVolumes()).extracting(Volume::getName)
        .containsExactly("tmp");
    assertThat(env(chart.runtime()).keySet()).containsExactly("BATON_DATABASE_URL", "BATON_DATABASE_USERNAME",
        "BATON_DATABASE_PASSWORD", "BATON_DATABASE_CREATE", "BATON_RABBITMQ_URI", "BATON_HTTP_HOST", "BATON_HTTP_PORT",
        "BATON_AUTH", "BATON_API_TOKEN", "BATON_CONSUMER_THREADS", "BATON_PREFETCH", "BATON_RETENTION",
        "BATON_REQUIRE_READY", "BATON_LOG_FORMAT", "JAVA_TOOL_OPTIONS", "OTEL_PROPAGATORS");
    // The new variables say what the runtime did by default anyway (OTEL_PROPAGATORS: OpenTelemetry's default).
    assertThat(value(chart.runtime(), "BATON_AUTH")).isEqualTo("token");
    assertThat(RuntimeSettings.localDefaults().auth()).isEqualTo(AuthMode.TOKEN);
  }

  /**
   * A Deployment's env as its process reads it: plain values as they are, each Secret reference as a stand-in of its
   * own (a URI where the name asks for one), since only the kubelet reads the Secret.
   */
  private static Map<String, String> asThePodSeesIt(Deployment deployment) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar var : env(deployment).values()) {
      String standIn = var.getName().endsWith("_URI") ? "amqp://stand-in:5672/%2F" : "stand-in for " + var.getName();
      env.put(var.getName(), var.getValue() != null ? var.getValue() : standIn);
    }
    return env;
  }

  /** The serviceAccountToken source of the projected volume with that name. */
  private static ServiceAccountTokenProjection projectedToken(Deployment deployment, String volume) {
    Volume projected = deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals(volume)).findFirst().orElseThrow();
    return projected.getProjected().getSources().stream().map(VolumeProjection::getServiceAccountToken)
        .filter(t -> t != null).findFirst().orElseThrow();
  }
}
