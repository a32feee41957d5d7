package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.runtime.app.BatonRuntime;
import dev.baton.runtime.it.TestWorker.Reply;
import dev.baton.sandbox.LocalServices;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;

/**
 * The web UI in a real headless Chromium (Debian's), against the real runtime, broker and database: what a person
 * sees and clicks. Every test leaves a screenshot in {@code target/ui-screenshots/}.
 */
class WebUiBrowserIT {

  static final Duration WITHIN = Duration.ofSeconds(30);
  static RuntimeHarness h;
  static TestWorker worker;
  static String ui;
  /** Business keys whose packing fails (the ui-retry workflow stops at a failure: FAILED, for the retry button). */
  static final Set<String> REFUSE_PACKING = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("webui");
    BatonRuntime runtime = h.startRuntime(h.settings().toBuilder()
        .management(LocalServices.RABBITMQ_MANAGEMENT_URL, LocalServices.RABBITMQ_USERNAME,
            LocalServices.RABBITMQ_PASSWORD)
        .traceUrl("http://traces.example/trace/{traceId}")
        .build());
    ui = "http://127.0.0.1:" + runtime.httpPort() + "/ui/";
    // a shop whose shipping refuses orders keyed "refuse-*" and keeps "hold-*" waiting
    h.apply("ui-shop", spec("order",
        step("reserve-stock", "ui-inventory", "reserve", "release"),
        step("charge", "ui-payment", "pay", "refund"),
        step("ship", "ui-shipping", "ship", null)));
    worker = h.worker()
        .serve("q.ui-inventory.reserve", "ui-inventory", "reserve", c -> Reply.success(out("reserved", true)))
        .serve("q.ui-inventory.release", "ui-inventory", "release", c -> Reply.success(out("released", true)))
        .serve("q.ui-payment.pay", "ui-payment", "pay", c -> Reply.success(out("paid", 42)))
        .serve("q.ui-payment.refund", "ui-payment", "refund", c -> Reply.success(out("refunded", 42)))
        .serve("q.ui-shipping.ship", "ui-shipping", "ship", c -> {
          String key = c.body().path("businessKey").asText();
          return key.startsWith("refuse") ? Reply.failed("NO_PARCELS", "no parcels left today")
              : key.startsWith("hold") ? Reply.HOLD : Reply.success(out("tracking", "TRK-1"));
        });
    WorkflowSpec stopping = spec("parcel",
        step("weigh", "ui-warehouse", "weigh", null),
        step("pack", "ui-warehouse", "pack", null));
    stopping.setOnFailure(OnFailure.Stop);
    h.apply("ui-retry", stopping);
    worker
        .serve("q.ui-warehouse.weigh", "ui-warehouse", "weigh", c -> Reply.success(out("grams", 1200)))
        .serve("q.ui-warehouse.pack", "ui-warehouse", "pack", c ->
            REFUSE_PACKING.contains(c.body().path("businessKey").asText())
                ? Reply.failed("NO_BOXES", "out of boxes") : Reply.success(out("box", "B-7")));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static com.fasterxml.jackson.databind.JsonNode out(String field, Object value) {
    return RuntimeHarness.JSON.valueToTree(Map.of(field, value));
  }

  @Test
  void theWorkflowsPageShowsLiveCountsAndWhereInstancesWaitWithoutReloading() throws Exception {
    for (int i = 0; i < 3; i++) {
      h.awaitStatus(h.startOk("ui-shop", "counts-ok-" + i), "SUCCEEDED", WITHIN);
    }
    h.startOk("ui-shop", "hold-counts-1");
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui);
      WebElement row = b.driver.findElement(By.cssSelector("tr[data-workflow='ui-shop']"));
      ((JavascriptExecutor) b.driver).executeScript("window.notReloaded = true;");
      await().atMost(WITHIN).untilAsserted(() -> {
        assertThat(count(b, "SUCCEEDED")).isGreaterThanOrEqualTo(3);
        assertThat(atStep(b, "ship")).isGreaterThanOrEqualTo(1);
      });
      long succeeded = count(b, "SUCCEEDED");
      h.awaitStatus(h.startOk("ui-shop", "counts-ok-late"), "SUCCEEDED", WITHIN);
      await().atMost(WITHIN).untilAsserted(() -> assertThat(count(b, "SUCCEEDED")).isEqualTo(succeeded + 1));
      assertThat(((JavascriptExecutor) b.driver).executeScript("return window.notReloaded === true;"))
          .as("the counts changed without a full reload").isEqualTo(true);
      assertThat(row.getText()).contains("ui-shop").contains("reserve-stock").contains("charge").contains("ship");
      assertThat(b.text()).contains("oldest");
      b.screenshot("workflows");

      b.driver.findElement(By.cssSelector("tr[data-workflow='ui-shop'] a")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().contains("/ui/workflows/default/ui-shop"));
      assertThat(b.driver.findElements(By.cssSelector("#instances tbody tr"))).hasSizeGreaterThanOrEqualTo(5);
      b.driver.get(ui + "workflows/default/ui-shop?status=RUNNING");
      assertThat(b.driver.findElement(By.id("instances")).getText()).contains("hold-counts-1")
          .doesNotContain("counts-ok-0");
      b.screenshot("instances");

