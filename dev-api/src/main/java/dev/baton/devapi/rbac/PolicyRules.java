package dev.baton.devapi.rbac;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.List;

/** Whether one RBAC rule allows a request, matched as Kubernetes' {@code RuleAllows} matches it. */
final class PolicyRules {

  private static final String ALL = "*";

  private PolicyRules() {}

  static boolean allows(PolicyRule rule, AccessRequest request) {
    if (!matches(rule.getVerbs(), request.verb())) {
      return false;
    }
    if (!request.isResourceRequest()) {
      return nonResourceUrlMatches(list(rule.getNonResourceURLs()), request.path());
    }
    return matches(rule.getApiGroups(), request.group())
        && resourceMatches(list(rule.getResources()), request.combinedResource(), request.subresource())
        && (list(rule.getResourceNames()).isEmpty() || rule.getResourceNames().contains(request.name()));
  }

  private static boolean matches(List<String> allowed, String value) {
    return list(allowed).contains(ALL) || list(allowed).contains(value);
  }

  /**
   * {@code *} is every resource and subresource; {@code workflows} is not {@code workflows/instances} (a rule names
   * each subresource it grants); {@code * /instances} (without the space) is that subresource of every resource.
   */
  private static boolean resourceMatches(List<String> resources, String combined, String subresource) {
    for (String r : resources) {
      if (r.equals(ALL) || r.equals(combined) || !subresource.isEmpty() && r.equals("*/" + subresource)) {
        return true;
      }
    }
    return false;
  }

  /** Exact paths, {@code *}, or a prefix ending in {@code *} such as {@code /healthz/*}. */
  private static boolean nonResourceUrlMatches(List<String> urls, String path) {
    for (String url : urls) {
      if (url.equals(ALL) || url.equals(path) || url.endsWith(ALL)
          && path.startsWith(url.substring(0, url.length() - 1))) {
        return true;
      }
    }
    return false;
  }

  private static List<String> list(List<String> values) {
    return values == null ? List.of() : values;
  }
}
