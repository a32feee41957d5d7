package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.NS;
import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.it.RuntimeHarness.Response;
import dev.baton.runtime.it.TestWorker.Reply;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The maintained instance counts (V2: totals plus a change log written by triggers) always equal a GROUP BY over
 * the instances, through starts, ends, failures, cancels, retries and the retention purge; and the newest-first
 * listing without a status (one ordered scan per status, merged) lists what a plain ORDER BY would.
 */
class CountsAndListingIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("counts");
    h.startRuntime();
    WorkflowSpec orders = spec("order", step("reserve", "cnt-inventory", "reserve", null),
        step("charge", "cnt-payment", "pay", null));
    orders.setOnFailure(OnFailure.Stop);
    h.apply("orders", orders);
    h.worker()
        .serve("q.cnt-inventory.reserve", "cnt-inventory", "reserve",
            c -> c.body().path("input").path("hold").asBoolean() ? Reply.HOLD : Reply.success(null))
        .serve("q.cnt-payment.pay", "cnt-payment", "pay",
            c -> c.body().path("input").path("fail").asBoolean() ? Reply.failed("NO", "declined") : Reply.success(null));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void countsFollowEveryChangeAndListingIsNewestFirst() throws Exception {
    List<UUID> succeeded = new ArrayList<>();
    List<UUID> failed = new ArrayList<>();
    List<UUID> held = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      succeeded.add(start("ok-" + i, "{}"));
      failed.add(start("fail-" + i, "{\"fail\": true}"));
      held.add(start("hold-" + i, "{\"hold\": true}"));
    }
    succeeded.forEach(id -> h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20)));
    failed.forEach(id -> h.awaitStatus(id, "FAILED", Duration.ofSeconds(20)));
    assertThat(h.post("/api/v1/instances/" + held.get(0) + "/cancel", "").status()).isEqualTo(200);
    assertThat(h.post("/api/v1/instances/" + failed.get(0) + "/retry", "").status()).isEqualTo(200);
    h.awaitStatus(failed.get(0), "FAILED", Duration.ofSeconds(20));
    awaitCountsMatchTheTable();

    // Newest first without a status: the same rows as a plain ORDER BY over every status.
    for (int limit : new int[] {1, 5, 50}) {
      Response r = h.get("/api/v1/namespaces/" + NS + "/workflows/orders/instances?limit=" + limit);
      assertThat(r.status()).isEqualTo(200);
      List<String> listed = new ArrayList<>();
      r.json().get("items").forEach(i -> listed.add(i.get("id").asText()));
      List<String> expected = new ArrayList<>();
      try (java.sql.Connection c = h.database.connect(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT id FROM workflow_instance WHERE namespace = '" + NS
              + "' AND workflow = 'orders' ORDER BY created_at DESC, id LIMIT " + limit)) {
        while (rs.next()) {
          expected.add(rs.getString(1));
        }
      }
      assertThat(listed).isEqualTo(expected);
    }

    // The retention purge (1 s here, after a restart) deletes the finished ones: the totals follow.
    h.stopRuntime();
    h.startRuntime(h.settings().toBuilder().retention(Duration.ofSeconds(1)).retentionInterval(Duration.ofSeconds(1))
        .build());
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() ->
        h.count("SELECT count(*) FROM workflow_instance WHERE finished_at IS NOT NULL") == 0);
    awaitCountsMatchTheTable();
  }

  private static UUID start(String key, String input) {
    Response r = h.start("orders", key, input);
    assertThat(r.status()).as(r.text()).isEqualTo(201);
    return UUID.fromString(r.json().get("id").asText());
  }

  /** /api/v1/counts (refreshed every second here) against a GROUP BY over the table. */
  private static void awaitCountsMatchTheTable() {
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
      Map<String, Long> table = new TreeMap<>();
      try (java.sql.Connection c = h.database.connect(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT status, count(*) FROM workflow_instance WHERE workflow = 'orders'"
              + " GROUP BY status")) {
        while (rs.next()) {
          table.put(rs.getString(1).toLowerCase(java.util.Locale.ROOT), rs.getLong(2));
        }
      }
      Response counts = h.get("/api/v1/counts");
      assertThat(counts.status()).isEqualTo(200);
      Map<String, Long> api = new TreeMap<>();
      for (JsonNode item : counts.json().get("items")) {
        if (item.get("workflow").asText().equals("orders")) {
          for (String status : new String[] {"running", "succeeded", "failed", "compensated", "cancelled"}) {
            long n = item.path(status).asLong();
            if (n != 0) {
              api.put(status, n);
            }
          }
        }
      }
      Map<String, Long> expected = new TreeMap<>(table);
      expected.remove("compensating"); // not one of the API's columns
      assertThat(api).isEqualTo(expected);
    });
  }
}
