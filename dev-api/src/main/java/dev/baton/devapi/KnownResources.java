package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The kinds the dev API serves: the built-in kinds the operator and kubectl use, plus every kind of the
 * CustomResourceDefinitions stored right now (read on each call, so a CRD applied with kubectl shows up at once).
 */
final class KnownResources {

  private static final String RBAC = "rbac.authorization.k8s.io";

  /**
   * What the operator creates and what a developer looks at (pods and the like never exist here: no kubelet), plus
   * what {@code kubectl create serviceaccount|rolebinding|token} and access reviews need ({@link AuthEndpoints}).
   */
  static final List<ResourceType> BUILT_IN = List.of(
      ResourceType.builtIn("", "v1", "namespaces", "Namespace", false, List.of("ns"), "status"),
      ResourceType.builtIn("", "v1", "secrets", "Secret", true, List.of()),
      ResourceType.builtIn("", "v1", "configmaps", "ConfigMap", true, List.of("cm")),
      ResourceType.builtIn("", "v1", "events", "Event", true, List.of("ev")),
      ResourceType.builtIn("", "v1", "serviceaccounts", "ServiceAccount", true, List.of("sa"), "token"),
      ResourceType.builtIn("", "v1", "services", "Service", true, List.of("svc"), "status"),
      ResourceType.builtIn("", "v1", "pods", "Pod", true, List.of("po"), "status"),
      ResourceType.builtIn("apps", "v1", "deployments", "Deployment", true, List.of("deploy"), "status", "scale"),
      ResourceType.builtIn("apps", "v1", "replicasets", "ReplicaSet", true, List.of("rs"), "status", "scale"),
      ResourceType.builtIn("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, List.of("pdb"),
          "status"),
      ResourceType.builtIn("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true,
          List.of("hpa"), "status"),
      ResourceType.builtIn("coordination.k8s.io", "v1", "leases", "Lease", true, List.of()),
      ResourceType.builtIn(RBAC, "v1", "roles", "Role", true, List.of()),
      ResourceType.builtIn(RBAC, "v1", "rolebindings", "RoleBinding", true, List.of()),
      ResourceType.builtIn(RBAC, "v1", "clusterroles", "ClusterRole", false, List.of()),
      ResourceType.builtIn(RBAC, "v1", "clusterrolebindings", "ClusterRoleBinding", false, List.of()),
      ResourceType.review("authentication.k8s.io", "tokenreviews", "TokenReview", false),
      ResourceType.review("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false),
      ResourceType.review("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false),
      ResourceType.review("authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", true),
      ResourceType.builtIn("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
          false, List.of("crd", "crds"), "status"));

  private final Supplier<List<JsonNode>> crds;

  KnownResources(Supplier<List<JsonNode>> crds) {
    this.crds = crds;
  }

  List<ResourceType> all() {
    List<ResourceType> all = new ArrayList<>(BUILT_IN);
    for (JsonNode crd : crds.get()) {
      all.addAll(ResourceType.fromCrd(crd));
    }
    return all;
  }

  /** Groups in the order discovery lists them: core first, then as registered. */
  List<String> groups() {
    Set<String> groups = new LinkedHashSet<>();
    all().forEach(t -> groups.add(t.group()));
    return new ArrayList<>(groups);
  }

  List<ResourceType> inGroupVersion(String group, String version) {
    return all().stream().filter(t -> t.group().equals(group) && t.version().equals(version)).toList();
  }

  Optional<ResourceType> find(String group, String version, String plural) {
    return all().stream()
        .filter(t -> t.group().equals(group) && t.version().equals(version) && t.plural().equals(plural))
        .findFirst();
  }

  Optional<ResourceType> findKind(String apiVersion, String kind) {
    return all().stream().filter(t -> t.groupVersion().equals(apiVersion) && t.kind().equals(kind)).findFirst();
  }
}
