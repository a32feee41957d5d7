package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.rbac.InstanceRoles;
import dev.baton.helm.RequiredPermissions.Scope;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The rendered RBAC grants each component exactly what {@link RequiredPermissions} lists for the values in use: every
 * required resource and verb, and nothing else (no wildcard, no extra verb, resource, name or kind of access).
 */
class RbacTest {

  private static final String OPERATOR = Chart.RELEASE + "-operator";
  private static final String RUNTIME = Chart.RELEASE + "-runtime";
  private static final String LEADER_ELECTION = OPERATOR + "-leader-election";
  private static final String RUNTIME_CREDENTIALS = OPERATOR + "-runtime-credentials";
  private static final String API_TOKENS = OPERATOR + "-runtime-api-tokens";
  /** What runtime.auth.mode=kubernetes adds (auth-rbac.yaml; KubernetesAuthTest). */
  private static final String AUTH_DELEGATOR = RUNTIME + "-auth-delegator";
  private static final String WORKERSERVICES_READER = RUNTIME + "-workerservices-reader";
  private static final String RUNTIME_READER = OPERATOR + "-runtime-reader";

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void operatorGetsExactlyWhatItNeedsWhereItWatches(ValueSet values) {
    Rendered chart = Chart.template(values);

    for (List<PolicyRule> rules : rulesOf(chart, OPERATOR)) {
      assertThat(Permission.grantedBy(rules)).as("operator permissions with %s", values)
          .containsExactlyInAnyOrderElementsOf(RequiredPermissions.operator(Scope.WATCHED, serverSideApply(chart),
              values == ValueSet.KEDA));
    }
  }

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void leaseOfLeaderElectionInTheReleaseNamespace(ValueSet values) {
    Role role = chartRole(Chart.template(values), LEADER_ELECTION).orElseThrow();

    assertThat(role.getMetadata().getNamespace()).isEqualTo(Chart.NAMESPACE);
    assertThat(Permission.grantedBy(role.getRules()))
        .containsExactlyInAnyOrderElementsOf(RequiredPermissions.operator(Scope.LEADER_ELECTION, true, false));
  }

