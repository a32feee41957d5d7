package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One kind the dev API serves, as discovery describes it.
 *
 * @param group API group, empty for core
 * @param version API version
 * @param plural resource name in paths, e.g. {@code workflows}
 * @param singular singular name, e.g. {@code workflow}
 * @param kind e.g. {@code Workflow}
 * @param namespaced whether objects live in a namespace
 * @param shortNames e.g. {@code wf}
 * @param categories e.g. {@code all}
 * @param subresources {@code status}, {@code scale}, {@code token}
 * @param crd the CustomResourceDefinition this comes from, null for built-in kinds
 * @param verbs what discovery says may be done with it
 */
record ResourceType(String group, String version, String plural, String singular, String kind, boolean namespaced,
    List<String> shortNames, List<String> categories, List<String> subresources, JsonNode crd, List<String> verbs) {

  static final List<String> VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  static ResourceType builtIn(String group, String version, String plural, String kind, boolean namespaced,
      List<String> shortNames, String... subresources) {
    return new ResourceType(group, version, plural, kind.toLowerCase(), kind, namespaced, shortNames, List.of(),
        List.of(subresources), null, VERBS);
  }

  /** A kind that is only ever created and answered, never stored: TokenReview, SubjectAccessReview. */
  static ResourceType review(String group, String plural, String kind, boolean namespaced) {
    return new ResourceType(group, "v1", plural, kind.toLowerCase(), kind, namespaced, List.of(), List.of(),
        List.of(), null, List.of("create"));
  }

  /** The served versions of a CustomResourceDefinition (apiextensions.k8s.io/v1). */
  static List<ResourceType> fromCrd(JsonNode crd) {
    JsonNode spec = crd.path("spec");
    JsonNode names = spec.path("names");
    List<ResourceType> types = new ArrayList<>();
    for (JsonNode v : spec.path("versions")) {
      if (!v.path("served").asBoolean(true)) {
        continue;
      }
      List<String> subresources = new ArrayList<>();
      v.path("subresources").fieldNames().forEachRemaining(subresources::add);
      types.add(new ResourceType(spec.path("group").asText(), v.path("name").asText(), names.path("plural").asText(),
          names.path("singular").asText(names.path("kind").asText().toLowerCase()), names.path("kind").asText(),
          !"Cluster".equals(spec.path("scope").asText()), strings(names.path("shortNames")),
          strings(names.path("categories")), subresources, crd, VERBS));
    }
    return types;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** The CRD's version entry for this type (printer columns, schema), or a missing node. */
  JsonNode crdVersion() {
    if (crd != null) {
      for (JsonNode v : crd.path("spec").path("versions")) {
        if (v.path("name").asText().equals(version)) {
          return v;
        }
      }
    }
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }
}
