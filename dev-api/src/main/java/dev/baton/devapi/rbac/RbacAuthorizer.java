package dev.baton.devapi.rbac;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Kubernetes RBAC over a snapshot of stored Roles, ClusterRoles and their bindings: a request is allowed when a
 * ClusterRoleBinding, or a RoleBinding in the request's namespace, binds a subject that is the user (User, Group,
 * ServiceAccount) to a role with a rule that allows it. A RoleBinding to a ClusterRole grants the ClusterRole's
 * rules in the binding's namespace only. Members of {@code system:masters} may do anything, as on a cluster where
 * that group bypasses RBAC, and so may the dev API's admin ({@link UserInfo#ADMIN}).
 *
 * <p>The reasons are worded as the API server words them ({@code RBAC: allowed by RoleBinding "ci-edit/team-a" of
 * ClusterRole "edit" to ServiceAccount "ci/team-a"}); a request nothing allows says what was asked and by whom,
 * where a cluster says nothing.
 */
public final class RbacAuthorizer {

  public static final String MASTERS = "system:masters";

  private final RbacPolicy policy;
  private final ClusterRoleAggregation aggregation;

  public RbacAuthorizer(RbacPolicy policy) {
    this.policy = policy;
    this.aggregation = new ClusterRoleAggregation(policy.clusterRoles());
  }

  public Decision authorize(UserInfo user, AccessRequest request) {
    if (user.groups().contains(MASTERS) || user.name().equals(UserInfo.ADMIN.name())) {
      return new Decision(true, "the dev API's admin (user \"" + UserInfo.ADMIN.name() + "\", group " + MASTERS
          + ") may do anything", "");
    }
    List<String> errors = new ArrayList<>();
    for (ClusterRoleBinding binding : policy.clusterRoleBindings()) {
      Optional<Subject> subject = subjectFor(user, binding.getSubjects(), "");
      if (subject.isEmpty()) {
        continue;
      }
      RoleRef ref = binding.getRoleRef();
      if (!"ClusterRole".equals(ref.getKind())) {
        errors.add("ClusterRoleBinding \"" + binding.getMetadata().getName() + "\" refers to a " + ref.getKind()
            + ", not a ClusterRole");
        continue;
      }
      if (anyAllows(clusterRoleRules(ref.getName(), errors), request)) {
        return allowed("ClusterRoleBinding \"" + binding.getMetadata().getName() + "\"", ref, subject.get(), "");
      }
    }
    if (request.isResourceRequest() && !request.namespace().isEmpty()) {
      for (RoleBinding binding : policy.roleBindings()) {
        String namespace = binding.getMetadata().getNamespace();
        if (!request.namespace().equals(namespace)) {
          continue;
        }
        Optional<Subject> subject = subjectFor(user, binding.getSubjects(), namespace);
        if (subject.isEmpty()) {
          continue;
        }
        RoleRef ref = binding.getRoleRef();
        List<PolicyRule> rules = "Role".equals(ref.getKind()) ? roleRules(namespace, ref.getName(), errors)
            : clusterRoleRules(ref.getName(), errors);
        if (anyAllows(rules, request)) {
          return allowed("RoleBinding \"" + binding.getMetadata().getName() + "/" + namespace + "\"", ref,
              subject.get(), namespace);
        }
      }
    }
    return new Decision(false, "RBAC: no rule allows " + request.describe() + " for user \"" + user.name() + "\"",
        String.join("; ", errors));
  }

  private static Decision allowed(String binding, RoleRef ref, Subject subject, String bindingNamespace) {
    return new Decision(true, "RBAC: allowed by " + binding + " of " + ref.getKind() + " \"" + ref.getName()
        + "\" to " + describe(subject, bindingNamespace), "");
  }

  private static String describe(Subject subject, String bindingNamespace) {
    if ("ServiceAccount".equals(subject.getKind())) {
      String namespace = empty(subject.getNamespace()) ? bindingNamespace : subject.getNamespace();
      return "ServiceAccount \"" + subject.getName() + "/" + namespace + "\"";
    }
    return subject.getKind() + " \"" + subject.getName() + "\"";
  }

  private static Optional<Subject> subjectFor(UserInfo user, List<Subject> subjects, String bindingNamespace) {
    if (subjects == null) {
      return Optional.empty();
    }
    return subjects.stream().filter(s -> appliesTo(s, user, bindingNamespace)).findFirst();
  }

  /** A ServiceAccount subject without a namespace means one of the RoleBinding's namespace. */
  private static boolean appliesTo(Subject subject, UserInfo user, String bindingNamespace) {
    return switch (subject.getKind() == null ? "" : subject.getKind()) {
      case "User" -> user.name().equals(subject.getName());
      case "Group" -> user.groups().contains(subject.getName());
      case "ServiceAccount" -> {
        String namespace = empty(subject.getNamespace()) ? bindingNamespace : subject.getNamespace();
        yield !namespace.isEmpty() && user.name().equals(UserInfo.serviceAccountUsername(namespace, subject.getName()));
      }
      default -> false;
    };
  }

  private List<PolicyRule> clusterRoleRules(String name, List<String> errors) {
    for (ClusterRole role : policy.clusterRoles()) {
      if (role.getMetadata().getName().equals(name)) {
        return aggregation.rules(role);
      }
    }
    errors.add("clusterrole.rbac.authorization.k8s.io \"" + name + "\" not found");
    return List.of();
  }

  private List<PolicyRule> roleRules(String namespace, String name, List<String> errors) {
    for (Role role : policy.roles()) {
      if (role.getMetadata().getName().equals(name) && namespace.equals(role.getMetadata().getNamespace())) {
        return role.getRules() == null ? List.of() : role.getRules();
      }
    }
    errors.add("role.rbac.authorization.k8s.io \"" + name + "\" not found in namespace \"" + namespace + "\"");
    return List.of();
  }

  private static boolean anyAllows(List<PolicyRule> rules, AccessRequest request) {
    return rules.stream().anyMatch(rule -> PolicyRules.allows(rule, request));
  }

  private static boolean empty(String s) {
    return s == null || s.isEmpty();
  }
}
