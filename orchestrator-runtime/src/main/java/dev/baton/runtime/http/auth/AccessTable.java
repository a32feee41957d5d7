package dev.baton.runtime.http.auth;

import dev.baton.httpapi.ApiPaths;
import dev.baton.runtime.http.auth.AccessRule.Resource;
import dev.baton.runtime.http.auth.AccessRule.Scope;
import java.util.Map;
import java.util.Optional;

/**
 * Who may call what, route by route (docs/design.md#security): the one table from an HTTP method and a route
 * template (as the router matched it, so the table and the router can never read a path differently) to what the
 * request needs in Kubernetes RBAC. Pure: resolving the namespace of an instance or a service is the
 * {@link AccessGate}'s.
 *
 * <p>Reads are {@code get} (one instance) and {@code list} (a Workflow's instances; a search, in the namespace it
 * names or cluster-wide; the operator's counts and routes, cluster-wide), a start is {@code create} (single or batch), a signal or retry {@code update}, a cancel
 * {@code delete}, all on {@code workflows/instances}; replaying dead letters is {@code create} on
 * {@code workerservices/deadletters}. {@code whoami} needs a valid token only. Probes, {@code /metrics} and the
 * OpenAPI document are open;
 * the UI's sign-in pages and assets too.
 * A route that is not in the table is refused: a new route has to say what it needs.
 */
public final class AccessTable {

  /** What a route needs. */
  public sealed interface Need {
    /** Nothing: no token is asked for. */
    record Open() implements Need {}

    /** A caller whose token is valid, whatever RBAC says: asking who one is. */
    record SignedIn() implements Need {}

    /** A caller whose token is valid and whom RBAC allows the rule. */
    record Allowed(AccessRule rule) implements Need {}

    /** A route the table does not know: refused, whoever asks. */
    record Unlisted(String route) implements Need {}
  }

  private static final Need OPEN = new Need.Open();

  private static final Map<String, Need> ROUTES = Map.ofEntries(
      allowed("POST", ApiPaths.INSTANCES, "create", Resource.INSTANCES, Scope.WORKFLOW),
      allowed("POST", ApiPaths.BATCH, "create", Resource.INSTANCES, Scope.WORKFLOW),
      allowed("GET", ApiPaths.INSTANCES, "list", Resource.INSTANCES, Scope.WORKFLOW),
      allowed("GET", ApiPaths.INSTANCE, "get", Resource.INSTANCES, Scope.INSTANCE),
      // Bulk operations: the verb is the action's, known once the body is read; the route asks RBAC for it.
      Map.entry("POST " + ApiPaths.OPERATIONS, new Need.SignedIn()),
      Map.entry("GET " + ApiPaths.OPERATION, new Need.SignedIn()),
      // A search lists instances in the namespace it names, or in every namespace when it names none.
      allowed("GET", ApiPaths.SEARCH, "list", Resource.INSTANCES, Scope.QUERY),
      allowed("POST", ApiPaths.CANCEL, "delete", Resource.INSTANCES, Scope.INSTANCE),
      allowed("POST", ApiPaths.RETRY, "update", Resource.INSTANCES, Scope.INSTANCE),
      allowed("POST", ApiPaths.SIGNAL, "update", Resource.INSTANCES, Scope.INSTANCE),
      // The operator's reads: every Workflow's counts and result routes (its ServiceAccount is granted them).
      allowed("GET", ApiPaths.COUNTS, "list", Resource.INSTANCES, Scope.CLUSTER),
      allowed("GET", ApiPaths.ROUTES, "list", Resource.INSTANCES, Scope.CLUSTER),
      // Who one is (baton login): any valid token, nothing asked of RBAC.
      Map.entry("GET " + ApiPaths.WHOAMI, new Need.SignedIn()),
      // Probes must answer the kubelet, which sends no token; /metrics stays as it is in token mode without a read
      // token: open to whoever reaches the port (a NetworkPolicy keeps it in).
      open("GET", ApiPaths.HEALTH),
      open("GET", ApiPaths.LIVE),
      open("GET", ApiPaths.METRICS),
      // The API's description: what it takes and answers, no data; tools (client generators) fetch it untokened.
      open("GET", ApiPaths.OPENAPI),
      // The web UI: its pages read and act as the API does.
      allowed("GET", "/ui/", "list", Resource.INSTANCES, Scope.EACH_NAMESPACE),
      allowed("GET", "/ui/workflows/{ns}/{name}", "list", Resource.INSTANCES, Scope.WORKFLOW),
      allowed("GET", "/ui/instances/{id}", "get", Resource.INSTANCES, Scope.INSTANCE),
      allowed("POST", "/ui/instances/{id}/cancel", "delete", Resource.INSTANCES, Scope.INSTANCE),
      allowed("POST", "/ui/instances/{id}/retry", "update", Resource.INSTANCES, Scope.INSTANCE),
      allowed("POST", "/ui/instances/{id}/signal", "update", Resource.INSTANCES, Scope.INSTANCE),
      // Bulk operations from the UI: as the API's, the verb is the action's (a count is a list, a cancel a delete, a
      // retry or signal an update, the progress page a get) where the filter points: asked by the page (WebUi).
      Map.entry("GET /ui/operations", new Need.SignedIn()), // lists those whose page the viewer may see
      Map.entry("GET /ui/operations/new", new Need.SignedIn()),
      Map.entry("GET /ui/operations/confirm", new Need.SignedIn()),
      Map.entry("POST /ui/operations", new Need.SignedIn()),
      Map.entry("GET /ui/operations/{id}", new Need.SignedIn()),
      allowed("GET", "/ui/dead-letters", "list", Resource.DEAD_LETTERS, Scope.EACH_NAMESPACE),
      allowed("POST", "/ui/dead-letters/replay", "create", Resource.DEAD_LETTERS, Scope.SERVICE),
      // Signing in and out, and the stylesheet and script: before anyone is known.
      open("GET", "/ui/login"),
      open("POST", "/ui/login"),
      open("POST", "/ui/logout"),
      open("GET", "/ui/assets/{file}"));

  private AccessTable() {}

  /**
   * What a request to {@code route} (the router's template, e.g. {@code /api/v1/instances/{id}/cancel}) with
   * {@code method} needs. HEAD is a GET without its body.
   */
  public static Need need(String method, String route) {
    String m = "HEAD".equals(method) ? "GET" : method;
    return Optional.ofNullable(ROUTES.get(m + " " + route)).orElseGet(() -> new Need.Unlisted(m + " " + route));
  }

  private static Map.Entry<String, Need> allowed(String method, String route, String verb, Resource resource,
      Scope scope) {
    return Map.entry(method + " " + route, new Need.Allowed(new AccessRule(verb, resource, scope)));
  }

  private static Map.Entry<String, Need> open(String method, String route) {
    return Map.entry(method + " " + route, OPEN);
  }
}
