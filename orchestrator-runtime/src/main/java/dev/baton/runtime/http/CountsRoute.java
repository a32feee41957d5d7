package dev.baton.runtime.http;

import dev.baton.httpapi.CountsResponse.WorkflowCounts;
import dev.baton.httpapi.CountsResponse;
import dev.baton.httpapi.CountsResponse.ScheduleReport;
import dev.baton.runtime.store.ScheduleStore;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.function.Supplier;
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
  private final Supplier<List<ScheduleStore.Row>> schedules;

  CountsRoute(RuntimeMetrics metrics, Supplier<List<ScheduleStore.Row>> schedules) {
    this.metrics = metrics;
    this.schedules = schedules;
  }

  void counts(Context ctx) {
    InstanceRoutes.respond(ctx, 200, new CountsResponse(byWorkflow(metrics.lastInstanceCounts(), schedules.get())));
  }

  /** The counts and schedules of each Workflow, by namespace and name. */
  static List<WorkflowCounts> byWorkflow(List<StatusCount> counts, List<ScheduleStore.Row> scheduleRows) {
    Map<String, long[]> byWorkflow = new TreeMap<>();
    Map<String, String[]> names = new TreeMap<>();
    Map<String, List<ScheduleReport>> reports = new TreeMap<>();
    for (ScheduleStore.Row row : scheduleRows) {
      String key = row.namespace() + "/" + row.workflow();
      names.putIfAbsent(key, new String[] {row.namespace(), row.workflow()});
      byWorkflow.computeIfAbsent(key, k -> new long[5]);
      // Before its first fire, a row's last fire is the moment a runtime first saw the schedule: not a fire to show.
      boolean fired = row.lastBusinessKey() != null || row.bufferedFire() != null || row.skipped() > 0
          || row.missed() > 0;
      reports.computeIfAbsent(key, k -> new ArrayList<>()).add(new ScheduleReport(row.schedule(),
          fired ? time(row.lastFire()) : null,
          time(row.nextFire()), row.lastBusinessKey(), time(row.bufferedFire())));
    }
    for (StatusCount c : counts) {
      String key = c.namespace() + "/" + c.workflow();
      names.putIfAbsent(key, new String[] {c.namespace(), c.workflow()});
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
    byWorkflow.forEach((key, r) -> items.add(new WorkflowCounts(names.get(key)[0], names.get(key)[1],
        r[0], r[1], r[2], r[3], r[4], reports.getOrDefault(key, List.of()).stream()
            .sorted(Comparator.comparing(ScheduleReport::name)).toList())));
    return items;
  }

  private static String time(Instant t) {
    return t == null ? null : DateTimeFormatter.ISO_INSTANT.format(t);
  }
}