      // keyset pages of 3: every instance once, newest first, as the database orders them
      List<String> shown = new java.util.ArrayList<>();
      b.driver.get(ui + "workflows/default/ui-shop?limit=3");
      while (true) {
        b.driver.findElements(By.cssSelector("#instances tbody tr td:first-child a"))
            .forEach(a -> shown.add(a.getText()));
        List<WebElement> older = b.driver.findElements(By.id("older"));
        if (older.isEmpty()) {
          break;
        }
        assertThat(older.get(0).getAttribute("href")).contains("after=").contains("limit=3");
        WebElement link = older.get(0);
        link.click();
        await().atMost(WITHIN).until(() -> gone(link)); // the next page has replaced this one
      }
      assertThat(String.join(",", shown)).isEqualTo(h.scalar("SELECT string_agg(business_key, ',' ORDER BY"
          + " created_at DESC, id DESC) FROM workflow_instance WHERE workflow = 'ui-shop'"));
    }
    try (Browser phone = Browser.phone()) {
      phone.driver.get(ui);
      assertThat(phone.text()).contains("ui-shop").contains("reserve-stock");
      assertNoSidewaysScroll(phone);
      phone.fullPage("workflows-phone");
      phone.driver.get(ui + "workflows/default/ui-shop");
      assertThat(phone.text()).contains("hold-counts-1");
      assertNoSidewaysScroll(phone);
      phone.fullPage("instances-phone");
    }
  }

  @Test
  void theWorkflowsPageCountsInstancesAsOfNowNotAsOfTheLastMetricsRefresh() throws Exception {
    // a runtime whose metrics snapshot is an hour old: the page must not show that snapshot's counts
    try (BatonRuntime slow = BatonRuntime.start(h.settings().toBuilder().metricsRefreshInterval(Duration.ofHours(1))
        .build(), h.client)) {
      String base = "http://127.0.0.1:" + slow.httpPort() + "/ui/";
      UUID id = h.startOk("ui-shop", "hold-now-1");
      await().atMost(WITHIN).until(() -> "ship".equals(h.scalar(
          "SELECT current_step_name FROM workflow_instance WHERE id = '" + id + "'")));
      long running = h.count("SELECT count(*) FROM workflow_instance WHERE workflow = 'ui-shop'"
          + " AND status = 'RUNNING'");
      long succeeded = h.count("SELECT count(*) FROM workflow_instance WHERE workflow = 'ui-shop'"
          + " AND status = 'SUCCEEDED'");
      try (Browser b = Browser.laptop()) {
        b.driver.get(base);
        assertThat(count(b, "RUNNING")).as("RUNNING as in the database now").isEqualTo(running);
        assertThat(count(b, "SUCCEEDED")).isEqualTo(succeeded);
        long atSteps = b.driver.findElements(By.cssSelector("tr[data-workflow='ui-shop'] li[data-step] .n")).stream()
            .mapToLong(e -> Long.parseLong(e.getText().trim())).sum();
        assertThat(atStep(b, "ship")).isGreaterThanOrEqualTo(1);
        assertThat(atSteps).as("no more instances at steps than running").isLessThanOrEqualTo(running);
      }
    }
  }

  @Test
  void thePageMarksAPausedWorkflowItsNextFireAndTheStepsWaitingForCapacity() throws Exception {
    h.applyService("ui-capped", false, RuntimeHarness.command("call", 1));
    h.apply("ui-capped", spec("call", step("call", "ui-capped", "call", null)));
    h.apply("ui-paused", yaml("{entity: call, paused: true, schedules: [{name: hourly, every: 1h}],"
        + " steps: [{name: call, service: ui-capped, command: call}]}"));
    worker.serve("q.ui-capped.call", "ui-capped", "call", c -> Reply.HOLD); // held for good: the test's instances stay
    await().atMost(WITHIN).until(() -> h.count("SELECT count(*) FROM command_limit WHERE service = 'ui-capped'") == 1
        && h.count("SELECT count(*) FROM dispatch_pause WHERE name = 'ui-paused'") == 1);
    for (int i = 0; i < 3; i++) {
      h.startOk("ui-capped", "capped-" + i);
    }
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui);
      assertThat(b.driver.findElement(By.cssSelector("tr[data-workflow='ui-paused'] [data-paused='true']")).getText())
          .isEqualTo("paused");
      assertThat(b.driver.findElements(By.cssSelector("tr[data-workflow='ui-capped'] [data-paused]"))).isEmpty();
      // Its schedule's next fire, as the runtime's scheduler has it (a look a second).
      await().atMost(WITHIN).untilAsserted(() -> assertThat(b.driver.findElement(By.cssSelector(
          "tr[data-workflow='ui-paused'] [data-next-fire]")).getText()).startsWith("next: hourly at "));
      // One call out (the limit), two waiting their turn: the live board says so without a reload.
      await().atMost(WITHIN).untilAsserted(() -> assertThat(b.driver.findElement(By.cssSelector(
          "tr[data-workflow='ui-capped'] li[data-step='call'] [data-waiting-capacity]")).getText())
          .isEqualTo("2 waiting for capacity"));
      b.screenshot("workflows-paused-and-capped");
    }
  }

  @Test
  void uiWithoutTheTrailingSlashIsTheWorkflowsPageToo() throws Exception {
    // Javalin ignores trailing slashes: /ui is the route /ui/, not a 404 (and the guard treats both as the UI)
    RuntimeHarness.Response r = h.get("/ui");
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    assertThat(r.text()).contains("<h1>Workflows</h1>").contains("ui-shop");
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui.substring(0, ui.length() - 1));
      assertThat(b.driver.findElement(By.tagName("h1")).getText()).isEqualTo("Workflows");
      awaitText(b, "ui-shop");
      b.driver.findElement(By.cssSelector("tr[data-workflow='ui-shop'] a")).click(); // its links lead on
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/workflows/default/ui-shop"));
    }
  }

  @Test
  void retryingAFailedInstanceFromThePageSendsTheStepAgainAndItSucceeds() throws Exception {
    REFUSE_PACKING.add("retry-1");
    UUID id = h.startOk("ui-retry", "retry-1");
    h.awaitStatus(id, "FAILED", WITHIN);
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + id);
      assertThat(b.driver.findElement(By.id("instance-status")).getText()).contains("FAILED");
      assertThat(stepStatus(b, "weigh")).isEqualTo("SUCCEEDED");
      assertThat(stepStatus(b, "pack")).isEqualTo("FAILED");
      assertThat(b.driver.findElement(By.id("steps")).getText()).contains("NO_BOXES: out of boxes");
      assertThat(b.driver.findElements(By.id("cancel"))).isEmpty(); // not running: nothing to cancel
      assertThat(b.driver.findElement(By.id("retry")).getText()).isEqualTo("Retry pack");
      assertThat(b.driver.findElement(By.id("last-error")).getText()).isEqualTo("pack: NO_BOXES: out of boxes");
      b.screenshot("instance-failed");

      REFUSE_PACKING.remove("retry-1"); // the boxes have come
      b.driver.findElement(By.id("retry")).click();
      b.driver.switchTo().alert().accept();
      awaitText(b, "Sent again");
      h.awaitStatus(id, "SUCCEEDED", WITHIN);
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> {
        assertThat(b.driver.findElement(By.id("instance-status")).getText()).contains("SUCCEEDED");
        assertThat(stepStatus(b, "pack")).isEqualTo("SUCCEEDED");
      });
      assertThat(b.driver.findElements(By.id("retry"))).isEmpty();
      assertThat(b.text()).contains("Earlier error").doesNotContain("Last error"); // it succeeded since
      assertThat(b.driver.findElement(By.id("last-error")).getAttribute("class")).doesNotContain("status-failed");
      com.fasterxml.jackson.databind.JsonNode steps = h.instance(id).get("steps");
      assertThat(steps.get(steps.size() - 1).get("name").asText()).isEqualTo("pack");
      assertThat(steps.get(steps.size() - 1).get("attempt").asInt()).isEqualTo(2); // the same step, sent again
      b.driver.findElement(By.cssSelector("#out-step-pack summary")).click();
      assertThat(b.driver.findElement(By.cssSelector("#out-step-pack pre")).getText()).contains("\"B-7\"");
      b.screenshot("instance-retried-succeeded");
    }
  }

  @Test
  void aCompensatedInstanceShowsEveryStepAndCompensationWithItsStatus() throws Exception {
    UUID id = h.startOk("ui-shop", "refuse-1");
    h.awaitStatus(id, "COMPENSATED", WITHIN);
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + id);
      assertThat(b.driver.findElement(By.id("instance-status")).getText()).contains("COMPENSATED");
      assertThat(stepStatus(b, "reserve-stock")).isEqualTo("SUCCEEDED");
      assertThat(stepStatus(b, "charge")).isEqualTo("SUCCEEDED");
      assertThat(stepStatus(b, "ship")).isEqualTo("FAILED");
      assertThat(compensationStatus(b, "charge")).isEqualTo("SUCCEEDED");
      assertThat(compensationStatus(b, "reserve-stock")).isEqualTo("SUCCEEDED");
      String table = b.driver.findElement(By.id("steps")).getText();
      assertThat(table).contains("NO_PARCELS: no parcels left today").contains("refund").contains("release");
      // the picture: one box per step, in order, each saying its status and its compensation's
      List<WebElement> boxes = b.driver.findElements(By.cssSelector("svg.picture g.step"));
      assertThat(boxes).extracting(e -> e.getAttribute("data-step")).containsExactly("reserve-stock", "charge",
          "ship");
      assertThat(b.driver.findElement(By.cssSelector("svg.picture g.step[data-step='charge']")).getText())
          .contains("SUCCEEDED").contains("refund SUCCEEDED");
      assertThat(b.driver.findElement(By.cssSelector("svg.picture g.step[data-step='ship']")).getAttribute("class"))
          .contains("status-failed");
      assertThat(b.driver.findElements(By.id("cancel"))).isEmpty(); // finished: nothing to cancel or retry
      String traceId = h.instance(id).get("traceId").asText();
      assertThat(b.driver.findElement(By.cssSelector("#trace a")).getAttribute("href"))
          .isEqualTo("http://traces.example/trace/" + traceId);
      b.driver.findElement(By.cssSelector("#out-step-charge summary")).click();
      assertThat(b.driver.findElement(By.cssSelector("#out-step-charge pre")).getText()).contains("\"paid\" : 42");
      b.screenshot("instance-compensated");
      b.fullPage("instance-compensated-full");
    }
    try (Browser phone = Browser.phone()) {
      phone.driver.get(ui + "instances/" + id);
      assertThat(phone.text()).contains("reserve-stock").contains("COMPENSATED");
      assertNoSidewaysScroll(phone);
      phone.fullPage("instance-compensated-phone");
    }
  }

  @Test
  void cancellingFromThePageStopsTheInstanceAndThePageFollows() throws Exception {
    UUID id = h.startOk("ui-shop", "hold-cancel-1");
    await().atMost(WITHIN).until(() -> "ship".equals(h.scalar(
        "SELECT current_step_name FROM workflow_instance WHERE id = '" + id + "'")));
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + id);
      assertThat(stepStatus(b, "ship")).isEqualTo("RUNNING");
      assertThat(b.driver.findElement(By.id("live")).getAttribute("data-live")).isNotNull();
      b.driver.findElement(By.id("cancel")).click();
      b.driver.switchTo().alert().accept();
      await().atMost(WITHIN).untilAsserted(() -> assertThat(h.status(id)).isEqualTo("CANCELLED"));
      awaitText(b, "Cancelled.");
      assertThat(b.driver.findElement(By.id("instance-status")).getText()).contains("CANCELLED");
      assertThat(stepStatus(b, "ship")).isEqualTo("CANCELLED");
      assertThat(b.driver.findElements(By.cssSelector("svg.picture g.step[data-step='ship'] text.error")))
          .as("a cancel is not drawn as a failure").isEmpty();
      assertThat(b.driver.findElements(By.id("cancel"))).isEmpty();
      assertThat(b.driver.findElement(By.cssSelector("#audit tr[data-action='cancel']")).getText())
          .as("the cancel is on the instance's actions, by whoever the open API knows").contains("anonymous");
      b.screenshot("instance-cancelled");
    }
  }

  @Test
  void cancellingWithCompensationAwaitsTheStepInFlightThenUndoesTheCompletedSteps() throws Exception {
    UUID id = h.startOk("ui-shop", "hold-cancel-compensate-1");
    await().atMost(WITHIN).until(() -> "ship".equals(h.scalar(
        "SELECT current_step_name FROM workflow_instance WHERE id = '" + id + "'")));
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + id);
      b.driver.findElement(By.id("cancel-compensate")).click();
      b.driver.findElement(By.id("cancel")).click();
      b.driver.switchTo().alert().accept();
      awaitText(b, "then the completed steps are compensated");
      // ship is at the worker and may still take effect: nothing is undone before it answers.
      assertThat(h.status(id)).isEqualTo("COMPENSATING");
      assertThat(stepStatus(b, "ship")).isEqualTo("RUNNING");

      TestWorker.Command ship = worker.received().stream()
          .filter(c -> c.instance().equals(id.toString()) && c.command().equals("ship")).findFirst().orElseThrow();
      worker.publishEvent(ship, "success", UUID.randomUUID().toString(), ship.attempt());
      await().atMost(WITHIN).untilAsserted(() -> assertThat(h.status(id)).isEqualTo("CANCELLED"));
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> {
        assertThat(b.driver.findElement(By.id("instance-status")).getText()).contains("CANCELLED");
        assertThat(compensationStatus(b, "charge")).isEqualTo("SUCCEEDED");
        assertThat(compensationStatus(b, "reserve-stock")).isEqualTo("SUCCEEDED");
      });
      b.screenshot("instance-cancelled-compensated");
    }
  }

  @Test
  void aSignalSentFromThePageMovesAWaitingInstanceOnAndThePictureShowsBranchesAndTheCaseTaken() throws Exception {
    h.apply("ui-approval", RuntimeHarness.yaml(StepKindsIT.order("ua", "1s"))); // one step of each kind
    h.worker()
        .serve("q.ua-inv.reserve", "ua-inv", "reserve", c -> Reply.success(out("reserved", 1)))
        .serve("q.ua-inv.release", "ua-inv", "release", c -> Reply.success(out("released", 1)))
        .serve("q.ua-risk.score", "ua-risk", "score", c -> Reply.success(out("score", 95)))
        .serve("q.ua-pay.authorize", "ua-pay", "authorize", c -> Reply.success(out("auth", "A1")))
        .serve("q.ua-pay.void", "ua-pay", "void", c -> Reply.success(out("voided", 1)))
        .serve("q.ua-pay.note", "ua-pay", "note", c -> Reply.success(out("noted", true)))
        .serve("q.ua-ship.ship", "ua-ship", "ship", c -> Reply.success(out("tracking", "T1")));
    RuntimeHarness.Response started = h.start("ui-approval", "approve-1", "{\"amount\": 50, \"address\": \"1 Main\"}");
    assertThat(started.status()).as(started.text()).isEqualTo(201);
    UUID id = UUID.fromString(started.json().get("id").asText());
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + id);
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> assertThat(stepStatus(b, "approval"))
          .isEqualTo("RUNNING")); // the live refresh brings the wait in
      // the picture: the parallel group's branches side by side, the choice's first case taken, otherwise dimmed
      WebElement fraud = b.driver.findElement(By.cssSelector("svg.picture g.step[data-step='fraud'] rect"));
      WebElement authorize = b.driver.findElement(By.cssSelector("svg.picture g.step[data-step='authorize'] rect"));
      assertThat(fraud.getAttribute("y")).isEqualTo(authorize.getAttribute("y"));
      assertThat(fraud.getAttribute("x")).isNotEqualTo(authorize.getAttribute("x"));
      assertThat(b.driver.findElements(By.cssSelector("svg.picture g.branch.taken"))).hasSize(1);
      assertThat(b.driver.findElement(By.cssSelector("svg.picture g.branch.taken")).getText())
          .contains("taken: when");
      assertThat(b.driver.findElement(By.cssSelector("svg.picture g.step[data-step='note']")).getAttribute("class"))
          .contains("status-skipped");
      assertThat(b.driver.findElement(By.cssSelector("svg.picture g.step[data-step='approval']")).getText())
          .contains("waits for signal approve");
      assertThat(b.driver.findElement(By.id("signal-name")).getAttribute("value")).isEqualTo("approve");
      b.fullPage("instance-waiting");

      WebElement body = b.driver.findElement(By.id("signal-body"));
      body.clear();
      body.sendKeys("{\"by\": \"ann\"}");
      b.driver.findElement(By.id("signal")).click();
      awaitText(b, "Signal sent.");
      h.awaitStatus(id, "SUCCEEDED", WITHIN);
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> {
        assertThat(b.driver.findElement(By.id("instance-status")).getText()).contains("SUCCEEDED");
        assertThat(stepStatus(b, "approval")).isEqualTo("SUCCEEDED");
        assertThat(stepStatus(b, "cool-off")).isEqualTo("SUCCEEDED");
        assertThat(stepStatus(b, "ship")).isEqualTo("SUCCEEDED");
      });
      b.driver.findElement(By.cssSelector("#out-step-approval summary")).click();
      assertThat(b.driver.findElement(By.cssSelector("#out-step-approval pre")).getText()).contains("\"ann\"");
      assertThat(b.driver.findElements(By.id("signal"))).isEmpty();
      b.fullPage("instance-signalled-succeeded");
    }
  }

  @Test
  void aSignalSentBeforeAnyWaitIsStoredForTheInstance() throws Exception {
    // a signal may come before its wait starts: it is stored (what the API's 202 means)
    UUID id = h.startOk("ui-shop", "hold-signal-1");
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + id);
      WebElement name = b.driver.findElement(By.id("signal-name"));
      name.clear();
      name.sendKeys("approve");
      WebElement body = b.driver.findElement(By.id("signal-body"));
      body.clear();
      body.sendKeys("{\"by\": \"ann\"");
      b.driver.findElement(By.id("signal")).click();
      awaitText(b, "not JSON"); // refused on the page, nothing stored
      assertThat(h.count("SELECT count(*) FROM instance_signal WHERE instance_id = '" + id + "'")).isZero();

      b.driver.findElement(By.id("signal-name")).clear();
      b.driver.findElement(By.id("signal-name")).sendKeys("approve");
      b.driver.findElement(By.id("signal-body")).clear();
      b.driver.findElement(By.id("signal-body")).sendKeys("{\"by\": \"ann\"}");
      b.driver.findElement(By.id("signal")).click();
      awaitText(b, "Signal sent.");
      assertThat(h.scalar("SELECT name || ' ' || (body->>'by') FROM instance_signal WHERE instance_id = '" + id
          + "'")).isEqualTo("approve ann");
      b.screenshot("instance-signalled");
    }
  }

  @Test
  void aFormFromAnotherPageIsRefused() {
    UUID id = h.startOk("ui-shop", "hold-forged-1");
    RuntimeHarness.Response r = h.post("/ui/instances/" + id + "/cancel", null);
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.text()).contains("another site");
  }

  @Test
  void replayingADeadLetterFromThePageSendsItBackToItsQueue() throws Exception {
    String dlq = Names.deadLetterQueue("ui-payment", "pay");
    try (Channel ch = h.amqp.createChannel()) {
      // the worker consumes q.ui-payment.pay: take the replayed command off it by a probe bound to the same key
      String probe = ch.queueDeclare("", false, true, true, null).getQueue();
      ch.queueBind(probe, Names.commandExchange("ui-payment"), Names.commandRoutingKey("ui-payment", "pay"));
      Map<String, Object> headers = new HashMap<>();
      headers.put(Headers.ORIGINAL_ROUTING_KEY, Names.commandRoutingKey("ui-payment", "pay"));
      headers.put(Headers.ORIGINAL_EXCHANGE, Names.commandExchange("ui-payment"));
      headers.put(Headers.EXCEPTION_TYPE, "java.net.ConnectException");
      headers.put(Headers.EXCEPTION_MESSAGE, "card processor unreachable");
      headers.put(Headers.INSTANCE, "6f1c2d3e-0000-4000-8000-000000000001");
      headers.put(Headers.STEP, "charge");
      headers.put(Headers.RETRIES, 3);
      ch.confirmSelect();
      park(ch, dlq, "dead-1", headers);

      try (Browser b = Browser.laptop()) {
        b.driver.get(ui + "dead-letters");
        await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> {
          b.driver.navigate().refresh();
          assertThat(b.driver.findElement(By.cssSelector("tr[data-message-id='dead-1']")).getText())
              .contains("service.ui-payment.pay").contains("card processor unreachable");
        });
        assertThat(b.text()).contains("java.net.ConnectException").contains(dlq).contains("ui-payment");
        b.screenshot("dead-letters");
        try (Browser phone = Browser.phone()) {
          phone.driver.get(ui + "dead-letters");
          assertThat(phone.text()).contains("card processor unreachable").contains("java.net.ConnectException");
          assertNoSidewaysScroll(phone);
          phone.fullPage("dead-letters-phone");
        }
        b.driver.findElement(By.cssSelector("button[data-replay='dead-1']")).click();
        awaitText(b, "Replayed 1 message from " + dlq);
        // the page counts what it found, not the management statistics of seconds ago (which still say 1)
        assertThat(b.driver.findElement(By.id("dead-letter-total")).getText()).isEqualTo("0 dead letters.");
        assertThat(b.driver.findElements(By.id("queue-" + dlq))).isEmpty();
        assertThat(b.driver.findElements(By.cssSelector("button[data-replay-all='" + dlq + "']"))).isEmpty();
        b.screenshot("dead-letters-replayed");

        park(ch, dlq, "dead-2", headers);
        park(ch, dlq, "dead-3", headers);
        await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> {
          b.driver.get(ui + "dead-letters?service=ui-payment");
          assertThat(b.driver.findElements(By.cssSelector("tr[data-message-id]"))).hasSize(2);
        });
        b.driver.findElement(By.cssSelector("button[data-replay-all='" + dlq + "']")).click();
        b.driver.switchTo().alert().accept();
        awaitText(b, "Replayed 2 messages from " + dlq);
      }
      List<String> replayed = new java.util.ArrayList<>();
      await().atMost(WITHIN).until(() -> {
        GetResponse r = ch.basicGet(probe, true);
        if (r != null) {
          assertThat(r.getProps().getHeaders()).containsEntry(Headers.RETRIES, 0)
              .doesNotContainKey(Headers.EXCEPTION_MESSAGE);
          replayed.add(r.getProps().getMessageId());
        }
        return replayed.size() == 3;
      });
      assertThat(replayed).containsExactly("dead-1", "dead-2", "dead-3");
      assertThat(ch.queueDeclarePassive(dlq).getMessageCount()).isZero();
    }
  }

  @Test
  void withATokenThePagesAskForItAndWorkOnceSignedIn() throws Exception {
    try (BatonRuntime secured = BatonRuntime.start(h.settings().toBuilder().apiToken("ui-secret-token-1")
        .apiReadToken("ui-read-token-1").build(), h.client)) {
      String base = "http://127.0.0.1:" + secured.httpPort() + "/ui/";
      UUID id = h.startOk("ui-shop", "hold-secured-1");
      try (Browser b = Browser.laptop()) {
        b.driver.get(base + "instances/" + id);
        assertThat(b.driver.getCurrentUrl()).contains("/ui/login");
        assertThat(b.text()).contains("Sign in").doesNotContain("hold-secured-1");
        b.screenshot("login");
        b.driver.findElement(By.id("token")).sendKeys("wrong-token");
        b.driver.findElement(By.id("sign-in")).click();
        awaitText(b, "not valid");

        b.driver.findElement(By.id("token")).sendKeys("ui-read-token-1");
        b.driver.findElement(By.id("sign-in")).click();
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/instances/" + id));
        awaitText(b, "signed in, read-only");
        assertThat(b.text()).contains("hold-secured-1");
        assertThat(b.driver.findElement(By.id("cancel")).isEnabled()).isFalse();
        b.driver.findElement(By.cssSelector("header form button")).click(); // sign out
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().contains("/ui/login"));

        b.driver.get(base + "instances/" + id);
        b.driver.findElement(By.id("token")).sendKeys("ui-secret-token-1");
        b.driver.findElement(By.id("sign-in")).click();
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/instances/" + id));
        b.driver.findElement(By.id("cancel")).click();
        b.driver.switchTo().alert().accept();
        await().atMost(WITHIN).untilAsserted(() -> assertThat(h.status(id)).isEqualTo("CANCELLED"));
        assertThat(h.instance(id).at("/audit/1/user").asText()).as("the full token's cancel, audited")
            .isEqualTo("static-token");
        Object cookie = ((JavascriptExecutor) b.driver).executeScript("return document.cookie;");
        assertThat(String.valueOf(cookie)).as("the session is HttpOnly").doesNotContain("baton-session");
        b.driver.get(base);
        awaitText(b, "ui-shop");
        b.screenshot("signed-in-workflows");
      }
      h.usePort(secured.httpPort());
      try {
        assertThat(h.get("/ui/").status()).isIn(303, 200); // the HTTP client follows no redirects: 303 to login
        assertThat(h.get("/api/v1/counts").status()).isEqualTo(401); // the API itself still wants the header
      } finally {
        h.usePort(h.runtime.httpPort());
      }
    }
  }

  @Test
  void aMapFoldsItsIterationsWithTheFailedOneFirst() throws Exception {
    // three items, the second refused by the warehouse: tolerated, so the instance carries on and succeeds
    h.apply("ui-map", RuntimeHarness.yaml("""
        {entity: order, steps: [
          {name: ship-items, map: {items: "input.items", toleratedFailures: 1, steps: [
            {name: ship-one, service: ui-map-ship, command: ship, input: {sku: "item.sku"}}]}}]}
        """));
    h.worker().serve("q.ui-map-ship.ship", "ui-map-ship", "ship", c -> "sku-1".equals(c.body().at("/input/sku")
        .asText()) ? Reply.failed("NO_PARCELS", "none left for sku-1") : Reply.success(out("parcel", "P")));
    RuntimeHarness.Response started = h.start("ui-map", "map-1",
        "{\"items\": [{\"sku\": \"sku-0\"}, {\"sku\": \"sku-1\"}, {\"sku\": \"sku-2\"}]}");
    assertThat(started.status()).as(started.text()).isEqualTo(201);
    UUID id = UUID.fromString(started.json().get("id").asText());
    h.awaitStatus(id, "SUCCEEDED", WITHIN);
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + id);
      assertThat(b.driver.findElement(By.cssSelector("#iterations-of-ship-items summary")).getText())
          .isEqualTo("Iterations: 3 items: 2 succeeded, 0 running, 1 failed, 0 not started");
      assertThat(b.driver.findElement(By.id("iterations-of-ship-items")).getAttribute("open"))
          .as("open: one failed").isNotNull();
      List<WebElement> listed = b.driver.findElements(By.cssSelector("#iterations-of-ship-items li[data-iteration]"));
      assertThat(listed).extracting(e -> e.getAttribute("data-iteration")).containsExactly("1", "0", "2");
      assertThat(listed.get(0).getAttribute("data-status")).isEqualTo("FAILED");
      assertThat(listed.get(0).getText()).contains("ship-one[1]").contains("NO_PARCELS: none left for sku-1");
      assertThat(b.driver.findElement(By.cssSelector("svg.picture g.group.map")).getText())
          .contains("3 items: 2 succeeded");
      b.fullPage("instance-map");
    }
  }

  @Test
  void aParentLinksToItsChildWhichLinksBack() throws Exception {
    h.apply("ui-invoicing", RuntimeHarness.yaml("{entity: invoice, steps: [{name: issue, service: ui-inv,"
        + " command: issue}]}"));
    h.apply("ui-ordering", RuntimeHarness.yaml("{entity: order, steps: [{name: invoice, workflow: ui-invoicing}]}"));
    h.worker().serve("q.ui-inv.issue", "ui-inv", "issue", c -> Reply.success(out("invoice", "INV-1")));
    UUID parent = h.startOk("ui-ordering", "child-1");
    com.fasterxml.jackson.databind.JsonNode done = h.awaitStatus(parent, "SUCCEEDED", WITHIN);
    String child = done.at("/children/0/id").asText();
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "instances/" + parent);
      WebElement link = b.driver.findElement(By.cssSelector("#child-invoice a"));
      assertThat(link.getText()).isEqualTo("ui-invoicing");
      link.click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/instances/" + child));
      WebElement up = b.driver.findElement(By.id("parent"));
      assertThat(up.getText()).contains("ui-ordering").contains("invoice").contains("SUCCEEDED");
      assertThat(b.driver.findElement(By.id("current-step")).getText()).contains("issue");
      b.screenshot("instance-child");
      b.driver.findElement(By.id("parent-link")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/instances/" + parent));
    }
  }

  @Test
  void aBulkRetryIsChosenByFilterConfirmedWithItsCountAndWatchedToTheEnd() throws Exception {
    List<UUID> failed = new java.util.ArrayList<>();
    for (String key : List.of("bulk-1", "bulk-2")) {
      REFUSE_PACKING.add(key);
      failed.add(h.startOk("ui-retry", key));
    }
    for (UUID id : failed) {
      h.awaitStatus(id, "FAILED", WITHIN);
    }
    try (Browser b = Browser.laptop()) {
      b.driver.get(ui + "workflows/default/ui-retry?status=FAILED");
      b.driver.findElement(By.id("act-on-these")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().contains("/ui/operations/new"));
      assertThat(b.driver.findElement(By.id("op-workflow")).getAttribute("value")).isEqualTo("ui-retry");
      assertThat(b.driver.findElement(By.id("op-status")).getAttribute("value")).isEqualTo("FAILED");
      assertThat(b.driver.findElement(By.id("op-action")).getAttribute("value")).isEqualTo("retry");
      b.driver.findElement(By.id("op-businessKeyPrefix")).sendKeys("bulk-"); // only this test's
      b.driver.findElement(By.id("count")).click();

      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> assertThat(b.driver.findElement(By.id("question"))
          .getText()).isEqualTo("Retry 2 instances of default/ui-retry (status FAILED, business key prefix \"bulk-\")?"));
      assertThat(b.driver.findElement(By.id("confirm")).getText()).isEqualTo("Retry 2 instances");
      b.screenshot("operation-confirm");
      REFUSE_PACKING.removeAll(List.of("bulk-1", "bulk-2")); // the boxes have come
      b.driver.findElement(By.id("confirm")).click();

      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().matches(".*/ui/operations/[0-9a-f-]{36}.*"));
      await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> {
        assertThat(b.driver.findElement(By.id("operation-state")).getText()).contains("DONE");
        assertThat(b.driver.findElement(By.id("operation-counts")).getText())
            .isEqualTo("2 of 2 (100 %): 2 done, 0 failed");
      });
      assertThat(b.driver.findElement(By.id("live")).getAttribute("data-live")).as("no longer refreshing").isNull();
      assertThat(b.driver.findElement(By.id("operation-progress")).getAttribute("value")).isEqualTo("2");
      b.screenshot("operation-done");
      String operation = b.driver.getCurrentUrl().replaceFirst(".*/ui/operations/([0-9a-f-]{36}).*", "$1");

      // the section's page lists the operations, the latest first, each with how far it got
      b.driver.findElement(By.cssSelector("nav a[aria-current='page']")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/operations"));
      WebElement row = b.driver.findElement(By.cssSelector("#operations tr[data-operation='" + operation + "']"));
      assertThat(row.getText()).contains("Retry of default/ui-retry", "DONE", "2 of 2");
      b.screenshot("operations-list");
      row.findElement(By.tagName("a")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/operations/" + operation));
      b.driver.navigate().back();
      b.driver.findElement(By.id("new-operation")).click();
      await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().endsWith("/ui/operations/new"));
    }
    for (UUID id : failed) {
      h.awaitStatus(id, "SUCCEEDED", WITHIN);
      assertThat(h.instance(id).get("audit").toString()).contains("bulk operation");
    }
  }

  @Test
  void behindAProxyThatServesItUnderAPathPrefixItsLinksFormsAndSignInStayUnderThePrefix() throws Exception {
    try (BatonRuntime secured = BatonRuntime.start(h.settings().toBuilder().apiToken("ui-prefix-token-1").build(),
        h.client); PrefixProxy proxy = new PrefixProxy("/teams/shop/baton", secured.httpPort())) {
      UUID id = h.startOk("ui-shop", "hold-prefix-1");
      String page = proxy.url("/ui/instances/" + id);
      try (Browser b = Browser.laptop()) {
        b.driver.get(page);
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().startsWith(proxy.url("/ui/login?next=")));
        b.driver.findElement(By.id("token")).sendKeys("ui-prefix-token-1");
        b.driver.findElement(By.id("sign-in")).click(); // the session cookie comes back through the prefix
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().equals(page));
        awaitText(b, "hold-prefix-1");
        Object rules = ((JavascriptExecutor) b.driver).executeScript(
            "return document.styleSheets.length ? document.styleSheets[0].cssRules.length : 0;");
        assertThat(((Number) rules).intValue()).as("the stylesheet came through the prefix").isPositive();
        Object pictureLink = ((JavascriptExecutor) b.driver).executeScript(
            "return new URL(document.querySelector('svg a').getAttribute('href'), document.baseURI).href;");
        assertThat(String.valueOf(pictureLink)).as("the picture's links stay on the instance's page")
            .startsWith(page + "#step-");
        b.screenshot("behind-a-prefix");

        b.driver.findElement(By.cssSelector("header a.brand")).click();
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().equals(proxy.url("/ui/")));
        awaitText(b, "ui-shop");
        b.driver.findElement(By.cssSelector("tr[data-workflow='ui-shop'] a")).click();
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl()
            .equals(proxy.url("/ui/workflows/default/ui-shop")));

        b.driver.get(page);
        b.driver.findElement(By.id("cancel")).click(); // a form: its CSRF token and the redirect after it
        b.driver.switchTo().alert().accept();
        await().atMost(WITHIN).untilAsserted(() -> assertThat(h.status(id)).isEqualTo("CANCELLED"));
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().startsWith(page + "?done="));

        b.driver.findElement(By.cssSelector("nav a[href='operations']")).click();
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().equals(proxy.url("/ui/operations")));
        assertThat(b.driver.findElement(By.tagName("h1")).getText()).isEqualTo("Bulk operations");

        b.driver.findElement(By.cssSelector("header form button")).click(); // sign out
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().startsWith(proxy.url("/ui/login")));
        b.driver.get(page);
        assertThat(b.driver.getCurrentUrl()).as("signed out").startsWith(proxy.url("/ui/login"));
      }
    }
  }

  /**
   * kubectl proxy's service proxy strips {@code /api/v1/namespaces/NS/services/NAME:PORT/proxy} and says nothing
   * about it (no X-Forwarded-Prefix): the cookies then have no Path, the browser scopes them to the UI's root as it
   * sees it, and signing in, a form on a deep page and signing out all work, starting from a deep link.
   */
  @Test
  void behindKubectlProxyWhichSaysNoPrefixTheSessionAndTheFormsStillWork() throws Exception {
    String prefix = "/api/v1/namespaces/baton-system/services/baton-runtime:8080/proxy";
    try (BatonRuntime secured = BatonRuntime.start(h.settings().toBuilder().apiToken("ui-kubectl-token-1").build(),
        h.client); PrefixProxy proxy = PrefixProxy.sayingNoPrefix(prefix, secured.httpPort())) {
      UUID id = h.startOk("ui-shop", "hold-kubectl-1");
      String page = proxy.url("/ui/instances/" + id);
      try (Browser b = Browser.laptop()) {
        b.driver.get(page);
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().startsWith(proxy.url("/ui/login?next=")));
        b.driver.findElement(By.id("token")).sendKeys("ui-kubectl-token-1");
        b.driver.findElement(By.id("sign-in")).click(); // the session cookie, without a Path, comes back
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().equals(page));
        awaitText(b, "hold-kubectl-1");

        b.driver.findElement(By.cssSelector("nav a[href='operations']")).click(); // another directory: still in
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().equals(proxy.url("/ui/operations")));
        assertThat(b.driver.findElement(By.tagName("h1")).getText()).isEqualTo("Bulk operations");

        b.driver.get(page);
        b.driver.findElement(By.id("cancel")).click(); // a form on a deep page: the CSRF cookie is the root's
        b.driver.switchTo().alert().accept();
        await().atMost(WITHIN).untilAsserted(() -> assertThat(h.status(id)).isEqualTo("CANCELLED"));
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().startsWith(page + "?done="));

        b.driver.findElement(By.cssSelector("header form button")).click(); // sign out, from a deep page
        await().atMost(WITHIN).until(() -> b.driver.getCurrentUrl().startsWith(proxy.url("/ui/login")));
        b.driver.get(page);
        assertThat(b.driver.getCurrentUrl()).as("signed out").startsWith(proxy.url("/ui/login"));
      }
    }
  }

  private static void park(Channel ch, String dlq, String messageId, Map<String, Object> headers) throws Exception {
    ch.basicPublish("", dlq, new AMQP.BasicProperties.Builder().messageId(messageId).headers(headers)
        .contentType("application/json").deliveryMode(2).timestamp(new java.util.Date()).build(),
        "{\"instanceId\":\"6f1c2d3e\"}".getBytes(StandardCharsets.UTF_8));
    ch.waitForConfirmsOrDie(10_000);
  }

  /** The page fits a phone's width: nothing sticks out sideways (long names wrap or scroll inside their box). */
  private static void assertNoSidewaysScroll(Browser phone) {
    long overflow = (Long) ((JavascriptExecutor) phone.driver).executeScript(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
    assertThat(overflow).as("no sideways scrolling on a phone at " + phone.driver.getCurrentUrl())
        .isLessThanOrEqualTo(0);
  }

  private static boolean gone(WebElement e) {
    try {
      e.isDisplayed();
      return false;
    } catch (org.openqa.selenium.StaleElementReferenceException stale) {
      return true;
    }
  }

  /** After a click: the next page may still be loading (its elements not yet there, or the old ones gone). */
  private static void awaitText(Browser b, String text) {
    await().atMost(WITHIN).ignoreExceptions().untilAsserted(() -> assertThat(b.text()).contains(text));
  }

  private static long count(Browser b, String status) {
    return Long.parseLong(b.driver.findElement(By.cssSelector(
        "tr[data-workflow='ui-shop'] .count[data-status='" + status + "'] b")).getText().trim());
  }

  private static long atStep(Browser b, String step) {
    return Long.parseLong(b.driver.findElement(By.cssSelector(
        "tr[data-workflow='ui-shop'] li[data-step='" + step + "'] .n")).getText().trim());
  }

  private static String stepStatus(Browser b, String step) {
    return b.driver.findElement(By.cssSelector("#steps tr[data-step='" + step + "']")).getAttribute("data-status");
  }

  private static String compensationStatus(Browser b, String step) {
    return b.driver.findElement(By.cssSelector("#steps tr[data-compensation='" + step + "']"))
        .getAttribute("data-status");
  }
}
