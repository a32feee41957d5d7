package dev.baton.operator.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class QueueGaugesTest {

  @Test
  void retainingOneServicesQueuesLeavesEveryOtherServicesGauges() {
    OperatorMetrics metrics = new OperatorMetrics();
    metrics.consumerQueue("payment", "q.payment.pay", 3, 1);
    metrics.consumerQueue("payment", "q.payment.refund", 0, 1);
    metrics.consumerQueue("billing", "q.billing.bill", 7, 2);
    metrics.deadLetters("billing", "q.dlx.billing.bill", 2);

    metrics.retainConsumerQueues("payment", Set.of("q.payment.pay"));
    metrics.retainDeadLetterQueues("payment", Set.of());

    String scraped = metrics.scrape();
    assertThat(scraped).contains("queue=\"q.payment.pay\"").doesNotContain("q.payment.refund")
        .contains("queue=\"q.billing.bill\"").contains("queue=\"q.dlx.billing.bill\"");
  }

  @Test
  void aForgottenServiceLosesAllItsGaugesAndMayComeBack() {
    OperatorMetrics metrics = new OperatorMetrics();
    metrics.consumerQueue("payment", "q.payment.pay", 3, 1);

    metrics.retainConsumerQueues("payment", Set.of());
    assertThat(metrics.scrape()).doesNotContain("q.payment.pay");

    metrics.consumerQueue("payment", "q.payment.pay", 4, 1);
    assertThat(metrics.scrape()).contains("baton_queue_messages{queue=\"q.payment.pay\",service=\"payment\"} 4.0");
  }
}
