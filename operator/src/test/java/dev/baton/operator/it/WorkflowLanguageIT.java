package dev.baton.operator.it;

import static dev.baton.operator.it.BrokerState.binding;
import static dev.baton.operator.it.Crs.workerService;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Workflow language through the operator, against the mock API and the real broker: the order-approval example
 * becomes Ready with its nested tasks bound, and what the shared translator refuses (bad CEL, a name used twice in the
 * tree) or a service missing inside a branch is Ready=False with nothing declared.
 */
class WorkflowLanguageIT {

  static final String NS = "language";
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("language", s -> s.withResync(Duration.ofSeconds(60)));
    broker = new BrokerState(f.management, f.vhost.name());
    f.create(workerService(NS, "inventory", "reserve", "release"));
    f.create(workerService(NS, "payment", "pay", "refund", "authorize", "void"));
    f.create(workerService(NS, "risk", "score"));
    f.create(workerService(NS, "shipping", "ship"));
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void theOrderApprovalExampleIsReadyWithEveryNestedTaskBound() throws IOException {
    Workflow example = YAML.readValue(repoRoot().resolve("examples/order-approval/50-workflow.yaml").toFile(),
        Workflow.class);
    example.getMetadata().setNamespace(NS);
    f.create(example);

    f.awaitReady(Workflow.class, NS, "order-approval", true, "Ready");
    String queue = "q.orchestrator.order-approval";
    assertThat(broker.bindings()).contains(
        binding("inventory.event.topic.ex", queue, "order.reserve.success"),
        binding("inventory.event.topic.ex", queue, "order.release.error"),
        binding("risk.event.topic.ex", queue, "order.score.success"),        // inside a parallel branch
        binding("risk.event.topic.ex", queue, "order.score.failed"),
        binding("payment.event.topic.ex", queue, "order.authorize.error"),   // the other branch
        binding("payment.event.topic.ex", queue, "order.void.success"),      // and its compensation
        binding("shipping.event.topic.ex", queue, "order.ship.success"));
  }

  @Test
  void aTaskInsideAChoiceIsBoundToo() {
    f.create(workflow("routed", """
        {entity: parcel, steps: [{name: route, choice: [{when: "input.express == true",
                                  steps: [{name: express, service: shipping, command: ship}]}],
                                  otherwise: [{name: slow, delay: 1h}]}]}
        """));
    f.awaitReady(Workflow.class, NS, "routed", true, "Ready");
    assertThat(broker.bindings()).contains(
        binding("shipping.event.topic.ex", "q.orchestrator.routed", "parcel.ship.success"));
  }

  @Test
  void anExpressionThatDoesNotCompileIsInvalidSpecNamingTheStepAndTheCelError() {
    f.create(workflow("bad-cel", """
        {entity: order, steps: [{name: route, choice: [{when: "input.amount >", steps: []}]}]}
        """));
    var refused = f.awaitReady(Workflow.class, NS, "bad-cel", false, "InvalidSpec");
    assertThat(refused.getMessage()).startsWith("spec.steps[0].choice[0].when (step 'route'): the CEL expression does "
        + "not compile: <input>:1:15: mismatched input '<EOF>'");
    assertThat(broker.queues()).as("nothing declared").doesNotContainKey("q.orchestrator.bad-cel");
  }

  @Test
  void aNameUsedTwiceInTheTreeIsInvalidSpec() {
    f.create(workflow("twice", """
        {entity: order, steps: [
          {name: fraud, service: risk, command: score},
          {name: checks, parallel: [{steps: [{name: fraud, delay: 1s}]}, {steps: [{name: wait, delay: 2s}]}]}]}
        """));
    var refused = f.awaitReady(Workflow.class, NS, "twice", false, "InvalidSpec");
    assertThat(refused.getMessage()).contains("spec.steps[1].parallel[0].steps[0].name (step 'fraud'): step name "
        + "'fraud' is already used by spec.steps[0]");
    assertThat(broker.queues()).doesNotContainKey("q.orchestrator.twice");
  }

  @Test
  void aServiceMissingInsideABranchIsNamed() {
    f.create(workflow("unknown-branch", """
        {entity: order, steps: [{name: checks, parallel: [
          {steps: [{name: fraud, service: risk, command: score}]},
          {steps: [{name: kyc, service: identity, command: verify}]}]}]}
        """));
    var missing = f.awaitReady(Workflow.class, NS, "unknown-branch", false, "MissingService");
    assertThat(missing.getMessage()).isEqualTo("step 'kyc' uses service 'identity', which no WorkerService provides: "
        + "create a WorkerService with that service name or correct the step");
    assertThat(broker.queues()).doesNotContainKey("q.orchestrator.unknown-branch");
  }

  static Workflow workflow(String name, String specYaml) {
    Workflow wf = new Workflow();
    wf.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
    try {
      wf.setSpec(YAML.readValue(specYaml, WorkflowSpec.class));
    } catch (IOException e) {
      throw new IllegalArgumentException(e);
    }
    return wf;
  }

  static Path repoRoot() {
    String root = System.getProperty("baton.repo.root");
    return root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
  }
}