  @Test
  void noLeaseWithoutLeaderElection() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("operator.leaderElection.enabled", false));

    assertThat(chartRole(chart, LEADER_ELECTION)).isEmpty();
    assertThat(chart.operator().getSpec().getStrategy().getType()).as("never two operators at once")
        .isEqualTo("Recreate");
    assertThat(Rendered.value(chart.operator(), "BATON_LEADER_ELECTION")).isEqualTo("false");
    assertThatThrownBy(() -> Chart.template(ValueSet.DEFAULTS,
        Map.of("operator.leaderElection.enabled", false, "operator.replicas", 2)))
        .hasMessageContaining("needs operator.leaderElection.enabled");
  }

  @Test
  void runtimeCredentialsSecretWhenOnlyWatchedNamespacesAreGranted() {
    Role role = chartRole(Chart.template(ValueSet.WATCH_NAMESPACES), RUNTIME_CREDENTIALS).orElseThrow();

    assertThat(role.getMetadata().getNamespace()).isEqualTo(Chart.NAMESPACE);
    assertThat(Permission.grantedBy(role.getRules()))
        .containsExactlyInAnyOrderElementsOf(RequiredPermissions.operator(Scope.RUNTIME_CREDENTIALS, true, false));
    // Cluster-wide, the operator's secrets access already covers that Secret: no Role of its own.
    assertThat(chartRole(Chart.template(ValueSet.DEFAULTS), RUNTIME_CREDENTIALS)).isEmpty();
    assertThat(RequiredPermissions.operator(Scope.WATCHED, true, false))
        .containsAll(Permission.anyName(RequiredPermissions.operator(Scope.RUNTIME_CREDENTIALS, true, false)));
    // Nor when the runtime's broker Secret is the user's.
    assertThat(chartRole(Chart.template(ValueSet.WATCH_NAMESPACES,
        Map.of("runtime.rabbitmq.existingSecret", "mine")), RUNTIME_CREDENTIALS)).isEmpty();
  }

  @Test
  void apiTokensSecretWhenOnlyWatchedNamespacesAreGrantedInTokenMode() {
    Map<String, Object> tokenMode = Map.of("runtime.auth.mode", "token");
    Role role = chartRole(Chart.template(ValueSet.WATCH_NAMESPACES, tokenMode), API_TOKENS).orElseThrow();

    assertThat(role.getMetadata().getNamespace()).isEqualTo(Chart.NAMESPACE);
    assertThat(Permission.grantedBy(role.getRules()))
        .containsExactlyInAnyOrderElementsOf(RequiredPermissions.operator(Scope.API_TOKENS, true, false));
    // Cluster-wide, the operator's secrets access already covers that Secret: no Role of its own.
    assertThat(chartRole(Chart.template(ValueSet.DEFAULTS, tokenMode), API_TOKENS)).isEmpty();
    assertThat(RequiredPermissions.operator(Scope.WATCHED, true, false))
        .containsAll(Permission.anyName(RequiredPermissions.operator(Scope.API_TOKENS, true, false)));
    // Nor in kubernetes mode, nor when the Secret is the user's.
    assertThat(chartRole(Chart.template(ValueSet.WATCH_NAMESPACES), API_TOKENS)).isEmpty();
    assertThat(chartRole(Chart.template(ValueSet.WATCH_NAMESPACES,
        Map.of("runtime.auth.mode", "token", "runtime.apiToken.existingSecret", "mine")), API_TOKENS)).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(value = ValueSet.class, names = "OPERATOR_ONLY", mode = EnumSource.Mode.EXCLUDE)
  void runtimeOnlyReadsWorkflows(ValueSet values) {
    Rendered chart = Chart.template(values);

    for (List<PolicyRule> rules : rulesOf(chart, RUNTIME)) {
      assertThat(Permission.grantedBy(rules)).as("runtime permissions with %s", values)
          .containsExactlyInAnyOrderElementsOf(RequiredPermissions.runtime(Scope.WATCHED));
    }
  }

  @ParameterizedTest
  @EnumSource(value = ValueSet.class, names = "OPERATOR_ONLY", mode = EnumSource.Mode.EXCLUDE)
  void runtimeChecksCallersEverywhereOnlyInKubernetesMode(ValueSet values) {
    Rendered chart = Chart.template(values);
    Set<Permission> everywhere = Rbac.of(chart, RUNTIME, Chart.NAMESPACE).everywhere();

    if (values.kubernetesAuth()) {
      assertThat(everywhere).as("runtime permissions in every namespace with %s", values)
          .containsAll(RequiredPermissions.runtime(Scope.AUTH));
    } else {
      // What auth needs beyond what the watch already has (listing WorkerServices is both).
      Set<Permission> authOnly = new java.util.TreeSet<>(RequiredPermissions.runtime(Scope.AUTH));
      authOnly.removeAll(RequiredPermissions.runtime(Scope.WATCHED));
      assertThat(everywhere).as("runtime permissions in every namespace with %s", values)
          .doesNotContainAnyElementsOf(authOnly);
    }
    // Only those and, cluster-wide, what it needs where it watches.
    assertThat(everywhere).isSubsetOf(union(RequiredPermissions.runtime(Scope.AUTH),
        RequiredPermissions.runtime(Scope.WATCHED)));
  }

  @Test
  void theTableFollowsServerSideApplyAndKeda() {
    Permission patch = new Permission("apps", "deployments", "patch");
    Permission update = new Permission("apps", "deployments", "update");
    assertThat(RequiredPermissions.operator(Scope.WATCHED, true, false)).contains(patch).doesNotContain(update);
    assertThat(RequiredPermissions.operator(Scope.WATCHED, false, false)).contains(update).doesNotContain(patch);
    assertThat(RequiredPermissions.operator(Scope.WATCHED, true, false)).noneMatch(p -> p.group().equals("keda.sh"));
    assertThat(RequiredPermissions.operator(Scope.WATCHED, true, true))
        .contains(new Permission("keda.sh", "scaledobjects", "create"));
  }

  @ParameterizedTest
  @EnumSource(ValueSet.class)
  void noWildcardsNoNonResourceUrlsNoAggregation(ValueSet values) {
    Rendered chart = Chart.template(values);
    List<PolicyRule> rules = new ArrayList<>();
    chart.all(ClusterRole.class).forEach(r -> {
      assertThat(r.getAggregationRule()).isNull();
      rules.addAll(r.getRules());
    });
    chart.all(Role.class).forEach(r -> rules.addAll(r.getRules()));

    assertThat(rules).isNotEmpty().allSatisfy(rule -> {
      assertThat(rule.getApiGroups()).isNotEmpty().doesNotContain("*");
      assertThat(rule.getResources()).isNotEmpty().noneMatch(r -> r.contains("*"));
      assertThat(rule.getVerbs()).isNotEmpty().doesNotContain("*");
      assertThat(rule.getNonResourceURLs()).isNullOrEmpty();
    });
  }

  @Test
  void clusterWideByDefault() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS);

    // the four aggregated into Kubernetes' admin/edit/view, bound to no one (AggregatedRolesTest, InstanceRolesTest),
    // and what Kubernetes auth needs
    assertThat(chart.all(ClusterRole.class)).extracting(r -> r.getMetadata().getName())
        .containsExactlyInAnyOrder(OPERATOR, RUNTIME, Chart.RELEASE + "-edit", Chart.RELEASE + "-view",
            Chart.RELEASE + "-instances-edit", Chart.RELEASE + "-instances-view", WORKERSERVICES_READER,
            RUNTIME_READER);
    assertThat(chart.all(Role.class)).extracting(r -> r.getMetadata().getName()).containsExactly(LEADER_ELECTION);
    assertThat(chart.all(ClusterRoleBinding.class)).extracting(b -> b.getMetadata().getName())
        .containsExactlyInAnyOrder(OPERATOR, RUNTIME, WORKERSERVICES_READER, RUNTIME_READER, AUTH_DELEGATOR);
    assertEveryBindingNamesItsRole(chart);
    assertEveryRoleIsBoundToItsComponent(chart);
  }

  @Test
  void tokenModeAddsNothingClusterWide() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("runtime.auth.mode", "token"));

    assertThat(chart.all(ClusterRoleBinding.class)).extracting(b -> b.getMetadata().getName())
        .containsExactlyInAnyOrder(OPERATOR, RUNTIME);
    assertThat(chart.all(ClusterRole.class)).extracting(r -> r.getMetadata().getName())
        .doesNotContain(WORKERSERVICES_READER, RUNTIME_READER);
  }

  @Test
  void withWatchNamespacesOnlyWhatKubernetesTokensNeedIsClusterWide() {
    Rendered chart = Chart.template(ValueSet.WATCH_NAMESPACES);

    // The reviews are cluster-scoped, and the runtime asks about the operator in every namespace (auth-rbac.yaml).
    assertThat(chart.all(ClusterRole.class)).extracting(r -> r.getMetadata().getName())
        .containsExactlyInAnyOrder(WORKERSERVICES_READER, RUNTIME_READER);
    assertThat(chart.all(ClusterRoleBinding.class)).extracting(b -> b.getMetadata().getName())
        .containsExactlyInAnyOrder(WORKERSERVICES_READER, RUNTIME_READER, AUTH_DELEGATOR);
    assertThat(Rbac.of(chart, RUNTIME, Chart.NAMESPACE).everywhere())
        .containsExactlyInAnyOrderElementsOf(RequiredPermissions.runtime(Scope.AUTH));
    assertThat(Rbac.of(chart, OPERATOR, Chart.NAMESPACE).everywhere()).containsExactlyInAnyOrderElementsOf(
        Permission.grantedBy(InstanceRoles.operatorReader(RUNTIME_READER).getRules()));
    assertWatchedAndReleaseNamespaceRoles(chart);
  }

  @Test
  void withWatchNamespacesInTokenModeNothingIsClusterWide() {
    Rendered chart = Chart.template(ValueSet.WATCH_NAMESPACES, Map.of("runtime.auth.mode", "token"));

    assertThat(chart.all(ClusterRole.class)).as("nothing cluster-wide").isEmpty();
    assertThat(chart.all(ClusterRoleBinding.class)).isEmpty();
    assertWatchedAndReleaseNamespaceRoles(chart, Chart.NAMESPACE + "/" + API_TOKENS);
  }

  private static void assertWatchedAndReleaseNamespaceRoles(Rendered chart, String... moreRoles) {
    List<String> roles = new ArrayList<>(List.of("team-a/" + OPERATOR, "team-b/" + OPERATOR, "team-a/" + RUNTIME,
        "team-b/" + RUNTIME, Chart.NAMESPACE + "/" + LEADER_ELECTION, Chart.NAMESPACE + "/" + RUNTIME_CREDENTIALS));
    roles.addAll(List.of(moreRoles));
    assertThat(chart.all(Role.class)).extracting(r -> r.getMetadata().getNamespace() + "/" + r.getMetadata().getName())
        .containsExactlyInAnyOrderElementsOf(roles);
    assertEveryBindingNamesItsRole(chart);
    assertEveryRoleIsBoundToItsComponent(chart);
  }

  @Test
  void noRbacWhenDisabled() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("rbac.create", false));

    assertThat(chart.objects()).extracting(HasMetadata::getKind).isNotEmpty()
        .noneMatch(kind -> kind.endsWith("Role") || kind.endsWith("RoleBinding"));
    assertThat(chart.all(Deployment.class)).hasSize(2);
  }

  private static boolean serverSideApply(Rendered chart) {
    return Boolean.parseBoolean(Rendered.value(chart.operator(), "BATON_SERVER_SIDE_APPLY"));
  }

  /** The rules of the ClusterRole, or of each Role, with that name; at least one. */
  private static List<List<PolicyRule>> rulesOf(Rendered chart, String name) {
    List<List<PolicyRule>> out = new ArrayList<>();
    chart.find(ClusterRole.class, name).ifPresent(r -> out.add(r.getRules()));
    chart.all(Role.class).stream().filter(r -> r.getMetadata().getName().equals(name))
        .forEach(r -> out.add(r.getRules()));
    assertThat(out).as("roles named %s", name).isNotEmpty();
    return out;
  }

  private static Optional<Role> chartRole(Rendered chart, String name) {
    List<Role> roles = chart.all(Role.class).stream().filter(r -> r.getMetadata().getName().equals(name)).toList();
    assertThat(roles).as("Roles named %s", name).hasSizeLessThanOrEqualTo(1);
    return roles.stream().findFirst();
  }

  /** Each Role has a RoleBinding of the same name and namespace, to the ServiceAccount of its component only. */
  private static void assertEveryRoleIsBoundToItsComponent(Rendered chart) {
    assertThat(chart.all(RoleBinding.class)).hasSameSizeAs(chart.all(Role.class));
    for (Role role : chart.all(Role.class)) {
      RoleBinding binding = chart.all(RoleBinding.class).stream()
          .filter(b -> b.getMetadata().getName().equals(role.getMetadata().getName())
              && b.getMetadata().getNamespace().equals(role.getMetadata().getNamespace()))
          .findFirst().orElseThrow(() -> new AssertionError("no RoleBinding for Role " + role.getMetadata()));
      assertRoleRef(binding.getRoleRef(), "Role", role.getMetadata().getName());
      assertBoundTo(chart, binding.getSubjects(), role.getMetadata().getName().startsWith(OPERATOR) ? OPERATOR
          : RUNTIME);
    }
    for (ClusterRoleBinding binding : chart.all(ClusterRoleBinding.class)) {
      assertBoundTo(chart, binding.getSubjects(), Chart.RELEASE + "-"
          + binding.getMetadata().getLabels().get("app.kubernetes.io/component"));
    }
  }

  /** Each ClusterRoleBinding binds the ClusterRole of its name; the runtime's auth-delegator, Kubernetes' own. */
  private static void assertEveryBindingNamesItsRole(Rendered chart) {
    for (ClusterRoleBinding binding : chart.all(ClusterRoleBinding.class)) {
      String name = binding.getMetadata().getName();
      assertRoleRef(binding.getRoleRef(), "ClusterRole", name.equals(AUTH_DELEGATOR) ? "system:auth-delegator" : name);
    }
  }

  private static Set<Permission> union(Set<Permission> a, Set<Permission> b) {
    Set<Permission> out = new java.util.TreeSet<>(a);
    out.addAll(b);
    return out;
  }

  private static void assertRoleRef(RoleRef ref, String kind, String name) {
    assertThat(ref.getApiGroup()).isEqualTo("rbac.authorization.k8s.io");
    assertThat(ref.getKind()).isEqualTo(kind);
    assertThat(ref.getName()).isEqualTo(name);
  }

  /** Bound to the ServiceAccount of that Deployment, in the release namespace, and nobody else. */
  private static void assertBoundTo(Rendered chart, List<Subject> subjects, String deployment) {
    String serviceAccount = chart.get(Deployment.class, deployment).getSpec().getTemplate().getSpec()
        .getServiceAccountName();
    assertThat(subjects).singleElement().satisfies(s -> {
      assertThat(s.getKind()).isEqualTo("ServiceAccount");
      assertThat(s.getName()).isEqualTo(serviceAccount);
      assertThat(s.getNamespace()).isEqualTo(Chart.NAMESPACE);
    });
  }
}
