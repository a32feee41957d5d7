package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.json;
import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The search of instances ({@code GET /api/v1/instances}) over the real database: each filter, newest first, and
 * pages that neither repeat nor skip an instance while new ones start between them.
 */
class SearchIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("search");
    h.startRuntime();
    h.apply("pay", yaml("""
        {entity: order, onFailure: Stop, steps: [
          {name: reserve, service: se-stock, command: reserve},
          {name: charge, service: se-pay, command: charge}]}
        """));
    h.worker()
        .serve("q.se-stock.reserve", "se-stock", "reserve", c -> Reply.success(json("{}")))
        .serve("q.se-pay.charge", "se-pay", "charge", c -> switch (c.body().at("/input/card").asText()) {
          case "declined" -> Reply.failed("CARD_DECLINED", "the bank said no");
          case "expired" -> Reply.failed("CARD_EXPIRED", "the card has expired");
          default -> Reply.success(json("{\"paid\": true}"));
        });
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static JsonNode search(String query) {
    RuntimeHarness.Response r = h.get("/api/v1/instances" + query);
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    return r.json();
  }

  static List<String> keys(JsonNode page) {
    List<String> keys = new ArrayList<>();
    page.get("items").forEach(i -> keys.add(i.get("businessKey").asText()));
    return keys;
  }

  @Test
  void eachFilterFindsItsInstancesNewestFirst() {
    Instant before = Instant.now();
    for (int i = 0; i < 5; i++) {
      h.startOk("pay", "filter-ok-" + i); // no card: paid
    }
    List<String> declined = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String key = "f-declined-" + i;
      assertThat(h.start("pay", key, "{\"card\": \"declined\"}").status()).isEqualTo(201);
      declined.add(0, key);
    }
    assertThat(h.start("pay", "f-expired-0", "{\"card\": \"expired\"}").status()).isEqualTo(201);
    await().atMost(Duration.ofSeconds(20)).until(() ->
        h.count("SELECT count(*) FROM workflow_instance WHERE status = 'RUNNING'") == 0);

    JsonNode failed = search("?namespace=default&workflow=pay&step=charge&errorCode=CARD_DECLINED");
    assertThat(keys(failed)).containsExactlyElementsOf(declined);
    assertThat(failed.get("count").asInt()).isEqualTo(3);
    assertThat(failed.has("nextCursor")).isFalse();
    assertThat(failed.at("/items/0/lastError/errorCode").asText()).isEqualTo("CARD_DECLINED");
    assertThat(failed.at("/items/0").has("steps")).isFalse();

    assertThat(keys(search("?businessKeyPrefix=f-expired"))).containsExactly("f-expired-0");
    assertThat(keys(search("?status=failed&businessKeyPrefix=f-"))).hasSize(4);
    assertThat(keys(search("?status=SUCCEEDED&createdAfter=" + before + "&businessKeyPrefix=filter-")))
        .containsExactly("filter-ok-4", "filter-ok-3", "filter-ok-2", "filter-ok-1", "filter-ok-0");
    assertThat(keys(search("?createdBefore=" + before + "&businessKeyPrefix=f-"))).isEmpty();
    assertThat(keys(search("?namespace=elsewhere"))).isEmpty();
    // The prefix is a prefix, not a pattern: '_' and '%' stand for themselves.
    assertThat(keys(search("?businessKeyPrefix=f_"))).isEmpty();
  }

  @Test
  void pagesFollowTheCursorWithoutRepeatingOrSkippingWhileNewInstancesStart() {
    List<String> started = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      String key = "page-" + i;
      assertThat(h.start("pay", key, "{}").status()).isEqualTo(201);
      started.add(0, key);
    }
    List<String> seen = new ArrayList<>();
    JsonNode page = search("?businessKeyPrefix=page-&limit=5");
    seen.addAll(keys(page));
    int pages = 1;
    while (page.has("nextCursor")) {
      // New instances between the pages are newer than the cursor: never on a later page.
      assertThat(h.start("pay", "page-late-" + pages, "{}").status()).isEqualTo(201);
      page = search("?businessKeyPrefix=page-&limit=5&cursor=" + page.get("nextCursor").asText());
      seen.addAll(keys(page));
      pages++;
    }
    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactlyElementsOf(started);
  }

  @Test
  void aBadParameterIsA400NamingIt() {
    for (String[] bad : new String[][] {
        {"?status=LOST", "status 'LOST' is not one of"},
        {"?limit=0", "limit '0' must be a number from 1 to 500"},
        {"?createdAfter=yesterday", "createdAfter 'yesterday' is not an RFC 3339 time"},
        {"?cursor=abc", "cursor 'abc' is not one this API gave"},
        {"?errorcode=X", "unknown parameter 'errorcode'"}}) {
      RuntimeHarness.Response r = h.get("/api/v1/instances" + bad[0]);
      assertThat(r.status()).as(bad[0]).isEqualTo(400);
      assertThat(r.json().get("message").asText()).as(bad[0]).contains(bad[1]);
    }
  }
}
