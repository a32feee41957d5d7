package dev.baton.devapi.rbac;

/**
 * What a SubjectAccessReview asks about: a verb on a resource (group, resource, subresource, namespace, name;
 * namespace empty for cluster-wide), or a verb on a non-resource path such as {@code /healthz}.
 */
public record AccessRequest(String verb, String group, String resource, String subresource, String namespace,
    String name, String path) {

  public AccessRequest {
    verb = nullToEmpty(verb);
    group = nullToEmpty(group);
    resource = nullToEmpty(resource);
    subresource = nullToEmpty(subresource);
    namespace = nullToEmpty(namespace);
    name = nullToEmpty(name);
  }

  public static AccessRequest resource(String verb, String group, String resource, String subresource,
      String namespace, String name) {
    return new AccessRequest(verb, group, resource, subresource, namespace, name, null);
  }

  public static AccessRequest nonResource(String verb, String path) {
    return new AccessRequest(verb, "", "", "", "", "", path == null ? "" : path);
  }

  public boolean isResourceRequest() {
    return path == null;
  }

  /** {@code workflows/instances} as RBAC rules name it. */
  public String combinedResource() {
    return subresource.isEmpty() ? resource : resource + "/" + subresource;
  }

  /** For reasons: {@code "create" on "workflows/instances" in group "baton.dev" in namespace "team-a"}. */
  String describe() {
    if (!isResourceRequest()) {
      return "\"" + verb + "\" on path \"" + path + "\"";
    }
    return "\"" + verb + "\" on \"" + combinedResource() + "\"" + (name.isEmpty() ? "" : " \"" + name + "\"")
        + " in group \"" + group + "\"" + (namespace.isEmpty() ? " cluster-wide" : " in namespace \"" + namespace + "\"");
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
