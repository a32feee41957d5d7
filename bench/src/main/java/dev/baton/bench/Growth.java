package dev.baton.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.httpapi.ApiPaths;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cost of growth: the step loop and the periodic queries on empty tables, then with a million finished
 * instances (with their steps, bulk-loaded with {@code generate_series}, not through
 * the engine), then while the retention purge deletes them.
 */
final class Growth {

  private static final Logger LOG = LoggerFactory.getLogger(Growth.class);

  /** The queries the runtime runs periodically (metrics, consumers) and the API's reads. */
  private static final String[][] QUERIES = {
      {"GROUP BY over every instance (the former periodic count)",
          "SELECT namespace, workflow, status, count(*) AS n FROM workflow_instance GROUP BY namespace, workflow, status"},
      {"countByStatus now (fold the change log, read the totals; metrics, /api/v1/counts)",
          "WITH moved AS (DELETE FROM instance_count_change RETURNING namespace, workflow, status, delta)"
              + " INSERT INTO instance_count AS t (namespace, workflow, status, n)"
              + " SELECT namespace, workflow, status, sum(delta) FROM moved GROUP BY namespace, workflow, status"
              + " ON CONFLICT (namespace, workflow, status) DO UPDATE SET n = t.n + EXCLUDED.n;"
              + " SELECT namespace, workflow, status, n FROM instance_count WHERE n <> 0"},
      {"workflows with unfinished instances", "SELECT DISTINCT workflow FROM workflow_instance WHERE finished_at IS NULL"},
      {"outbox backlog",
          "SELECT count(*) AS n, coalesce(extract(epoch FROM now() - min(created_at)), 0) AS age FROM outbox"},
      {"timer sweep (nothing due)", "SELECT instance_id FROM instance_step WHERE deadline <= now()"
          + " GROUP BY instance_id ORDER BY min(deadline) LIMIT 100"},
      // The search (GET /api/v1/instances) as InstanceStore.search writes it: a page of 51 (50 and one more).
      {"search: newest of every Workflow (a page)", "SELECT id, business_key, status, created_at"
          + " FROM workflow_instance ORDER BY created_at DESC, id DESC LIMIT 51"},
      {"search: failed at a step with a code, last 24 h (a page)", "SELECT id, business_key, status, created_at"
          + " FROM workflow_instance WHERE status = 'FAILED' AND (last_error->>'step' = 'charge'"
          + " OR current_step_name = 'charge') AND last_error IS NOT NULL AND last_error->>'errorCode' = 'CARD_DECLINED'"
          + " AND created_at >= now() - interval '24 hours' ORDER BY created_at DESC, id DESC LIMIT 51"},
      {"search: a business key prefix (a page)", "SELECT id, business_key, status, created_at FROM workflow_instance"
          + " WHERE business_key LIKE 'old-12%' ORDER BY created_at DESC, id DESC LIMIT 51"},
  };

  record Timing(String what, double avgMs, double maxMs) {}

