package dev.baton.runtime.http;

import dev.baton.httpapi.RoutesResponse;
import dev.baton.runtime.definitions.RouteTable;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /api/v1/routes}: per Workflow, the revisions with unfinished instances and the result bindings they
 * need ({@code exchange}, {@code routingKey}; the queue is always {@code q.orchestrator.W}), from the periodic
 * refresh of {@link RouteTable}. A Workflow without unfinished instances is not listed. 503 until the first refresh:
 * the operator must not take "not known yet" for "no routes".
 */
final class RoutesRoute {

  private final RouteTable table;

  RoutesRoute(RouteTable table) {
    this.table = table;
  }

  void routes(Context ctx) {
    List<RouteTable.Routes> routes = table.current().orElseThrow(() -> ApiError.unavailable(
        "the result routes have not been read from the database yet"));
    List<RoutesResponse.WorkflowRoutes> items = new ArrayList<>(routes.size());
    for (RouteTable.Routes r : routes) {
      items.add(new RoutesResponse.WorkflowRoutes(r.namespace(), r.workflow(), List.copyOf(r.revisions()),
          r.bindings().stream().map(b -> new RoutesResponse.Binding(b.exchange(), b.routingKey())).toList()));
    }
    InstanceRoutes.respond(ctx, 200, new RoutesResponse(items));
  }
}
