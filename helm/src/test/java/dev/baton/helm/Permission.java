package dev.baton.helm;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * One thing RBAC can allow: a verb on a resource (or subresource, {@code workflows/status}) of an API group
 * ({@code ""} is the core group), for objects of any name ({@code resourceName} empty) or of one name.
 */
record Permission(String group, String resource, String verb, String resourceName) implements Comparable<Permission> {

  private static final Comparator<Permission> ORDER = Comparator.comparing(Permission::group)
      .thenComparing(Permission::resource).thenComparing(Permission::verb).thenComparing(Permission::resourceName);

  Permission(String group, String resource, String verb) {
    this(group, resource, verb, "");
  }

  /** Every permission a list of rules grants (the cross product of each rule's groups, resources, verbs, names). */
  static Set<Permission> grantedBy(List<PolicyRule> rules) {
    Set<Permission> granted = new TreeSet<>();
    for (PolicyRule rule : rules) {
      List<String> names = rule.getResourceNames() == null || rule.getResourceNames().isEmpty() ? List.of("")
          : rule.getResourceNames();
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          for (String verb : rule.getVerbs()) {
            for (String name : names) {
              granted.add(new Permission(group, resource, verb, name));
            }
          }
        }
      }
    }
    return granted;
  }

  /** The same permissions, whatever names they are limited to. */
  static Set<Permission> anyName(Set<Permission> permissions) {
    return permissions.stream().map(p -> new Permission(p.group(), p.resource(), p.verb()))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Override
  public int compareTo(Permission other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return verb + " " + (group.isEmpty() ? "" : group + "/") + resource
        + (resourceName.isEmpty() ? "" : " named " + resourceName);
  }
}