  record Result(long rows, double loadSeconds, String tableSizes, double emptyStepsPerSecond,
      double grownStepsPerSecond, double purgingStepsPerSecond, double purgedInstancesPerSecond,
      long purgedDuringDrain, List<Timing> emptyQueries, List<Timing> grownQueries) {

    String markdown() {
      StringBuilder md = new StringBuilder("### Cost of growth\n\n");
      md.append(String.format(Locale.ROOT, "%,d finished instances bulk-loaded (with their "
          + "steps) in %.0f s; %s.%n%n", rows, loadSeconds, tableSizes));
      md.append("| step loop at saturation | steps/s | vs empty |\n|---|---|---|\n");
      md.append(String.format(Locale.ROOT, "| empty tables | %,.0f | 1.00 |%n", emptyStepsPerSecond));
      md.append(String.format(Locale.ROOT, "| %,d finished instances | %,.0f | %.2f |%n", rows, grownStepsPerSecond,
          grownStepsPerSecond / emptyStepsPerSecond));
      md.append(String.format(Locale.ROOT, "| while the retention purge deletes them (%,.0f instances/s purged) "
          + "| %,.0f | %.2f |%n", purgedInstancesPerSecond, purgingStepsPerSecond,
          purgingStepsPerSecond / emptyStepsPerSecond));
      md.append("\n| periodic query / API read | empty: avg / max ms | ").append(String.format(Locale.ROOT, "%,d", rows))
          .append(" finished: avg / max ms |\n|---|---|---|\n");
      for (int i = 0; i < grownQueries.size(); i++) {
        Timing e = emptyQueries.get(i);
        Timing g = grownQueries.get(i);
        md.append(String.format(Locale.ROOT, "| %s | %.1f / %.1f | %.1f / %.1f |%n", g.what(), e.avgMs(),
            e.maxMs(), g.avgMs(), g.maxMs()));
      }
      return md.toString();
    }

    ObjectNode json() {
      ObjectNode o = Json.PRETTY.createObjectNode();
      o.put("rows", rows);
      Report.num(o, "loadSeconds", loadSeconds);
      o.put("tableSizes", tableSizes);
      Report.num(o, "emptyStepsPerSecond", emptyStepsPerSecond);
      Report.num(o, "grownStepsPerSecond", grownStepsPerSecond);
      Report.num(o, "purgingStepsPerSecond", purgingStepsPerSecond);
      Report.num(o, "purgedInstancesPerSecond", purgedInstancesPerSecond);
      o.put("purgedDuringDrain", purgedDuringDrain);
      ArrayNode q = o.putArray("queries");
      for (int i = 0; i < grownQueries.size(); i++) {
        ObjectNode t = q.addObject();
        t.put("what", grownQueries.get(i).what());
        Report.num(t, "emptyAvgMs", emptyQueries.get(i).avgMs());
        Report.num(t, "emptyMaxMs", emptyQueries.get(i).maxMs());
        Report.num(t, "grownAvgMs", grownQueries.get(i).avgMs());
        Report.num(t, "grownMaxMs", grownQueries.get(i).maxMs());
      }
      return o;
    }
  }

  private Growth() {}

  static Result run(BenchConfig config, int rows) throws Exception {
    try (Stack stack = Stack.create(config, "bench-growth"); BatonRun baton = new BatonRun(stack)) {
      baton.startRuntime();
      baton.warmUp(BenchMain.WARM_UP);
      baton.settleJit(BenchMain.JIT_SETTLE); // the first stack of this JVM only
      BatonRun.Drain empty = baton.drain(config.instances());
      List<Timing> emptyQueries = timings(stack);

      long t0 = System.nanoTime();
      load(stack, rows);
      double loadSeconds = (System.nanoTime() - t0) / 1e9;
      String sizes = sizes(stack);
      LOG.info("growth: loaded {} finished instances in {} s ({})", rows, BatonRun.fmt(loadSeconds), sizes);
      List<Timing> grownQueries = timings(stack);
      BatonRun.Drain grown = baton.drain(config.instances());

      // The purge: the runtime's own retention job, every second instead of every 10 minutes.
      stack.stopWorkers();
      stack.runtime.close();
      // Counted before the restart: a small table is purged entirely within the warm-up.
      String old = "SELECT count(*) FROM workflow_instance WHERE business_key LIKE 'old-%'";
      long before = stack.count(old);
      long p0 = System.nanoTime();
      baton.startRuntime(stack.runtimeSettings().toBuilder().retentionInterval(Duration.ofSeconds(1)).build());
      baton.warmUp(BenchMain.WARM_UP);
      // Measure while the purge is at work: wait for its first deletions (it runs a second after the start).
      long waitUntil = p0 + TimeUnit.SECONDS.toNanos(30);
      while (stack.count(old) == before && System.nanoTime() < waitUntil) {
        Thread.sleep(100);
      }
      BatonRun.Drain purging = baton.drain(config.instances());
      double purgeSeconds = (System.nanoTime() - p0) / 1e9;
      long after = stack.count(old);
      long purged = before - after;
      LOG.info("growth: {} steps/s empty, {} with {} rows, {} while purging ({} instances purged in {} s)",
          BatonRun.fmt(empty.stepsPerSecond()), BatonRun.fmt(grown.stepsPerSecond()), rows,
          BatonRun.fmt(purging.stepsPerSecond()), purged, BatonRun.fmt(purgeSeconds));
      return new Result(rows, loadSeconds, sizes, empty.stepsPerSecond(), grown.stepsPerSecond(),
          purging.stepsPerSecond(), purged / purgeSeconds, purged, emptyQueries, grownQueries);
    }
  }

