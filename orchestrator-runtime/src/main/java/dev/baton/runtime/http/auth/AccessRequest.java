package dev.baton.runtime.http.auth;

/**
 * One question for Kubernetes RBAC: may the caller do {@code verb} on {@code group}'s {@code resource/subresource}
 * in {@code namespace} (empty: in every namespace, cluster-wide), for the object {@code name} (null: any)? The
 * resource attributes of a SubjectAccessReview, and the words of a 403.
 */
public record AccessRequest(String verb, String group, String resource, String subresource, String namespace,
    String name) {

  /** The API group of Baton's resources, whose RBAC rules decide. */
  public static final String GROUP = "baton.dev";

  public AccessRequest {
    namespace = namespace == null ? "" : namespace;
  }

  /** Whether the question is about every namespace at once. */
  public boolean clusterWide() {
    return namespace.isEmpty();
  }

  /** {@code workflows/instances}: the resource as a Role's rule names it. */
  public String resourcePath() {
    return subresource == null ? resource : resource + "/" + subresource;
  }

  /**
   * What a refusal says: {@code system:serviceaccount:team-b:ci may not create workflows/instances in namespace
   * team-a (Workflow order-fulfilment)}.
   */
  public String refusal(String user) {
    return user + " may not " + verb + " " + resourcePath()
        + (clusterWide() ? " in every namespace (cluster-wide)" : " in namespace " + namespace)
        + (name == null ? "" : " (" + kind() + " " + name + ")");
  }

  private String kind() {
    return switch (resource) {
      case "workflows" -> "Workflow";
      case "workerservices" -> "WorkerService";
      default -> resource;
    };
  }
}
