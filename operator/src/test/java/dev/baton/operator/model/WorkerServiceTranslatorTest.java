package dev.baton.operator.model;

import static dev.baton.operator.it.Crs.autoscaling;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.AutoscalingSettings;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.client.UnknownValue;
import dev.baton.api.v1alpha1.Outcome;
import dev.baton.api.v1alpha1.QueueKind;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.SubscriptionSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.validation.Validated;
import dev.baton.contract.InstanceOutcome;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.operator.status.Reason;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WorkerServiceTranslatorTest {

  static final Map<String, RetryPolicy> POLICIES = Map.of(
      "standard", RetryPolicyTranslatorTest.policy(4, "30s 2m 10m"),
      "broken", RetryPolicyTranslatorTest.policy(3, "soon"));

  static WorkerService ws(String name, Consumer<WorkerServiceSpec> spec) {
    WorkerService ws = new WorkerService();
    ws.getMetadata().setName(name);
    ws.getMetadata().setNamespace("shop");
    WorkerServiceSpec s = new WorkerServiceSpec();
    spec.accept(s);
    ws.setSpec(s);
    return ws;
  }

  static Validated<ServiceModel> translate(WorkerService ws) {
    return WorkerServiceTranslator.fromCrd(ws, name -> Optional.ofNullable(POLICIES.get(name)));
  }

  static SubscriptionSpec subscription(String name, String service, String pattern) {
    SubscriptionSpec s = new SubscriptionSpec();
    s.setName(name);
    s.setService(service);
    s.setPattern(pattern);
    return s;
  }

  @Test
  void aValidServiceBecomesItsModel() {
    Validated<ServiceModel> v = translate(ws("payment", s -> {
      s.getCommands().add(new CommandSpec("pay", "standard"));
      s.getCommands().add(new CommandSpec("refund", null));
      s.getSubscriptions().add(subscription("stock_low", "inventory", "*.reserve.failed"));
      s.getQueue().setType(QueueKind.QUORUM);
    }));
    assertThat(v.problems()).isEmpty();
    ServiceModel m = v.value();
    assertThat(m.service()).isEqualTo("payment");
    assertThat(m.queueType()).isEqualTo(QueueType.QUORUM);
    assertThat(m.commands()).extracting(ServiceModel.Command::name).containsExactly("pay", "refund");
    assertThat(m.commands().get(0).retry().maxAttempts()).isEqualTo(4);
    assertThat(m.commands().get(1).retry().hasRetries()).isFalse();
    assertThat(m.subscriptions()).singleElement().satisfies(sub -> assertThat(sub.source())
        .isEqualTo(new ServiceModel.ServiceEvents("inventory", "*.reserve.failed")));
  }

  static SubscriptionSpec outcomes(String name, String workflow, Outcome... outcomes) {
    SubscriptionSpec s = new SubscriptionSpec();
    s.setName(name);
    s.setWorkflow(workflow);
    s.setOutcomes(outcomes.length == 0 ? null : List.of(outcomes));
    return s;
  }

  @Test
  void aSubscriptionToAWorkflowReceivesTheOutcomesItListsOfItsOwnNamespace() {
    ServiceModel m = translate(ws("alerts", s -> s.getSubscriptions().add(
        outcomes("fulfilment_failed", "order-fulfilment", Outcome.FAILED, Outcome.COMPENSATED)))).value();
    assertThat(m.subscriptions()).singleElement().satisfies(sub -> assertThat(sub.source())
        .isEqualTo(new ServiceModel.WorkflowOutcomes("shop", "order-fulfilment",
            List.of(InstanceOutcome.FAILED, InstanceOutcome.COMPENSATED))));
  }

  @Test
  void anOutcomeANewerCrdKnowsIsRefusedNamingTheFieldAndTheValueInsteadOfWidenedToEveryOutcome() {
    // As read by TolerantSerialization: the unknown item is null, which would otherwise read as "every outcome".
    Validated<ServiceModel> v = translate(ws("alerts", s -> {
      SubscriptionSpec read = outcomes("fulfilment", "order-fulfilment");
      read.setOutcomes(java.util.Arrays.asList(Outcome.FAILED, null));
      s.getSubscriptions().add(read);
      s.getUnknownValues().add(new UnknownValue("spec.subscriptions[0].outcomes[1]", "timedOut",
          List.of("succeeded", "failed", "compensated", "cancelled")));
    }));

    assertThat(v.isValid()).isFalse();
    assertThat(v.message()).contains("spec.subscriptions[0].outcomes[1]: 'timedOut' is not a value this version of "
        + "Baton knows (succeeded, failed, compensated, cancelled)");
  }

  @Test
  void withoutOutcomesEveryOutcomeIsReceived() {
    ServiceModel m = translate(ws("alerts", s -> s.getSubscriptions().add(outcomes("all", "order-fulfilment"))))
        .value();
    assertThat(((ServiceModel.WorkflowOutcomes) m.subscriptions().get(0).source()).outcomes())
        .containsExactly(InstanceOutcome.values());
  }

  @Test
  void aWorkflowOfAnotherNamespaceIsNamedWithItsNamespace() {
    // Translated as written: whether the namespace may have them is tenancy's to say (SubscriptionGrants).
    ServiceModel m = translate(ws("alerts", s -> s.getSubscriptions().add(outcomes("theirs", "ops/order-fulfilment"))))
        .value();
    assertThat(((ServiceModel.WorkflowOutcomes) m.subscriptions().get(0).source()).namespace()).isEqualTo("ops");
  }

  @Test
  void specServiceOverridesADottedResourceName() {
    assertThat(translate(ws("payment.v2", s -> {
      s.setService("payment");
      s.getCommands().add(new CommandSpec("pay", null));
    })).isValid()).isTrue();
  }

  static Stream<Arguments> badSpecs() {
    return Stream.of(
        Arguments.of("dotted metadata.name without spec.service", ws("payment.v2", s -> s.getCommands().add(new CommandSpec("pay", null))),
            Reason.INVALID_SPEC, "metadata.name 'payment.v2' cannot be used as the service name"),
        Arguments.of("bad spec.service", ws("p", s -> s.setService("Pay.Ment")),
            Reason.INVALID_SPEC, "spec.service 'Pay.Ment' is not a service name"),
        Arguments.of("reserved name", ws("retry", s -> {}), Reason.INVALID_SPEC, "'retry' is reserved"),
        Arguments.of("reserved spec.service", ws("x", s -> s.setService("orchestrator")), Reason.INVALID_SPEC,
            "spec.service 'orchestrator' is reserved"),
        Arguments.of("duplicate command", ws("payment", s -> {
          s.getCommands().add(new CommandSpec("pay", null));
          s.getCommands().add(new CommandSpec("pay", null));
        }), Reason.INVALID_SPEC, "spec.commands[1].name 'pay' is already used by spec.commands[0]"),
        Arguments.of("subscription named like a command", ws("payment", s -> {
          s.getCommands().add(new CommandSpec("pay", null));
          s.getSubscriptions().add(subscription("pay", "inventory", "#"));
        }), Reason.INVALID_SPEC, "spec.subscriptions[0].name 'pay' is already used by spec.commands[0]"),
        Arguments.of("environment variable collision", ws("payment", s -> {
          s.getCommands().add(new CommandSpec("pay-now", null));
          s.getCommands().add(new CommandSpec("pay_now", null));
        }), Reason.INVALID_SPEC, "both become the worker variables BATON_CONSUMER_PAY_NOW_*"),
        Arguments.of("bad command name", ws("payment", s -> s.getCommands().add(new CommandSpec("Pay", null))),
            Reason.INVALID_SPEC, "spec.commands[0].name 'Pay' is not a valid name"),
        Arguments.of("bad binding pattern", ws("sms", s -> s.getSubscriptions().add(subscription("n", "payment", "a..b"))),
            Reason.INVALID_SPEC, "spec.subscriptions[0].pattern 'a..b' is not a topic pattern"),
        Arguments.of("subscription to both a service and a workflow", ws("sms", s -> {
          SubscriptionSpec both = subscription("n", "payment", "#");
          both.setWorkflow("order-fulfilment");
          s.getSubscriptions().add(both);
        }), Reason.INVALID_SPEC, "spec.subscriptions[0]: set exactly one of service"),
        Arguments.of("subscription to neither", ws("sms", s -> s.getSubscriptions().add(subscription("n", null, null))),
            Reason.INVALID_SPEC, "spec.subscriptions[0]: set exactly one of service"),
        Arguments.of("pattern on outcomes", ws("sms", s -> {
          SubscriptionSpec o = outcomes("n", "order-fulfilment");
          o.setPattern("*.order-fulfilment.failed");
          s.getSubscriptions().add(o);
        }), Reason.INVALID_SPEC, "spec.subscriptions[0].pattern is for a service's events"),
        Arguments.of("outcomes on a service's events", ws("sms", s -> {
          SubscriptionSpec e = subscription("n", "payment", "#");
          e.setOutcomes(List.of(Outcome.FAILED));
          s.getSubscriptions().add(e);
        }), Reason.INVALID_SPEC, "spec.subscriptions[0].outcomes is for a subscription to a Workflow's outcomes"),
        Arguments.of("no outcomes listed", ws("sms", s -> {
          SubscriptionSpec o = outcomes("n", "order-fulfilment");
          o.setOutcomes(List.of());
          s.getSubscriptions().add(o);
        }), Reason.INVALID_SPEC, "spec.subscriptions[0].outcomes must list some"),
        Arguments.of("bad workflow name", ws("sms", s -> s.getSubscriptions().add(outcomes("n", "Order_Fulfilment"))),
            Reason.INVALID_SPEC, "spec.subscriptions[0].workflow 'Order_Fulfilment' is not a Workflow's name"),
        Arguments.of("unknown retry policy", ws("payment", s -> s.getCommands().add(new CommandSpec("pay", "gentle"))),
            Reason.MISSING_RETRY_POLICY, "command 'pay' uses RetryPolicy 'gentle', which does not exist in namespace 'shop'"),
        Arguments.of("invalid retry policy", ws("payment", s -> s.getCommands().add(new CommandSpec("pay", "broken"))),
            Reason.INVALID_RETRY_POLICY, "RetryPolicy 'broken' is invalid (spec.delays[0]: 'soon' is not a duration"),
        Arguments.of("deployment without image", ws("payment", s -> s.setDeployment(new DeploymentSettings())),
            Reason.INVALID_SPEC, "spec.deployment.image is required"),
        Arguments.of("prefetch out of range", ws("payment", s -> s.getQueue().setPrefetch(0)),
            Reason.INVALID_SPEC, "spec.queue.prefetch is 0"),
        Arguments.of("autoscaling without maxReplicas", ws("payment", s -> s.setAutoscaling(new AutoscalingSettings())),
            Reason.INVALID_SPEC, "spec.autoscaling.maxReplicas is required"),
        Arguments.of("autoscaling min above max", ws("payment", s -> s.setAutoscaling(autoscaling(5, 2, 10))),
            Reason.INVALID_SPEC, "spec.autoscaling.minReplicas (5) must not exceed maxReplicas (2)"),
        Arguments.of("autoscaling target depth 0", ws("payment", s -> s.setAutoscaling(autoscaling(1, 2, 0))),
            Reason.INVALID_SPEC, "spec.autoscaling.targetQueueDepth must be at least 1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSpecs")
  void badSpecsBecomeProblemsWithAReasonAndAMessage(String what, WorkerService ws, Reason reason, String message) {
    Validated<ServiceModel> v = translate(ws);
    assertThat(v.isValid()).isFalse();
    assertThat(Reason.of(v)).isEqualTo(reason);
    assertThat(v.message()).contains(message);
  }

  @Test
  void specMistakesComeBeforeMissingReferences() {
    Validated<ServiceModel> v = translate(ws("payment", s -> {
      s.getCommands().add(new CommandSpec("pay", "gentle"));
      s.getCommands().add(new CommandSpec("Bad", null));
    }));
    assertThat(Reason.of(v)).isEqualTo(Reason.INVALID_SPEC);
    assertThat(v.problems()).hasSize(2);
  }

  @Test
  void onlyUsableNamesAreClaimed() {
    assertThat(WorkerServiceTranslator.claimedServiceName(ws("payment", s -> {}))).contains("payment");
    assertThat(WorkerServiceTranslator.claimedServiceName(ws("a.b", s -> {}))).isEmpty();
    assertThat(WorkerServiceTranslator.claimedServiceName(ws("dlx", s -> {}))).isEmpty();
  }
}
