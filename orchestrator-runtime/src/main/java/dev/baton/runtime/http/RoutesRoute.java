package dev.baton.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.runtime.definitions.RouteTable;
import io.javalin.http.Context;
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
    ObjectNode body = Json.object();
    ArrayNode items = body.putArray("items");
    for (RouteTable.Routes r : routes) {
      ObjectNode item = items.addObject();
      item.put("namespace", r.namespace());
      item.put("workflow", r.workflow());
      ArrayNode revisions = item.putArray("revisions");
      r.revisions().forEach(revisions::add);
      ArrayNode bindings = item.putArray("bindings");
      for (BindingSpec b : r.bindings()) {
        bindings.addObject().put("exchange", b.exchange()).put("routingKey", b.routingKey());
      }
    }
    InstanceRoutes.respond(ctx, 200, body);
  }
}