  /** Finished instances far past the default retention (7 days), each with its steps. */
  private static void load(Stack stack, int rows) throws SQLException {
    int steps = stack.config.steps();
    try (Connection c = stack.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      int revision;
      try (ResultSet rs = s.executeQuery("SELECT max(revision) FROM workflow_definition WHERE name = '"
          + Stack.WORKFLOW + "'")) {
        rs.next();
        revision = rs.getInt(1);
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO workflow_instance (id, namespace, workflow,"
          + " revision, business_key, status, phase, current_step_name, attempt,"
          + " step_started_at, input, created_at, updated_at, finished_at, last_error)"
          + " SELECT gen_random_uuid(), ?, ?, ?, 'old-' || g, CASE WHEN g % 50 = 0 THEN 'FAILED' ELSE 'SUCCEEDED' END,"
          + " 'FORWARD', ?, 1, t, ?::jsonb, t - interval '1 second', t, t,"
          // the failed ones with a last error, as the search by step and code finds them
          + " CASE WHEN g % 50 = 0 THEN '{\"step\": \"charge\", \"errorCode\": \"CARD_DECLINED\"}'::jsonb END"
          + " FROM (SELECT g, now() - interval '8 days' - g * interval '500 milliseconds' AS t"
          + " FROM generate_series(1, ?) g) x")) {
        ps.setString(1, Stack.NS);
        ps.setString(2, Stack.WORKFLOW);
        ps.setInt(3, revision);
        ps.setString(4, "s" + (steps - 1));
        ps.setString(5, stack.config.input(0));
        ps.setInt(6, rows);
        ps.executeUpdate();
      }
      s.executeUpdate("INSERT INTO instance_step (instance_id, name, kind, attempt, status, action,"
          + " command_message_id, finish_seq, result_message_id, started_at, finished_at, output)"
          + " SELECT i.id, 's' || k, 'task', 1, 'SUCCEEDED', 'step' || k, gen_random_uuid(), k + 1,"
          + " gen_random_uuid()::text, i.created_at, i.finished_at, 'null'::jsonb"
          + " FROM workflow_instance i CROSS JOIN generate_series(0, " + (steps - 1)
          + ") k WHERE i.business_key LIKE 'old-%'");
      c.commit();
    }
    try (Connection c = stack.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute("VACUUM ANALYZE"); // what autovacuum does to a table that grew over months
    }
  }

  private static String sizes(Stack stack) throws SQLException {
    try (Connection c = stack.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) FROM pg_class WHERE relname IN"
            + " ('workflow_instance', 'instance_step') ORDER BY relname")) {
      List<String> parts = new ArrayList<>();
      while (rs.next()) {
        parts.add(rs.getString(1) + " " + rs.getString(2));
      }
      return String.join(", ", parts);
    }
  }

  private static List<Timing> timings(Stack stack) throws Exception {
    List<Timing> result = new ArrayList<>();
    try (Connection c = stack.connect()) {
      for (String[] q : QUERIES) {
        result.add(time(q[0], () -> {
          try (Statement s = c.createStatement()) {
            boolean results = s.execute(q[1]);
            while (true) {
              if (results) {
                try (ResultSet rs = s.getResultSet()) {
                  while (rs.next()) {
                    // read it all, as the runtime does
                  }
                }
              } else if (s.getUpdateCount() == -1) {
                break;
              }
              results = s.getMoreResults();
            }
          }
        }));
      }
    }
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + stack.runtime.httpPort();
    String[][] reads = {
        {"GET /api/v1/counts", ApiPaths.COUNTS},
        {"GET instances?limit=50 (newest first)", ApiPaths.instances(Stack.NS, Stack.WORKFLOW, null, null, 50)},
        {"GET instances?status=FAILED&limit=50", ApiPaths.instances(Stack.NS, Stack.WORKFLOW, "FAILED", null, 50)},
        {"GET /metrics", ApiPaths.METRICS}};
    for (String[] r : reads) {
      result.add(time(r[0], () -> {
        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(base + r[1])).build(),
            HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
          throw new IllegalStateException(r[1] + " answered " + resp.statusCode());
        }
      }));
    }
    return result;
  }

  @FunctionalInterface
  private interface Work {
    void run() throws Exception;
  }

  private static Timing time(String what, Work work) throws Exception {
    work.run(); // warm: plans, caches
    double total = 0;
    double max = 0;
    int n = 5;
    for (int i = 0; i < n; i++) {
      long t = System.nanoTime();
      work.run();
      double ms = (System.nanoTime() - t) / 1e6;
      total += ms;
      max = Math.max(max, ms);
    }
    return new Timing(what, total / n, max);
  }
}
