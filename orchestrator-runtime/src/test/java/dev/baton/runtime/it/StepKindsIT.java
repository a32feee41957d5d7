package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.json;
import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.TestWorker.Command;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The step kinds (docs/design.md#workflow-language) over the real broker and database, with the raw-AMQP worker:
 * parallel branches and their join, a failure in one branch while the other is in flight, choices (of one case and of
 * several), waits for signals (sent before and after the wait starts, and never), delays across a restart, mapped
 * inputs, duplicate events in a parallel group, and revisions pinned across a change of shape. Each test has services
 * of its own.
 */
class StepKindsIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("kinds");
    h.startRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** One step of each kind; the services are named after {@code p}. */
  static String order(String p, String delay) {
    return """
        {entity: order, steps: [
          {name: reserve, service: %1$s-inv, command: reserve, compensate: release},
          {name: checks, parallel: [
            {steps: [{name: fraud, service: %1$s-risk, command: score}]},
            {steps: [{name: authorize, service: %1$s-pay, command: authorize, compensate: void}]}]},
          {name: route, choice: [
            {when: "steps.fraud.output.score > 80 || input.amount > 1000",
             steps: [{name: approval, wait: {signal: approve, timeout: 1m}}]}],
           otherwise: [{name: note, service: %1$s-pay, command: note}]},
          {name: cool-off, delay: %2$s},
          {name: ship, service: %1$s-ship, command: ship,
           input: {address: "input.address", approvedBy: "has(steps.approval) ? steps.approval.output.by : 'auto'"}}]}
        """.formatted(p, delay);
  }

  /** Serves every command of {@link #order}: each answers with its own behaviour. */
  static TestWorker orderWorker(String p, TestWorker.Behaviour score, TestWorker.Behaviour authorize) {
    return h.worker()
        .serve("q." + p + "-inv.reserve", p + "-inv", "reserve", c -> Reply.success(json("{\"reserved\": 1}")))
        .serve("q." + p + "-inv.release", p + "-inv", "release", c -> Reply.success(json("{}")))
        .serve("q." + p + "-risk.score", p + "-risk", "score", score)
        .serve("q." + p + "-pay.authorize", p + "-pay", "authorize", authorize)
        .serve("q." + p + "-pay.void", p + "-pay", "void", c -> Reply.success(json("{}")))
        .serve("q." + p + "-pay.note", p + "-pay", "note", c -> Reply.success(json("{\"noted\": true}")))
        .serve("q." + p + "-ship.ship", p + "-ship", "ship", c -> Reply.success(json("{\"tracking\": \"T1\"}")));
  }

  static UUID start(String workflow, String key, String input) {
    RuntimeHarness.Response r = h.start(workflow, key, input);
    assertThat(r.status()).as(r.text()).isEqualTo(201);
    return UUID.fromString(r.json().get("id").asText());
  }

  static List<String> steps(JsonNode instance) {
    List<String> out = new ArrayList<>();
    instance.get("steps").forEach(s -> out.add(s.get("name").asText() + ":" + s.get("kind").asText() + ":"
        + (s.get("parent").isNull() ? "-" : s.get("parent").asText()) + ":" + s.get("status").asText()));
    return out;
  }

  static JsonNode step(JsonNode instance, String name) {
    for (JsonNode s : instance.get("steps")) {
      if (s.get("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no step " + name + " in " + instance);
  }

  static Command command(TestWorker w, UUID id, String command) {
    return w.received().stream().filter(c -> c.instance().equals(id.toString()) && c.command().equals(command))
        .findFirst().orElseThrow();
  }

  static List<String> effects(TestWorker w, UUID id) {
    return w.effects().stream().filter(e -> e.startsWith(id + "|")).map(e -> e.substring(e.indexOf('|') + 1)).toList();
  }

  @Test
  void bothBranchesAreSentTogetherJoinAndTheRestRunsWithTheMappedInput() throws Exception {
    h.apply("joined", yaml(order("jn", "1s")));
    TestWorker w = orderWorker("jn", c -> Reply.HOLD, c -> Reply.HOLD);
    UUID id = start("joined", "jn-1", "{\"amount\": 50, \"address\": \"1 Main St\"}");
    // Both branches are in flight at once: neither has been answered.
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 2);
    w.release(c -> Reply.success(json(c.command().equals("score") ? "{\"score\": 10}" : "{\"auth\": \"A1\"}")));

    JsonNode i = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
    assertThat(steps(i)).containsExactlyInAnyOrder(
        "reserve:task:-:SUCCEEDED", "checks:parallel:-:SUCCEEDED", "fraud:task:checks:SUCCEEDED",
        "authorize:task:checks:SUCCEEDED", "route:choice:-:SUCCEEDED", "note:task:route:SUCCEEDED",
        "cool-off:delay:-:SUCCEEDED", "ship:task:-:SUCCEEDED");
    assertThat(step(i, "route").get("chosen").asText()).isEqualTo("otherwise");
    // The ship command's input is exactly the mapped object; the others get today's merged input.
    assertThat(command(w, id, "ship").body().get("input"))
        .isEqualTo(json("{\"address\": \"1 Main St\", \"approvedBy\": \"auto\"}"));
    assertThat(command(w, id, "note").body().get("input"))
        .isEqualTo(json("{\"amount\": 50, \"address\": \"1 Main St\", \"reserved\": 1, \"score\": 10, \"auth\": \"A1\"}"));
    assertThat(i.get("outputs").get("ship").get("tracking").asText()).isEqualTo("T1");
    JsonNode delay = step(i, "cool-off");
    assertThat(Duration.between(Instant.parse(delay.get("startedAt").asText()),
        Instant.parse(delay.get("finishedAt").asText()))).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    assertThat(w.ledger()).allSatisfy((k, v) -> assertThat(v).as(k).isEqualTo(1));
  }

  @Test
  void aBranchThatFailsWhileTheOtherIsInFlightWaitsForItThenEverythingIsUndoneNewestFirst() throws Exception {
    // Both branches have a compensable task; the later-declared branch's (hold) completes first, then its fraud check
    // fails while the first branch's authorize is in flight. Reverse completion order undoes authorize, then hold,
    // then reserve; reverse declaration order would undo hold before authorize.
    h.apply("branchfail", yaml("""
        {entity: order, steps: [
          {name: reserve, service: bf-inv, command: reserve, compensate: release},
          {name: checks, parallel: [
            {steps: [{name: authorize, service: bf-pay, command: authorize, compensate: void}]},
            {steps: [{name: hold, service: bf-inv, command: hold, compensate: unhold},
                     {name: fraud, service: bf-risk, command: score}]}]},
          {name: ship, service: bf-ship, command: ship}]}
        """));
    TestWorker w = h.worker()
        .serve("q.bf-inv.reserve", "bf-inv", "reserve", c -> Reply.success(json("{}")))
        .serve("q.bf-inv.release", "bf-inv", "release", c -> Reply.success(json("{}")))
        .serve("q.bf-inv.hold", "bf-inv", "hold", c -> Reply.success(json("{\"held\": 1}")))
        .serve("q.bf-inv.unhold", "bf-inv", "unhold", c -> Reply.success(json("{}")))
        .serve("q.bf-risk.score", "bf-risk", "score", c -> Reply.failed("FRAUD", "looks stolen"))
        .serve("q.bf-pay.authorize", "bf-pay", "authorize", c -> Reply.HOLD)
        .serve("q.bf-pay.void", "bf-pay", "void", c -> Reply.success(json("{}")))
        .serve("q.bf-ship.ship", "bf-ship", "ship", c -> Reply.success(json("{}")));
    UUID id = start("branchfail", "bf-1", "{\"amount\": 50}");
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(step(h.instance(id), "fraud").get("status").asText()).isEqualTo("FAILED"));
    JsonNode waiting = h.instance(id);
    assertThat(waiting.get("status").asText()).as("authorize is awaited").isEqualTo("RUNNING");
    assertThat(step(waiting, "authorize").get("status").asText()).isEqualTo("RUNNING");
    assertThat(step(waiting, "hold").get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(w.heldCount()).isEqualTo(1);
    assertThat(effects(w, id)).as("nothing is undone while authorize is in flight")
        .containsExactly("reserve", "hold", "score");

    w.release(c -> Reply.success(json("{\"auth\": \"A1\"}")));
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    // completed: reserve, hold, authorize; undone newest first: void, unhold, release. ship never started.
    assertThat(effects(w, id)).containsExactly("reserve", "hold", "score", "authorize", "void", "unhold", "release");
    assertThat(steps(i)).containsExactlyInAnyOrder(
        "reserve:task:-:SUCCEEDED", "checks:parallel:-:FAILED", "authorize:task:checks:SUCCEEDED",
        "hold:task:checks:SUCCEEDED", "fraud:task:checks:FAILED", "authorize/compensate:task:checks:SUCCEEDED",
        "hold/compensate:task:checks:SUCCEEDED", "reserve/compensate:task:-:SUCCEEDED");
    List<String> compensations = new ArrayList<>();
    i.get("steps").forEach(s -> {
      if (s.get("name").asText().endsWith("/compensate")) {
        compensations.add(s.get("name").asText());
      }
    });
    assertThat(compensations).as("in the instance, in the order they ran")
        .containsExactly("authorize/compensate", "hold/compensate", "reserve/compensate");
    assertThat(i.get("lastError").get("step").asText()).isEqualTo("fraud");
  }

  @Test
  void aChoiceOfSeveralCasesTakesTheFirstWhoseWhenHoldsAndRecordsWhich() throws Exception {
    h.apply("tiers", yaml("""
        {entity: order, steps: [
          {name: tier, choice: [
            {when: "input.amount > 1000", steps: [{name: manual, service: ti-svc, command: manual}]},
            {when: "input.amount > 100", steps: [{name: review, service: ti-svc, command: review}]},
            {when: "input.amount > 10", steps: [{name: quick, service: ti-svc, command: quick}]}],
           otherwise: [{name: free, service: ti-svc, command: free}]}]}
        """));
    TestWorker w = h.worker();
    for (String command : List.of("manual", "review", "quick", "free")) {
      w.serve("q.ti-svc." + command, "ti-svc", command, c -> Reply.success(json("{}")));
    }
    // 500: cases 1 and 2 hold, 1 is first; 50: only the last holds; 5000: all three hold, 0 is first; 5: none
    record Expected(int amount, String chosen, String step) {}
    List<Expected> expected = List.of(new Expected(500, "1", "review"), new Expected(50, "2", "quick"),
        new Expected(5000, "0", "manual"), new Expected(5, "otherwise", "free"));
    List<UUID> ids = new ArrayList<>();
    for (Expected e : expected) {
      ids.add(start("tiers", "ti-" + e.amount(), "{\"amount\": " + e.amount() + "}"));
    }
    for (int n = 0; n < expected.size(); n++) {
      Expected e = expected.get(n);
      JsonNode i = h.awaitStatus(ids.get(n), "SUCCEEDED", Duration.ofSeconds(20));
      assertThat(step(i, "tier").get("chosen").asText()).as("amount " + e.amount()).isEqualTo(e.chosen());
      assertThat(steps(i)).as("amount " + e.amount())
          .containsExactly("tier:choice:-:SUCCEEDED", e.step() + ":task:tier:SUCCEEDED");
      assertThat(effects(w, ids.get(n))).as("amount " + e.amount()).containsExactly(e.step());
    }
  }

  @Test
  void aChoiceWaitsForApprovalWhenACaseHoldsAndASignalAfterTheWaitStartedEndsIt() throws Exception {
    h.apply("approved", yaml(order("ap", "1s")));
    TestWorker w = orderWorker("ap", c -> Reply.success(json("{\"score\": 95}")),
        c -> Reply.success(json("{\"auth\": \"A2\"}")));
    UUID id = start("approved", "ap-1", "{\"amount\": 50, \"address\": \"2 High St\"}");
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(step(h.instance(id), "approval").get("status").asText()).isEqualTo("RUNNING"));
    assertThat(step(h.instance(id), "route").get("chosen").asText()).isEqualTo("0");

    RuntimeHarness.Response r = h.post("/api/v1/instances/" + id + "/signals/approve", "{\"by\": \"ana\"}");
    assertThat(r.status()).as(r.text()).isEqualTo(202);
    JsonNode i = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
    assertThat(step(i, "approval").get("output")).isEqualTo(json("{\"by\": \"ana\"}"));
    assertThat(step(i, "approval").get("parent").asText()).isEqualTo("route");
    assertThat(command(w, id, "ship").body().get("input"))
        .isEqualTo(json("{\"address\": \"2 High St\", \"approvedBy\": \"ana\"}"));
    assertThat(w.received().stream().filter(c -> c.instance().equals(id.toString()))
        .map(Command::command)).doesNotContain("note");
  }

  @Test
  void aSignalSentBeforeTheWaitStartsIsStoredAndConsumedWhenItStarts() throws Exception {
    h.apply("early", yaml(order("ea", "1s")));
    TestWorker w = orderWorker("ea", c -> Reply.success(json("{\"score\": 5}")), c -> Reply.HOLD);
    UUID id = start("early", "ea-1", "{\"amount\": 5000, \"address\": \"3 Low St\"}");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 1);
    RuntimeHarness.Response r = h.post("/api/v1/instances/" + id + "/signals/approve", "{\"by\": \"bo\"}");
    assertThat(r.status()).as(r.text()).isEqualTo(202);
    assertThat(h.count("SELECT count(*) FROM instance_signal WHERE instance_id = '" + id
        + "' AND consumed_at IS NULL")).as("stored for the wait to come").isEqualTo(1);

    w.release(c -> Reply.success(json("{\"auth\": \"A3\"}")));
    JsonNode i = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
    assertThat(step(i, "approval").get("output")).isEqualTo(json("{\"by\": \"bo\"}"));
    assertThat(h.scalar("SELECT consumed_by FROM instance_signal WHERE instance_id = '" + id + "'"))
        .isEqualTo("approval");
    assertThat(command(w, id, "ship").body().get("input").get("approvedBy").asText()).isEqualTo("bo");
  }

  @Test
  void aWaitWithoutItsSignalTimesOutAndWhatCompletedIsUndone() throws Exception {
    h.apply("unapproved", yaml("""
        {entity: order, steps: [
          {name: hold, service: un-inv, command: hold, compensate: unhold},
          {name: approval, wait: {signal: approve, timeout: 1s}},
          {name: never, service: un-inv, command: never}]}
        """));
    TestWorker w = h.worker()
        .serve("q.un-inv.hold", "un-inv", "hold", c -> Reply.success(json("{}")))
        .serve("q.un-inv.unhold", "un-inv", "unhold", c -> Reply.success(json("{}")))
        .serve("q.un-inv.never", "un-inv", "never", c -> Reply.success(json("{}")));
    UUID id = start("unapproved", "un-1", "{}");
    JsonNode i = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    JsonNode approval = step(i, "approval");
    assertThat(approval.get("kind").asText()).isEqualTo("wait");
    assertThat(approval.get("status").asText()).isEqualTo("TIMED_OUT");
    assertThat(approval.get("error").get("reason").asText()).isEqualTo("Timeout");
    assertThat(i.get("lastError").get("reason").asText()).isEqualTo("Timeout");
    assertThat(effects(w, id)).containsExactly("hold", "unhold");

    // A finished instance takes no signal; an unknown one is a 404; a body must be JSON.
    assertThat(h.post("/api/v1/instances/" + id + "/signals/approve", "{}").status()).isEqualTo(409);
    assertThat(h.post("/api/v1/instances/" + UUID.randomUUID() + "/signals/approve", "{}").status())
        .isEqualTo(404);
    RuntimeHarness.Response bad = h.post("/api/v1/instances/" + id + "/signals/approve", "{nope");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("message").asText()).contains("not valid JSON");
  }

  @Test
  void duplicateEventsInAParallelGroupAdvanceItOnce() throws Exception {
    h.apply("dupgroup", yaml(order("dg", "1s")));
    TestWorker w = orderWorker("dg", c -> Reply.HOLD, c -> Reply.HOLD);
    UUID id = start("dupgroup", "dg-1", "{\"amount\": 50, \"address\": \"4 Side St\"}");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 2);
    Command score = command(w, id, "score");
    Command authorize = command(w, id, "authorize");
    String scoreEvent = UUID.randomUUID().toString();
    String authorizeEvent = UUID.randomUUID().toString();
    double duplicates = h.counter("baton.events.duplicates", "dupgroup");
    JsonNode scored = json("{\"score\": 3}");
    w.publishEvent(score, "success", scoreEvent, 1, scored);
    w.publishEvent(score, "success", scoreEvent, 1, scored);
    w.publishEvent(authorize, "success", authorizeEvent, 1, json("{}"));
    w.publishEvent(authorize, "success", authorizeEvent, 1, json("{}"));
    w.publishEvent(score, "success", scoreEvent, 1, scored);
    JsonNode i = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
    await().atMost(Duration.ofSeconds(10)).until(() -> h.counter("baton.events.duplicates", "dupgroup")
        >= duplicates + 3);
    assertThat(steps(i).stream().filter(s -> s.startsWith("route:") || s.startsWith("note:")
        || s.startsWith("checks:"))).hasSize(3);
    assertThat(w.received().stream().filter(c -> c.instance().equals(id.toString()) && c.command().equals("note")))
        .as("the join happened once").hasSize(1);
  }

  @Test
  void aDelayIsATimerInTheDatabaseThatSurvivesARestart() throws Exception {
    h.apply("delayed", yaml("""
        {entity: order, steps: [
          {name: first, service: dl-svc, command: first},
          {name: pause, delay: 3s},
          {name: second, service: dl-svc, command: second}]}
        """));
    TestWorker w = h.worker()
        .serve("q.dl-svc.first", "dl-svc", "first", c -> Reply.success(json("{}")))
        .serve("q.dl-svc.second", "dl-svc", "second", c -> Reply.success(json("{}")));
    UUID id = start("delayed", "dl-1", "{}");
    String deadlineSql = "SELECT to_char(deadline AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
        + " FROM instance_step WHERE instance_id = '" + id + "' AND name = 'pause'";
    await().atMost(Duration.ofSeconds(10)).until(() -> h.scalar(deadlineSql) != null);
    Instant deadline = Instant.parse(h.scalar(deadlineSql));
    h.stopRuntime(); // before the delay is over
    try {
      assertThat(Instant.now()).isBefore(deadline);
      await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(deadline.plusMillis(200)));
      assertThat(h.status(id)).as("nobody ran the timer meanwhile").isEqualTo("RUNNING");
    } finally {
      h.startRuntime();
    }
    JsonNode i = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(15));
    assertThat(step(i, "pause").get("status").asText()).isEqualTo("SUCCEEDED");
    assertThat(effects(w, id)).containsExactly("first", "second");
  }

  @Test
  void revisionsArePinnedAcrossAChangeOfShapeBothWays() throws Exception {
    String linear = """
        {entity: order, steps: [
          {name: one, service: pn-svc, command: one},
          {name: two, service: pn-svc, command: two}]}
        """;
    String branched = """
        {entity: order, steps: [
          {name: one, service: pn-svc, command: one},
          {name: both, parallel: [
            {steps: [{name: two, service: pn-svc, command: two}]},
            {steps: [{name: three, service: pn-svc, command: three}]}]}]}
        """;
    h.apply("pinned", yaml(linear));
    TestWorker w = h.worker()
        .serve("q.pn-svc.one", "pn-svc", "one", c -> Reply.success(json("{}")))
        .serve("q.pn-svc.two", "pn-svc", "two", c -> c.body().get("businessKey").asText().startsWith("hold")
            ? Reply.HOLD : Reply.success(json("{}")));
    UUID onLinear = start("pinned", "hold-linear", "{}");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 1);

    h.apply("pinned", yaml(branched)); // the Workflow gains branches
    w.serve("q.pn-svc.three", "pn-svc", "three", c -> Reply.success(json("{}")));
    await().atMost(Duration.ofSeconds(10)).until(() ->
        h.count("SELECT count(*) FROM workflow_definition WHERE name = 'pinned'") == 2);
    UUID onBranched = start("pinned", "hold-branched", "{}");
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 2);

    h.apply("pinned", yaml(linear.replace("command: two}", "command: two, timeout: 1m}"))); // linear again
    await().atMost(Duration.ofSeconds(10)).until(() ->
        h.count("SELECT count(*) FROM workflow_definition WHERE name = 'pinned'") == 3);
    UUID fresh = start("pinned", "fresh-linear", "{}");
    w.release(c -> Reply.success(json("{}")));

    JsonNode l = h.awaitStatus(onLinear, "SUCCEEDED", Duration.ofSeconds(20));
    JsonNode b = h.awaitStatus(onBranched, "SUCCEEDED", Duration.ofSeconds(20));
    assertThat(l.get("revision").asInt()).isEqualTo(1);
    assertThat(steps(l)).containsExactly("one:task:-:SUCCEEDED", "two:task:-:SUCCEEDED");
    assertThat(b.get("revision").asInt()).isEqualTo(2);
    assertThat(steps(b)).containsExactlyInAnyOrder("one:task:-:SUCCEEDED", "both:parallel:-:SUCCEEDED",
        "two:task:both:SUCCEEDED", "three:task:both:SUCCEEDED");
    JsonNode f = h.awaitStatus(fresh, "SUCCEEDED", Duration.ofSeconds(20));
    assertThat(f.get("revision").asInt()).isEqualTo(3);
    assertThat(steps(f)).containsExactly("one:task:-:SUCCEEDED", "two:task:-:SUCCEEDED");
  }
}
