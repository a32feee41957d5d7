package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.FakeRuntime.item;
import static dev.baton.operator.it.FakeRuntime.items;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ScheduleStatus;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowStatus;
import dev.baton.operator.runtime.InstanceCounts;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * docs/design.md#resources: the counts in {@code kubectl get workflows} are live, read from the runtime (here a fake serving
 * canned answers) with one request for all Workflows, and written by the operator only when they change — without
 * asking the broker again for a count-only change.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LiveCountsIT {

  static final String NS = "shop";
  static final Duration INTERVAL = Duration.ofMillis(300);
  static FakeRuntime runtime;
  static CountingBroker broker;
  static OperatorFixture f;
  static LogCapture logs;

  @BeforeAll
  static void start() {
    runtime = FakeRuntime.start();
    runtime.answer(items(item(NS, "checkout", 3, 10, 1, 2, 0), item("elsewhere", "checkout", 7, 7, 7, 7, 7)));
    logs = new LogCapture();
    // A long resync: every reconciliation in this test is one the counts (or the test) asked for.
    f = OperatorFixture.start("counts", s -> s.toBuilder().resync(Duration.ofSeconds(60)).runtimeUrl(runtime.url())
        .countsInterval(INTERVAL).statusInterval(Duration.ZERO).runtimeToken("t0ken").build(), null, b -> broker = new CountingBroker(b));
    f.create(workerService(NS, "payment", "pay", "refund"));
    f.create(workflow(NS, "checkout", "order", step("charge", "payment", "pay", "refund")));
    f.create(workflow(NS, "quiet", "order", step("charge", "payment", "pay", null)));
    f.awaitReady(Workflow.class, NS, "checkout", true, "Ready");
    f.awaitReady(Workflow.class, NS, "quiet", true, "Ready");
  }

  @AfterAll
  static void stop() {
    f.close();
    runtime.close();
    logs.close();
  }

  @Test
  @Order(1)
  void theRuntimesCountsAppearInTheStatus() {
    awaitCounts("checkout", new InstanceCounts(3, 10, 1, 2, 0));
    // Not in the runtime's answer: none yet.
    awaitCounts("quiet", InstanceCounts.NONE);
    assertThat(runtime.authorizations).contains("Bearer t0ken");
  }

  @Test
  @Order(2)
  void newCountsArePatchedWithoutAskingTheBrokerAgain() {
    int listings = broker.queueListings.get();
    for (int i = 1; i <= 3; i++) {
      runtime.answer(items(item(NS, "checkout", 3 + i, 10 + i, 1, 2, 0)));
      awaitCounts("checkout", new InstanceCounts(3 + i, 10 + i, 1, 2, 0));
    }
    assertThat(broker.queueListings.get()).as("broker listings for count-only changes").isEqualTo(listings);

    // Where the schedules stand comes with the counts, for kubectl get workflows -o wide.
    runtime.answer("{\"items\":[{\"namespace\":\"" + NS + "\",\"workflow\":\"checkout\",\"running\":6,"
        + "\"succeeded\":13,\"failed\":1,\"compensated\":2,\"schedules\":[{\"name\":\"nightly\","
        + "\"lastFire\":\"2026-12-05T01:00:00Z\",\"nextFire\":\"2026-12-06T01:00:00Z\"}]}]}");
    await().atMost(WITHIN).untilAsserted(() -> {
      WorkflowStatus status = f.get(Workflow.class, NS, "checkout").getStatus();
      assertThat(status.getNextFire()).isEqualTo("2026-12-06T01:00:00Z");
      assertThat(status.getLastFire()).isEqualTo("2026-12-05T01:00:00Z");
      assertThat(status.getSchedules()).extracting(ScheduleStatus::getName).containsExactly("nightly");
    });
    runtime.answer(items(item(NS, "checkout", 6, 13, 1, 2, 0)));
    awaitCounts("checkout", new InstanceCounts(6, 13, 1, 2, 0));
    assertThat(f.get(Workflow.class, NS, "checkout").getStatus().getNextFire()).as("no schedules any more").isNull();
    assertThat(broker.queueListings.get()).as("broker listings for schedule-only changes").isEqualTo(listings);
  }

  @Test
  @Order(3)
  void unchangedCountsAreNotPatched() {
    String version = f.get(Workflow.class, NS, "checkout").getMetadata().getResourceVersion();
    String quietVersion = f.get(Workflow.class, NS, "quiet").getMetadata().getResourceVersion();
    int requests = runtime.requests();
    // Over several polls the runtime is asked again and again, and neither Workflow is patched.
    await().during(INTERVAL.multipliedBy(6)).atMost(INTERVAL.multipliedBy(8)).until(() ->
        f.get(Workflow.class, NS, "checkout").getMetadata().getResourceVersion().equals(version)
            && f.get(Workflow.class, NS, "quiet").getMetadata().getResourceVersion().equals(quietVersion));
    assertThat(runtime.requests()).as("the runtime was asked again").isGreaterThan(requests + 2);
  }

  @Test
  @Order(4)
  void aRuntimeThatDoesNotAnswerLeavesTheLastCountsAndReadiness() throws InterruptedException {
    logs.clear();
    runtime.down(true);
    int requests = runtime.requests();
    await().atMost(WITHIN).until(() -> runtime.requests() > requests + 4);
    Workflow wf = f.get(Workflow.class, NS, "checkout");
    assertThat(InstanceCounts.of(wf.getStatus())).contains(new InstanceCounts(6, 13, 1, 2, 0));
    assertThat(wf.getStatus().isReady()).isTrue();
    assertThat(logs.messages("Cannot read instance counts")).as("warned once").hasSize(1);
    assertThat(logs.messages("Cannot read instance counts").get(0)).contains("HTTP 503").doesNotContain("t0ken");

    runtime.answer(items());
    runtime.down(false);
    // The runtime has no instances of it any more: all counts are 0.
    awaitCounts("checkout", InstanceCounts.NONE);
    assertThat(logs.messages("are available again")).hasSize(1);
  }

  /**
   * docs/design.md#runtime-semantics (Versioning): while the runtime lists an older revision's result keys — an
   * action renamed since, on another service's exchange, another entity — the orchestrator queue stays bound to them
   * besides the current spec's; once no instance of it runs, they are unbound. Fails on the code that bound the
   * current spec only.
   */
  @Test
  @Order(5)
  void olderRevisionsKeepTheirResultKeysWhileTheRuntimeListsThem() {
    runtime.answerRoutes("{\"items\":[{\"namespace\":\"" + NS + "\",\"workflow\":\"checkout\",\"revisions\":[1],"
        + "\"bindings\":[{\"exchange\":\"payment.event.topic.ex\",\"routingKey\":\"order.debit.success\"},"
        + "{\"exchange\":\"legacy.event.topic.ex\",\"routingKey\":\"invoice.pay.error\"}]}]}");
    await().atMost(WITHIN).untilAsserted(() -> assertThat(bindings("q.orchestrator.checkout"))
        .contains("payment.event.topic.ex order.debit.success", "legacy.event.topic.ex invoice.pay.error",
            "payment.event.topic.ex order.pay.success"));
    assertThat(bindings("q.orchestrator.quiet")).doesNotContain("payment.event.topic.ex order.debit.success");

    runtime.answerRoutes("{\"items\":[]}");
    await().atMost(WITHIN).untilAsserted(() -> assertThat(bindings("q.orchestrator.checkout"))
        .doesNotContain("payment.event.topic.ex order.debit.success", "legacy.event.topic.ex invoice.pay.error")
        .contains("payment.event.topic.ex order.pay.success", "payment.event.topic.ex order.refund.error"));
  }

  private static java.util.List<String> bindings(String queue) {
    return f.management.getQueueBindings(f.vhost.name(), queue).stream()
        .filter(b -> !b.getSource().isEmpty()).map(b -> b.getSource() + " " + b.getRoutingKey()).toList();
  }

  private static void awaitCounts(String name, InstanceCounts expected) {
    await().atMost(WITHIN).untilAsserted(() -> {
      WorkflowStatus status = f.get(Workflow.class, NS, name).getStatus();
      assertThat(InstanceCounts.of(status)).contains(expected);
    });
  }
}
