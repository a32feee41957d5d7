package dev.baton.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.InstanceStore.StatusCount;
import io.javalin.http.Context;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code GET /api/v1/counts}: instances per workflow and status, for the operator's live columns in
 * {@code kubectl get workflows}. Served from the periodically refreshed counts, so polling it never loads the
 * database. {@code running} includes COMPENSATING.
 */
final class CountsRoute {

  private final RuntimeMetrics metrics;

  CountsRoute(RuntimeMetrics metrics) {
    this.metrics = metrics;
  }

  void counts(Context ctx) {
    Map<String, ObjectNode> byWorkflow = new TreeMap<>();
    for (StatusCount c : metrics.lastInstanceCounts()) {
      ObjectNode row = byWorkflow.computeIfAbsent(c.namespace() + "/" + c.workflow(), k -> emptyRow(c));
      String field = switch (c.status()) {
        case "RUNNING", "COMPENSATING" -> "running";
        case "SUCCEEDED" -> "succeeded";
        case "FAILED" -> "failed";
        case "COMPENSATED" -> "compensated";
        case "CANCELLED" -> "cancelled";
        default -> null;
      };
      if (field != null) {
        row.put(field, row.path(field).asLong() + c.count());
      }
    }
    ObjectNode body = Json.object();
    ArrayNode items = body.putArray("items");
    byWorkflow.values().forEach(items::add);
    InstanceRoutes.respond(ctx, 200, body);
  }

  private static ObjectNode emptyRow(StatusCount c) {
    ObjectNode row = Json.object();
    row.put("namespace", c.namespace());
    row.put("workflow", c.workflow());
    for (String f : new String[] {"running", "succeeded", "failed", "compensated", "cancelled"}) {
      row.put(f, 0L);
    }
    return row;
  }
}
