package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.NS;
import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.it.RuntimeHarness.Response;
import dev.baton.runtime.it.TestWorker.Reply;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md#runtime-semantics, deleting a Workflow: the operator's finalizer holds a deleted Workflow while it
 * has unfinished instances (here a finalizer of the test's stands in for it). The Workflow then takes no new
 * instances (409); its instances run to their end, or, with {@code baton.dev/on-delete: fail-running}, are failed at
 * once with reason {@code WorkflowDeleted}: attempts in flight cancelled, unpublished commands withdrawn. Fails on the
 * code before, which started instances of a Workflow being deleted and left its instances running.
 */
class WorkflowDeletionIT {

  static final String HOLD = "baton.dev/test-holds-it";
  static final Duration WITHIN = Duration.ofSeconds(30);
  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("deletion");
    h.startRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** More instances than one page of InstanceService.failRunning reads, on a topology no worker consumes. */
  @Test
  void failRunningFailsEveryUnfinishedInstanceWithWorkflowDeleted() throws Exception {
    WorkflowSpec spec = spec("order", step("charge", "del-pay", "pay", "refund"));
    h.declareTopology("doomed", spec);
    create("doomed", spec, Map.of("baton.dev/on-delete", "fail-running"));
    String items = IntStream.range(0, 250).mapToObj(i -> "{\"businessKey\": \"d-" + i + "\"}")
        .collect(Collectors.joining(","));
    Response batch = h.post(batchPath("doomed"), "{\"instances\": [" + items + "]}");
    assertThat(batch.status()).as(batch.text()).isEqualTo(200);
    UUID one = UUID.fromString(batch.json().get("results").get(0).get("id").asText());
    assertThat(count("doomed", "RUNNING")).isEqualTo(250);
    await().atMost(WITHIN).until(() -> h.get("/api/v1/routes").text().contains("\"doomed\""));

    delete("doomed");

    await().atMost(WITHIN).untilAsserted(() -> assertThat(count("doomed", "FAILED")).isEqualTo(250));
    assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE workflow = 'doomed'"
        + " AND last_error->>'errorCode' = 'WorkflowDeleted'")).isEqualTo(250);
    JsonNode failed = h.instance(one);
    assertThat(failed.get("lastError").get("errorCode").asText()).isEqualTo("WorkflowDeleted");
    assertThat(failed.get("lastError").get("reason").asText())
        .contains("default/doomed was deleted with baton.dev/on-delete: fail-running");
    assertThat(failed.get("steps").get(0).get("status").asText()).as("the attempt in flight").isEqualTo("CANCELLED");
    assertThat(failed.get("finishedAt").isNull()).isFalse();
    // What the operator waits for before it removes the queue and its finalizer.
    await().atMost(WITHIN).until(() -> !h.get("/api/v1/routes").text().contains("\"doomed\""));
    assertRefused("doomed", "its unfinished ones are failed");
  }

  @Test
  void failRunningWithdrawsTheCommandsNotYetPublished() throws Exception {
    // No topology: the command cannot be routed and stays in the outbox.
    create("unsent", spec("order", step("go", "del-nowhere", "go", null)),
        Map.of("baton.dev/on-delete", "fail-running"));
    UUID id = h.startOk("unsent", "u-1");
    await().atMost(WITHIN).untilAsserted(() -> assertThat(h.scalar(
        "SELECT last_error FROM outbox WHERE correlation_id = '" + id + "'")).contains("does not exist"));

    delete("unsent");

    JsonNode failed = h.awaitStatus(id, "FAILED", WITHIN);
    assertThat(failed.get("lastError").get("errorCode").asText()).isEqualTo("WorkflowDeleted");
    assertThat(h.count("SELECT count(*) FROM outbox WHERE instance_id = '" + id + "'")).as("withdrawn").isZero();
  }

  /** Without the annotation the instances go on to their end; only new starts are refused. */
  @Test
  void withoutTheAnnotationInstancesRunOnWhileStartsAreRefused() throws Exception {
    WorkflowSpec spec = spec("order", step("ship", "del-ship", "ship", null));
    h.declareTopology("lingering", spec);
    create("lingering", spec, Map.of());
    UUID running = h.startOk("lingering", "l-1");

    delete("lingering");

    assertRefused("lingering", "its unfinished ones run to their end");
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
        .untilAsserted(() -> assertThat(h.status(running)).isEqualTo("RUNNING"));
    h.worker().serve("q.del-ship.ship", "del-ship", "ship", c -> Reply.success(null));
    h.awaitStatus(running, "SUCCEEDED", WITHIN);
  }

  /** Single and batch starts answer 409 once the runtime sees the deletion (the watch is asynchronous). */
  static void assertRefused(String workflow, String what) throws Exception {
    await().atMost(WITHIN).untilAsserted(() -> {
      Response single = h.start(workflow, "after-delete", "{}");
      assertThat(single.status()).as(single.text()).isEqualTo(409);
      assertThat(single.text()).contains("Workflow default/" + workflow + " is being deleted").contains(what);
    });
    Response batch = h.post(batchPath(workflow), "{\"instances\": [{\"businessKey\": \"after-delete-2\"}]}");
    assertThat(batch.status()).as(batch.text()).isEqualTo(409);
    assertThat(batch.text()).contains("is being deleted");
    assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE workflow = '" + workflow
        + "' AND business_key LIKE 'after-delete%'")).isZero();
  }

  /** The Workflow with a finalizer that holds it once deleted, as the operator's does. */
  static void create(String name, WorkflowSpec spec, Map<String, String> annotations) {
    Workflow w = new Workflow();
    w.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NS).withAnnotations(annotations)
        .withFinalizers(List.of(HOLD)).build());
    w.setSpec(spec);
    h.client.resources(Workflow.class).inNamespace(NS).resource(w).create();
  }

  static void delete(String name) {
    h.client.resources(Workflow.class).inNamespace(NS).withName(name).delete();
    assertThat(h.client.resources(Workflow.class).inNamespace(NS).withName(name).get().getMetadata()
        .getDeletionTimestamp()).as("held by its finalizer").isNotNull();
  }

  static long count(String workflow, String status) throws Exception {
    return h.count("SELECT count(*) FROM workflow_instance WHERE workflow = '" + workflow + "' AND status = '"
        + status + "'");
  }

  static String batchPath(String workflow) {
    return "/api/v1/namespaces/" + NS + "/workflows/" + workflow + "/instances/batch";
  }
}
