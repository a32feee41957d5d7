package dev.baton.runtime.http;

import dev.baton.httpapi.CountsResponse.WorkflowCounts;
import dev.baton.httpapi.CountsResponse;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.InstanceStore.StatusCount;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
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
    InstanceRoutes.respond(ctx, 200, new CountsResponse(byWorkflow(metrics.lastInstanceCounts())));
  }

  /** The counts of each Workflow, by namespace and name. */
  static List<WorkflowCounts> byWorkflow(List<StatusCount> counts) {
    Map<String, long[]> byWorkflow = new TreeMap<>();
    Map<String, StatusCount> names = new TreeMap<>();
    for (StatusCount c : counts) {
      String key = c.namespace() + "/" + c.workflow();
      names.putIfAbsent(key, c);
      long[] row = byWorkflow.computeIfAbsent(key, k -> new long[5]);
      int column = switch (c.status()) {
        case "RUNNING", "COMPENSATING" -> 0;
        case "SUCCEEDED" -> 1;
        case "FAILED" -> 2;
        case "COMPENSATED" -> 3;
        case "CANCELLED" -> 4;
        default -> -1;
      };
      if (column >= 0) {
        row[column] += c.count();
      }
    }
    List<WorkflowCounts> items = new ArrayList<>(byWorkflow.size());
    byWorkflow.forEach((key, r) -> items.add(new WorkflowCounts(names.get(key).namespace(), names.get(key).workflow(),
        r[0], r[1], r[2], r[3], r[4])));
    return items;
  }
}
