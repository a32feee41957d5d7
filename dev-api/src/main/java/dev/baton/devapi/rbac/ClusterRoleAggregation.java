package dev.baton.devapi.rbac;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules of a ClusterRole with an {@code aggregationRule}: the union of the rules of every ClusterRole whose
 * labels match one of its {@code clusterRoleSelectors}. On a cluster a controller writes that union into the
 * role's {@code rules}; here it is computed when a review is evaluated, so a ClusterRole labelled
 * {@code aggregate-to-edit} counts for {@code edit} at once. Aggregating roles aggregate in turn
 * ({@code view} is labelled {@code aggregate-to-edit}, so edit grants what view grants).
 */
final class ClusterRoleAggregation {

  private final List<ClusterRole> clusterRoles;

  ClusterRoleAggregation(List<ClusterRole> clusterRoles) {
    this.clusterRoles = clusterRoles;
  }

  List<PolicyRule> rules(ClusterRole role) {
    List<PolicyRule> rules = new ArrayList<>();
    collect(role, rules, new HashSet<>());
    return rules;
  }

  private void collect(ClusterRole role, List<PolicyRule> rules, Set<String> visited) {
    if (!visited.add(role.getMetadata().getName())) {
      return;
    }
    if (role.getAggregationRule() == null) {
      rules.addAll(role.getRules() == null ? List.of() : role.getRules());
      return;
    }
    // An aggregated role's own rules are what the controller last wrote: the aggregation replaces them.
    for (ClusterRole candidate : clusterRoles) {
      Map<String, String> labels = candidate.getMetadata().getLabels();
      if (role.getAggregationRule().getClusterRoleSelectors().stream().anyMatch(s -> selects(s, labels))) {
        collect(candidate, rules, visited);
      }
    }
  }

  /** A label selector as Kubernetes reads it: every matchLabels entry and every matchExpressions requirement. */
  static boolean selects(LabelSelector selector, Map<String, String> labels) {
    Map<String, String> have = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(have.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        String value = have.get(r.getKey());
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        boolean ok = switch (r.getOperator()) {
          case "In" -> value != null && values.contains(value);
          case "NotIn" -> value == null || !values.contains(value);
          case "Exists" -> value != null;
          case "DoesNotExist" -> value == null;
          default -> false;
        };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }
}
