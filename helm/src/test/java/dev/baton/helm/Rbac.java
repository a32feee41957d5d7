package dev.baton.helm;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the rendered chart lets one ServiceAccount do, evaluated the way Kubernetes RBAC does for a request: the rules
 * of ClusterRoles bound by ClusterRoleBindings apply everywhere, those of Roles (or ClusterRoles) bound by a
 * RoleBinding only in the binding's namespace; a rule with resourceNames matches only requests for one of those
 * names, so never a create, list or watch.
 */
final class Rbac {

  /**
   * Kubernetes' own ClusterRoles the chart binds without rendering them, with their rules as the API server's
   * bootstrap policy defines them (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go).
   */
  static final Map<String, List<PolicyRule>> BUILT_IN = Map.of("system:auth-delegator", List.of(
      new PolicyRuleBuilder().withApiGroups("authentication.k8s.io").withResources("tokenreviews").withVerbs("create")
          .build(),
      new PolicyRuleBuilder().withApiGroups("authorization.k8s.io").withResources("subjectaccessreviews")
          .withVerbs("create").build()));

  /** Verbs whose request names no object: RBAC's resourceNames cannot match them. */
  private static final Set<String> UNNAMED_VERBS = Set.of("create", "list", "watch", "deletecollection");

  /** A rule and where it applies ({@code null}: every namespace and cluster-scoped requests). */
  record Scoped(String namespace, PolicyRule rule) {}

  private final List<Scoped> rules;

  private Rbac(List<Scoped> rules) {
    this.rules = List.copyOf(rules);
  }

  static Rbac of(Rendered chart, String serviceAccount, String serviceAccountNamespace) {
    List<Scoped> rules = new ArrayList<>();
    for (ClusterRoleBinding binding : chart.all(ClusterRoleBinding.class)) {
      if (binds(binding.getSubjects(), serviceAccount, serviceAccountNamespace)) {
        clusterRoleRules(chart, binding.getRoleRef().getName()).forEach(rule -> rules.add(new Scoped(null, rule)));
      }
    }
    for (RoleBinding binding : chart.all(RoleBinding.class)) {
      if (binds(binding.getSubjects(), serviceAccount, serviceAccountNamespace)) {
        String namespace = binding.getMetadata().getNamespace();
        List<PolicyRule> bound = "ClusterRole".equals(binding.getRoleRef().getKind())
            ? clusterRoleRules(chart, binding.getRoleRef().getName())
            : chart.all(Role.class).stream().filter(r -> r.getMetadata().getName().equals(binding.getRoleRef().getName())
                && namespace.equals(r.getMetadata().getNamespace())).findFirst().map(Role::getRules).orElse(List.of());
        bound.forEach(rule -> rules.add(new Scoped(namespace, rule)));
      }
    }
    return new Rbac(rules);
  }

  /** The rules of a ClusterRole of the chart, or of one of Kubernetes' own; none when neither has it. */
  static List<PolicyRule> clusterRoleRules(Rendered chart, String name) {
    return chart.find(ClusterRole.class, name).map(ClusterRole::getRules)
        .orElseGet(() -> BUILT_IN.getOrDefault(name, List.of()));
  }

  /** Every permission granted in every namespace (by ClusterRoleBindings). */
  Set<Permission> everywhere() {
    return Permission.grantedBy(rules.stream().filter(s -> s.namespace() == null).map(Scoped::rule).toList());
  }

  /** Whether a request is allowed; {@code namespace} null for cluster-scoped or all-namespace requests. */
  boolean allows(ApiRequest request) {
    return rules.stream().anyMatch(s -> (s.namespace() == null || s.namespace().equals(request.namespace()))
        && matches(s.rule(), request));
  }

  /** The rules that apply in one namespace, as a SelfSubjectRulesReview reports them. */
  List<PolicyRule> rulesIn(String namespace) {
    return rules.stream().filter(s -> s.namespace() == null || s.namespace().equals(namespace)).map(Scoped::rule)
        .toList();
  }

  private static boolean matches(PolicyRule rule, ApiRequest request) {
    Permission p = request.permission();
    boolean named = rule.getResourceNames() != null && !rule.getResourceNames().isEmpty();
    return rule.getApiGroups().contains(p.group()) && rule.getResources().contains(p.resource())
        && rule.getVerbs().contains(p.verb())
        && (!named || !UNNAMED_VERBS.contains(p.verb()) && rule.getResourceNames().contains(request.name()));
  }

  private static boolean binds(List<Subject> subjects, String serviceAccount, String namespace) {
    return subjects.stream().anyMatch(s -> "ServiceAccount".equals(s.getKind()) && serviceAccount.equals(s.getName())
        && namespace.equals(s.getNamespace()));
  }
}
