package dev.baton.runtime.http.auth;

/**
 * What a route needs, before the request's own values are filled in: a verb on one of Baton's RBAC resources, in the
 * namespace of what the request names ({@link Scope}).
 */
public record AccessRule(String verb, Resource resource, Scope scope) {

  /** The RBAC resources access to instances and dead letters is asked about (group {@value AccessRequest#GROUP}). */
  public enum Resource {
    /** Instances of a Workflow: {@code workflows/instances}. */
    INSTANCES("workflows", "instances"),
    /** A WorkerService's dead letters: {@code workerservices/deadletters}. */
    DEAD_LETTERS("workerservices", "deadletters");

    private final String resource;
    private final String subresource;

    Resource(String resource, String subresource) {
      this.resource = resource;
      this.subresource = subresource;
    }

    public String resource() {
      return resource;
    }

    public String subresource() {
      return subresource;
    }
  }

  /** Where the namespace (and the object's name) comes from. */
  public enum Scope {
    /** The path's {@code {ns}} and {@code {name}}: a Workflow. */
    WORKFLOW,
    /** The Workflow of the instance the path's {@code {id}} names. */
    INSTANCE,
    /** Every namespace at once (the operator's reads). */
    CLUSTER,
    /** The WorkerService that owns the dead-letter queue the form names (cluster-wide when none is found). */
    SERVICE,
    /** Each namespace the page shows: the page asks per namespace and shows what the answers allow. */
    EACH_NAMESPACE,
    /**
     * The query's {@code namespace} and {@code workflow} (a search): that namespace, or every namespace when the
     * search names none.
     */
    QUERY
  }

  /** The question for one namespace and object ({@code ""}: cluster-wide; {@code name} null: any). */
  public AccessRequest in(String namespace, String name) {
    return new AccessRequest(verb, AccessRequest.GROUP, resource.resource(), resource.subresource(), namespace, name);
  }
}
