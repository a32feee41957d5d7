package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.json;
import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowStatus;
import dev.baton.runtime.it.TestWorker.Reply;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Child workflow steps over the real broker and database: the child's business key, its outputs as the step's, both
 * instances linked, a failed child failing its step, a parent's cancel cancelling its child with compensation, a
 * later failure of the parent compensating its succeeded child, and a child Workflow that does not exist. Each test
 * has services and Workflows of its own (named after {@code p}).
 */
class ChildWorkflowIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("child");
    h.startRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** invoicing-p: draft (compensate: discard), then issue (compensate: void). */
  static String invoicing(String p) {
    return """
        {entity: invoice, steps: [
          {name: draft, service: %1$s-inv, command: draft, compensate: discard},
          {name: issue, service: %1$s-inv, command: issue, compensate: void}]}
        """.formatted(p);
  }

  /** order-p: reserve (compensate: release), invoice = the child, ship. */
  static String order(String p, String child) {
    return """
        {entity: order, steps: [
          {name: reserve, service: %1$s-stock, command: reserve, compensate: release},
          {name: invoice, workflow: %2$s, input: {order: "input.id", fail: "has(input.fail) && input.fail"}},
          {name: ship, service: %1$s-stock, command: ship}]}
        """.formatted(p, child);
  }

  /** Serves both Workflows' commands; {@code issue} and {@code ship} as given. */
  static TestWorker worker(String p, TestWorker.Behaviour issue, TestWorker.Behaviour ship) {
    return h.worker()
        .serve("q." + p + "-stock.reserve", p + "-stock", "reserve", c -> Reply.success(json("{\"reserved\": 1}")))
        .serve("q." + p + "-stock.release", p + "-stock", "release", c -> Reply.success(json("{}")))
        .serve("q." + p + "-stock.ship", p + "-stock", "ship", ship)
        .serve("q." + p + "-inv.draft", p + "-inv", "draft", c -> Reply.success(json("{\"draft\": \"D1\"}")))
        .serve("q." + p + "-inv.discard", p + "-inv", "discard", c -> Reply.success(json("{}")))
        .serve("q." + p + "-inv.issue", p + "-inv", "issue", issue)
        .serve("q." + p + "-inv.void", p + "-inv", "void", c -> Reply.success(json("{}")));
  }

  static Reply issued(TestWorker.Command c) {
    return c.body().at("/input/fail").asBoolean() ? Reply.failed("TAX_DOWN", "the tax service is down")
        : Reply.success(json("{\"invoice\": \"INV-" + c.body().at("/input/order").asText() + "\"}"));
  }

  static void apply(String p) {
    h.apply("invoicing-" + p, yaml(invoicing(p)));
    h.apply("order-" + p, yaml(order(p, "invoicing-" + p)));
  }

  static UUID start(String workflow, String key, String input) {
    RuntimeHarness.Response r = h.start(workflow, key, input);
    assertThat(r.status()).as(r.text()).isEqualTo(201);
    return UUID.fromString(r.json().get("id").asText());
  }

  static UUID childOf(JsonNode parent) {
    return UUID.fromString(parent.at("/children/0/id").asText());
  }

  static List<String> commands(TestWorker w, String command) {
    return w.received().stream().filter(c -> c.command().equals(command)).map(TestWorker.Command::instance).toList();
  }

  @Test
  void theChildRunsUnderItsParentsKeyAndItsOutputsAreTheSteps() {
    apply("ok");
    TestWorker w = worker("ok", ChildWorkflowIT::issued, c -> Reply.success(json("{}")));
    UUID id = start("order-ok", "ok-1", "{\"id\": \"o-1\"}");

    JsonNode parent = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(20));
    assertThat(parent.at("/outputs/invoice/issue/invoice").asText()).isEqualTo("INV-o-1");
    assertThat(parent.at("/children/0/step").asText()).isEqualTo("invoice");
    assertThat(parent.at("/children/0/workflow").asText()).isEqualTo("invoicing-ok");
    assertThat(parent.at("/children/0/status").asText()).isEqualTo("SUCCEEDED");
    JsonNode child = h.instance(childOf(parent));
    assertThat(child.get("businessKey").asText()).isEqualTo(id + "/invoice");
    assertThat(child.get("input")).isEqualTo(json("{\"order\": \"o-1\", \"fail\": false}"));
    assertThat(child.at("/parent/id").asText()).isEqualTo(id.toString());
    assertThat(child.at("/parent/step").asText()).isEqualTo("invoice");
    assertThat(child.get("createdBy").asText()).isEqualTo("baton:instance:" + id);
    // The ship command got the child's outputs merged into its input, as any earlier step's.
    TestWorker.Command ship = w.received().stream().filter(c -> c.command().equals("ship")).findFirst().orElseThrow();
    assertThat(ship.body().at("/input/issue/invoice").asText()).isEqualTo("INV-o-1");
    assertThat(w.ledger()).allSatisfy((k, v) -> assertThat(v).as(k).isEqualTo(1));
  }

  @Test
  void aChildThatFailsFailsItsStepAndTheParentUndoesWhatItDid() {
    apply("bad");
    TestWorker w = worker("bad", ChildWorkflowIT::issued, c -> Reply.success(json("{}")));
    UUID id = start("order-bad", "bad-1", "{\"id\": \"o-2\", \"fail\": true}");

    JsonNode parent = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    assertThat(parent.at("/lastError/step").asText()).isEqualTo("invoice");
    assertThat(parent.at("/lastError/errorCode").asText()).isEqualTo("ChildFailed");
    assertThat(parent.at("/lastError/reason").asText()).contains("ended COMPENSATED").contains("tax service is down");
    JsonNode child = h.instance(childOf(parent));
    assertThat(child.get("status").asText()).isEqualTo("COMPENSATED"); // it undid its own draft
    assertThat(commands(w, "discard")).containsExactly(child.get("id").asText());
    assertThat(commands(w, "release")).containsExactly(id.toString());
    assertThat(commands(w, "ship")).isEmpty();
  }

  @Test
  void cancellingTheParentCancelsItsChildWhichUndoesWhatItDid() {
    apply("cx");
    TestWorker w = worker("cx", c -> Reply.HOLD, c -> Reply.success(json("{}")));
    UUID id = start("order-cx", "cx-1", "{\"id\": \"o-3\"}");
    await().atMost(Duration.ofSeconds(20)).until(() -> w.heldCount() == 1); // the child's issue is in flight
    UUID child = childOf(h.instance(id));

    RuntimeHarness.Response cancel = h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": true}");
    assertThat(cancel.status()).as(cancel.text()).isEqualTo(200);
    // The child awaits its issue in flight before undoing anything: the worker answers it now.
    await().atMost(Duration.ofSeconds(20)).until(() -> "COMPENSATING".equals(h.instance(child).get("status")
        .asText()) || "RUNNING".equals(h.instance(child).get("status").asText()) && h.instance(child)
        .path("steps").findValuesAsText("status").contains("CANCELLED"));
    w.release(c -> Reply.success(json("{\"invoice\": \"INV-o-3\"}")));

    h.awaitStatus(id, "CANCELLED", Duration.ofSeconds(20));
    JsonNode c = h.awaitStatus(child, "CANCELLED", Duration.ofSeconds(20));
    assertThat(c.get("steps").findValuesAsText("name")).contains("issue/compensate", "draft/compensate");
    assertThat(commands(w, "void")).containsExactly(child.toString());
    assertThat(commands(w, "release")).containsExactly(id.toString());
    // The child's steps are newer than reserve: the parent releases only once its child has undone them.
    List<String> undone = w.effects().stream().filter(e -> e.endsWith("|void") || e.endsWith("|discard")
        || e.endsWith("|release")).map(e -> e.substring(e.indexOf('|') + 1)).toList();
    assertThat(undone).containsExactly("void", "discard", "release");
  }

  /**
   * Fails on the code before: a parent cancelled with compensation waits for its child to end before undoing its own
   * steps; when its runtime stopped between the child's end and telling the parent, no sweep looked for it again.
   */
  @Test
  void aParentWhoseChildEndedWhileNoRuntimeToldItUndoesItsStepsOnceARuntimeRuns() throws Exception {
    apply("lost");
    TestWorker w = worker("lost", c -> Reply.HOLD, c -> Reply.success(json("{}")));
    UUID id = start("order-lost", "lost-1", "{\"id\": \"o-7\"}");
    await().atMost(Duration.ofSeconds(20)).until(() -> w.heldCount() == 1); // the child's issue is in flight
    UUID child = childOf(h.instance(id));
    assertThat(h.post("/api/v1/instances/" + id + "/cancel", "{\"compensate\": true}").status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(20)).until(() -> h.instance(child).get("phase").asText().equals("COMPENSATION"));

    // What a runtime stopped right after the child's last commit leaves: the child ended, its parent never told.
    h.stopRuntime();
    h.scalar("UPDATE workflow_instance SET status = 'CANCELLED', finished_at = now() WHERE id = '" + child
        + "' RETURNING id");
    h.startRuntime();

    h.awaitStatus(id, "CANCELLED", Duration.ofSeconds(20));
    assertThat(commands(w, "release")).containsExactly(id.toString());
  }

  @Test
  void aLaterFailureOfTheParentCompensatesItsSucceededChildNewestFirst() {
    apply("late");
    TestWorker w = worker("late", ChildWorkflowIT::issued, c -> Reply.failed("NO_TRUCK", "no truck today"));
    UUID id = start("order-late", "late-1", "{\"id\": \"o-4\"}");

    JsonNode parent = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(30));
    UUID child = childOf(parent);
    JsonNode c = h.instance(child);
    assertThat(c.get("status").asText()).isEqualTo("COMPENSATED");
    assertThat(parent.get("steps").findValuesAsText("name")).contains("invoice/compensate");
    // Newest first across both: the child's void and discard, then the parent's release.
    List<String> undone = w.effects().stream().filter(e -> e.endsWith("|void") || e.endsWith("|discard")
        || e.endsWith("|release")).map(e -> e.substring(e.indexOf('|') + 1)).toList();
    assertThat(undone).containsExactly("void", "discard", "release");
  }

  @Test
  void aChildWorkflowItsOperatorSaysIsNotReadyStartsNothingAndTheStepSaysWhy() {
    h.apply("invoicing-nr", yaml(invoicing("nr")));
    h.apply("order-nr", yaml(order("nr", "invoicing-nr")));
    Workflow child = h.client.resources(Workflow.class).inNamespace(RuntimeHarness.NS).withName("invoicing-nr").get();
    WorkflowStatus status = new WorkflowStatus();
    status.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("False")
        .withReason("MissingService").withMessage("step 'issue' uses service 'nr-inv', which no WorkerService provides")
        .build()));
    child.setStatus(status);
    h.client.resources(Workflow.class).inNamespace(RuntimeHarness.NS).resource(child).updateStatus();
    TestWorker w = h.worker()
        .serve("q.nr-stock.reserve", "nr-stock", "reserve", c -> Reply.success(json("{}")))
        .serve("q.nr-stock.release", "nr-stock", "release", c -> Reply.success(json("{}")));
    await().atMost(Duration.ofSeconds(10)).until(() -> h.client.resources(Workflow.class)
        .inNamespace(RuntimeHarness.NS).withName("invoicing-nr").get().getStatus() != null);

    UUID id = start("order-nr", "nr-1", "{\"id\": \"o-6\"}");
    JsonNode parent = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    assertThat(parent.at("/lastError/errorCode").asText()).isEqualTo("ChildUnavailable");
    assertThat(parent.at("/lastError/reason").asText()).contains("is not Ready (MissingService)");
    assertThat(parent.has("children")).isFalse();
    assertThat(commands(w, "release")).containsExactly(id.toString());
  }

  @Test
  void aChildWorkflowThatDoesNotExistFailsTheStepWithTheReason() {
    h.apply("order-orphan", yaml(order("orphan", "no-such-workflow")));
    TestWorker w = h.worker() // no invoicing: only the stock service exists
        .serve("q.orphan-stock.reserve", "orphan-stock", "reserve", c -> Reply.success(json("{}")))
        .serve("q.orphan-stock.release", "orphan-stock", "release", c -> Reply.success(json("{}")));
    UUID id = start("order-orphan", "orphan-1", "{\"id\": \"o-5\"}");

    JsonNode parent = h.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(20));
    assertThat(parent.at("/lastError/errorCode").asText()).isEqualTo("ChildUnavailable");
    assertThat(parent.at("/lastError/reason").asText()).contains("no-such-workflow does not exist");
    assertThat(parent.has("children")).isFalse();
    assertThat(commands(w, "release")).containsExactly(id.toString());
  }
}
