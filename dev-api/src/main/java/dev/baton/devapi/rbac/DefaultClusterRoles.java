package dev.baton.devapi.rbac;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The user-facing ClusterRoles every cluster has, so bindings written for a cluster work here:
 * {@code cluster-admin} (everything), and {@code admin}, {@code edit} and {@code view} as aggregating roles with
 * the selectors Kubernetes gives them. Their rules for built-in kinds are not seeded (no
 * {@code system:aggregate-to-*} roles): they grant what ClusterRoles labelled
 * {@code rbac.authorization.k8s.io/aggregate-to-<role>: "true"} grant, such as Baton's chart installs.
 * As on a cluster, view aggregates into edit and edit into admin.
 */
public final class DefaultClusterRoles {

  private static final String AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-";

  private DefaultClusterRoles() {}

  public static List<ClusterRole> all() {
    return List.of(clusterAdmin(), aggregating("admin", Map.of()),
        aggregating("edit", Map.of(AGGREGATE_TO + "admin", "true")),
        aggregating("view", Map.of(AGGREGATE_TO + "edit", "true")));
  }

  private static ClusterRole clusterAdmin() {
    return new ClusterRoleBuilder().withNewMetadata().withName("cluster-admin").withLabels(bootstrapping(Map.of()))
        .endMetadata()
        .withRules(new PolicyRuleBuilder().withApiGroups("*").withResources("*").withVerbs("*").build(),
            new PolicyRuleBuilder().withNonResourceURLs("*").withVerbs("*").build())
        .build();
  }

  private static ClusterRole aggregating(String name, Map<String, String> labels) {
    return new ClusterRoleBuilder().withNewMetadata().withName(name).withLabels(bootstrapping(labels)).endMetadata()
        .withNewAggregationRule().addNewClusterRoleSelector().addToMatchLabels(AGGREGATE_TO + name, "true")
        .endClusterRoleSelector().endAggregationRule()
        .build();
  }

  private static Map<String, String> bootstrapping(Map<String, String> more) {
    Map<String, String> labels = new LinkedHashMap<>(more);
    labels.put("kubernetes.io/bootstrapping", "rbac-defaults");
    return labels;
  }
}
