package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.json;
import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.Channel;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The map step over the real broker and database: iterations within their concurrency, output in item order,
 * compensation of the done iterations newest first, and a runtime killed with SIGKILL in the middle of a map of 1,000
 * items (every item done once). Each test has services of its own.
 */
class MapIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("map");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** prepare, then ship-one per item (compensate: unship), then notify; the services are named after {@code p}. */
  static String shipping(String p, int maxConcurrency, int tolerated) {
    return """
        {entity: order, steps: [
          {name: prepare, service: %1$s-s, command: prepare},
          {name: ship-items, map: {items: "input.items", maxConcurrency: %2$d, toleratedFailures: %3$d, steps: [
            {name: ship-one, service: %1$s-ship, command: ship, compensate: unship,
             input: {sku: "item.sku", index: "index"}}]}},
          {name: notify, service: %1$s-s, command: notify}]}
        """.formatted(p, maxConcurrency, tolerated);
  }

  static String items(int n) {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      items.add("{\"sku\": \"sku-" + i + "\"}");
    }
    return "{\"items\": [" + String.join(", ", items) + "]}";
  }

  static TestWorker shippingWorker(String p, TestWorker.Behaviour ship) {
    return h.worker()
        .serve("q." + p + "-s.prepare", p + "-s", "prepare", c -> Reply.success(json("{\"prepared\": true}")))
        .serve("q." + p + "-s.notify", p + "-s", "notify", c -> Reply.success(json("{}")))
        .serve("q." + p + "-ship.ship", p + "-ship", "ship", ship)
        .serve("q." + p + "-ship.unship", p + "-ship", "unship", c -> Reply.success(json("{}")));
  }

  /** The parcel of an item: its sku, answered by the worker. */
  static Reply parcel(TestWorker.Command c) {
    return Reply.success(json("{\"parcel\": \"" + c.body().at("/input/sku").asText() + "\"}"));
  }

  static UUID start(String workflow, String key, String input) {
    RuntimeHarness.Response r = h.start(workflow, key, input);
    assertThat(r.status()).as(r.text()).isEqualTo(201);
    return UUID.fromString(r.json().get("id").asText());
  }

  @Test
  void eachItemIsShippedOnceAtMostTwoAtATimeAndTheOutputFollowsTheItemsOrder() throws Exception {
    h.startRuntime();
    try {
      h.apply("mapped", yaml(shipping("mp", 2, 0)));
      TestWorker w = shippingWorker("mp", c -> Reply.HOLD);
      UUID id = start("mapped", "mp-1", items(5));

      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(w.heldCount()).as(() -> h.instance(id).toPrettyString()).isEqualTo(2));
      // The gauges count the iterations in flight at their step (one series whatever the number of items) and the
      // map once, as any group in flight.
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(h.runtime.metrics().scrape())
          .contains("baton_steps_running{step=\"ship-one\",workflow=\"mapped\",workflow_namespace=\"default\"} 2.0")
          .contains("baton_steps_running{step=\"ship-items\",workflow=\"mapped\",workflow_namespace=\"default\"} 1.0")
          .doesNotContain("ship-one[").doesNotContain("ship-items["));
      JsonNode running = h.instance(id);
      assertThat(StepKindsIT.step(running, "ship-items").get("itemCount").asInt()).isEqualTo(5);
      assertThat(StepKindsIT.step(running, "ship-one[1]").get("parent").asText()).isEqualTo("ship-items[1]");
      // Answer the held ones, one at a time and last first: never more than two in flight.
      for (int answered = 0; answered < 5; answered++) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
            assertThat(w.heldCount()).as(() -> h.instance(id).toPrettyString()).isGreaterThanOrEqualTo(1));
        assertThat(w.heldCount()).isLessThanOrEqualTo(2);
        w.releaseLast(MapIT::parcel);
      }

      JsonNode done = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
      assertThat(done.at("/outputs/ship-items")).isEqualTo(json("[{\"parcel\": \"sku-0\"}, {\"parcel\": \"sku-1\"},"
          + " {\"parcel\": \"sku-2\"}, {\"parcel\": \"sku-3\"}, {\"parcel\": \"sku-4\"}]"));
      assertThat(done.get("outputs").has("ship-one[0]")).isFalse();
      List<String> sent = w.received().stream().filter(c -> c.command().equals("ship")).map(TestWorker.Command::step)
          .sorted().toList();
      assertThat(sent).containsExactly("ship-one[0]", "ship-one[1]", "ship-one[2]", "ship-one[3]", "ship-one[4]");
      TestWorker.Command third = w.received().stream().filter(c -> "ship-one[2]".equals(c.step())).findFirst()
          .orElseThrow();
      assertThat(third.body().get("input")).isEqualTo(json("{\"sku\": \"sku-2\", \"index\": 2}"));
      assertThat(third.body().get("step").asText()).isEqualTo("ship-one[2]");
      assertThat(w.ledger()).allSatisfy((k, v) -> assertThat(v).as(k).isEqualTo(1));
      // The latencies of the results too: one series per step of the definition, none per item.
      assertThat(h.runtime.metrics().scrape()).contains("step=\"ship-one\"").doesNotContain("ship-one[");
    } finally {
      h.stopRuntime();
    }
  }

  @Test
  void anItemThatFailsPastTheToleranceUndoesTheShippedItemsNewestFirst() throws Exception {
    h.startRuntime();
    try {
      h.apply("unshipped", yaml(shipping("un", 1, 0)));
      // One at a time, so the order of completion is the items' order; the third item fails.
      TestWorker w = shippingWorker("un", c -> c.body().at("/input/index").asInt() == 2
          ? Reply.failed("OUT_OF_STOCK", "no stock for " + c.body().at("/input/sku").asText()) : parcel(c));
      UUID id = start("unshipped", "un-1", items(4));

      JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(30));
      assertThat(i.at("/lastError/step").asText()).isEqualTo("ship-one[2]");
      assertThat(i.at("/lastError/errorCode").asText()).isEqualTo("OUT_OF_STOCK");
      assertThat(StepKindsIT.step(i, "ship-items").get("status").asText()).isEqualTo("FAILED");
      assertThat(i.get("steps").findValuesAsText("name")).doesNotContain("ship-items[3]", "ship-one[3]");
      List<String> undone = w.received().stream().filter(c -> c.command().equals("unship"))
          .map(TestWorker.Command::step).toList();
      assertThat(undone).containsExactly("ship-one[1]", "ship-one[0]"); // a compensation names the step it undoes
    } finally {
      h.stopRuntime();
    }
  }

  @Test
  void killedInTheMiddleOfAMapOf1000ItemsEveryItemIsShippedOnce() throws Exception {
    int items = 1_000;
    h.apply("bulk", yaml("""
        {entity: order, steps: [
          {name: ship-all, map: {items: "input.items", maxConcurrency: 100, steps: [
            {name: ship-each, service: bk-ship, command: ship, input: {sku: "item.sku"}}]}},
          {name: close, service: bk-ship, command: close}]}
        """));
    Process first = h.launch("map-runtime-1");
    UUID id = start("bulk", "bk-1", items(items));
    TestWorker w = h.worker()
        .serve("q.bk-ship.ship", "bk-ship", "ship", MapIT::parcel)
        .serve("q.bk-ship.close", "bk-ship", "close", c -> Reply.success(json("{}")));
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20)).until(() ->
        h.count("SELECT count(*) FROM instance_step WHERE kind = 'task' AND status = 'SUCCEEDED'"
            + " AND instance_id = '" + id + "'") >= 300);
    first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful close
    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
    long shippedAtKill = h.count("SELECT count(*) FROM instance_step WHERE kind = 'task' AND status = 'SUCCEEDED'"
        + " AND instance_id = '" + id + "'");
    System.out.printf("MAP killed with %d of %d items shipped%n", shippedAtKill, items);
    assertThat(shippedAtKill).as("killed in the middle").isLessThan(items);

    Process second = h.launch("map-runtime-2");
    try {
      long t0 = System.nanoTime();
      JsonNode done = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(240));
      System.out.printf("MAP all %d items shipped %.1f s after the restart%n", items, (System.nanoTime() - t0) / 1e9);

      JsonNode output = done.at("/outputs/ship-all");
      assertThat(output.size()).isEqualTo(items);
      for (int i = 0; i < items; i++) {
        assertThat(output.get(i).get("parcel").asText()).isEqualTo("sku-" + i);
      }
      Map<String, Integer> ledger = w.ledger();
      assertThat(ledger.keySet().stream().filter(k -> k.contains("|ship-each["))).hasSize(items);
      assertThat(ledger).allSatisfy((key, count) -> assertThat(count).as("effects of " + key).isEqualTo(1));
      assertThat(h.count("SELECT count(*) FROM instance_step WHERE kind = 'task' AND instance_id = '" + id + "'"))
          .as("one attempt per item, and close").isEqualTo(items + 1L);
      try (Channel ch = h.amqp.createChannel()) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
          assertThat(h.count("SELECT count(*) FROM outbox")).isZero();
          assertThat(ch.messageCount("q.bk-ship.ship")).isZero();
          assertThat(ch.messageCount("q.orchestrator.bulk")).isZero();
        });
      }
    } finally {
      second.destroy();
      if (!second.waitFor(30, TimeUnit.SECONDS)) {
        second.destroyForcibly();
      }
    }
  }
}
