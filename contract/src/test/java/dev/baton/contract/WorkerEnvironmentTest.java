package dev.baton.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerEnvironmentTest {

  private static final ServiceModel MODEL = new ServiceModel("payment", QueueType.QUORUM,
      List.of(new ServiceModel.Command("pay", RetryStaircase.of(4, List.of("30s", "120s", "10m"))),
          new ServiceModel.Command("refund-all", RetryStaircase.NONE)),
      List.of(new ServiceModel.Subscription("stock_low", "inventory", "*.reserve.failed", RetryStaircase.NONE)));

  @Test
  void writesPlainVariablesAWorkerInAnyLanguageCanRead() {
    Map<String, String> env = new WorkerEnvironment(MODEL, 20).variables();
    assertThat(env).contains(
        entry("BATON_SERVICE", "payment"),
        entry("BATON_PREFETCH", "20"),
        entry("BATON_QUEUE_TYPE", "quorum"),
        entry("BATON_EVENT_EXCHANGE", "payment.event.topic.ex"),
        entry("BATON_RETRY_EXCHANGE", "payment.retry.direct.ex"),
        entry("BATON_COMMANDS", "pay,refund-all"),
        entry("BATON_SUBSCRIPTIONS", "stock_low"),
        entry("BATON_CONSUMER_PAY_QUEUE", "q.payment.pay"),
        entry("BATON_CONSUMER_PAY_MAX_ATTEMPTS", "4"),
        entry("BATON_CONSUMER_PAY_DELAYS", "30s,2m,10m"),
        entry("BATON_CONSUMER_PAY_RETRY_QUEUES", "q.retry.payment.pay.30s,q.retry.payment.pay.2m,q.retry.payment.pay.10m"),
        entry("BATON_CONSUMER_PAY_DEAD_LETTER_QUEUE", "q.dlx.payment.pay"),
        entry("BATON_CONSUMER_REFUND_ALL_MAX_ATTEMPTS", "1"),
        entry("BATON_CONSUMER_REFUND_ALL_DELAYS", ""),
        entry("BATON_CONSUMER_STOCK_LOW_SOURCE", "inventory"),
        entry("BATON_CONSUMER_STOCK_LOW_PATTERN", "*.reserve.failed"));
  }

  @Test
  void readsBackTheSameTopology() {
    WorkerEnvironment written = new WorkerEnvironment(MODEL, 20);
    WorkerEnvironment read = WorkerEnvironment.read(written.variables());
    assertThat(read.topology()).isEqualTo(written.topology());
    assertThat(read.prefetch()).isEqualTo(20);
  }

  private static final ServiceModel ALERTS = new ServiceModel("alerts", QueueType.CLASSIC, List.of(), List.of(
      new ServiceModel.Subscription("fulfilment_failed", new ServiceModel.WorkflowOutcomes("shop", "order-fulfilment",
          List.of(InstanceOutcome.FAILED, InstanceOutcome.COMPENSATED)), RetryStaircase.of(2, List.of("5s")))));

  @Test
  void aSubscriptionToOutcomesNamesItsWorkflowAndOutcomes() {
    assertThat(new WorkerEnvironment(ALERTS, 10).variables()).contains(
        entry("BATON_SUBSCRIPTIONS", "fulfilment_failed"),
        entry("BATON_CONSUMER_FULFILMENT_FAILED_QUEUE", "q.alerts.fulfilment_failed"),
        entry("BATON_CONSUMER_FULFILMENT_FAILED_WORKFLOW", "shop/order-fulfilment"),
        entry("BATON_CONSUMER_FULFILMENT_FAILED_OUTCOMES", "failed,compensated"))
        .doesNotContainKeys("BATON_CONSUMER_FULFILMENT_FAILED_SOURCE", "BATON_CONSUMER_FULFILMENT_FAILED_PATTERN");
  }

  @Test
  void readsBackASubscriptionToOutcomes() {
    WorkerEnvironment written = new WorkerEnvironment(ALERTS, 10);
    assertThat(WorkerEnvironment.read(written.variables()).topology()).isEqualTo(written.topology());
  }

  @Test
  void anUnknownOutcomeIsNamed() {
    Map<String, String> env = new java.util.HashMap<>(new WorkerEnvironment(ALERTS, 10).variables());
    env.put("BATON_CONSUMER_FULFILMENT_FAILED_OUTCOMES", "failed,lost");
    assertThatThrownBy(() -> WorkerEnvironment.read(env))
        .hasMessage("BATON_CONSUMER_FULFILMENT_FAILED_OUTCOMES: expected outcomes among succeeded, failed, "
            + "compensated, cancelled, got 'lost'");
  }

  @Test
  void namesTheMissingVariable() {
    assertThatThrownBy(() -> WorkerEnvironment.read(Map.of()))
        .hasMessageContaining("BATON_SERVICE");
    assertThatThrownBy(() -> WorkerEnvironment.read(Map.of("BATON_SERVICE", "sms", "BATON_SUBSCRIPTIONS", "x")))
        .hasMessageContaining("BATON_CONSUMER_X_SOURCE");
  }

  @Test
  void everyBadVariableIsNamedAtOnce() {
    Map<String, String> env = new java.util.HashMap<>(new WorkerEnvironment(MODEL, 20).variables());
    env.put("BATON_SERVICE", "Payment!");
    env.put("BATON_PREFETCH", "ten");
    env.put("BATON_QUEUE_TYPE", "stream");
    env.put("BATON_CONSUMER_PAY_DELAYS", "30s,soon");
    env.put("BATON_CONSUMER_REFUND_ALL_MAX_ATTEMPTS", "3");
    assertThatThrownBy(() -> WorkerEnvironment.read(env))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage("BATON_SERVICE: expected a service name (lower-case letters, digits and '-'), got 'Payment!'; "
            + "BATON_PREFETCH: expected a whole number of at least 1, got 'ten'; "
            + "BATON_QUEUE_TYPE: expected one of classic, quorum, got 'stream'; "
            + "BATON_CONSUMER_PAY_DELAYS: expected a comma list of durations such as 30s,2m, got '30s,soon'; "
            + "BATON_CONSUMER_REFUND_ALL_DELAYS: required when BATON_CONSUMER_REFUND_ALL_MAX_ATTEMPTS is 3, "
            + "e.g. 30s,2m");
  }

  @Test
  void theQueueTypeIsReadInAnyCase() {
    Map<String, String> env = new java.util.HashMap<>(new WorkerEnvironment(MODEL, 20).variables());
    env.put("BATON_QUEUE_TYPE", "QUORUM");
    assertThat(WorkerEnvironment.read(env).model().queueType()).isEqualTo(QueueType.QUORUM);
  }
}
