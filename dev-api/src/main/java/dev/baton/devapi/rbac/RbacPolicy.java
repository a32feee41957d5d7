package dev.baton.devapi.rbac;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.List;

/** The stored RBAC objects (rbac.authorization.k8s.io/v1) an access review is evaluated against. */
public record RbacPolicy(List<Role> roles, List<ClusterRole> clusterRoles, List<RoleBinding> roleBindings,
    List<ClusterRoleBinding> clusterRoleBindings) {

  public RbacPolicy {
    roles = List.copyOf(roles);
    clusterRoles = List.copyOf(clusterRoles);
    roleBindings = List.copyOf(roleBindings);
    clusterRoleBindings = List.copyOf(clusterRoleBindings);
  }
}
